"""The command ids are part of the LSP contract: the server registers exactly the ids of
hdecomp_lsp.command_ids, DESIGN.md's command table lists each, and the extension sends these and no other;
an argument that names no file is refused as invalid params before the command runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hdecomp_lsp.app import build_server
from hdecomp_lsp.command_ids import (
    DECOMPOSE,
    RUN_PIPELINE,
    RUN_SELF_TEST,
    SERVER_COMMANDS,
    VERIFY_REPLACEMENT,
    VERIFY_STEP,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import LanguageClient

REPO = Path(__file__).resolve().parents[2]


def test_the_server_registers_every_command_id_and_no_other() -> None:
    assert sorted(build_server().protocol.fm.commands) == sorted(SERVER_COMMANDS)


def test_the_design_documents_every_command_id() -> None:
    table = re.findall(r"^\| `(hdecomp\.server\.\w+)` \|", (REPO / "docs" / "DESIGN.md").read_text(), re.MULTILINE)
    assert sorted(table) == sorted(SERVER_COMMANDS)


def test_the_extension_spells_the_same_command_ids() -> None:
    source = "".join(p.read_text() for p in sorted((REPO / "extension").glob("*.ts")))
    assert sorted(set(re.findall(r"\"(hdecomp\.server\.\w+)\"", source))) == sorted(SERVER_COMMANDS)


@pytest.mark.asyncio(loop_scope="module")
async def test_arguments_that_name_no_file_are_invalid_params(client: LanguageClient, module_workspace: Path) -> None:
    uri = (module_workspace / "convnet").as_uri()
    for command, arguments in ((VERIFY_STEP, []), (VERIFY_STEP, [None]), (RUN_SELF_TEST, [""]),
                               (RUN_PIPELINE, [uri, uri]), (VERIFY_REPLACEMENT, [uri]), (DECOMPOSE, [7]),
                               (DECOMPOSE, [uri, 7]),
                               (DECOMPOSE, [uri, uri, uri])):
        with pytest.raises(JsonRpcException) as raised:
            await client.protocol.send_request_async(
                types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(command=command, arguments=arguments))
        assert raised.value.code == JsonRpcInvalidParams.CODE, (command, arguments, raised.value)
