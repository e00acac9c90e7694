"""hdecomp pipeline: every step re-verified in one process, summary + per-step results, decompositions
in the original workspace's layout accepted unchanged, broken steps reported without stopping the run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.formats.jsonio import read_json
from hdecomp.toolchain.pipeline import run_pipeline
from hdecomp.toolchain.validate import schema_errors
from hdecomp.verify.result import VerifyOptions

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toolchain"
FAST = VerifyOptions(num_trials=1)


def _copy(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root, symlinks=True)
    return root


def _all_json_valid(root: Path, skip: tuple[str, ...] = ()) -> None:
    for p in root.rglob("*.json"):
        if p.name not in skip:
            json.loads(p.read_text())  # never half-written
    assert not list(root.rglob("*.tmp")), "temporary files left behind"


def test_all_steps_pass_and_files_are_written(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    result = run_pipeline(root, FAST)
    assert result.status == "PASS" and result.exit_code == 0
    summary = read_json(root / "verification" / "step_verification_summary.json")
    assert schema_errors(summary, "step_verification_summary") == []
    assert summary["total_steps"] == 3 and summary["passed"] == 3 and summary["all_passed"] is True
    assert [s["step_name"] for s in summary["steps"]] == ["step_1_model_to_fusions",
                                                          "step_2_linear_relu_16x32_to_kernels",
                                                          "step_3_linear_relu_32x32_to_kernels"]
    assert {s["verification_status"] for s in summary["steps"]} == {"PASS"}
    assert {s["anticheat_status"] for s in summary["steps"]} == {"PASS"}
    assert {s["coverage_status"] for s in summary["steps"]} == {"FULL_COVERAGE"}
    assert summary["timings"]["forward_calls"] > 0
    for step in (root / "steps").iterdir():
        res = read_json(step / "verification_result.json")
        assert res["status"] == "PASS"
        assert schema_errors(res, "verification_result") == []
        cov = read_json(step / "coverage_report.json")
        assert cov["status"] == "FULL_COVERAGE"
        assert cov["children_input_mode"] == "verification"  # taken from the verifier's traces, no re-run
    _all_json_valid(root)


def test_original_workspace_layout_unchanged(tmp_path: Path) -> None:
    root = _copy("legacy_vgg", tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    result = run_pipeline(root, FAST)
    assert [o.status for o in result.steps] == ["PASS"] * 5, [o.error or o.fail_reason for o in result.steps]
    by = {o.step.dir.name: o for o in result.steps}
    assert by["step_2_block1_to_fusions"].step.original_source == "symlink"
    assert by["step_3_conv_relu_3x4_to_kernels"].step.original_source == "name"
    # the stale result written by the original tools is replaced by a fresh one
    fresh = read_json(root / "steps" / "step_1_model_to_layers" / "verification_result.json")
    assert fresh["timestamp"] != "2026-02-24T15:10:00.000000" and fresh["weight_transfer"]["mapped_count"] == 6
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before  # component files untouched


def test_broken_steps_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    (root / "steps" / "step_2_linear_relu_16x32_to_kernels" / "children" / "relu_fp32.py").unlink()
    ref3 = root / "steps" / "step_3_linear_relu_32x32_to_kernels" / "refactored.py"
    ref3.write_text(ref3.read_text().replace("return self.relu(self.linear(x))",
                                             "return torch.relu(self.linear(x))"))
    (root / "decomposition_tree.json").write_text('{"nodes": {"root": ')  # half-written tree
    result = run_pipeline(root, FAST)
    by = {o.step.dir.name: o for o in result.steps}
    assert by["step_1_model_to_fusions"].status == "PASS"
    err = by["step_2_linear_relu_16x32_to_kernels"]
    assert err.status == "ERROR" and "relu_fp32" in err.error and "refactored.py" in err.error
    assert by["step_3_linear_relu_32x32_to_kernels"].status == "FAIL"
    assert result.status == "ERROR" and result.exit_code == 2
    assert any("decomposition_tree.json" in p and "not valid JSON" in p for p in result.problems)
    summary = read_json(root / "verification" / "step_verification_summary.json")
    assert (summary["passed"], summary["failed"], summary["errors"]) == (1, 1, 1)
    assert read_json(root / "steps" / "step_2_linear_relu_16x32_to_kernels" / "verification_result.json")[
        "status"] == "ERROR"
    _all_json_valid(root, skip=("decomposition_tree.json",))


def test_hanging_and_raising_components(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    hang = root / "steps" / "step_2_linear_relu_16x32_to_kernels" / "children" / "relu_fp32.py"
    hang.write_text(hang.read_text().replace("return torch.relu(x)", "while True:\n            pass"))
    boom = root / "steps" / "step_3_linear_relu_32x32_to_kernels" / "children" / "linear_32x32_fp32.py"
    boom.write_text(boom.read_text().replace("return self.op(x)", "raise ValueError('child exploded')"))
    result = run_pipeline(root, VerifyOptions(num_trials=1, timeout=3.0))
    by = {o.step.dir.name: o for o in result.steps}
    assert by["step_1_model_to_fusions"].status == "PASS"
    assert by["step_2_linear_relu_16x32_to_kernels"].status == "ERROR"
    assert "timeout" in by["step_2_linear_relu_16x32_to_kernels"].error
    assert by["step_3_linear_relu_32x32_to_kernels"].status == "ERROR"
    assert "child exploded" in by["step_3_linear_relu_32x32_to_kernels"].error
    assert "linear_32x32_fp32.py" in by["step_3_linear_relu_32x32_to_kernels"].error
    assert result.exit_code == 2


def test_missing_original_that_cannot_be_found(tmp_path: Path) -> None:
    root = _copy("legacy_vgg", tmp_path)
    shutil.rmtree(root / "level_1_fusion")  # step_3_conv_relu_3x4 has no original.py and now no candidate
    result = run_pipeline(root, FAST, coverage=False)
    by = {o.step.dir.name: o for o in result.steps}
    bad = by["step_3_conv_relu_3x4_to_kernels"]
    assert bad.status == "ERROR" and "original.py is missing" in bad.error
    assert str(root / "steps" / "step_3_conv_relu_3x4_to_kernels" / "original.py") in bad.error
    assert sum(o.status == "PASS" for o in result.steps) == 4
    written = read_json(root / "steps" / "step_3_conv_relu_3x4_to_kernels" / "verification_result.json")
    assert written["status"] == "ERROR" and schema_errors(written, "verification_result") == []
    (root / "steps" / "step_2_classifier_to_kernels" / "refactored.py").unlink()
    result = run_pipeline(root, FAST, coverage=False)
    gone = {o.step.dir.name: o for o in result.steps}["step_2_classifier_to_kernels"]
    assert gone.error == f"{root / 'steps' / 'step_2_classifier_to_kernels' / 'refactored.py'}: refactored.py is missing"


def test_foreign_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a decomposition")
    assert main(["pipeline", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ERROR: {tmp_path}: not a decomposition folder"), err
    assert not (tmp_path / "verification").exists(), "nothing may be written into a foreign folder"
    (tmp_path / "steps").mkdir()  # a decomposition with no step yet: reported, summary written
    assert main(["pipeline", str(tmp_path)]) == 2
    assert "no step folders" in capsys.readouterr().out
    assert read_json(tmp_path / "verification" / "step_verification_summary.json")["status"] == "ERROR"
    assert main(["pipeline", str(tmp_path / "absent")]) == 2


def test_a_step_that_never_ran_a_trial_has_no_max_diff(tmp_path: Path) -> None:
    root = _copy("tiny_mlp", tmp_path)
    (root / "steps" / "step_2_linear_relu_16x32_to_kernels" / "children" / "relu_fp32.py").unlink()
    by = {o.step.dir.name: o for o in run_pipeline(root, FAST, coverage=False).steps}
    assert by["step_2_linear_relu_16x32_to_kernels"].status == "ERROR"
    assert by["step_2_linear_relu_16x32_to_kernels"].max_diff is None
    assert by["step_1_model_to_fusions"].max_diff is not None


def test_cli_exit_codes_in_a_subprocess(tmp_path: Path) -> None:
    root = _copy("legacy_vgg", tmp_path)
    ref = root / "steps" / "step_2_classifier_to_kernels" / "refactored.py"
    ref.write_text(ref.read_text().replace("return self.linear(self.flatten(x))",
                                           "return self.linear(self.flatten(x)) * 2"))
    proc = subprocess.run([sys.executable, "-m", "hdecomp", "pipeline", str(root), "--num-trials", "1",
                           "--no-coverage", "--json"], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout[proc.stdout.index("{"):])
    statuses = {s["step_name"]: s["verification_status"] for s in data["steps"]}
    assert statuses["step_2_classifier_to_kernels"] == "FAIL"
    assert list(statuses.values()).count("PASS") == 4


def test_summary_path_is_never_wrapped(tmp_path: Path) -> None:
    import io

    from hdecomp.cli.pipeline import print_summary
    from rich.console import Console
    deep = tmp_path / ("a_long_folder_name_" * 4)
    root = _copy("tiny_mlp", deep)
    result = run_pipeline(root, FAST, coverage=False)
    buf = io.StringIO()
    print_summary(Console(file=buf, width=60), result)
    assert f"summary: {result.summary_file}\n" in buf.getvalue()  # one line: copyable
