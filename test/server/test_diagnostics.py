"""Live anti-cheat diagnostics over LSP: exact ranges, rule codes, related information, honest files clean,
superseded versions dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_harness import diagnostics_for, open_doc, start_client, stop_client, wait_for
from lsprotocol import types

STEP = "convnet/steps/step_1_model_to_kernels"
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _range_of(path: Path, needle: str, occurrence: int = 0) -> types.Range:
    lines = path.read_text().splitlines()
    found = [(i, ln.index(needle)) for i, ln in enumerate(lines) if needle in ln]
    line, col = found[occurrence]
    return types.Range(types.Position(line, col), types.Position(line, col + len(needle)))


async def test_cheats_get_exact_ranges_codes_and_related(client, module_workspace: Path) -> None:
    path = module_workspace / "cheats" / "cheat_functional.py"
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, 1)
    by_code = {(d.code, d.range.start.line): d for d in diags}
    relu = by_code[("HD101", _range_of(path, "F.relu(y)").start.line)]
    assert relu.range == _range_of(path, "F.relu(y)")
    assert relu.source == "hdecomp"
    assert relu.severity == types.DiagnosticSeverity.Error
    assert "relu" in relu.message and "kernel child" in relu.message  # says what is allowed instead
    assert relu.data["op"] == "relu"
    alias = by_code[("HD102", _range_of(path, "act(y)").start.line)]
    assert alias.range.start == _range_of(path, "act(y)").start
    assert alias.related_information, "an aliased cheat points at the alias definition"
    related = alias.related_information[0]
    assert related.location.uri == uri
    assert related.location.range.start.line == _range_of(path, "act = F.gelu").start.line
    matmul = by_code[("HD101", _range_of(path, "torch.matmul(z, z.t())").start.line)]
    assert matmul.range == _range_of(path, "torch.matmul(z, z.t())")


async def test_construction_and_own_state_are_errors(client, module_workspace: Path) -> None:
    path = module_workspace / "cheats" / "cheat_init.py"
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, 1)
    codes = {d.code for d in diags}
    assert any(str(c).startswith("HD2") for c in codes), codes
    init_lines = {_range_of(path, "nn.Linear(4, 5)").start.line, _range_of(path, "nn.Parameter").start.line}
    flagged = {d.range.start.line for d in diags if str(d.code).startswith("HD2")}
    assert init_lines <= flagged
    assert all(d.severity == types.DiagnosticSeverity.Error for d in diags if str(d.code)[:3] in ("HD1", "HD2"))


async def test_columns_are_utf16(client, module_workspace: Path) -> None:
    path = module_workspace / "cheats" / "cheat_unicode.py"
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, 1)
    softmax = [d for d in diags if d.code == "HD101"]
    assert softmax and softmax[0].range == _range_of(path, "F.softmax(x, dim=-1)")


async def test_honest_refactor_and_plain_components_are_clean(client, module_workspace: Path) -> None:
    honest = open_doc(client, module_workspace / STEP / "refactored.py")
    component = open_doc(client, module_workspace / STEP / "children" / "relu.py")
    assert await diagnostics_for(client, honest, 1) == []
    assert await diagnostics_for(client, component, 1) == []


async def test_edits_update_diagnostics_and_torch_stays_unloaded(client, module_workspace: Path) -> None:
    path = module_workspace / STEP / "refactored.py"
    uri = open_doc(client, path, version=10)
    assert await diagnostics_for(client, uri, 10) == []
    line = _range_of(path, "x = self.relu(x)")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=11),
        content_changes=[types.TextDocumentContentChangePartial(range=line, text="x = torch.relu(x)")]))
    diags = await diagnostics_for(client, uri, 11)
    assert [(d.code, d.range.start.line) for d in diags] == [("HD101", line.start.line)]
    info = await client.protocol.send_request_async("hdecomp/debugInfo", {})
    assert info.torchLoaded is False
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))


async def test_superseded_versions_are_dropped(workspace: Path) -> None:
    client = await start_client(workspace, init_options={"debounceMs": 150})
    try:
        path = workspace / "cheats" / "cheat_functional.py"
        uri = open_doc(client, path)
        await diagnostics_for(client, uri, 1)
        text = path.read_text()
        for version in (2, 3, 4):
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(
                    text=text + f"\n# edit {version}\n" + ("x = 1\n" if version == 4 else ""))]))
        await diagnostics_for(client, uri, 4)
        versions = [p.version for p in client.publications if p.uri == uri]
        assert 2 not in versions and 3 not in versions, versions
    finally:
        await stop_client(client)


@pytest.mark.parametrize("name", ["cheat_functional.py", "cheat_init.py"])
async def test_runtime_violations_from_the_last_verify_run_are_merged(client, module_workspace: Path, name: str) -> None:
    import json

    path = module_workspace / "cheats" / name
    result = path.parent / "verification_result.json"
    result.write_text(json.dumps({"status": "FAIL", "anticheat": {"status": "FAIL", "violations": [
        {"rule": "HD401", "kind": "runtime", "message": "aten::mul ran outside any child", "line_number": 5,
         "related": [{"message": "mul executed here", "file": str(path.parent / "helper.py"),
                      "range": {"line": 3, "col": 4, "end_line": 3, "end_col": 9}}]}]}}))
    uri = open_doc(client, path, version=20)
    diags = await diagnostics_for(client, uri, 20)
    runtime = [d for d in diags if d.code == "HD401"]
    assert runtime and runtime[0].range.start.line == 4 and "last verify run" in runtime[0].message
    related = runtime[0].related_information or []
    assert [(r.location.uri, r.location.range.start.line) for r in related] == [
        ((path.parent / "helper.py").as_uri(), 2)]
    result.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=result.as_uri(), type=types.FileChangeType.Deleted)]))
    await wait_for(lambda: not any(d.code == "HD401" for d in client.diagnostics.get(uri, [])),
                   what="runtime violation cleared")
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))


# ---- issue 12: the squiggle (or its absence) for the new anti-cheat cases of the corpus --------------------

CORPUS = Path(__file__).resolve().parents[1] / "python" / "corpus"


def _corpus_step(workspace: Path, case: str) -> Path:
    """A private copy of one corpus step folder inside the test workspace; its refactored.py."""
    import shutil

    dest = workspace / "corpus" / case
    if not dest.exists():
        shutil.copytree(CORPUS / case, dest, ignore=shutil.ignore_patterns("__pycache__", "verification_result.json"))
    return dest / "refactored.py"


async def _diags_of(client, workspace: Path, case: str) -> tuple[Path, list[types.Diagnostic]]:
    path = _corpus_step(workspace, case)
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri, 1)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    return path, diags


@pytest.mark.parametrize("case", ["honest_sys_path_step_dir", "honest_sys_path_pathlib", "honest_ctor_plain_data",
                                  "honest_loop_residuals", "honest_wrapper_children"])
async def test_issue12_honest_steps_have_no_squiggles(client, module_workspace: Path, case: str) -> None:
    _path, diags = await _diags_of(client, module_workspace, case)
    assert diags == [], [(d.code, d.message) for d in diags]


@pytest.mark.parametrize(("case", "code", "needle"), [
    ("cheat_sys_path_parent", "HD211", "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))"),
    ("cheat_ctor_torch_fn", "HD214", "torch.sigmoid"),
    ("cheat_ctor_module_class", "HD214", "nn.GELU"),
    ("cheat_loop_sum", "HD116", "total + x[:, t]"),
    ("cheat_sum_generator", "HD116", "sum(x[:, t] for t in range(x.shape[1]))"),
])
async def test_issue12_cheats_are_squiggled_where_they_are(client, module_workspace: Path, case: str, code: str,
                                                            needle: str) -> None:
    path, diags = await _diags_of(client, module_workspace, case)
    hits = [d for d in diags if d.code == code]
    assert [d.range for d in hits] == [_range_of(path, needle)], [(d.code, d.range, d.message) for d in diags]
    assert hits[0].severity == types.DiagnosticSeverity.Error and hits[0].source == "hdecomp"


async def test_issue12_structural_findings_of_the_last_verify_run_are_shown(client, module_workspace: Path) -> None:
    """HD313 / HD304 need a run: after verify-step, the editor shows them (the honest thin-wrapper step, which
    used to get HD304, shows nothing)."""
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step

    shown: dict[str, set[str]] = {}
    for case in ("cheat_ctor_torch_fn", "honest_wrapper_children"):
        path = _corpus_step(module_workspace, case)
        verify_step(path.parent / "original.py", path, VerifyOptions(num_trials=1),
                    output=path.parent / "verification_result.json")
        uri = open_doc(client, path, version=30)
        diags = await diagnostics_for(client, uri, 30)
        shown[case] = {str(d.code) for d in diags}
        if case == "cheat_ctor_torch_fn":
            hd313 = next(d for d in diags if d.code == "HD313")
            assert "last verify run" in hd313.message and hd313.range.start.line == _range_of(
                path, "self.act = Pointwise").start.line
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert shown == {"cheat_ctor_torch_fn": {"HD214", "HD313"}, "honest_wrapper_children": set()}
