"""The server never crashes or stalls on any text: hypothesis feeds random edits and garbage over the real
LSP connection, and after each batch every feature must still answer."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsp_harness import diagnostics_for
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

FRAGMENTS = ["\n", "    ", "def forward(self, x):", "class RefactoredModel(nn.Module):", "class Model(nn.Module):",
             "F.relu(", "torch.matmul(a, b)", "x @ y", "self.", ")", "(", "]", "'''", '"', "#", "\\", "lambda x: ",
             "return x", "yield", "import torch.nn.functional as F", "from children.a import Model as A",
             "getattr(torch, 'relu')", "nn.Parameter(torch.ones(3))", "\t", "é", "𝔘", "ключ", "\x00", ":", "=",
             "super().__init__()", "x = self.conv(x)", "@staticmethod", "async ", "await x", "match x:"]
SEED = (Path(__file__).parent / "fixtures" / "cheats" / "cheat_functional.py").read_text()
_versions = itertools.count(100)


@st.composite
def edits(draw: st.DrawFn, text: str) -> tuple[types.Range, str]:
    lines = text.split("\n")
    sl = draw(st.integers(0, len(lines) - 1))
    el = draw(st.integers(sl, len(lines) - 1))
    sc = draw(st.integers(0, len(lines[sl])))
    ec = draw(st.integers(0, len(lines[el]))) if el > sl else draw(st.integers(sc, len(lines[sl])))
    new = draw(st.one_of(st.text(max_size=30), st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)))
    return types.Range(types.Position(sl, sc), types.Position(el, ec)), new


def _apply(text: str, rng: types.Range, new: str) -> str:
    lines = text.split("\n")
    starts = list(itertools.accumulate([0] + [len(ln) + 1 for ln in lines]))
    a = starts[rng.start.line] + rng.start.character
    b = starts[rng.end.line] + rng.end.character
    return text[:a] + new + text[b:]


def _utf16(text: str, rng: types.Range) -> types.Range:
    """The mirror edits in str indices; LSP counts UTF-16 units."""
    lines = text.split("\n")

    def conv(p: types.Position) -> types.Position:
        return types.Position(p.line, len(lines[p.line][: p.character].encode("utf-16-le")) // 2)

    return types.Range(conv(rng.start), conv(rng.end))


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
async def test_random_edits_never_break_the_server(client, module_workspace: Path, data: st.DataObject) -> None:
    path = module_workspace / "cheats" / "fuzz.py"
    uri = path.as_uri()
    text = SEED
    version = next(_versions)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    if data.draw(st.booleans()):  # sometimes start from pure garbage
        text = data.draw(st.text(max_size=200))
        version = next(_versions)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    for _ in range(data.draw(st.integers(1, 8))):
        rng, new = data.draw(edits(text))
        version = next(_versions)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=_utf16(text, rng), text=new)]))
        text = _apply(text, rng, new)

    diags = await diagnostics_for(client, uri, version, timeout=20)
    assert all(str(d.code).startswith("HD") for d in diags)
    lenses = await asyncio.wait_for(client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))), 20)
    assert isinstance(lenses, (list, tuple))
    rng, _ = data.draw(edits(text))
    actions = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=_utf16(text, rng),
        context=types.CodeActionContext(diagnostics=list(diags)))), 20)
    for action in actions or []:
        if isinstance(action, types.CodeAction) and action.disabled is None and action.data:
            resolved = await asyncio.wait_for(client.code_action_resolve_async(action), 30)
            assert resolved.title == action.title
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    failures = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert not failures, failures  # the analysis itself must not raise on any text
