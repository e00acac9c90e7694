"""hdecomp/trees and hdecomp/treesChanged: the payload, step statuses, client file watching and the polling
fallback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_harness import plain_json, start_client, stop_client, wait_for
from lsprotocol import types
from pytest_lsp import client_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")
STEP = "convnet/steps/step_1_model_to_kernels"


def _result(status: str) -> str:
    return json.dumps({"status": status, "anticheat": {"status": status, "violations": []},
                       "numerical_comparison": {"status": status, "num_trials": 1, "max_diff_across_trials": 0.0}})



_as_dict = plain_json


async def _trees(client) -> list[dict]:
    return plain_json(await client.protocol.send_request_async("hdecomp/trees", {}))["trees"]


async def test_trees_payload_and_change_notification(client, module_workspace: Path) -> None:
    registrations = client.registrations  # type: ignore[attr-defined]
    await wait_for(lambda: bool(client.registrations), what="watcher registration")  # type: ignore[attr-defined]
    watch = [r for r in registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = {w.get("globPattern") or w.get("glob_pattern")
             for r in watch for w in plain_json(r.register_options)["watchers"]}
    assert globs == {"**/decomposition_tree.json", "**/verification_result.json", "**/profile.json",
                     "**/replacements/*/replacement_result.json"}

    trees = [_as_dict(t) for t in await _trees(client)]
    assert len(trees) == 1
    tree = trees[0]
    tree_file = module_workspace / "convnet" / "decomposition_tree.json"
    assert tree["treeFile"] == str(tree_file) and tree["modelName"] == "convnet" and tree["rootId"] == "root"
    nodes = {n["id"]: n for n in tree["nodes"]}
    assert set(nodes) == {"root", "conv2d", "relu", "pool", "linear"}
    root = nodes["root"]
    assert root["level"] == 3 and root["levelName"] == "model"
    assert root["children"] == ["conv2d", "relu", "pool", "linear"]
    assert root["path"] == str(module_workspace / "convnet" / "level_3_model" / "convnet.py")
    assert root["inputShapes"] == {"x": [2, 3, 8, 8]} and root["outputDtypes"] == {"output": "float32"}
    assert root["stepDir"] == str(module_workspace / STEP)  # matched by the original's content
    assert nodes["conv2d"]["level"] == 0 and nodes["conv2d"]["levelName"] == "kernel"
    assert {n["status"] for n in nodes.values()} == {"unverified"}

    result = module_workspace / STEP / "verification_result.json"
    result.write_text(_result("PASS"))
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=result.as_uri(), type=types.FileChangeType.Created)]))
    await wait_for(lambda: [str(tree_file)] in client.tree_changes, what="treesChanged")  # type: ignore[attr-defined]
    nodes = {n["id"]: n for n in _as_dict((await _trees(client))[0])["nodes"]}
    assert nodes["root"]["status"] == "pass" and nodes["root"]["resultFile"] == str(result)
    assert nodes["relu"]["status"] == "pass"  # a leaf is as verified as the step that produced it

    result.write_text(_result("FAIL"))
    nodes = {n["id"]: n for n in _as_dict((await _trees(client))[0])["nodes"]}
    assert nodes["root"]["status"] == "fail"


async def test_polling_fallback_when_the_client_cannot_watch(workspace: Path) -> None:
    caps = client_capabilities("visual-studio-code")
    assert caps.workspace is not None
    caps.workspace.did_change_watched_files = None
    client = await start_client(workspace, capabilities=caps, init_options={"pollIntervalMs": 100})
    try:
        await _trees(client)
        tree_file = workspace / "convnet" / "decomposition_tree.json"
        data = json.loads(tree_file.read_text())
        # the server takes its first snapshot after `initialized`: keep changing the file until it reports
        for attempt in range(40):
            data["metadata"]["verification_status"] = f"PASSED {attempt}"
            tree_file.write_text(json.dumps(data))
            try:
                await wait_for(lambda: [str(tree_file)] in client.tree_changes, 0.5)  # type: ignore[attr-defined]
                break
            except AssertionError:
                continue
        assert [str(tree_file)] in client.tree_changes  # type: ignore[attr-defined]
        assert not client.registrations  # type: ignore[attr-defined]
    finally:
        await stop_client(client)


async def test_a_result_in_a_new_tree_beside_one_whose_name_it_starts_with_finds_the_new_tree(
        client, module_workspace: Path) -> None:
    """`convnet2/` is not inside `convnet/`: a result written in a new tree there, reported with one of
    `convnet`'s, makes the server look for trees again and announce the new one (a string-prefix match took it
    for a file of `convnet` before)."""
    import shutil
    shutil.copytree(module_workspace / "convnet", module_workspace / "convnet2")
    tree_file = module_workspace / "convnet2" / "decomposition_tree.json"
    result = module_workspace / "convnet2" / STEP.removeprefix("convnet/") / "verification_result.json"
    result.write_text(_result("PASS"))
    old_result = module_workspace / STEP / "verification_result.json"
    old_result.write_text(_result("PASS"))
    client.tree_changes.clear()  # type: ignore[attr-defined]
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=old_result.as_uri(), type=types.FileChangeType.Changed),
        types.FileEvent(uri=result.as_uri(), type=types.FileChangeType.Created)]))
    await wait_for(lambda: any(str(tree_file) in c for c in client.tree_changes),  # type: ignore[attr-defined]
                   what="treesChanged for the new tree")
