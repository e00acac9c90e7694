"""The JSON Schemas in data/schema/: valid draft 2020-12, accept the original workspace's files as they
are (samples in fixtures/agent/original_format/) and the files our own tools write, reject broken ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from hdecomp.toolchain.validate import SCHEMA_NAMES, load_schema, schema_errors, schema_for

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agent"
SAMPLES = sorted((FIXTURES / "original_format").glob("*.json"))
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "data" / "schema"
REQUIRED_SCHEMAS = {"decomposition_tree", "verification_result", "coverage_report", "coverage_summary",
                    "step_verification_summary", "test_results", "decomposition_log"}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_required_schema_ships() -> None:
    shipped = {p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json")}
    assert REQUIRED_SCHEMAS <= shipped
    assert set(SCHEMA_NAMES) <= shipped


@pytest.mark.parametrize("name", sorted(REQUIRED_SCHEMAS | {"weight_map"}))
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_there_is_a_sample_for_every_schema() -> None:
    covered = {p.name.split("__")[0] for p in SAMPLES}
    assert REQUIRED_SCHEMAS <= covered


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_original_workspace_files_are_accepted_as_they_are(sample: Path) -> None:
    name = sample.name.split("__")[0]
    assert schema_errors(_load(sample), name) == []


def test_schema_for_maps_output_files() -> None:
    assert schema_for("decomposition_tree.json") == "decomposition_tree"
    assert schema_for("steps/step_1_x/verification_result.json") == "verification_result"
    assert schema_for("steps/step_1_x/coverage_report.json") == "coverage_report"
    assert schema_for("verification/coverage_summary.json") == "coverage_summary"
    assert schema_for("verification/test_results.json") == "test_results"
    assert schema_for("steps/step_1_x/children/weight_map.json") is None


def _sample(name: str) -> dict:
    return _load(FIXTURES / "original_format" / f"{name}.json")


# Each case: (schema, sample, mutation, fragment expected in an error message)
BROKEN = [
    ("verification_result", "verification_result__pass", lambda d: d.pop("status"), "'status' is a required"),
    ("verification_result", "verification_result__pass", lambda d: d.update(status="MAYBE"), "MAYBE"),
    ("verification_result", "verification_result__pass",
     lambda d: d["numerical_comparison"]["trials"][0].pop("pass"), "'pass' is a required"),
    ("verification_result", "verification_result__pass",
     lambda d: d["weight_transfer"].update(weight_map={"a": 3}), "$.weight_transfer.weight_map.a"),
    ("decomposition_tree", "decomposition_tree__nodes",
     lambda d: d["nodes"]["root"].update(level=7), "$.nodes.root.level"),
    ("decomposition_tree", "decomposition_tree__nodes",
     lambda d: d["nodes"]["lm_head"].pop("children"), "'children' is a required"),
    ("decomposition_tree", "decomposition_tree__nodes", lambda d: d["metadata"].pop("model_name"),
     "'model_name' is a required"),
    ("decomposition_tree", "decomposition_tree__nodes", lambda d: d.pop("nodes"), "is not valid under any"),
    ("decomposition_tree", "decomposition_tree__by_file",
     lambda d: [d["tree"]["level_0_kernel/relu_8x16x16.py"].pop(k) for k in ("level", "type")],
     "is not valid under any"),
    ("decomposition_tree", "decomposition_tree__levels_files",
     lambda d: d["levels"].update(level_9_galaxy={}), "level_9_galaxy"),
    ("coverage_summary", "coverage_summary__partial",
     lambda d: d["coverage"]["op_details"][0].update(status="sort of"), "sort of"),
    ("coverage_summary", "coverage_summary__partial", lambda d: d.pop("model_file"), "'model_file'"),
    ("test_results", "test_results__pass", lambda d: d.pop("component_results"), "'component_results'"),
    ("test_results", "test_results__pass", lambda d: d.update(failed=-1), "$.failed"),
    ("step_verification_summary", "step_verification_summary__pass",
     lambda d: d["steps"][0].pop("step_name"), "'step_name' is a required"),
    ("decomposition_log", "decomposition_log__entries",
     lambda d: d["entries"][0].update(type="musing"), "musing"),
    ("decomposition_log", "decomposition_log__entries", lambda d: d["entries"][1].pop("title"), "'title'"),
    ("weight_map", "weight_map__step", lambda d: d.update({"x.weight": ""}), "$.x.weight"),
    ("weight_map", "weight_map__step",   # a packed tensor's slice without its stop
     lambda d: d.update({"in_proj_weight": [{"key": "q.weight", "dim": 0, "start": 0}]}), "$.in_proj_weight"),
    ("weight_map", "weight_map__step", lambda d: d.update({"in_proj_weight": []}), "$.in_proj_weight"),
]


def test_packed_tensor_slices_are_a_valid_weight_map() -> None:
    d = _sample("weight_map__step")
    d["in_proj_weight"] = [{"key": "q.weight", "dim": 0, "start": 0, "stop": 4},
                           {"key": "k.weight", "dim": 0, "start": 4, "stop": 8}]
    assert schema_errors(d, "weight_map") == []


@pytest.mark.parametrize(("name", "sample", "mutate", "expected"), BROKEN,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BROKEN)])
def test_broken_files_are_rejected_with_a_json_path(name, sample, mutate, expected) -> None:
    data = copy.deepcopy(_sample(sample))
    mutate(data)
    errors = schema_errors(data, name)
    assert errors, "the schema accepted a broken file"
    assert any(expected in e for e in errors), errors


def test_additional_fields_are_allowed_everywhere() -> None:
    data = _sample("verification_result__pass")
    data["hdecomp_version"] = "0.1.0"
    data["anticheat"]["runtime_violations"] = []
    data["numerical_comparison"]["randomized_trial"] = {"pass": True, "max_diff": 0.0}
    assert schema_errors(data, "verification_result") == []


# ---- files our own tools write -------------------------------------------------------------------

def test_tree_module_writes_schema_valid_trees(tmp_path: Path) -> None:
    from hdecomp.formats.tree import DecompositionTree

    for sample in ("decomposition_tree__nodes", "decomposition_tree__by_file",
                   "decomposition_tree__levels_components"):
        tree = DecompositionTree.from_dict(_sample(sample))
        out = tree.save(tmp_path / f"{sample}.json")
        assert schema_errors(_load(out), "decomposition_tree") == [], sample
    fixture = DecompositionTree.load(FIXTURES / "tiny_residual_mlp")
    out = fixture.save(tmp_path / "fixture_tree.json")
    assert schema_errors(_load(out), "decomposition_tree") == []


def test_verify_step_writes_schema_valid_results(tmp_path: Path) -> None:
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step

    step = FIXTURES / "tiny_residual_mlp" / "steps" / "step_3_linear_relu_to_kernels"
    out = tmp_path / "verification_result.json"
    result = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=1), output=out)
    assert result.status == "PASS"
    assert schema_errors(_load(out), "verification_result") == []

    bad = FIXTURES / "bad_steps" / "step_2_inline_relu"
    original = FIXTURES / "tiny_residual_mlp" / "steps" / "step_2_residual_block_to_fusions" / "original.py"
    out_bad = tmp_path / "bad_result.json"
    result = verify_step(original, bad / "refactored.py", VerifyOptions(num_trials=1), output=out_bad)
    assert result.status == "FAIL"
    assert schema_errors(_load(out_bad), "verification_result") == []


def test_one_kernel_tree_and_no_steps_summary_are_accepted() -> None:
    """A model that is one kernel: a one-node tree (a level-0 root, no children) and a summary with zero
    steps and status NO_STEPS; a KernelBench source_level is the level folder's name ("level1")."""
    tree = {
        "metadata": {"source_file": "kernelbench/level1/21_Sigmoid.py", "source_level": "level1",
                     "model_name": "21_Sigmoid", "total_components": 1,
                     "by_level": {"model": 0, "layer": 0, "fusion": 0, "kernel": 1}, "unique_kernels": 1,
                     "verification_status": "PASS"},
        "root": "sigmoid_fp32",
        "nodes": {"sigmoid_fp32": {"id": "sigmoid_fp32", "name": "sigmoid_fp32", "level": "kernel",
                                   "path": "level_0_kernel/sigmoid_fp32.py", "children": [], "parent": None,
                                   "input_shapes": {"x": [4, 16]}, "output_shapes": {"output": [4, 16]}}},
        "data_flow": [],
    }
    assert schema_errors(tree, "decomposition_tree") == []
    summary = {"timestamp": "t", "decomp_dir": "d", "status": "NO_STEPS", "total_steps": 0, "passed": 0,
               "failed": 0, "steps": [], "reason": "the root is a kernel"}
    assert schema_errors(summary, "step_verification_summary") == []
    assert schema_errors({**summary, "status": "SKIPPED_ALL"}, "step_verification_summary")
    assert schema_errors({**tree, "metadata": {**tree["metadata"], "source_level": ["level1"]}},
                         "decomposition_tree")
