"""Settings round-trip: initializationOptions, workspace/configuration per folder, didChangeConfiguration."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hdecomp_lsp.command_ids import DECOMPOSE, RUN_PIPELINE, RUN_SELF_TEST, VERIFY_STEP
from lsp_harness import plain_json, start_client, stop_client, wait_for
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")



async def _settings(client, uri: str | None = None) -> dict:
    return plain_json(await client.protocol.send_request_async("hdecomp/settings", {"uri": uri} if uri else {}))


async def test_settings_round_trip_per_folder(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    client = await start_client(
        tmp_path, folders=[a, b],
        init_options={"settings": {"interpreter": ["/opt/py/bin/python", "-X", "utf8"],
                                   "verify": {"numTrials": 2, "device": "cpu", "batchLimit": None}}},
        configuration={a.as_uri(): {"hdecomp": {"verify": {"device": "cuda:1", "batchLimit": 4, "rtol": 1e-3}}},
                       b.as_uri(): {"hdecomp": {"verify": {"numTrials": "three", "atol": 1e-7}}}})
    try:
        # the per-folder answers arrive after `initialized`
        await wait_for(lambda: True)
        for _ in range(100):
            in_a = await _settings(client, (a / "x.py").as_uri())
            if in_a["verify"]["device"] == "cuda:1":
                break
        assert in_a == {"interpreter": ["/opt/py/bin/python", "-X", "utf8"],
                        "verify": {"numTrials": 2, "device": "cuda:1", "batchLimit": 4, "rtol": 1e-3, "atol": None}}
        in_b = await _settings(client, (b / "sub" / "y.py").as_uri())
        # an invalid value keeps the inherited one
        assert in_b["verify"] == {"numTrials": 2, "device": "cpu", "batchLimit": None, "rtol": None, "atol": 1e-7}
        outside = await _settings(client, (tmp_path / "z.py").as_uri())
        assert outside["verify"]["device"] == "cpu" and outside["interpreter"][0] == "/opt/py/bin/python"

        client.set_configuration({"hdecomp": {"verify": {"numTrials": 7}}}, scope_uri=b.as_uri())
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        for _ in range(200):
            in_b = await _settings(client, (b / "y.py").as_uri())
            if in_b["verify"]["numTrials"] == 7:
                break
        assert in_b["verify"]["numTrials"] == 7 and in_b["verify"]["atol"] is None

        # commands run under the folder's interpreter with the folder's verify settings
        fake = tmp_path / "fake_python.py"
        fake.write_text(FAKE_INTERPRETER)
        client.set_configuration({"hdecomp": {"interpreter": [sys.executable, str(fake)],
                                              "verify": {"numTrials": 7, "batchLimit": 2}}}, scope_uri=b.as_uri())
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        for _ in range(200):
            if (await _settings(client, b.as_uri()))["interpreter"][-1] == str(fake):
                break
        model = b / "net.py"
        model.write_text("# a model\n")
        result = plain_json(await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=DECOMPOSE,
                                       arguments=[model.as_uri(), (b / "out").as_uri()])))
        assert result["status"] == "PASS" and result["summary"] == "PASS: fake decomposition"
        assert result["resultFile"] == str(b / "out" / "net" / "decomposition_tree.json")
        argv = json.loads((b / "argv.json").read_text())
        assert argv[:5] == ["-m", "hdecomp", "decompose", str(model), "-o"]
        assert argv[argv.index("--num-trials") + 1] == "7" and argv[argv.index("--batch-limit") + 1] == "2"
    finally:
        await stop_client(client)


FAKE_INTERPRETER = """
import json, pathlib, sys
args = sys.argv[1:]
out = pathlib.Path(args[args.index("-o") + 1]) / pathlib.Path(args[3]).stem
out.mkdir(parents=True, exist_ok=True)
(out / "decomposition_tree.json").write_text(json.dumps({"nodes": {}}))
pathlib.Path(args[3]).with_name("argv.json").write_text(json.dumps(args))
print("working...")
print("PASS: fake decomposition")
"""


async def test_untrusted_workspace_refuses_commands_but_keeps_analysis(workspace: Path) -> None:
    client = await start_client(workspace, init_options={"trusted": False})
    try:
        refactored = workspace / "cheats" / "cheat_functional.py"
        uri = refactored.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=refactored.read_text())))
        for command in (VERIFY_STEP, RUN_SELF_TEST, RUN_PIPELINE, DECOMPOSE):
            result = plain_json(await client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND,
                types.ExecuteCommandParams(command=command, arguments=[uri])))
            assert result["status"] == "ERROR" and "untrusted" in result["summary"], result
        await wait_for(lambda: bool(client.diagnostics.get(uri)), what="diagnostics in restricted mode")
    finally:
        await stop_client(client)
