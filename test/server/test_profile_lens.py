"""The profile in the editor: a kernel file of a profiled decomposition gets a "Profile · x % of model time"
lens whose command runs `hdecomp profile` (with progress) and refreshes it; `hdecomp/trees` carries each
node's share; an unprofiled tree shows neither."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from hdecomp_lsp.command_ids import PROFILE
from lsp_harness import copy_workspace, open_doc, plain_json, start_client, stop_client
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")
KERNEL = "convnet/level_0_kernel/linear_fp32.py"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def ws_client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[LanguageClient, Path]]:
    ws = copy_workspace(tmp_path_factory.mktemp("profile_ws"))
    c = await start_client(ws)
    yield c, ws
    await stop_client(c)


async def _lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return list(await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
                or [])



async def _nodes(client: LanguageClient) -> list[dict]:
    return plain_json(await client.protocol.send_request_async("hdecomp/trees", {}))["trees"][0]["nodes"]


async def test_no_profile_no_lens_and_no_share(ws_client) -> None:
    client, ws = ws_client
    lenses = await _lenses(client, open_doc(client, ws / KERNEL))
    assert [lens.data["kind"] for lens in lenses] == ["selftest"]
    assert {n["shareOfModel"] for n in await _nodes(client)} == {None}


async def test_the_profile_lens_runs_hdecomp_profile_and_shows_the_share(ws_client) -> None:
    client, ws = ws_client
    uri = open_doc(client, ws / KERNEL, version=2)
    # profile the decomposition from the editor: the command of the lens a profiled kernel gets
    result = await client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command=PROFILE, arguments=[(ws / "convnet").as_uri()]))
    result = plain_json(result)
    assert result["status"] == "PASS" and result["summary"].startswith("PASS: "), result
    profile = json.loads((ws / "convnet" / "verification" / "profile.json").read_text())
    entry = next(c for c in profile["components"] if c["path"] == "level_0_kernel/linear_fp32.py")
    lenses = await _lenses(client, uri)
    assert [lens.data["kind"] for lens in lenses] == ["selftest", "profile"]
    resolved = await client.code_lens_resolve_async(lenses[1])
    assert resolved.command is not None and resolved.command.command == PROFILE
    assert resolved.command.title == f"Profile · {100 * entry['share_of_model']:.1f} % of model time"
    nodes = {n["id"]: n for n in await _nodes(client)}
    assert nodes[entry["id"]]["shareOfModel"] == pytest.approx(entry["share_of_model"])
