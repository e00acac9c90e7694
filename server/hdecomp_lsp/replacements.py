"""Kernel replacements (`hdecomp replace`) as the editor sees them: the `<stem>_new.py` beside a kernel file,
the kernel's last `replacements/<kernel id>/replacement_result.json`, the lens title and command summary made
from it, and the tree's active replacements (its top-level `replacements` map). Pure text and JSON reading:
no torch import, no user code run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hdecomp.formats.layout import is_replacement_candidate, read_result_file
from hdecomp.formats.replacements import REPLACEMENTS_DIR, active_replacements
from hdecomp.formats.replacements import RESULT_FILE as REPLACEMENT_RESULT
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.vocab.levels import LEVEL_DIRS

NEW_SUFFIX = "_new"


def kernel_root(kernel: str | Path) -> Path | None:
    """The decomposition folder of a kernel file (`<root>/level_0_kernel/<file>.py`), else None."""
    file = Path(kernel).resolve()
    root = file.parent.parent
    if file.parent.name != LEVEL_DIRS[0] or not (root / TREE_FILE).is_file():
        return None
    return root


def tree_root(path: str | Path) -> Path | None:
    """The nearest folder above `path` holding a decomposition_tree.json (a kernel file, a step's copy)."""
    for parent in Path(path).resolve().parents:
        if (parent / TREE_FILE).is_file():
            return parent
    return None


def replacement_file(kernel: str | Path) -> Path | None:
    """`<stem>_new.py` beside a kernel file of a decomposition when it defines `class ModelNew`, else None."""
    file = Path(kernel)
    if file.stem.endswith(NEW_SUFFIX) or kernel_root(file) is None:
        return None
    new = file.with_name(f"{file.stem}{NEW_SUFFIX}.py")
    return new if is_replacement_candidate(new) else None


def result_file(kernel: str | Path) -> Path | None:
    """The kernel's replacement_result.json when there is one: `replacements/<id>/`, where the id is that of
    the tree's first node whose file it is (as `hdecomp replace` names it), else the file's stem."""
    file = Path(kernel).resolve()
    root = kernel_root(file) or tree_root(file)
    if root is None:
        return None
    ids: list[str] = []
    try:
        tree = DecompositionTree.load(root / TREE_FILE)
        ids += [i for i, node in tree.nodes.items() if tree.abs_path(node) == file]
    except TreeFormatError:
        pass
    for node_id in [*ids, file.stem]:
        candidate = root / REPLACEMENTS_DIR / node_id / REPLACEMENT_RESULT
        if candidate.is_file():
            return candidate
    return None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _timing(result: dict[str, Any]) -> tuple[float | None, float | None]:
    timing = result.get("timing")
    if not isinstance(timing, dict):
        return None, None
    return _num(timing.get("speedup")), _num(timing.get("model_speedup"))


def _reason(result: dict[str, Any]) -> str:
    lines = [ln.strip() for ln in str(result.get("reason") or result.get("error") or "").splitlines() if ln.strip()]
    return lines[0] if lines else ""


def lens_title(result: dict[str, Any] | None, new_name: str, *, stale: bool = False) -> str:
    """`✓ Replacement PASS · 1.84× kernel · 1.12× model`, `✗ Replacement FAIL · <reason>`,
    `⚠ Replacement ERROR · <reason>` (+ ` · edited since`), or `Verify replacement (<new file>)`."""
    status = result.get("status") if isinstance(result, dict) else None
    if not isinstance(result, dict) or status not in ("PASS", "FAIL", "ERROR"):
        return f"Verify replacement ({new_name})"
    if status == "PASS":
        speedup, model_speedup = _timing(result)
        parts = ["✓ Replacement PASS"]
        if speedup is not None:
            parts.append(f"{speedup:.2f}× kernel")
        if model_speedup is not None:
            parts.append(f"{model_speedup:.2f}× model")
    else:
        parts = ["✗ Replacement FAIL" if status == "FAIL" else "⚠ Replacement ERROR"]
        if reason := _reason(result):
            parts.append(reason[:60])
    if stale:
        parts.append("edited since")
    return " · ".join(parts)


def title_for(kernel: str, new: str) -> str:
    """The lens title of a kernel file with its replacement candidate `new`, from the last result."""
    found = result_file(kernel)
    result = read_result_file(found) if found is not None else None
    stale = False
    if found is not None and result is not None:
        try:
            stale = Path(new).stat().st_mtime > found.stat().st_mtime + 1e-3
        except OSError:
            stale = False
    return lens_title(result, Path(new).name, stale=stale)


def summary(result: dict[str, Any] | None) -> str:
    """The command's summary: `PASS: kernel speedup 1.84×, model speedup 1.12×` (below 1: slower), or the
    FAIL / ERROR reason."""
    if not isinstance(result, dict) or result.get("status") not in ("PASS", "FAIL", "ERROR"):
        return ""
    if result["status"] != "PASS":
        return _reason(result) or str(result["status"])
    speedup, model_speedup = _timing(result)
    parts = [f"kernel speedup {speedup:.2f}×" if speedup is not None else "",
             f"model speedup {model_speedup:.2f}×" if model_speedup is not None else ""]
    return "PASS: " + ", ".join(p for p in parts if p) if any(parts) else "PASS"


def _abs(root: Path, value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return str((root / value).resolve()) if not os.path.isabs(value) else os.path.normpath(value)


def replaced_nodes(tree: DecompositionTree, root: Path) -> dict[str, dict[str, Any]]:
    """node id -> `{replacement, resultFile, speedup, modelSpeedup}` for every node an active replacement
    (the tree's `replacements` map) names: by its kernel node id, or any node whose file is its kernel file."""
    out: dict[str, dict[str, Any]] = {}
    for key, entry in active_replacements(root).items():
        payload = {"replacement": _abs(root, entry.get("replacement")), "resultFile": _abs(root, entry.get("result")),
                   "speedup": _num(entry.get("speedup")), "modelSpeedup": _num(entry.get("model_speedup"))}
        kernel = _abs(root, entry.get("kernel"))
        for node_id, node in tree.nodes.items():
            path = tree.abs_path(node)
            if node_id == key or (kernel is not None and path is not None and str(path) == kernel):
                out[node_id] = payload
    return out
