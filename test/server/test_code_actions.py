"""Code actions over LSP: "Extract to child component" (edit applied, then verify-step still PASSes),
refusals with a reason, and the "Extract <op> into a kernel child" quick fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_harness import apply_workspace_edit, diagnostics_for, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")
STEP = "convnet/steps/step_1_model_to_kernels"


def _line_range(path: Path, first: str, last: str) -> types.Range:
    lines = path.read_text().splitlines()
    a = next(i for i, ln in enumerate(lines) if first in ln)
    b = next(i for i, ln in enumerate(lines) if last in ln and i >= a)
    return types.Range(types.Position(a, 0), types.Position(b, len(lines[b])))


async def _actions(client, uri: str, rng: types.Range, diagnostics=None, only=None) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri), range=rng,
        context=types.CodeActionContext(diagnostics=diagnostics or [], only=only,
                                        trigger_kind=types.CodeActionTriggerKind.Invoked)))
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


def _verify(step: Path) -> subprocess.Popen[str]:
    """Start `hdecomp verify-step` on a step folder (the real CLI, in a subprocess)."""
    argv = [sys.executable, "-m", "hdecomp", "verify-step", "--original", str(step / "original.py"),
            "--refactored", str(step / "refactored.py"), "--num-trials", "1", "-q"]
    if (step / "weight_map.json").exists():
        argv += ["--weight-map", str(step / "weight_map.json")]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=240)
    return proc.returncode, out


async def test_extract_to_child_edit_keeps_the_step_passing(client, module_workspace: Path) -> None:
    step = module_workspace / STEP
    pristine = module_workspace / "pristine_step"
    shutil.copytree(step, pristine)  # verified after the edit, side by side with the edited step
    path = step / "refactored.py"
    uri = open_doc(client, path)
    rng = _line_range(path, "x = self.conv(x)", "x = self.relu(x)")
    actions = await _actions(client, uri, rng)
    extract = [a for a in actions if a.title == "Extract to child component"]
    assert len(extract) == 1 and extract[0].kind == types.CodeActionKind.RefactorExtract
    assert extract[0].disabled is None and extract[0].edit is None  # resolved lazily
    resolved = await client.code_action_resolve_async(extract[0])
    edit = resolved.edit
    assert edit is not None and edit.document_changes
    creates = [c for c in edit.document_changes if isinstance(c, types.CreateFile)]
    assert [Path(c.uri.removeprefix("file://")).name for c in creates] == ["conv_relu.py"]
    parent_edits = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)
                    and c.text_document.uri == uri]
    assert parent_edits and parent_edits[0].text_document.version == 1
    apply_workspace_edit(edit)

    child = step / "children" / "conv_relu.py"
    text = child.read_text()
    for needle in ("class Model(nn.Module)", "def get_inputs()", "def get_init_inputs()", '__main__',
                   "self.conv = Conv2d(in_ch, out_ch)", "self.relu = Relu()", "torch.randn(batch_size, in_ch, 8, 8)"):
        assert needle in text, needle
    parent = path.read_text()
    assert "from children.conv_relu import Model as ConvRelu" in parent
    assert "self.conv_relu = ConvRelu(in_ch, out_ch)" in parent
    assert "x = self.conv_relu(x)" in parent
    assert "self.conv = " not in parent and "from children.conv2d" not in parent
    assert "# the convolution block" in parent  # comments kept
    wmap = json.loads((step / "weight_map.json").read_text())
    assert wmap["conv.weight"] == "conv_relu.conv.conv.weight" and wmap["fc.weight"] == "fc.linear.weight"

    # the child's self-test, and verify-step before/after the edit, side by side
    selftest = subprocess.Popen([sys.executable, str(child)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, cwd=child.parent, env=dict(os.environ, OMP_NUM_THREADS="1"))
    before, after = _verify(pristine), _verify(step)
    code_self, out_self = _finish(selftest)
    code_before, out_before = _finish(before)
    code_after, out_after = _finish(after)
    assert code_self == 0 and "PASS" in out_self, out_self
    assert code_before == 0, out_before
    assert code_after == 0, out_after

    info = await client.protocol.send_request_async("hdecomp/debugInfo", {})
    assert info.torchLoaded is False


@pytest.mark.parametrize(("first", "last", "cut", "reason"), [
    ("x = self.pool(x)", "return self.fc(x)", False, "return"),
    ("self.fc = nn.Linear", "self.fc = nn.Linear", False, "forward"),
    ("x = self.pool(x)", "return self.fc(x)", True, "statement"),
])
async def test_unextractable_selections_are_refused_with_a_reason(client, module_workspace: Path, first: str,
                                                                  last: str, cut: bool, reason: str) -> None:
    path = module_workspace / "convnet" / "steps" / "step_1_model_to_kernels" / "original.py"
    uri = open_doc(client, path)
    rng = _line_range(path, first, last)
    if cut:  # end in the middle of the last statement
        rng = types.Range(rng.start, types.Position(rng.end.line, rng.end.character - 4))
    actions = await _actions(client, uri, rng, only=[types.CodeActionKind.RefactorExtract])
    assert len(actions) == 1 and actions[0].edit is None
    assert actions[0].disabled is not None and reason in actions[0].disabled.reason


async def test_quick_fix_extracts_a_compute_op_into_a_kernel_child(client, module_workspace: Path) -> None:
    path = module_workspace / "cheats" / "cheat_functional.py"
    uri = open_doc(client, path, version=3)
    diags = await diagnostics_for(client, uri, 3)
    relu = next(d for d in diags if (d.data or {}).get("op") == "relu")
    actions = await _actions(client, uri, relu.range, diagnostics=[relu], only=[types.CodeActionKind.QuickFix])
    fix = [a for a in actions if a.title == "Extract `relu` into a kernel child"]
    assert len(fix) == 1 and fix[0].kind == types.CodeActionKind.QuickFix and list(fix[0].diagnostics or []) == [relu]
    resolved = await client.code_action_resolve_async(fix[0])
    assert resolved.edit is not None
    apply_workspace_edit(resolved.edit)
    kernel = path.parent / "children" / "relu.py"
    assert "return F.relu(y)" in kernel.read_text() and "def forward(self, y)" in kernel.read_text()
    new_text = path.read_text()
    assert "y = self.relu(y)" in new_text and "self.relu = Relu()" in new_text
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=4),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_text)]))
    after = await diagnostics_for(client, uri, 4)
    assert not [d for d in after if (d.data or {}).get("op") == "relu"], after
    assert [d for d in after if (d.data or {}).get("op") == "matmul"]  # the other cheats remain
