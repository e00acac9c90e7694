"""A model that is itself one kernel (a KernelBench level-1 op, a lone nn.GRU) is a tree of one node: a
level-0 root whose file is the generated kernel file, with no step (a model -> one-kernel step would be a
parent in disguise) and no level_3_model copy. Every tool accepts that tree: pipeline (NO_STEPS, exit 0),
self-tests, compose (the kernel file against the original model), validate, batch and the editor's tree.
Also: the output folder is the model file's stem (as `hdecomp prompt` names it), `metadata.source_level`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.outputs import result_dict
from hdecomp.formats.layout import node_statuses
from hdecomp.formats.tree import DecompositionTree
from hdecomp.toolchain.batch import run_batch
from hdecomp.toolchain.compose import compose
from hdecomp.toolchain.pipeline import run_pipeline
from hdecomp.toolchain.prompt import default_output_dir
from hdecomp.toolchain.selftest import run_self_tests
from hdecomp.toolchain.validate import validate_decomposition

FIXTURES = Path(__file__).parent / "fixtures" / "decompose"


def _kernelbench_copy(tmp: Path, fixture: str, stem: str, level: str = "level1") -> Path:
    """The fixture as a KernelBench-style file: `<tmp>/kernelbench/<level>/<stem>.py`."""
    target = tmp / "kernelbench" / level / f"{stem}.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / f"{fixture}.py", target)
    return target


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    tmp = tmp_path_factory.mktemp("kernel_root")
    out = tmp / "out"
    sigmoid = _kernelbench_copy(tmp, "one_op", "21_Tiny_Sigmoid", "level1")
    gru = _kernelbench_copy(tmp, "one_gru", "39_Tiny_GRU", "level3")
    rmsnorm = _kernelbench_copy(tmp, "one_rmsnorm", "36_Tiny_RMSNorm_", "level1")
    return {
        # batch_limit: KernelBench's module-level batch_size is lowered (4 -> 2) for the run
        "sigmoid": decompose(sigmoid, out, DecomposeOptions(batch_limit=2), progress=False),
        "gru": decompose(gru, out, DecomposeOptions(), progress=False),
        "rmsnorm": decompose(rmsnorm, out, DecomposeOptions(), progress=False),
    }


def _tree(dec: object) -> dict:
    return json.loads((dec.root / "decomposition_tree.json").read_text())  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "stem", "kernel", "level"), [
    ("sigmoid", "21_Tiny_Sigmoid", "sigmoid_fp32", "level1"),
    ("gru", "39_Tiny_GRU", "gru_", "level3"),
    ("rmsnorm", "36_Tiny_RMSNorm_", "rms_norm_2x8x4_fp32", "level1"),   # pow/mean/add/sqrt/div: one kernel
])
def test_one_kernel_model_is_a_level0_root(trees: dict, name: str, stem: str, kernel: str, level: str) -> None:
    dec = trees[name]
    assert dec.root.name == stem                       # the folder is the file's stem, unchanged
    res = result_dict(dec)
    assert res["status"] == "PASS", res
    assert res["steps"] == 0 and res["components"] == 1 and res["unique_kernels"] == 1
    tree = _tree(dec)
    meta = tree["metadata"]
    assert meta["model_name"] == stem and meta["source_level"] == level
    assert meta["total_components"] == 1 and meta["unique_kernels"] == 1
    assert meta["by_level"] == {"model": 0, "layer": 0, "fusion": 0, "kernel": 1}
    assert meta["verification_status"] == "PASS"
    (root_id, node), = tree["nodes"].items()
    assert tree["root"] == root_id and root_id.startswith(kernel)
    assert node["level"] == "kernel" and node["children"] == [] and node["parent"] is None
    assert node["path"] == f"level_0_kernel/{root_id}.py" and (dec.root / node["path"]).is_file()
    assert node["input_shapes"] and node["output_shapes"]
    # no step, no model copy
    assert not any((dec.root / "steps").glob("*")) if (dec.root / "steps").exists() else True
    assert not (dec.root / "level_3_model").exists()
    assert sorted(p.name for p in (dec.root / "level_0_kernel").glob("*.py")) == [f"{root_id}.py"]
    # the log says why there is no step
    entries = json.loads((dec.root / "decomposition_log.json").read_text())["entries"]
    assert any(e["type"] == "decision" and "no step" in e["title"] for e in entries), entries
    summary = json.loads((dec.root / "verification" / "step_verification_summary.json").read_text())
    assert summary["status"] == "NO_STEPS" and summary["total_steps"] == 0 and summary["steps"] == []
    assert "kernel" in summary["reason"]
    assert res["coverage"]["coverage_pct"] == 100.0
    assert res["self_tests"]["status"] == "PASS"
    assert res["composition"]["status"] == "PASS", res["composition"]
    # every tool accepts the tree
    report = validate_decomposition(dec.root)
    assert report.status == "PASS", [p.message for p in report.errors]
    pipeline = run_pipeline(dec.root, coverage=False, progress=False)
    assert pipeline.status == "NO_STEPS" and pipeline.exit_code == 0 and not pipeline.problems
    assert run_self_tests(dec.root, timeout=120.0).status == "PASS"


def test_gru_kernel_keeps_the_models_inputs_and_output(trees: dict) -> None:
    dec = trees["gru"]
    (node,) = _tree(dec)["nodes"].values()
    text = (dec.root / node["path"]).read_text()
    # the data plumbing of the forward (`output, h_n = self.gru(x, h0)`, return output) is in the kernel
    assert "nn.GRU(4, 6, num_layers=2" in text.replace("input_size=", "").replace("hidden_size=", "") or \
        "nn.GRU(" in text
    assert "def forward(self, x, h0):" in text      # the model's own parameter names
    assert len(node["input_shapes"]) == 2 and len(node["output_shapes"]) == 1
    script = (dec.root / "verification" / "composition_test.py").read_text()
    assert "gru.weight_ih_l0" in script       # the original's weights reach the kernel file


def test_compose_pipeline_and_batch_accept_the_tree(trees: dict) -> None:
    dec = trees["sigmoid"]
    res = compose(dec.root, run=False)
    assert res.kernels == [f"level_0_kernel/{_tree(dec)['root']}.py"], res.to_dict()
    # `hdecomp compose` / `hdecomp pipeline` / `hdecomp validate` on the command line: exit 0
    assert main(["compose", str(dec.root), "--batch-limit", "2"]) == 0
    assert main(["pipeline", str(dec.root), "--no-coverage"]) == 0
    assert main(["validate", str(dec.root)]) == 0
    report = run_batch(dec.root, timeout=120.0)
    verdicts = {r["model"]: r for r in report["results"]}
    assert verdicts["21_Tiny_Sigmoid"]["status"] == "PASSED", verdicts["21_Tiny_Sigmoid"]
    assert verdicts["21_Tiny_Sigmoid"]["composition_status"] == "PASS"
    assert verdicts["21_Tiny_Sigmoid"]["kernel_root"] is True


def test_tree_readers_show_one_node(trees: dict) -> None:
    from hdecomp_lsp.features.trees import load_tree
    dec = trees["sigmoid"]
    tree = DecompositionTree.load(dec.root / "decomposition_tree.json")
    assert tree.root is not None and tree.root.level == 0 and len(tree.nodes) == 1
    assert node_statuses(tree)[tree.root.id].status == "pass"   # the composition test checked it
    payload = load_tree(str(dec.root / "decomposition_tree.json"))
    assert payload is not None and payload["modelName"] == "21_Tiny_Sigmoid"
    (node,) = payload["nodes"]
    assert payload["rootId"] == node["id"] and node["levelName"] == "kernel" and node["children"] == []
    assert node["status"] == "pass"   # the editor's tree shows the composition verdict too


def test_default_output_folder_is_the_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _kernelbench_copy(tmp_path, "one_op", "21_Tiny_Sigmoid", "level1")
    example = tmp_path / "models" / "tiny_sigmoid.py"
    example.parent.mkdir()
    shutil.copyfile(FIXTURES / "one_op.py", example)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["decompose", str(model)]) == 0
    expected = default_output_dir(model)
    assert expected == work / "output" / "level1" / "21_Tiny_Sigmoid"
    assert (expected / "decomposition_tree.json").is_file()
    dec = decompose(example, None, DecomposeOptions(finish=False), progress=False)
    assert dec.root == default_output_dir(example) == work / "output" / "examples" / "tiny_sigmoid"
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    assert tree["metadata"]["source_level"] is None            # not a KernelBench file
    assert tree["metadata"]["model_name"] == "tiny_sigmoid"


def test_multi_op_model_keeps_its_step(tmp_path: Path) -> None:
    """Only a ONE-kernel model skips the step: a model of several kernels is decomposed as before, into a
    folder named by its stem, with source_level from its level folder."""
    model = tmp_path / "level2" / "7_Loops_Shared.py"
    model.parent.mkdir()
    shutil.copyfile(FIXTURES / "loops_shared_tied.py", model)
    dec = decompose(model, tmp_path / "out", DecomposeOptions(finish=False), progress=False)
    tree = _tree(dec)
    assert dec.root == tmp_path / "out" / "7_Loops_Shared"
    assert tree["metadata"]["source_level"] == "level2"
    root = tree["nodes"][tree["root"]]
    assert root["level"] == "model" and root["path"] == "level_3_model/7_Loops_Shared.py"
    assert (dec.root / "steps" / "step_1_7_Loops_Shared" / "refactored.py").is_file()


def test_semantic_kernels_are_recognised_conservatively() -> None:
    from hdecomp.decompose.semantic import semantic_kernel
    assert semantic_kernel(["pow", "mean", "add", "sqrt", "div"]) == "rms_norm"
    assert semantic_kernel(["mul", "mean", "add", "rsqrt", "mul", "mul"]) == "rms_norm"
    assert semantic_kernel(["mean", "sub", "pow", "mean", "add", "sqrt", "div"]) == "layer_norm"
    assert semantic_kernel(["max", "sub", "exp", "sum", "div"]) == "softmax"
    assert semantic_kernel(["pow", "mean", "add", "sqrt", "div", "relu"]) is None    # an extra op
    assert semantic_kernel(["mean", "add"]) is None                                  # not all of it
    assert semantic_kernel(["sigmoid"]) is None                                      # one op: the planner's
    assert semantic_kernel(["pow", "mean", "add", "sqrt", "div"] * 2) is None        # too long for one
