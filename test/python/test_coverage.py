"""hdecomp coverage: eager op inventories (no torch.fx), per-module attribution, kernel instance counts,
small-batch recording when exact, per-step reports, and bad input."""

from __future__ import annotations

import shutil
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import torch
from hdecomp.cli import main
from hdecomp.formats.jsonio import read_json
from hdecomp.formats.layout import discover_steps
from hdecomp.toolchain.coverage import component_inventory, compute_coverage, step_coverage
from hdecomp.toolchain.validate import schema_errors

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toolchain"
TINY = FIXTURES / "tiny_mlp"
LEGACY = FIXTURES / "legacy_vgg"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny_mlp"
    shutil.copytree(TINY, root)
    return root


def _write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def test_whole_decomposition_full_coverage(tiny: Path) -> None:
    out = tiny / "verification" / "coverage_summary.json"
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny, output=out)
    assert report["status"] == "FULL_COVERAGE"
    cov = report["coverage"]
    assert cov["coverage_pct"] == 100.0 and cov["missing_op_types"] == []
    details = {d["op_type"]: d for d in cov["op_details"]}
    assert details["addmm"]["original_count"] == 3 and details["addmm"]["decomposed_count"] == 3
    # relu_fp32.py is one file used twice: the tree's two nodes make it count twice
    assert details["relu"]["decomposed_count"] == 2
    assert report["instances_from"] == "decomposition_tree.json"
    assert {c["file"].rsplit("/", 1)[-1]: c["instances"] for c in report["components"]}["relu_fp32.py"] == 2
    # batch 4 -> recorded at batch 1 after checking batch 1 and 2 give the same inventory
    assert report["original_input_mode"] == "small_batch"
    # attribution: every original op is owned by the module that ran it
    by_mod = report["original_ops_by_module"]
    assert by_mod["fc1"] == {"module_type": "Linear", "ops": {"addmm": 1}}
    assert by_mod["<root>"]["ops"] == {"relu": 2}  # F.relu in the model's own forward
    saved = read_json(out)
    assert saved["status"] == "FULL_COVERAGE"
    assert schema_errors(saved, "coverage_summary") == []
    for key in ("timestamp", "model_file", "extraction_method", "extraction_warnings", "extraction_errors",
                "decomposed_ops_count", "original_ops_summary", "original_compute_ops", "original_plumbing_ops"):
        assert key in saved


def test_missing_kernel_lowers_coverage_and_cli_exit_code(tiny: Path) -> None:
    (tiny / "level_0_kernel" / "relu_fp32.py").unlink()
    out = tiny / "cov.json"
    code = main(["coverage", "--model", str(tiny / "level_3_model" / "tiny_mlp.py"), "--decomp-dir", str(tiny),
                 "--output", str(out)])
    assert code == 1
    report = read_json(out)
    # addmm x3 covered, relu x2 missing: 3 of 5 ops
    assert report["coverage"]["missing_op_types"] == ["relu"]
    assert report["coverage"]["coverage_pct"] == 60.0
    assert report["status"] == "LOW_COVERAGE"
    # the composition runs the step's own child file in its place: the ReLUs run outside every kernel file
    assert report["counted_in"] == "composition" and report["outside_kernels"] == {"relu": 2}


def test_without_a_composition_the_kernel_files_are_counted_alone(tiny: Path) -> None:
    (tiny / "steps" / "step_1_model_to_fusions" / "refactored.py").write_text("this is not Python\n")
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny)
    assert report["counted_in"] == "kernel files" and "outside_kernels" not in report
    assert any(w.startswith("kernel files counted alone") and "refactored.py" in w
               for w in report["extraction_warnings"])
    # each file as often as the tree says it runs
    assert report["status"] == "FULL_COVERAGE"


def test_a_kernel_whose_path_depends_on_its_data_counts_as_the_model_runs_it(tiny: Path) -> None:
    # the same ReLU, spelled by size (as torchvision's batched_nms picks its path by the number of boxes):
    # its file's own workload (batch 4) takes the clamp path, the model (recorded at batch 1) the relu one
    kernel = tiny / "level_0_kernel" / "relu_fp32.py"
    kernel.write_text(kernel.read_text().replace(
        "        return torch.relu(x)",
        "        if x.shape[0] > 1:\n            return x.clamp(min=0)\n        return torch.relu(x)"))
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny)
    assert report["original_input_mode"] == "small_batch"
    assert report["counted_in"] == "composition"
    assert report["status"] == "FULL_COVERAGE" and report["coverage"]["coverage_pct"] == 100.0
    assert report["outside_kernels"] == {}
    relu = next(c for c in report["components"] if c["file"].endswith("relu_fp32.py"))
    assert relu["ops"] == {"clamp": 1} and relu["in_model_ops"] == {"relu": 2}
    assert any(w.startswith("relu_fp32.py: its own inputs do not reach relu") for w in report["extraction_warnings"])


def test_compute_a_step_keeps_outside_its_kernels_is_not_covered(tiny: Path) -> None:
    # a step whose refactored model applies the ReLU itself, its ReLU kernel built but never called: the
    # kernel files still hold every op type, but the model runs one ReLU outside them
    ref = tiny / "steps" / "step_2_linear_relu_16x32_to_kernels" / "refactored.py"
    ref.write_text(ref.read_text().replace("return self.relu(self.linear(x))", "return torch.relu(self.linear(x))"))
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny)
    assert report["counted_in"] == "composition"
    assert report["outside_kernels"] == {"relu": 1}
    details = {d["op_type"]: d for d in report["coverage"]["op_details"]}
    assert details["relu"]["original_count"] == 2 and details["relu"]["decomposed_count"] == 1
    assert report["status"] == "PARTIAL_COVERAGE" and report["coverage"]["coverage_pct"] == 80.0


def test_explicit_children_and_full_coverage_exit_zero(tiny: Path) -> None:
    kernels = sorted(str(p) for p in (tiny / "level_0_kernel").glob("*.py"))
    # without the tree, relu counts once: not full coverage
    code = main(["coverage", "--model", str(tiny / "level_3_model" / "tiny_mlp.py"), "--decomp-dir", str(tiny),
                 "--children", *kernels, "--output", str(tiny / "c.json")])
    assert code == 1
    assert read_json(tiny / "c.json")["coverage"]["op_details"][1]["status"] == "partial"
    code = main(["coverage", "--model", str(tiny / "level_3_model" / "tiny_mlp.py"), "--decomp-dir", str(tiny)])
    assert code == 0
    assert read_json(tiny / "verification" / "coverage_summary.json")["status"] == "FULL_COVERAGE"


def test_eager_recording_where_fx_cannot_trace() -> None:
    from hdecomp.runtime.component import load_component
    comp = load_component(FIXTURES / "control_flow_model.py")
    with pytest.raises(Exception):  # noqa: B017 - any tracing error proves the point
        torch.fx.symbolic_trace(comp.build())
    inv = component_inventory(FIXTURES / "control_flow_model.py")
    assert inv.error is None
    assert inv.ops == {"addmm": 3, "tanh": 3, "gt": 1, "all": 1, "relu": 1}
    assert inv.by_module["lin"] == {"addmm": 3}
    assert inv.by_module[""] == {"tanh": 3, "gt": 1, "all": 1, "relu": 1}
    assert inv.input_mode == "small_batch"


def test_batch_dependent_op_counts_fall_back_to_full_size(tmp_path: Path) -> None:
    path = _write(tmp_path / "per_sample.py", """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                return torch.stack([self.lin(x[i]) for i in range(x.shape[0])])

        def get_inputs():
            return [torch.randn(5, 4)]
    """)
    inv = component_inventory(path)
    assert inv.input_mode == "full"
    assert any("depend on the batch size" in n for n in inv.notes)
    assert sum(inv.ops.values()) == 5  # one linear per sample at the real batch of 5


def test_hard_coded_batch_falls_back_and_meta_mode(tmp_path: Path) -> None:
    path = _write(tmp_path / "fixed_batch.py", """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(12, 3)

            def forward(self, x):
                return self.lin(x.view(4, 12))

        def get_inputs():
            return [torch.randn(4, 3, 4)]
    """)
    inv = component_inventory(path)
    assert inv.input_mode == "full" and any("small batch failed" in n for n in inv.notes)
    meta = component_inventory(path, input_mode="meta")
    assert meta.input_mode == "meta" and meta.ops == inv.ops
    # a model that needs data cannot run on meta tensors: falls back, and says so
    data = component_inventory(FIXTURES / "control_flow_model.py", input_mode="meta")
    assert data.input_mode == "small_batch" and any("meta tensors failed" in n for n in data.notes)
    assert data.ops == {"addmm": 3, "tanh": 3, "gt": 1, "all": 1, "relu": 1}


def test_full_size_mode_is_honoured(tiny: Path) -> None:
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny, input_mode="full")
    assert report["original_input_mode"] == "full"
    assert {c["input_mode"] for c in report["components"]} == {"full"}
    assert report["status"] == "FULL_COVERAGE"


def test_step_reports_attribute_ops_to_children(tiny: Path) -> None:
    steps = {s.dir.name: s for s in discover_steps(tiny)}
    step = steps["step_1_model_to_fusions"]
    report = step_coverage(step, output=step.coverage_file)
    assert report["status"] == "FULL_COVERAGE"
    children = {c["attribute"]: c for c in report["children"]}
    assert children["block1"]["file"].endswith("children/linear_relu_16x32_fp32.py")
    assert children["block1"]["ops"] == {"addmm": 1, "relu": 1}
    assert children["head"]["ops"] == {"addmm": 1}
    assert report["outside_children"] == {}
    assert schema_errors(read_json(step.coverage_file), "coverage_report") == []


def test_step_report_on_original_workspace_layout() -> None:
    steps = {s.dir.name: s for s in discover_steps(LEGACY)}
    report = step_coverage(steps["step_2_block1_to_fusions"])  # symlinked original.py
    assert report["status"] == "FULL_COVERAGE"
    assert report["coverage"]["op_details"][0]["op_type"] == "convolution"
    assert {c["attribute"] for c in report["children"]} == {"conv_relu_1", "conv_relu_2", "maxpool"}


def test_compute_in_parent_is_reported_outside_children(tiny: Path) -> None:
    step_dir = tiny / "steps" / "step_2_linear_relu_16x32_to_kernels"
    ref = step_dir / "refactored.py"
    ref.write_text(ref.read_text().replace("return self.relu(self.linear(x))", "return torch.relu(self.linear(x))"))
    step = next(s for s in discover_steps(tiny) if s.dir == step_dir)
    report = step_coverage(step)
    assert report["outside_children"] == {"relu": 1}
    assert report["coverage"]["missing_op_types"] == ["relu"]


def test_broken_kernel_is_reported_and_the_rest_still_counted(tiny: Path) -> None:
    bad = tiny / "level_0_kernel" / "linear_32x8_fp32.py"
    bad.write_text(bad.read_text().replace("return self.op(x)", "raise RuntimeError('kernel exploded')"))
    out = tiny / "cov.json"
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny, output=out)
    assert any("linear_32x8_fp32.py" in e and "kernel exploded" in e for e in report["extraction_errors"])
    assert report["status"] == "PARTIAL_COVERAGE"
    details = {d["op_type"]: d for d in report["coverage"]["op_details"]}
    assert details["addmm"]["decomposed_count"] == 2 and details["relu"]["decomposed_count"] == 2
    assert read_json(out)["status"] == "PARTIAL_COVERAGE"


def test_unloadable_model_is_an_error_report(tmp_path: Path) -> None:
    bad = _write(tmp_path / "bad.py", "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x:\n")
    out = tmp_path / "cov.json"
    report = compute_coverage(bad, tmp_path, output=out)
    assert report["status"] == "ERROR" and "syntax error" in report["error"] and str(bad) in report["error"]
    assert read_json(out)["status"] == "ERROR"
    assert main(["coverage", "--model", str(bad), "--decomp-dir", str(tmp_path)]) == 2
    assert main(["coverage", "--model", str(tmp_path / "absent.py"), "--decomp-dir", str(tmp_path)]) == 2


def test_instances_from_the_composition_without_a_tree(tiny: Path) -> None:
    (tiny / "decomposition_tree.json").unlink()
    report = compute_coverage(tiny / "level_3_model" / "tiny_mlp.py", tiny)
    assert report["instances_from"] == "composition of the steps"
    assert {c["file"].rsplit("/", 1)[-1]: c["instances"] for c in report["components"]}["relu_fp32.py"] == 2
    assert report["status"] == "FULL_COVERAGE"


@pytest.mark.parametrize(("content", "cause"), [
    (None, "is a folder"),
    (b"import torch\nclass Model(torch.nn.Module:\n", "syntax error"),
    (b"# \xff\xfe\nimport torch\n", "not UTF-8"),
])
def test_cli_bad_model_keeps_the_existing_summary(tiny: Path, content: bytes | None, cause: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    summary = tiny / "verification" / "coverage_summary.json"
    summary.parent.mkdir(exist_ok=True)
    summary.write_text('{"status": "FULL_COVERAGE"}')
    bad = tiny / "bad_model.py"
    if content is None:
        bad.mkdir()
    else:
        bad.write_bytes(content)
    capsys.readouterr()
    assert main(["coverage", "--model", str(bad), "--decomp-dir", str(tiny)]) == 2
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert first.startswith(f"ERROR: {bad}") and cause in first, captured.err
    assert captured.out == ""  # no empty table
    assert read_json(summary) == {"status": "FULL_COVERAGE"}


def test_linear_spelled_mm_or_addmm_is_covered_either_way() -> None:
    """F.linear on a non-contiguous 3-D input dispatches to mm + a bias add (plumbing), on a contiguous one to
    addmm: nn.MultiheadAttention's projections in the original vs the same linear in a kernel file."""
    from hdecomp.runtime.ops import record_ops
    from hdecomp.toolchain.coverage import compare_inventories, trace_inventory

    linear = torch.nn.Linear(4, 8)
    _, t_strided = record_ops(linear, [torch.randn(3, 5, 4).transpose(0, 1)], {})
    _, t_flat = record_ops(linear, [torch.randn(15, 4)], {})
    strided, flat = trace_inventory(t_strided)[0], trace_inventory(t_flat)[0]
    assert set(strided) == {"mm"} and set(flat) == {"addmm"}      # the two spellings really occur
    for original, decomposed in ((strided, flat), (flat, strided)):
        cov = compare_inventories(original, decomposed)
        assert cov["coverage_pct"] == 100.0 and cov["missing_op_types"] == [], cov
        (detail,) = [d for d in cov["op_details"] if d["original_count"]]
        assert detail["decomposed_count"] == 0 and detail["covered_by"] == dict(decomposed), detail
    # folding never covers what is not there: an addmm is not a bmm, and two linears need two
    assert compare_inventories(flat, Counter({"bmm": 1}))["coverage_pct"] == 0.0
    assert compare_inventories(flat + strided, flat)["coverage_pct"] == 50.0
