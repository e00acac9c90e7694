"""`hdecomp validate DIR`: a complete hand-written decomposition passes; each kind of problem is
reported with its file and exit 1; a folder that is not a decomposition is exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.formats.tree import DecompositionTree, parse_nodes, resolve_children
from hdecomp.toolchain.validate import (
    component_file_problems,
    kernel_has_parameters,
    kernel_name_problems,
    validate_decomposition,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agent"
SAMPLES = FIXTURES / "original_format"


def _sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def make_complete_decomposition(dest: Path) -> Path:
    """The agent fixture tree plus the result files the gates write (here: samples in the original format)."""
    root = dest / "tiny_residual_mlp"
    shutil.copytree(FIXTURES / "tiny_residual_mlp", root)
    full_coverage = _sample("coverage_summary__partial")
    full_coverage.update(status="FULL_COVERAGE")
    full_coverage["coverage"].update(missing_op_types=[], coverage_pct=100.0)
    for step in sorted((root / "steps").iterdir()):
        result = _sample("verification_result__pass")
        result.update(original_file=str(step / "original.py"), refactored_file=str(step / "refactored.py"))
        _write(step / "verification_result.json", result)
        _write(step / "coverage_report.json", dict(full_coverage, model_file=str(step / "original.py")))
    _write(root / "verification" / "coverage_summary.json", full_coverage)
    _write(root / "verification" / "test_results.json", _sample("test_results__pass"))
    _write(root / "verification" / "step_verification_summary.json", _sample("step_verification_summary__pass"))
    (root / "verification" / "composition_test.py").write_text("print('PASS')\n", encoding="utf-8")
    return root


@pytest.fixture
def decomposition(tmp_path: Path) -> Path:
    return make_complete_decomposition(tmp_path)


def _messages(root: Path) -> list[tuple[str, str]]:
    report = validate_decomposition(root)
    return [(p.file, p.message) for p in report.errors]


def _has(problems: list[tuple[str, str]], file: str, fragment: str) -> bool:
    return any(f == file and fragment in m for f, m in problems)


def test_complete_decomposition_is_valid(decomposition: Path) -> None:
    report = validate_decomposition(decomposition)
    assert report.errors == [], report.errors
    assert report.exit_code == 0
    assert (report.nodes, report.steps, report.kernels) == (8, 3, 5)
    assert main(["validate", str(decomposition)]) == 0


def test_json_output(decomposition: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (decomposition / "steps" / "step_2_residual_block_to_fusions" / "verification_result.json").unlink()
    assert main(["validate", str(decomposition), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "FAIL"
    assert out["errors"] == 1
    [problem] = [p for p in out["problems"] if p["severity"] == "error"]
    assert problem["file"] == "steps/step_2_residual_block_to_fusions/verification_result.json"
    assert problem["check"] == "steps"


def test_not_a_decomposition_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["validate", str(tmp_path)]) == 2
    assert "not a decomposition folder" in capsys.readouterr().err
    assert main(["validate", str(tmp_path / "missing")]) == 2


def test_leaf_that_is_not_a_kernel(decomposition: Path) -> None:
    tree_file = decomposition / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["nodes"]["linear_relu_16x32_fp32"]["children"] = []
    tree_file.write_text(json.dumps(tree))
    assert _has(_messages(decomposition), "decomposition_tree.json",
                "leaf node 'linear_relu_16x32_fp32' is level 1 (fusion), not a kernel")


def test_levels_must_descend(decomposition: Path) -> None:
    tree_file = decomposition / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["nodes"]["residual_block_16x32_fp32"]["children"].append("tiny_residual_mlp")
    tree_file.write_text(json.dumps(tree))
    problems = _messages(decomposition)
    assert _has(problems, "decomposition_tree.json", "level does not descend: 'residual_block_16x32_fp32' "
                "(level 2) -> child 'tiny_residual_mlp' (level 3)")
    assert _has(problems, "decomposition_tree.json", "exactly one root")


def test_level_must_match_its_folder(decomposition: Path) -> None:
    tree_file = decomposition / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["nodes"]["relu_fp32"]["level"] = "fusion"
    tree["nodes"]["relu_fp32"]["children"] = ["linear_16x4_fp32"]
    tree_file.write_text(json.dumps(tree))
    assert _has(_messages(decomposition), "decomposition_tree.json",
                "node 'relu_fp32' is level 1 but its file is in level_0_kernel/")


def test_missing_node_path_and_unknown_child(decomposition: Path) -> None:
    (decomposition / "level_0_kernel" / "relu_fp32.py").unlink()
    tree_file = decomposition / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["nodes"]["tiny_residual_mlp"]["children"].append("ghost")
    tree_file.write_text(json.dumps(tree))
    problems = _messages(decomposition)
    assert _has(problems, "decomposition_tree.json", "node 'relu_fp32': path 'level_0_kernel/relu_fp32.py' "
                "does not exist")
    assert _has(problems, "decomposition_tree.json", "child 'ghost' of node 'tiny_residual_mlp' is not a node")


def test_failed_step_is_reported(decomposition: Path) -> None:
    result_file = decomposition / "steps" / "step_3_linear_relu_to_kernels" / "verification_result.json"
    _write(result_file, _sample("verification_result__anticheat_fail"))
    assert _has(_messages(decomposition), "steps/step_3_linear_relu_to_kernels/verification_result.json",
                "step status is 'FAIL', not PASS (anticheat_violation)")


def test_step_files_must_be_present(decomposition: Path) -> None:
    step = decomposition / "steps" / "step_1_model_to_layers"
    (step / "refactored.py").unlink()
    shutil.rmtree(step / "children")
    problems = _messages(decomposition)
    assert _has(problems, "steps/step_1_model_to_layers/refactored.py", "missing")
    assert _has(problems, "steps/step_1_model_to_layers/children", "missing or empty")


def test_step_importing_a_missing_child_file(decomposition: Path) -> None:
    step = decomposition / "steps" / "step_3_linear_relu_to_kernels"
    (step / "children" / "relu_fp32.py").unlink()  # a half-copied step: verify-step could not import it
    problems = _messages(decomposition)
    assert any(f.startswith("steps/step_3_linear_relu_to_kernels/refactored.py:") and "relu_fp32" in m
               and "does not exist" in m for f, m in problems), problems


def test_schema_violation_names_file_and_json_path(decomposition: Path) -> None:
    result_file = decomposition / "steps" / "step_1_model_to_layers" / "verification_result.json"
    data = json.loads(result_file.read_text())
    del data["numerical_comparison"]["trials"][0]["pass"]
    _write(result_file, data)
    assert _has(_messages(decomposition), "steps/step_1_model_to_layers/verification_result.json",
                "$.numerical_comparison.trials[0]: 'pass' is a required property")


def test_unparsable_json_reports_the_line(decomposition: Path) -> None:
    log = decomposition / "decomposition_log.json"
    log.write_text('{\n  "entries": [\n    {"step": 1,,}\n  ]\n}\n')
    report = validate_decomposition(decomposition)
    [problem] = [p for p in report.errors if p.file == "decomposition_log.json"]
    assert problem.line == 3
    assert "not valid JSON" in problem.message


def test_missing_verification_files(decomposition: Path) -> None:
    shutil.rmtree(decomposition / "verification")
    problems = _messages(decomposition)
    for name in ("composition_test.py", "test_results.json", "step_verification_summary.json",
                 "coverage_summary.json"):
        assert _has(problems, f"verification/{name}", "missing")


def test_failed_self_tests_and_composition(decomposition: Path) -> None:
    results = _sample("test_results__pass")
    results.update(failed=1, composition_test="FAILED")
    _write(decomposition / "verification" / "test_results.json", results)
    problems = _messages(decomposition)
    assert _has(problems, "verification/test_results.json", "1 component self-test(s) failed")
    assert _has(problems, "verification/test_results.json", "composition test is 'FAILED'")


def test_duplicate_kernel_code(decomposition: Path) -> None:
    kernels = decomposition / "level_0_kernel"
    source = (kernels / "relu_fp32.py").read_text()
    (kernels / "relu_v2_fp32.py").write_text(source.replace("Component: ReLU", "Component: ReLU again")
                                             + "\n# a comment does not make it different\n")
    problems = _messages(decomposition)
    assert _has(problems, "level_0_kernel/relu_v2_fp32.py", "same code as relu_fp32.py")


def test_kernel_names(decomposition: Path) -> None:
    kernels = decomposition / "level_0_kernel"
    (kernels / "linear_16x4_fp32.py").rename(kernels / "linear_fp32.py")
    (kernels / "relu_fp32.py").rename(kernels / "Kernel_3.py")
    problems = _messages(decomposition)
    assert _has(problems, "level_0_kernel/linear_fp32.py", "has weights: its name needs their shape signature")
    assert _has(problems, "level_0_kernel/Kernel_3.py", "must be lower-case")


@pytest.mark.parametrize(("stem", "has_parameters", "ok"), [
    ("linear_768x3072_fp32", True, True),
    ("relu_fp32", False, True),
    ("layer_norm_16_fp32", True, True),
    ("conv2d_3x64_k3p1_fp32", True, True),
    ("linear_16x4_fp32_v2", True, True),
    ("linear_fp32", True, False),
    ("kernel_0", False, False),
    ("op_fp32", False, False),
    ("Linear_16x4", True, False),
    ("16x4_linear", True, False),
])
def test_kernel_name_rule(stem: str, has_parameters: bool, ok: bool) -> None:
    assert (kernel_name_problems(stem, has_parameters) == []) is ok


def test_kernel_has_parameters() -> None:
    assert kernel_has_parameters("import torch.nn as nn\nclass Model(nn.Module):\n"
                                 "    def __init__(self):\n        self.fc = nn.Linear(2, 3)\n")
    assert kernel_has_parameters("self.w = nn.Parameter(torch.ones(3))")
    assert not kernel_has_parameters("import torch.nn as nn\nclass Model(nn.Module):\n"
                                     "    def __init__(self):\n        self.act = nn.GELU()\n")


# ---- the original workspace's tree layouts -------------------------------------------------------

@pytest.mark.parametrize(("sample", "count", "levels"), [
    ("decomposition_tree__nodes", 3, {3: 1, 0: 2}),
    ("decomposition_tree__levels_components", 5, {3: 1, 1: 1, 0: 3}),
    ("decomposition_tree__levels_files", 5, {3: 1, 1: 1, 0: 3}),
    ("decomposition_tree__by_file", 5, {3: 1, 1: 1, 0: 3}),
    ("decomposition_tree__nested", 2, {2: 1, 0: 1}),
])
def test_every_tree_layout_is_read(sample: str, count: int, levels: dict[int, int]) -> None:
    nodes, notes, layout = parse_nodes(_sample(sample), strict=True)
    assert notes == [] and layout is not None
    assert len(nodes) == count
    found: dict[int, int] = {}
    for node in nodes.values():
        assert node.level is not None
        found[node.level] = found.get(node.level, 0) + 1
    assert found == levels
    edges, unresolved = resolve_children(nodes)
    assert unresolved == []
    referenced = {c for children in edges.values() for c in children}
    assert len([k for k in nodes if k not in referenced]) == 1  # one root
    # the tools' reader is the validator's: the same nodes, levels and edges
    tree = DecompositionTree.from_dict(_sample(sample))
    assert set(tree.nodes) == set(nodes) and tree.source_format == layout
    assert {k: n.level for k, n in tree.nodes.items()} == {k: n.level for k, n in nodes.items()}
    assert {k: n.children for k, n in tree.nodes.items()} == edges
    assert tree.root_id not in referenced


def test_original_layout_tree_validates_structurally(tmp_path: Path) -> None:
    """A decomposition in the original's `tree{path: ...}` layout is checked like ours."""
    root = tmp_path / "11_TinyVGG"
    tree = _sample("decomposition_tree__by_file")
    for path, node in tree["tree"].items():
        file = root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"# {node['description']}\nimport torch.nn as nn\nX = {len(path)}\n")
    tree["tree"]["level_0_kernel/relu_8x16x16.py"]["children"] = []
    tree["tree"]["level_1_fusion/conv_relu_3x8.py"]["children"].append("level_1_fusion/conv_relu_3x8.py")
    _write(root / "decomposition_tree.json", tree)
    problems = _messages(root)
    assert _has(problems, "decomposition_tree.json", "level does not descend: 'level_1_fusion/conv_relu_3x8.py' "
                "(level 1) -> child 'level_1_fusion/conv_relu_3x8.py' (level 1)")
    assert _has(problems, "steps", "missing")
    assert not any("does not exist" in m for _, m in problems)


def test_component_files_follow_the_convention(decomposition: Path) -> None:
    layer = decomposition / "level_2_layer" / "residual_block_16x32_fp32.py"
    layer.write_text(layer.read_text().replace("def get_init_inputs", "def init_inputs"))
    child = decomposition / "steps" / "step_3_linear_relu_to_kernels" / "children" / "relu_fp32.py"
    child.write_text("import torch\nclass Model(:\n")
    report = validate_decomposition(decomposition)
    problems = [(p.file, p.message, p.line) for p in report.errors if p.check == "components"]
    assert ("level_2_layer/residual_block_16x32_fp32.py",
            "not a component file: missing get_init_inputs (class Model, get_inputs(), get_init_inputs())",
            None) in problems
    assert any(f == "steps/step_3_linear_relu_to_kernels/children/relu_fp32.py" and m.startswith("not valid Python")
               and line == 2 for f, m, line in problems)


def test_component_without_self_test_is_a_warning() -> None:
    source = "class Model: pass\ndef get_inputs(): return []\ndef get_init_inputs(): return []\n"
    assert component_file_problems(source) == [
        ("no self-test: `python file.py` should build the model, run it and print PASS", None, "warning")]
    assert component_file_problems(source.replace("Model", "RefactoredModel"), "RefactoredModel") == []


def test_node_paths_stay_inside_the_decomposition(decomposition: Path) -> None:
    outside = decomposition.parent / "elsewhere.py"
    outside.write_text("x = 1\n")
    tree_file = decomposition / "decomposition_tree.json"
    tree = json.loads(tree_file.read_text())
    tree["nodes"]["relu_fp32"]["path"] = "../elsewhere.py"
    tree_file.write_text(json.dumps(tree))
    assert _has(_messages(decomposition), "decomposition_tree.json",
                "node 'relu_fp32': path '../elsewhere.py' is outside the decomposition folder")
