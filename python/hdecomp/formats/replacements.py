"""The active kernel replacements of a decomposition (`hdecomp replace`): the `replacements` map of
decomposition_tree.json, `{kernel id: {kernel, replacement, result, speedup, model_speedup, tolerance}}`,
paths relative to the decomposition folder. Torch-free: the CLI, compose, the pipeline and the language
server read it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hdecomp.formats.tree import TREE_FILE, DecompositionTree

REPLACEMENTS_DIR = "replacements"
RESULT_FILE = "replacement_result.json"
KEY = "replacements"


def active_replacements(root: str | Path) -> dict[str, dict[str, Any]]:
    """kernel id -> its active replacement's entry (those whose files exist); {} when none."""
    root = Path(root)
    try:
        tree = DecompositionTree.load(root / TREE_FILE)
    except Exception:   # no tree, or an unreadable one: no replacements (the caller reports the tree itself)
        return {}
    entries = tree.extra.get(KEY)
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(v, dict) and isinstance(v.get("kernel"), str)
            and isinstance(v.get("replacement"), str) and (root / v["replacement"]).is_file()}


def replaced_files(root: str | Path) -> dict[Path, Path]:
    """kernel file (resolved) -> the file whose ModelNew replaces it, for every active replacement."""
    root = Path(root)
    return {(root / e["kernel"]).resolve(): (root / e["replacement"]).resolve()
            for e in active_replacements(root).values()}


def replacement_tolerance(root: str | Path) -> float | None:
    """The loosest tolerance any active replacement was proved at (None: none active)."""
    tols = [float(e["tolerance"]) for e in active_replacements(root).values()
            if isinstance(e.get("tolerance"), (int, float))]
    return max(tols) if tols else None


def set_replacement(root: str | Path, kernel_id: str, entry: dict[str, Any] | None) -> bool:
    """Make `entry` the kernel's active replacement (None: deactivate it); True when the tree changed."""
    root = Path(root)
    tree = DecompositionTree.load(root / TREE_FILE)
    entries = tree.extra.get(KEY)
    entries = dict(entries) if isinstance(entries, dict) else {}
    if entry is None:
        if kernel_id not in entries:
            return False
        del entries[kernel_id]
    else:
        entries[kernel_id] = entry
    if entries:
        tree.extra[KEY] = dict(sorted(entries.items()))
    else:
        tree.extra.pop(KEY, None)
    tree.save(root / TREE_FILE)
    return True


__all__ = ["KEY", "REPLACEMENTS_DIR", "RESULT_FILE", "active_replacements", "replaced_files",
           "replacement_tolerance", "set_replacement"]
