"""When diagnostics are computed after a change (server/hdecomp_lsp/diagnostics.py): with the default
settings the delay adapts to the document's analysis cost (cheap: at once, after yielding to queued
notifications; expensive: a debounce as long as the analysis, capped); an explicit debounceMs is a fixed
debounce. Whatever the timing, superseded versions are never published, the newest always is, and
incremental and whole-document sync give what a fresh analysis gives.

No assertion here depends on how fast the machine is: the decisions are checked on their inputs, and the
event-loop tests only order notifications by loop turns (speed is measured in bench/lsp)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hdecomp_lsp.app import build_server
from hdecomp_lsp.features import diagnostics
from hdecomp_lsp.features.diagnostics import (
    CHEAP_S,
    SETTLE_YIELDS,
    adaptive_delay,
    change_delay,
    compute_diagnostics,
    publish_now,
    schedule,
    updated_estimate,
)
from hdecomp_lsp.state import DEFAULT_DEBOUNCE_S, HdecompLanguageServer
from lsp_harness import diagnostics_for, server_idle, start_client, stop_client
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
URI = "file:///ws/steps/step_1_x/refactored.py"
SOURCE = """import torch
import torch.nn as nn

from children.block import Model as Block


class RefactoredModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        h = self.block(x)
        h = h.reshape(h.shape[0], -1)
        return h


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return []
"""
CONVERTER = default_converter()
RETURN_LINE = SOURCE.split("\n").index("        return h")


def keystroke(v: int) -> str:
    """Version `v`'s text of the `return h` line: a cheat on even versions, honest on odd ones."""
    return f"        return torch.relu(h)  # v{v}" if v % 2 == 0 else f"        return h  # v{v}"


def text_with(line: str) -> str:
    lines = SOURCE.split("\n")
    lines[RETURN_LINE] = line
    return "\n".join(lines)


def fresh(uri: str, text: str) -> list[types.Diagnostic]:
    """What a fresh analysis of `text` gives (a new server object: no tree, no memo)."""
    return compute_diagnostics(HdecompLanguageServer(), uri, text)


def wire(diags: list[types.Diagnostic]) -> Any:
    """Diagnostics as sent over the wire (a received one holds tuples where a computed one has lists)."""
    return CONVERTER.unstructure(list(diags))


class InProcess:
    """The real server object with a workspace and the publications it sends recorded, driven without a
    client: notifications are applied the way pygls applies them (workspace update, then the handler's
    scheduling) on the test's event loop."""

    def __init__(self) -> None:
        self.ls = build_server()
        self.ls.protocol._workspace = Workspace(None)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.ls.text_document_publish_diagnostics = self.published.append  # type: ignore[method-assign]
        self.tasks: list[asyncio.Task[None]] = []

    def open(self, text: str = SOURCE, version: int = 1) -> None:
        self.ls.workspace.put_text_document(types.TextDocumentItem(uri=URI, language_id="python",
                                                                   version=version, text=text))
        schedule(self.ls, URI, delay=0)
        self.tasks.append(self.ls.pending_diagnostics[URI])

    def change(self, version: int, change: Any) -> asyncio.Task[None]:
        self.ls.workspace.update_text_document(types.VersionedTextDocumentIdentifier(uri=URI, version=version),
                                               change)
        schedule(self.ls, URI)
        task = self.ls.pending_diagnostics[URI]
        self.tasks.append(task)
        return task

    def type_line(self, version: int, line: str, *, full: bool = False) -> asyncio.Task[None]:
        """Replace the `return h` line: as a ranged (incremental) change, or as the whole new text."""
        if full:
            return self.change(version, types.TextDocumentContentChangeWholeDocument(text=text_with(line)))
        current = self.ls.workspace.get_text_document(URI).source.split("\n")[RETURN_LINE]
        return self.change(version, types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(RETURN_LINE, 0), types.Position(RETURN_LINE, len(current))),
            text=line))

    async def settled(self) -> None:
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks.clear()

    @property
    def analysis(self) -> Any:
        return self.ls.document_analyses[URI]

    def versions(self) -> list[int | None]:
        return [p.version for p in self.published]


# -- the decision ------------------------------------------------------------------------------------------
def test_adaptive_delay_is_none_when_cheap_proportional_when_expensive_and_capped() -> None:
    cap = DEFAULT_DEBOUNCE_S
    assert adaptive_delay(None, cap) == 0.0  # nothing known yet: at once
    assert adaptive_delay(0.0, cap) == 0.0
    assert adaptive_delay(CHEAP_S * 0.9, cap) == 0.0
    assert adaptive_delay(CHEAP_S * 2, cap) == pytest.approx(CHEAP_S * 2)  # wait as long as it costs
    assert adaptive_delay(cap * 5, cap) == cap  # never longer than the old fixed debounce
    assert adaptive_delay(cap * 5, 0.05) == 0.05
    # the moving estimate: the first cost as is, then half old, half new
    assert updated_estimate(None, 0.04) == pytest.approx(0.04)
    assert updated_estimate(0.04, 0.0) == pytest.approx(0.02)
    assert updated_estimate(0.02, 0.1) == pytest.approx(0.06)


def test_default_debounce_is_adaptive_and_an_explicit_one_is_fixed() -> None:
    run = InProcess()
    ls = run.ls
    assert ls.debounce_s is None  # adaptive, capped at DEFAULT_DEBOUNCE_S
    ls.workspace.put_text_document(types.TextDocumentItem(uri=URI, language_id="python", version=1, text=SOURCE))
    assert change_delay(ls, URI) is None  # no document analysis yet: at once
    compute_diagnostics(ls, URI, SOURCE)
    for cost, expected in ((None, None), (0.001, None), (CHEAP_S * 3, CHEAP_S * 3), (10.0, DEFAULT_DEBOUNCE_S)):
        run.analysis.cost_s = cost
        assert change_delay(ls, URI) == (None if expected is None else pytest.approx(expected)), cost
    # what server.py's initialize handler sets for debounceMs: 150 and 0, whatever the cost
    for fixed in (0.15, 0.0):
        ls.debounce_s = fixed
        for cost in (None, 0.001, 10.0):
            run.analysis.cost_s = cost
            assert change_delay(ls, URI) == fixed


async def test_the_estimate_counts_re_analyses_after_edits_only() -> None:
    run = InProcess()
    run.open()
    await run.settled()
    assert run.versions() == [1]
    assert run.analysis.cost_s is None  # the first, whole analysis says nothing about an edit
    run.type_line(2, keystroke(2))
    await run.settled()
    first = run.analysis.cost_s
    assert isinstance(first, float) and first >= 0.0
    # re-publishing an unchanged text (save, a verify result) is free: it must not pull the estimate down
    schedule(run.ls, URI, delay=0)
    run.tasks.append(run.ls.pending_diagnostics[URI])
    await run.settled()
    assert run.analysis.cost_s == first
    assert run.versions() == [1, 2, 2]


# -- superseded work ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
@pytest.mark.parametrize("turns_between", [0, 1, SETTLE_YIELDS])
async def test_a_burst_of_20_changes_publishes_the_newest_version_only(full: bool, turns_between: int) -> None:
    """20 didChange notifications handled back to back, or `turns_between` event-loop turns apart (pygls
    hands over one message per few turns of its reader thread): a cheap document is analysed at once, but
    only after the queued notifications superseded it, so only the last version is analysed and published."""
    run = InProcess()
    run.open()
    await run.settled()
    tasks = []
    for v in range(2, 22):
        tasks.append(run.type_line(v, keystroke(v), full=full))
        for _ in range(turns_between):
            await asyncio.sleep(0)
    await run.settled()
    assert run.versions() == [1, 21]
    assert all(t.cancelled() for t in tasks[:-1])
    assert run.published[-1].diagnostics == fresh(URI, text_with(keystroke(21)))
    assert run.analysis.parser.full == 1  # the opening parse; every change since was spliced in


async def test_an_expensive_document_is_debounced_and_the_pending_analysis_dropped() -> None:
    run = InProcess()
    run.open()
    await run.settled()
    run.analysis.cost_s = CHEAP_S * 2  # as if its re-analyses had been expensive
    assert change_delay(run.ls, URI) == pytest.approx(CHEAP_S * 2)
    first = run.type_line(2, keystroke(2))
    for _ in range(SETTLE_YIELDS + 2):  # more turns than a cheap change waits: this one still waits
        await asyncio.sleep(0)
    second = run.type_line(3, keystroke(3))
    await run.settled()
    assert first.cancelled() and not second.cancelled()
    assert run.versions() == [1, 3]
    assert run.published[-1].diagnostics == fresh(URI, text_with(keystroke(3)))


async def test_a_result_for_a_superseded_version_is_not_published(monkeypatch: pytest.MonkeyPatch) -> None:
    """The version is checked again after the analysis: a change that arrived meanwhile publishes itself."""
    run = InProcess()
    run.open()
    await run.settled()
    analyze = compute_diagnostics

    def analysis_overtaken(ls: HdecompLanguageServer, uri: str, source: str, encoding: str = "utf-16") -> Any:
        out = analyze(ls, uri, source, encoding)
        if ls.workspace.get_text_document(uri).version == 2:  # v3 arrives while v2 is being analysed
            ls.workspace.update_text_document(
                types.VersionedTextDocumentIdentifier(uri=uri, version=3),
                types.TextDocumentContentChangeWholeDocument(text=text_with(keystroke(3))))
        return out

    run.ls.workspace.update_text_document(types.VersionedTextDocumentIdentifier(uri=URI, version=2),
                                          types.TextDocumentContentChangeWholeDocument(text=text_with(keystroke(2))))
    monkeypatch.setattr(diagnostics, "compute_diagnostics", analysis_overtaken)
    publish_now(run.ls, URI)
    assert run.versions() == [1]
    publish_now(run.ls, URI)
    assert run.versions() == [1, 3]
    assert run.published[-1].diagnostics == fresh(URI, text_with(keystroke(3)))


async def test_a_whole_document_change_of_one_line_is_analysed_incrementally() -> None:
    """A client with full sync sends the whole text: the parser diffs it against the previous text and
    re-parses only the changed statement, like a ranged change."""
    run = InProcess()
    run.open()
    await run.settled()
    assert (run.analysis.parser.spliced, run.analysis.parser.full) == (0, 1)
    for v in range(2, 6):
        run.type_line(v, keystroke(v), full=True)
        await run.settled()
        assert run.published[-1].version == v
        assert run.published[-1].diagnostics == fresh(URI, text_with(keystroke(v)))
    assert (run.analysis.parser.spliced, run.analysis.parser.full) == (4, 1)


# -- the real server, default settings ---------------------------------------------------------------------
DEFAULTS = {"debounceMs": None}  # the harness sets debounceMs 0; None is ignored: the server's default


def _line_range(text: str, line: int) -> types.Range:
    return types.Range(types.Position(line, 0), types.Position(line, len(text.split("\n")[line])))


async def test_default_settings_incremental_and_full_sync_match_a_fresh_analysis(workspace: Path) -> None:
    client = await start_client(workspace, init_options=DEFAULTS)
    try:
        info = await client.protocol.send_request_async("hdecomp/debugInfo", {})
        # the default: adaptive (no fixed debounce), at most 200 ms
        assert info.debounceMs is None and info.debounceMaxMs == 200
        path = workspace / "cheats" / "cheat_functional.py"
        text = path.read_text()
        uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        assert wire(await diagnostics_for(client, uri, 1)) == wire(fresh(uri, text))
        lines = text.split("\n")
        target = next(i for i, ln in enumerate(lines) if "F.relu(y)" in ln)
        original = lines[target]
        edits = [original.replace("F.relu(y)", "y"), original + "  # note", original.replace("F.relu(y)", "y"),
                 original, original.replace("F.relu(y)", "torch.sigmoid(y)")]
        for v, new_line in enumerate(edits, start=2):
            full = v % 2 == 1
            rng = _line_range(text, target)
            lines = text.split("\n")
            lines[target] = new_line
            text = "\n".join(lines)
            change: types.TextDocumentContentChangeEvent = (
                types.TextDocumentContentChangeWholeDocument(text=text) if full
                else types.TextDocumentContentChangePartial(range=rng, text=new_line))
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v), content_changes=[change]))
            got = await diagnostics_for(client, uri, v)
            assert wire(got) == wire(fresh(uri, text)), (v, "full" if full else "incremental")
        assert any(d.code == "HD101" and d.range.start.line == target for d in got)  # the sigmoid
    finally:
        await stop_client(client)


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
async def test_default_settings_burst_publishes_the_last_version_and_nothing_stale(workspace: Path,
                                                                                   full: bool) -> None:
    """20 changes sent at once: the newest version is published with a fresh analysis' diagnostics, and
    no version is published after a newer one (how many of the older ones get analysed first depends on
    how the server's reader thread interleaves: not asserted)."""
    client = await start_client(workspace, init_options=DEFAULTS)
    try:
        path = workspace / "cheats" / "cheat_functional.py"
        text = path.read_text()
        uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        await diagnostics_for(client, uri, 1)
        target = len(text.split("\n")) - 1
        for v in range(2, 22):
            rng = _line_range(text, target)
            new_line = f"# edit {v}" + ("\nx = torch.relu(x)" if v == 21 else "")
            lines = text.split("\n")
            lines[target] = new_line
            text = "\n".join(lines)
            change: types.TextDocumentContentChangeEvent = (
                types.TextDocumentContentChangeWholeDocument(text=text) if full
                else types.TextDocumentContentChangePartial(range=rng, text=new_line))
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v), content_changes=[change]))
        assert wire(await diagnostics_for(client, uri, 21)) == wire(fresh(uri, text))
        # anything still published would be for an older version (the last one is out): wait until the
        # server has no analysis scheduled (its answer comes after every publication it made), then look
        await server_idle(client)
        versions = [p.version for p in client.publications if p.uri == uri]  # type: ignore[attr-defined]
        assert versions[0] == 1 and versions[-1] == 21, versions
        assert versions == sorted(versions) and len(set(versions)) == len(versions), versions
    finally:
        await stop_client(client)
