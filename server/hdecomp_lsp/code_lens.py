"""CodeLens: "Verify step" on `class RefactoredModel` (title = the last verification result, resolved lazily)
and "Run self-test" on a component's `class Model`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hdecomp_lsp.convert import lens_title
from hdecomp_lsp.diagnostics import is_refactored_file, result_file_for
from hdecomp_lsp.uris import uri_to_path

if TYPE_CHECKING:
    from hdecomp_lsp.server import HdecompLanguageServer

_CLASS = re.compile(r"^class[ \t]+(RefactoredModel|Model)\b", re.MULTILINE)
_COMPONENT = re.compile(r"^def[ \t]+get_inputs\b", re.MULTILINE)
_MAIN_GUARD = re.compile(r"^if[ \t]+__name__[ \t]*==[ \t]*['\"]__main__['\"]", re.MULTILINE)

VERIFY_COMMAND = "hdecomp.server.verifyStep"
SELF_TEST_COMMAND = "hdecomp.server.runSelfTest"


def read_result(path: str) -> dict[str, Any] | None:
    from hdecomp.results import read_json

    try:
        data = read_json(result_file_for(path))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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
    return lenses


def resolve(lens: types.CodeLens) -> types.CodeLens:
    data = lens.data if isinstance(lens.data, dict) else {}
    uri = data.get("uri")
    if not isinstance(uri, str):
        return lens
    if data.get("kind") == "verify":
        lens.command = types.Command(title=verify_title(uri_to_path(uri)), command=VERIFY_COMMAND, arguments=[uri])
    elif data.get("kind") == "selftest":
        lens.command = types.Command(title="Run self-test", command=SELF_TEST_COMMAND, arguments=[uri])
    return lens


def register(server: HdecompLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    def code_lens(ls: HdecompLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return lenses_for(doc.uri, doc.source)

    @server.feature(types.CODE_LENS_RESOLVE)
    def code_lens_resolve(ls: HdecompLanguageServer, lens: types.CodeLens) -> types.CodeLens:
        return resolve(lens)
