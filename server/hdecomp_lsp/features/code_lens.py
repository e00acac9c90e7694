"""CodeLens: "Verify step" on `class RefactoredModel` (title = the last verification result, resolved lazily),
"Run self-test" on a component's `class Model`, "Profile · x % of model time" on a kernel or fusion
file of a profiled decomposition (`hdecomp profile` wrote its verification/profile.json), and "Verify
replacement" on a kernel file with a `<stem>_new.py` beside it (titled with its last `hdecomp replace`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hdecomp.formats.layout import read_profile_components, read_result_file
from hdecomp.formats.tree import TREE_FILE
from lsprotocol import types

from hdecomp_lsp import replacements
from hdecomp_lsp.command_ids import PROFILE, RUN_SELF_TEST, VERIFY_REPLACEMENT, VERIFY_STEP
from hdecomp_lsp.features.diagnostics import is_refactored_file, result_file_for
from hdecomp_lsp.state import HdecompLanguageServer
from hdecomp_lsp.uris import path_to_uri, uri_to_path

_CLASS = re.compile(r"^class[ \t]+(RefactoredModel|Model)\b", re.MULTILINE)
_COMPONENT = re.compile(r"^def[ \t]+get_inputs\b", re.MULTILINE)
_MAIN_GUARD = re.compile(r"^if[ \t]+__name__[ \t]*==[ \t]*['\"]__main__['\"]", re.MULTILINE)


def profile_entry(path: str) -> tuple[Path, dict[str, Any]] | None:
    """(decomposition root, the component's entry in its verification/profile.json) for a component file of
    a profiled decomposition (`level_N_*/file.py`), else None. Pure JSON reading."""
    file = Path(path).resolve()
    root = file.parent.parent
    if not file.parent.name.startswith("level_") or not (root / TREE_FILE).is_file():
        return None
    rel = file.relative_to(root).as_posix()
    for c in read_profile_components(root).values():
        if c.get("path") == rel and isinstance(c.get("share_of_model"), (int, float)):
            return root, c
    return None


def profile_title(path: str) -> str:
    found = profile_entry(path)
    if found is None:
        return "Profile"
    share = 100 * float(found[1]["share_of_model"])
    return f"Profile · {share:.1f} % of model time"


def lens_title(result: dict[str, Any] | None, *, stale: bool = False) -> str:
    """`✓ PASS · max diff 2.4e-07 · 3 trials`, `✗ FAIL · 2 violations`, `⚠ ERROR · ...`, or `Verify step`."""
    if not isinstance(result, dict) or result.get("status") not in ("PASS", "FAIL", "ERROR"):
        return "Verify step"
    status = result["status"]
    num: dict[str, Any] = result["numerical_comparison"] if isinstance(result.get("numerical_comparison"),
                                                                        dict) else {}
    anticheat: dict[str, Any] = result["anticheat"] if isinstance(result.get("anticheat"), dict) else {}
    violations = anticheat.get("violations") if isinstance(anticheat.get("violations"), list) else []
    max_diff = num.get("max_diff_across_trials")
    trials = num.get("num_trials")
    parts: list[str]
    if status == "PASS":
        parts = ["✓ PASS"]
        if isinstance(max_diff, (int, float)):
            parts.append(f"max diff {max_diff:.1e}")
        if isinstance(trials, int):
            parts.append(f"{trials} trial" + ("" if trials == 1 else "s"))
    elif status == "FAIL":
        parts = ["✗ FAIL"]
        if violations:
            parts.append(f"{len(violations)} violation" + ("" if len(violations) == 1 else "s"))
        elif isinstance(max_diff, (int, float)):
            parts.append(f"max diff {max_diff:.1e}")
        elif result.get("fail_reason"):
            parts.append(str(result["fail_reason"]).splitlines()[0][:60])
    else:
        parts = ["⚠ ERROR"]
        err = result.get("error") or result.get("fail_reason")
        if err:
            parts.append(str(err).splitlines()[0][:60])
    if stale:
        parts.append("edited since")
    return " · ".join(parts)


def read_result(path: str) -> dict[str, Any] | None:
    """The verification result of the refactored file at `path`, None when there is none yet."""
    return read_result_file(result_file_for(path))


def verify_title(path: str) -> str:
    result = read_result(path)
    stale = False
    if result is not None:
        try:
            stale = Path(path).stat().st_mtime > result_file_for(path).stat().st_mtime + 1e-3
        except OSError:
            stale = False
    return lens_title(result, stale=stale)


def lenses_for(uri: str, source: str) -> list[types.CodeLens]:
    path = uri_to_path(uri)
    refactored = is_refactored_file(path, source)
    # a component with a self-test: `python file.py` prints PASS and exits 0
    component = bool(_COMPONENT.search(source)) and bool(_MAIN_GUARD.search(source))
    lenses = []
    for m in _CLASS.finditer(source):
        line = source.count("\n", 0, m.start())
        rng = types.Range(start=types.Position(line, 0), end=types.Position(line, len(m.group(0))))
        if m.group(1) == "RefactoredModel" and refactored:
            lenses.append(types.CodeLens(range=rng, data={"kind": "verify", "uri": uri}))
        elif m.group(1) == "Model" and component and not refactored:
            lenses.append(types.CodeLens(range=rng, data={"kind": "selftest", "uri": uri}))
            found = profile_entry(path)
            if found is not None:
                lenses.append(types.CodeLens(range=rng, data={"kind": "profile", "uri": uri,
                                                              "root": found[0].as_uri()}))
            new = replacements.replacement_file(path)
            if new is not None:
                lenses.append(types.CodeLens(range=rng, data={"kind": "replacement", "uri": uri,
                                                              "new": path_to_uri(new)}))
    return lenses


def resolve(lens: types.CodeLens) -> types.CodeLens:
    data = lens.data if isinstance(lens.data, dict) else {}
    uri = data.get("uri")
    if not isinstance(uri, str):
        return lens
    if data.get("kind") == "verify":
        lens.command = types.Command(title=verify_title(uri_to_path(uri)), command=VERIFY_STEP, arguments=[uri])
    elif data.get("kind") == "selftest":
        lens.command = types.Command(title="Run self-test", command=RUN_SELF_TEST, arguments=[uri])
    elif data.get("kind") == "profile" and isinstance(data.get("root"), str):
        lens.command = types.Command(title=profile_title(uri_to_path(uri)), command=PROFILE,
                                     arguments=[data["root"]])
    elif data.get("kind") == "replacement" and isinstance(data.get("new"), str):
        title = replacements.title_for(uri_to_path(uri), uri_to_path(data["new"]))
        lens.command = types.Command(title=title, command=VERIFY_REPLACEMENT, arguments=[uri, data["new"]])
    return lens


def register(server: HdecompLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    def code_lens(ls: HdecompLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return lenses_for(doc.uri, doc.source)

    @server.feature(types.CODE_LENS_RESOLVE)
    def code_lens_resolve(ls: HdecompLanguageServer, lens: types.CodeLens) -> types.CodeLens:
        return resolve(lens)
