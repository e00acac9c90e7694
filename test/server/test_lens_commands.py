"""CodeLens -> resolve -> command -> work-done progress -> refreshed lens title; self-test lens; cancelling a
running command ($/cancelRequest or progress cancel) kills its subprocess."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from hdecomp_lsp.command_ids import RUN_PIPELINE, VERIFY_STEP
from lsp_harness import open_doc, start_client, stop_client, wait_for
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")
STEP = "convnet/steps/step_1_model_to_kernels"


def _verifications_of(path: Path) -> list[int]:
    """Pids of the running `hdecomp verify-step` processes of `path`."""
    from hdecomp.scale.ray_cluster import processes
    return [pid for pid, _ppid, cmd in processes() if "verify-step" in cmd and str(path) in cmd]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def lens_client(module_workspace: Path) -> AsyncIterator[LanguageClient]:
    c = await start_client(module_workspace, init_options={"settings": {"verify": {"numTrials": 1}}})
    yield c
    await stop_client(c)


async def _lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
                or [])


async def _execute(client: LanguageClient, command: types.Command, msg_id: str | None = None):
    return await client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments), msg_id=msg_id)


async def test_verify_lens_runs_the_step_and_shows_the_result(lens_client, module_workspace: Path) -> None:
    client = lens_client
    path = module_workspace / STEP / "refactored.py"
    uri = open_doc(client, path)
    lenses = await _lenses(client, uri)
    assert len(lenses) == 1 and lenses[0].command is None and lenses[0].data
    assert lenses[0].range.start.line == path.read_text().splitlines().index(
        next(ln for ln in path.read_text().splitlines() if ln.startswith("class RefactoredModel")))
    resolved = await client.code_lens_resolve_async(lenses[0])
    assert resolved.command is not None
    assert resolved.command.title == "Verify step"
    assert resolved.command.command == VERIFY_STEP and list(resolved.command.arguments or []) == [uri]

    refreshes = client.lens_refreshes  # type: ignore[attr-defined]
    tokens_before = set(client.progress_reports)
    result = await _execute(client, resolved.command)
    assert result["status"] == "PASS" and result["exitCode"] == 0, result
    assert result["summary"].startswith("✓ PASS")
    assert Path(result["resultFile"]) == path.parent / "verification_result.json"
    new_tokens = [t for t in client.progress_reports if t not in tokens_before]
    assert len(new_tokens) == 1
    kinds = [type(v).__name__ for v in client.progress_reports[new_tokens[0]]]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert client.progress_reports[new_tokens[0]][0].cancellable is True
    await wait_for(lambda: client.lens_refreshes > refreshes, what="codeLens refresh")  # type: ignore[attr-defined]

    again = await client.code_lens_resolve_async((await _lenses(client, uri))[0])
    assert again.command is not None
    assert again.command.title.startswith("✓ PASS · max diff") and again.command.title.endswith("· 1 trial")


async def test_self_test_lens_on_a_component(lens_client, module_workspace: Path) -> None:
    client = lens_client
    uri = open_doc(client, module_workspace / STEP / "children" / "linear.py")
    lenses = await _lenses(client, uri)
    assert len(lenses) == 1
    resolved = await client.code_lens_resolve_async(lenses[0])
    assert resolved.command is not None and resolved.command.title == "Run self-test"
    result = await _execute(client, resolved.command)
    assert result["status"] == "PASS" and "PASS" in result["summary"]
    # a component without a self-test (no __main__ block) gets no lens
    assert await _lenses(client, open_doc(client, module_workspace / STEP / "original.py")) == []


async def test_cancel_request_kills_the_running_verification(lens_client, module_workspace: Path) -> None:
    client = lens_client
    path = module_workspace / STEP / "refactored.py"
    result_file = path.parent / "verification_result.json"
    result_file.unlink(missing_ok=True)
    tokens_before = set(client.progress_reports)
    msg_id = f"cancel-me-{uuid.uuid4().hex}"
    command = types.Command(title="Verify", command=VERIFY_STEP, arguments=[path.as_uri()])
    pending = asyncio.ensure_future(_execute(client, command, msg_id=msg_id))
    await wait_for(lambda: any(t not in tokens_before for t in client.progress_reports), what="progress begin")
    client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(pending, 30)
    # the verification's process is gone (killed, not finished: it wrote no result), so nothing can write later
    await wait_for(lambda: not _verifications_of(path), timeout=120, what="the verification's process to end")
    assert not result_file.exists(), "the verification kept running after the request was cancelled"
    # and the server still answers
    assert len(await _lenses(client, path.as_uri())) == 1


async def test_progress_cancel_kills_the_running_verification(lens_client, module_workspace: Path) -> None:
    client = lens_client
    path = module_workspace / STEP / "refactored.py"
    tokens_before = set(client.progress_reports)
    command = types.Command(title="Verify", command=VERIFY_STEP, arguments=[path.as_uri()])
    pending = asyncio.ensure_future(_execute(client, command))
    await wait_for(lambda: any(t not in tokens_before for t in client.progress_reports), what="progress begin")
    token = next(t for t in client.progress_reports if t not in tokens_before)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(pending, 30)
    assert result["status"] == "ERROR" and result["summary"] == "cancelled"


async def test_run_pipeline_command_reports_and_notifies_tree_change(lens_client, module_workspace: Path) -> None:
    client = lens_client
    folder = module_workspace / "convnet"
    changes = len(client.tree_changes)  # type: ignore[attr-defined]
    command = types.Command(title="Pipeline", command=RUN_PIPELINE, arguments=[folder.as_uri()])
    result = await _execute(client, command)
    assert result["status"] == "PASS" and result["exitCode"] == 0, result
    assert result["summary"].startswith("PASS")
    assert Path(result["resultFile"]) == folder / "verification" / "step_verification_summary.json"
    await wait_for(lambda: len(client.tree_changes) > changes, what="treesChanged")  # type: ignore[attr-defined]
    assert str(folder / "decomposition_tree.json") in client.tree_changes[-1]  # type: ignore[attr-defined]
