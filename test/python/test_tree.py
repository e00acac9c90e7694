"""hdecomp.formats.tree and formats.layout: decomposition_tree.json (our format and the original workspace's variants),
decomposition_log.json, and the steps/ folder (copied, symlinked and missing original.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hdecomp.formats.layout import discover_steps, node_statuses, step_for_node
from hdecomp.formats.log import DecompositionLog
from hdecomp.formats.tree import DecompositionTree, TreeFormatError
from hdecomp.vocab.levels import level_of_path, parse_level

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toolchain"
TINY = FIXTURES / "tiny_mlp"
LEGACY = FIXTURES / "legacy_vgg"


def test_nodes_format_structure() -> None:
    tree = DecompositionTree.load(TINY)
    assert tree.source_format == "nodes"
    assert tree.root_id == "root"
    assert [n.id for n, _ in tree.walk()] == ["root", "block1", "block1.linear", "block1.relu", "block2",
                                               "block2.linear", "block2.relu", "head"]
    assert {n.id for n in tree.leaves()} == {"head", "block1.linear", "block1.relu", "block2.linear",
                                             "block2.relu"}
    levels = tree.levels()
    assert [n.id for n in levels["fusion"]] == ["block1", "block2"]
    assert len(levels["kernel"]) == 5 and levels["layer"] == []
    assert tree.parent("block2.relu").id == "block2"
    assert [c.id for c in tree.children("root")] == ["block1", "block2", "head"]
    assert tree.node("block1").level_name == "fusion"
    assert tree.data_flow[0].source == "input" and tree.data_flow[-1].target == "output"


def test_paths_and_instances() -> None:
    tree = DecompositionTree.load(TINY / "decomposition_tree.json")
    relu = TINY / "level_0_kernel" / "relu_fp32.py"
    assert tree.abs_path("block1.relu") == relu.resolve()
    assert tree.node_for_path("level_0_kernel/relu_fp32.py").id in ("block1.relu", "block2.relu")
    assert tree.node_for_path(relu.resolve()) is not None
    assert tree.node_for_path("level_0_kernel/nope.py") is None
    assert tree.instance_counts()["block2.relu"] == 1
    assert tree.node_for_step(TINY / "steps" / "step_3_linear_relu_32x32_to_kernels").id == "block2"


def test_instance_counts_multiply_along_repeated_children() -> None:
    data = {"nodes": {
        "root": {"name": "M", "level": "model", "children": ["blk", "blk"]},
        "blk": {"name": "B", "level": "layer", "children": ["k", "k", "k"]},
        "k": {"name": "K", "level": "kernel", "children": []},
        "fixed": {"name": "F", "level": "kernel", "children": [], "instance_count": 7},
    }}
    tree = DecompositionTree.from_dict(data)
    counts = tree.instance_counts()
    assert counts["root"] == 1 and counts["blk"] == 2 and counts["k"] == 6 and counts["fixed"] == 7


def test_original_workspace_tree_keyed_by_path() -> None:
    tree = DecompositionTree.load(LEGACY)
    assert tree.source_format == "tree"
    assert tree.root_id == "level_3_model/mini_vgg.py"
    assert tree.metadata.model_name == "mini_vgg"
    assert tree.node("level_1_fusion/conv_relu_3x4.py").level == 1
    assert tree.node("level_0_kernel/linear_64x10.py").is_kernel
    assert len(tree.leaves()) == 7
    assert tree.node("level_3_model/mini_vgg.py").input_shapes == {"t0": [2, 3, 8, 8]}


def test_original_workspace_levels_components_format() -> None:
    data = {"model_name": "mlp", "levels": {
        "level_3_model": {"components": [{"name": "MLP", "file": "level_3_model/mlp.py",
                                          "children": ["Lin"]}]},
        "level_0_kernel": {"components": [{"name": "Lin", "file": "level_0_kernel/lin.py", "children": [],
                                           "operations": ["Linear(4,4)"]}]}},
            "data_flow": [{"from": "input", "to": "Lin", "shape": [2, 4]}]}
    tree = DecompositionTree.from_dict(data)
    assert tree.source_format == "levels" and tree.root_id == "MLP"
    assert tree.node("Lin").level == 0 and tree.node("Lin").parent == "MLP"
    assert tree.node("Lin").extra["operations"] == ["Linear(4,4)"]


def test_save_round_trip_keeps_unknown_fields(tmp_path: Path) -> None:
    raw = json.loads((TINY / "decomposition_tree.json").read_text())
    raw["custom_top"] = {"x": 1}
    raw["nodes"]["head"]["note"] = "kept"
    tree = DecompositionTree.from_dict(raw, root_dir=tmp_path)
    out = tree.save()
    assert out == tmp_path / "decomposition_tree.json"
    assert [p.name for p in tmp_path.iterdir()] == ["decomposition_tree.json"]  # no temp file left behind
    again = DecompositionTree.load(out)
    assert again.extra["custom_top"] == {"x": 1}
    assert again.node("head").extra["note"] == "kept"
    assert again.metadata.by_level == {"model": 1, "layer": 0, "fusion": 2, "kernel": 5}
    assert again.metadata.unique_kernels == 4
    assert {k: v.to_dict() for k, v in again.nodes.items()} == {k: v.to_dict() for k, v in tree.nodes.items()}


def test_legacy_tree_saves_in_our_format(tmp_path: Path) -> None:
    tree = DecompositionTree.load(LEGACY)
    out = json.loads(tree.save(tmp_path / "t.json").read_text())
    assert "tree" not in out and out["nodes"]["level_0_kernel/relu_4x8x8.py"]["level"] == "kernel"


@pytest.mark.parametrize("text, cause", [
    ('{"nodes": {"root": {"name": "x"', "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"metadata": {}}', "not a decomposition tree"),
    ('{"nodes": {"root": 3}}', "is not an object"),
])
def test_bad_tree_files_name_file_and_cause(tmp_path: Path, text: str, cause: str) -> None:
    (tmp_path / "decomposition_tree.json").write_text(text)
    with pytest.raises(TreeFormatError) as info:
        DecompositionTree.load(tmp_path)
    assert cause in info.value.headline
    assert str(tmp_path / "decomposition_tree.json") in info.value.headline


def test_missing_tree_file(tmp_path: Path) -> None:
    with pytest.raises(TreeFormatError, match="not found"):
        DecompositionTree.load(tmp_path)


@pytest.mark.parametrize("value, level", [(0, 0), (3, 3), ("kernel", 0), ("Fusion", 1), ("level_2_layer", 2),
                                          ("L1", 1), ("2", 2), ("model", 3), ("weird", None), (7, None),
                                          (True, None)])
def test_parse_level(value: object, level: int | None) -> None:
    assert parse_level(value) == level


def test_level_of_path() -> None:
    assert level_of_path("level_0_kernel/relu.py") == 0
    assert level_of_path("steps/step_1/children/x.py") is None


def test_discover_steps_original_workspace_layout() -> None:
    tree = DecompositionTree.load(LEGACY)
    steps = discover_steps(LEGACY, tree)
    assert [s.dir.name for s in steps] == ["step_1_model_to_layers", "step_2_block1_to_fusions",
                                           "step_2_classifier_to_kernels", "step_3_conv_relu_3x4_to_kernels",
                                           "step_3_conv_relu_4x4_to_kernels"]
    by = {s.dir.name: s for s in steps}
    assert by["step_2_block1_to_fusions"].original_source == "symlink"
    assert by["step_2_block1_to_fusions"].original == (LEGACY / "level_2_layer" / "features_block_1.py").resolve()
    missing = by["step_3_conv_relu_3x4_to_kernels"]
    assert missing.original_source == "name" and missing.problem is None
    assert missing.original.name == "conv_relu_3x4.py"
    assert all(s.problem is None for s in steps)
    assert [p.name for p in by["step_2_classifier_to_kernels"].child_files()] == ["flatten_4x4x4.py",
                                                                               "linear_64x10.py"]
    node = tree.node("level_1_fusion/conv_relu_4x4.py")
    assert step_for_node(tree, node, steps).dir.name == "step_3_conv_relu_4x4_to_kernels"
    assert step_for_node(tree, tree.node("level_0_kernel/linear_64x10.py"), steps) is None


def test_discover_steps_reports_unusable_steps(tmp_path: Path) -> None:
    root = tmp_path / "d"
    shutil.copytree(LEGACY, root, symlinks=True)
    (root / "steps" / "step_2_classifier_to_kernels" / "refactored.py").unlink()
    (root / "level_2_layer" / "conv_relu_3x4.py").write_text("x = 1\n")  # now two candidates
    link = root / "steps" / "step_2_block1_to_fusions" / "original.py"
    link.unlink()
    link.symlink_to("../../level_2_layer/gone.py")
    steps = {s.dir.name: s for s in discover_steps(root)}
    assert steps["step_2_classifier_to_kernels"].problem == "refactored.py is missing"
    assert "broken symlink" in steps["step_2_block1_to_fusions"].problem
    assert "several component files" in steps["step_3_conv_relu_3x4_to_kernels"].problem
    assert steps["step_1_model_to_layers"].problem is None


def test_decomposition_log_round_trip(tmp_path: Path) -> None:
    log = DecompositionLog.load(TINY)
    assert log.entries[0].type == "decision" and log.entries[0].step == 1
    log.add(2, "difficulty", "tied weights", "fc shares its weight", resolution="explicit weight map")
    with pytest.raises(ValueError):
        log.add(3, "musing", "not a type")
    out = log.save(tmp_path)
    again = DecompositionLog.load(out)
    assert [e.title for e in again.entries] == [log.entries[0].title, "tied weights"]
    assert again.entries[1].resolution == "explicit weight map"
    assert DecompositionLog.load(tmp_path / "absent.json").entries == []
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(TreeFormatError, match="not valid JSON"):
        DecompositionLog.load(tmp_path / "broken.json")


def test_node_statuses_from_step_results(tmp_path: Path) -> None:
    root = tmp_path / "t"
    shutil.copytree(TINY, root)
    steps = root / "steps"
    (steps / "step_1_model_to_fusions" / "verification_result.json").write_text('{"status": "PASS"}')
    (steps / "step_2_linear_relu_16x32_to_kernels" / "verification_result.json").write_text('{"status": "FAIL"}')
    (steps / "step_3_linear_relu_32x32_to_kernels" / "verification_result.json").write_text('{"stat')  # half-written
    tree = DecompositionTree.load(root)
    st = node_statuses(tree)
    assert st["root"].status == "pass" and st["root"].step.dir.name == "step_1_model_to_fusions"
    assert st["block1"].status == "fail" and st["block1.linear"].status == "fail"
    assert st["block1.linear"].step is None and st["block1.linear"].verified_by == st["block1"].step
    assert st["block2"].status == "unverified" and st["block2.relu"].status == "unverified"
    assert st["head"].status == "pass" and st["head"].step is None   # checked as a child of the model's step
    assert st["head"].verified_by == st["root"].step
