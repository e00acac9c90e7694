"""Kernel replacements in the editor: a kernel file with a `<stem>_new.py` (defining `class ModelNew`) beside
it gets a "Verify replacement" lens titled with its last `replacements/<id>/replacement_result.json`, whose
command runs `hdecomp replace`; `hdecomp/trees` carries each node's active replacement; the tree watcher
follows replacement results; an untrusted workspace refuses the command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from hdecomp_lsp.command_ids import VERIFY_REPLACEMENT
from lsp_harness import copy_workspace, open_doc, plain_json, start_client, stop_client, wait_for
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")
KERNELS = "convnet/level_0_kernel"

MODEL_NEW = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        return x
'''


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def ws_client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[LanguageClient, Path]]:
    ws = copy_workspace(tmp_path_factory.mktemp("replacement_ws"))
    c = await start_client(ws)
    yield c, ws
    await stop_client(c)



async def _lenses(client: LanguageClient, path: Path, version: int = 1) -> list[types.CodeLens]:
    uri = open_doc(client, path, version=version)
    return list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
                or [])


def _kinds(lenses: list[types.CodeLens]) -> list[str]:
    return [lens.data["kind"] for lens in lenses]


async def _replacement_title(client: LanguageClient, kernel: Path, version: int) -> str:
    lenses = [lens for lens in await _lenses(client, kernel, version) if lens.data["kind"] == "replacement"]
    assert len(lenses) == 1
    resolved = await client.code_lens_resolve_async(lenses[0])
    assert resolved.command is not None
    return resolved.command.title


async def _nodes(client: LanguageClient) -> dict[str, dict]:
    trees = plain_json(await client.protocol.send_request_async("hdecomp/trees", {}))["trees"]
    return {n["id"]: n for n in trees[0]["nodes"]}


def _write_result(ws: Path, kernel_id: str, result: dict) -> Path:
    path = ws / "convnet" / "replacements" / kernel_id / "replacement_result.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return path


async def test_the_lens_needs_a_model_new_beside_a_kernel_file(ws_client) -> None:
    client, ws = ws_client
    kernels = ws / KERNELS
    assert _kinds(await _lenses(client, kernels / "pool_fp32.py")) == ["selftest"]
    # a `_new.py` without ModelNew is no replacement
    (kernels / "pool_fp32_new.py").write_text(MODEL_NEW.replace("ModelNew", "Model"))
    assert _kinds(await _lenses(client, kernels / "pool_fp32.py", 2)) == ["selftest"]

    new = kernels / "relu_fp32_new.py"
    new.write_text(MODEL_NEW)
    lenses = await _lenses(client, kernels / "relu_fp32.py")
    assert _kinds(lenses) == ["selftest", "replacement"]
    resolved = await client.code_lens_resolve_async(lenses[1])
    assert resolved.command is not None and resolved.command.command == VERIFY_REPLACEMENT
    assert resolved.command.title == "Verify replacement (relu_fp32_new.py)"
    assert list(resolved.command.arguments or []) == [(kernels / "relu_fp32.py").as_uri(), new.as_uri()]
    assert "replacement" not in _kinds(await _lenses(client, new))

    # only a kernel file of a decomposition: not a step's copy, not a level_0_kernel/ folder without a tree
    child = ws / "convnet" / "steps" / "step_1_model_to_kernels" / "children" / "linear.py"
    child.with_name("linear_new.py").write_text(MODEL_NEW)
    assert _kinds(await _lenses(client, child)) == ["selftest"]
    loose = ws / "loose" / "level_0_kernel"
    loose.mkdir(parents=True)
    shutil.copy(kernels / "relu_fp32.py", loose / "relu_fp32.py")
    (loose / "relu_fp32_new.py").write_text(MODEL_NEW)
    assert _kinds(await _lenses(client, loose / "relu_fp32.py")) == ["selftest"]


async def test_the_title_is_the_last_replacement_result(ws_client) -> None:
    client, ws = ws_client
    kernel = ws / KERNELS / "conv2d_fp32.py"
    new = kernel.with_name("conv2d_fp32_new.py")
    new.write_text(MODEL_NEW)
    os.utime(new, (1_000_000_000, 1_000_000_000))  # older than every result below

    # filed under the kernel's node id, as `hdecomp replace` does
    _write_result(ws, "conv2d", {"status": "PASS", "reason": None,
                                      "timing": {"speedup": 1.8449, "model_speedup": 1.1234}})
    assert await _replacement_title(client, kernel, 1) == "✓ Replacement PASS · 1.84× kernel · 1.12× model"

    reason = "trials: output 0 differs from the kernel's: max diff 3.2e-01 > atol 1e-04 (seed 42) and more"
    _write_result(ws, "conv2d", {"status": "FAIL", "reason": f"{reason}\nsecond line"})
    assert await _replacement_title(client, kernel, 2) == f"✗ Replacement FAIL · {reason[:60]}"

    error = _write_result(ws, "conv2d", {"status": "ERROR", "reason": "signature: ModelNew() takes no state"})
    assert await _replacement_title(client, kernel, 3) == "⚠ Replacement ERROR · signature: ModelNew() takes no state"

    edited = error.stat().st_mtime + 10  # edited after the last run
    os.utime(new, (edited, edited))
    assert await _replacement_title(client, kernel, 4) == (
        "⚠ Replacement ERROR · signature: ModelNew() takes no state · edited since")

    # a result filed under the file's stem (here not its node id) is found too
    shutil.rmtree(ws / "convnet" / "replacements" / "conv2d")
    os.utime(new, (1_000_000_000, 1_000_000_000))
    _write_result(ws, "conv2d_fp32", {"status": "PASS", "timing": {"speedup": 3.0, "model_speedup": None}})
    assert await _replacement_title(client, kernel, 5) == "✓ Replacement PASS · 3.00× kernel"


async def test_the_trees_payload_carries_active_replacements(ws_client) -> None:
    client, ws = ws_client
    await wait_for(lambda: bool(client.registrations), what="watcher registration")  # type: ignore[attr-defined]
    globs = {w.get("globPattern") or w.get("glob_pattern")
             for r in client.registrations  # type: ignore[attr-defined]
             if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
             for w in plain_json(r.register_options)["watchers"]}
    assert "**/replacements/*/replacement_result.json" in globs

    assert {n["replacement"] for n in (await _nodes(client)).values()} == {None}
    root = ws / "convnet"
    tree_file = root / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["replacements"] = {"linear": {"kernel": "level_0_kernel/linear_fp32.py",
                                       "replacement": "replacements/linear/linear_fp32_new.py",
                                       "result": "replacements/linear/replacement_result.json",
                                       "speedup": 1.84, "model_speedup": 1.12}}
    tree_file.write_text(json.dumps(tree))
    copy = root / "replacements" / "linear" / "linear_fp32_new.py"
    assert {n["replacement"] for n in (await _nodes(client)).values()} == {None}  # its file is not there
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(MODEL_NEW)
    nodes = await _nodes(client)
    assert nodes["linear"]["replacement"] == {
        "replacement": str(copy),
        "resultFile": str(root / "replacements" / "linear" / "replacement_result.json"),
        "speedup": 1.84, "modelSpeedup": 1.12}
    assert {i for i, n in nodes.items() if n["replacement"] is not None} == {"linear"}

    # a new replacement result is a change of its tree
    result = _write_result(ws, "linear", {"status": "PASS", "timing": {"speedup": 1.84, "model_speedup": 1.12}})
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=result.as_uri(), type=types.FileChangeType.Created)]))
    await wait_for(lambda: [str(tree_file)] in client.tree_changes, what="treesChanged")  # type: ignore[attr-defined]


async def test_an_untrusted_workspace_refuses_to_verify_a_replacement(tmp_path: Path) -> None:
    ws = copy_workspace(tmp_path)
    kernel = ws / KERNELS / "linear_fp32.py"
    new = kernel.with_name("linear_fp32_new.py")
    new.write_text(MODEL_NEW)
    client = await start_client(ws, init_options={"trusted": False})
    try:
        result = plain_json(await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=VERIFY_REPLACEMENT, arguments=[kernel.as_uri(), new.as_uri()])))
        assert result["status"] == "ERROR" and "untrusted" in result["summary"], result
        assert not (ws / "convnet" / "replacements").exists()
    finally:
        await stop_client(client)


TINY_MODEL = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


batch_size = 4


def get_inputs():
    return [torch.randn(batch_size, 8)]


def get_init_inputs():
    return [8, 16]
'''

LINEAR_NEW = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 16)

    def forward(self, x):
        return x @ self.linear.weight.t() + self.linear.bias
'''


async def test_verify_replacement_runs_hdecomp_replace_end_to_end(tmp_path: Path) -> None:
    model = tmp_path / "tiny_linear.py"
    model.write_text(TINY_MODEL)
    subprocess.run([sys.executable, "-m", "hdecomp", "decompose", str(model), "-o", str(tmp_path / "out")],
                   check=True, capture_output=True, timeout=300)
    root = tmp_path / "out" / "tiny_linear"
    kernel = root / "level_0_kernel" / "linear_8x16_fp32.py"
    new = kernel.with_name("linear_8x16_fp32_new.py")
    new.write_text(LINEAR_NEW)
    client = await start_client(tmp_path)
    try:
        assert await _replacement_title(client, kernel, 1) == "Verify replacement (linear_8x16_fp32_new.py)"
        result = plain_json(await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=VERIFY_REPLACEMENT, arguments=[kernel.as_uri(), new.as_uri()])))
        assert result["status"] == "PASS" and result["exitCode"] == 0, result
        assert result["summary"].startswith("PASS: kernel speedup ") and "×, model speedup " in result["summary"], \
            result
        written = json.loads(Path(result["resultFile"]).read_text())
        assert written["status"] == "PASS"
        title = await _replacement_title(client, kernel, 2)
        timing = written["timing"]
        assert title == (f"✓ Replacement PASS · {timing['speedup']:.2f}× kernel · "
                         f"{timing['model_speedup']:.2f}× model")
        replaced = {i: n["replacement"] for i, n in (await _nodes(client)).items() if n["replacement"]}
        assert list(replaced) == ["linear_8x16_fp32"]
        assert replaced["linear_8x16_fp32"]["speedup"] == pytest.approx(timing["speedup"])
        assert client.lens_refreshes > 0  # type: ignore[attr-defined]
    finally:
        await stop_client(client)
