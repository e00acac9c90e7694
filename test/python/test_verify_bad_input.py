"""Bad input to verify-step: one clear first line naming file and cause, the right exit code, and a
complete (never half-written) result file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.toolchain.validate import schema_errors

FIX = Path(__file__).parent / "fixtures" / "verify"
BAD = FIX / "bad"
REPO = Path(__file__).resolve().parents[2]


def verify(capsys, refactored: str, original: str = "original.py", *extra: str, out: Path | None = None):
    argv = ["verify-step", "--original", str(BAD / original), "--refactored", str(BAD / refactored), "-q"]
    if out is not None:
        argv += ["--output", str(out)]
    code = main([*argv, *extra])
    captured = capsys.readouterr()
    text = captured.err if code == 2 else captured.out
    return code, text.splitlines()[0] if text.strip() else ""


def assert_complete_result(out: Path, status: str) -> dict:
    data = json.loads(out.read_text())  # parses: not half-written
    assert data["status"] == status
    assert schema_errors(data, "verification_result") == []
    assert not list(out.parent.glob(".*.tmp"))
    return data


@pytest.mark.parametrize(("refactored", "where", "cause"), [
    ("refactored_syntax.py", "refactored_syntax.py:14", "syntax error"),
    ("refactored_missing_pkg.py", "refactored_missing_pkg.py:4", "'flash_attn_nonexistent_pkg'"),
    ("refactored_ctor.py", "refactored_ctor.py:12", "ValueError: bad hidden size"),
    ("refactored_forward.py", "refactored_forward.py:15", "shape '[3, 7]' is invalid"),
    ("refactored_oom.py", "refactored_oom.py:14", "ran out of memory"),
    ("refactored_memerror.py", "refactored_memerror.py:14", "ran out of memory (MemoryError"),
])
def test_errors_have_one_clear_first_line(capsys, tmp_path: Path, refactored: str, where: str,
                                          cause: str) -> None:
    out = tmp_path / "verification_result.json"
    code, first = verify(capsys, refactored, out=out)
    assert code == 2
    assert first.startswith("ERROR: ")
    assert where in first and cause in first
    data = assert_complete_result(out, "ERROR")
    assert where in data["error"]
    assert data["error_details"]["line"] == int(where.rsplit(":", 1)[1])


def test_missing_package_is_named(capsys) -> None:
    _, first = verify(capsys, "refactored_missing_pkg.py")
    assert "not installed" in first and "flash_attn_nonexistent_pkg" in first


def test_oom_suggests_batch_limit(capsys) -> None:
    _, first = verify(capsys, "refactored_oom.py")
    assert "--batch-limit" in first


def test_missing_get_inputs_in_original(capsys, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_ok.py", "original_no_inputs.py", out=out)
    assert code == 2
    assert first == f"ERROR: {BAD / 'original_no_inputs.py'}: missing get_inputs(): every component file must define it"
    assert_complete_result(out, "ERROR")


def test_missing_file(capsys) -> None:
    code, first = verify(capsys, "does_not_exist.py")
    assert code == 2 and "does_not_exist.py" in first and "file not found" in first


def test_hang_times_out_naming_file_and_line(capsys, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_hang.py", "original.py", "--timeout", "1", out=out)
    assert code == 2
    assert "refactored_hang.py:14" in first and "timeout" in first
    assert_complete_result(out, "ERROR")


def test_shape_mismatch_fails_with_reason(capsys, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_shape.py", out=out)
    assert code == 1
    assert first == "FAIL: trial 0 (seed 42): shape mismatch at out: original [4, 16], refactored [2, 16]"
    data = assert_complete_result(out, "FAIL")
    assert data["fail_reason"] == "numerical_mismatch"


def test_all_nan_output_fails_and_is_flagged(capsys, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_nan.py", "original_nan.py", out=out)
    assert code == 1
    assert "all NaN" in first
    data = assert_complete_result(out, "FAIL")
    assert data["degenerate_output"]["detected"] is True
    assert data["degenerate_output"]["kinds"] == ["all_nan"]
    assert data["numerical_comparison"]["trials"][0]["output_details"][0]["nan_count"] == 64


def test_a_trial_all_nan_on_both_sides_is_inconclusive_where_others_inform(capsys, tmp_path: Path) -> None:
    # the log of one random number: the draw of seed 43 is negative (NaN on both sides, proves nothing), the
    # others are not; the step rests on those. Alone (every trial NaN, above) the same case fails.
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_log_one.py", "original_log_one.py", out=out)
    assert code == 0, first
    data = assert_complete_result(out, "PASS")
    trials = data["numerical_comparison"]["trials"]
    assert [t.get("inconclusive", False) for t in trials] == [not t["pass"] for t in trials]
    assert any(t.get("inconclusive") for t in trials) and any(t["pass"] for t in trials)
    assert any("inconclusive" in w for w in data["warnings"])


def test_original_mutating_its_input_does_not_poison_refactored_run(capsys, tmp_path: Path) -> None:
    # Both scale their input in place; each gets its own copy, so both see the same values.
    out = tmp_path / "r.json"
    code, _ = verify(capsys, "refactored_mutates.py", "original_mutates.py", "--skip-anticheat", out=out)
    assert code == 0
    data = assert_complete_result(out, "PASS")
    assert data["input_mutation"] == {"original": ["args[0]"], "refactored": ["args[0]"]}
    assert any("modifies its input" in w for w in data["warnings"])


def test_in_place_write_of_the_same_values_counts_alike_on_both_sides(tmp_path: Path) -> None:
    # timm's Bottleneck: nn.Identity then ReLU(inplace=True) on inputs from torch.rand (already >= 0): the
    # values do not change but both models write their input; the original's write counts as the
    # refactored model's does (by the tensor's version counter), so the honest refactor passes
    original = tmp_path / "original.py"
    original.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.act = nn.ReLU(inplace=True)\n"
        "        self.fc = nn.Linear(8, 8)\n\n    def forward(self, x):\n        return self.fc(self.act(x))\n\n\n"
        "def get_inputs():\n    return [torch.rand(4, 8)]\n\n\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "children").mkdir()
    (tmp_path / "children" / "act.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.act = nn.ReLU(inplace=True)\n\n"
        "    def forward(self, x):\n        return self.act(x)\n\n\n"
        "def get_inputs():\n    return [torch.rand(4, 8)]\n\n\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "children" / "fc.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(8, 8)\n\n"
        "    def forward(self, x):\n        return self.fc(x)\n\n\n"
        "def get_inputs():\n    return [torch.rand(4, 8)]\n\n\ndef get_init_inputs():\n    return []\n")
    refactored = tmp_path / "refactored.py"
    refactored.write_text(
        "import torch\nimport torch.nn as nn\n\nfrom children.act import Model as Act\n"
        "from children.fc import Model as Fc\n\n\nclass RefactoredModel(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.act = Act()\n        self.fc = Fc()\n\n"
        "    def forward(self, x):\n        return self.fc(self.act(x))\n\n\n"
        "def get_inputs():\n    return [torch.rand(4, 8)]\n\n\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "weight_map.json").write_text('{"fc.weight": "fc.fc.weight", "fc.bias": "fc.fc.bias"}')
    from hdecomp.verify.step import verify_step
    r = verify_step(original, refactored)
    assert r.data["input_mutation"]["original"] == r.data["input_mutation"]["refactored"] == ["args[0]"], \
        r.data["input_mutation"]
    assert r.status == "PASS", r.data.get("fail_detail")


def test_mutation_only_in_one_model_fails(capsys, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, first = verify(capsys, "refactored_mutates.py", "original.py", "--skip-anticheat", out=out)
    assert code == 1
    assert first.startswith("FAIL: ")
    data = assert_complete_result(out, "FAIL")
    assert data["input_mutation"] == {"original": [], "refactored": ["args[0]"]}
    assert "input_mutation" in data["fail_reasons"]


def test_invalid_options_are_errors(capsys) -> None:
    code, first = verify(capsys, "refactored_ok.py", "original.py", "--num-trials", "0")
    assert code == 2 and "--num-trials" in first
    code, first = verify(capsys, "refactored_ok.py", "original.py", "--device", "warpdrive")
    assert code == 2 and first.startswith("ERROR: invalid --device 'warpdrive'")
    code, first = verify(capsys, "refactored_ok.py", "original.py", "--batch-limit", "0")
    assert code == 2 and "--batch-limit" in first


def test_bad_weight_map_file_is_an_error(capsys, tmp_path: Path) -> None:
    wm = tmp_path / "weight_map.json"
    wm.write_text("{not json")
    code, first = verify(capsys, "refactored_ok.py", "original.py", "--weight-map", str(wm))
    assert code == 2 and first.startswith(f"ERROR: {wm}:1: not valid JSON")
    wm.write_text(json.dumps({"fc.wieght": "fc.linear.weight"}))
    code, first = verify(capsys, "refactored_ok.py", "original.py", "--weight-map", str(wm))
    assert code == 2 and "'fc.wieght'" in first and "did you mean 'fc.weight'" in first
    # (judged again on the settled original, where it is missing too: the same error, no word of settling)
    out = tmp_path / "r.json"
    verify(capsys, "refactored_ok.py", "original.py", "--weight-map", str(wm), out=out)
    data = assert_complete_result(out, "ERROR")
    assert "'fc.wieght'" in data["error"] and not any("first forward" in w for w in data["warnings"]), data


def test_existing_result_is_replaced_whole(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.json"
    out.write_text('{"status": "PASS", "old": true}')
    verify(capsys, "refactored_ctor.py", out=out)
    data = assert_complete_result(out, "ERROR")
    assert "old" not in data


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "hdecomp", "verify-step", *args], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=240)


def test_subprocess_error_exit_code_and_first_line(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    p = _cli("--original", str(BAD / "original.py"), "--refactored", str(BAD / "refactored_syntax.py"),
             "--output", str(out))
    assert p.returncode == 2
    assert p.stderr.splitlines()[0].startswith(f"ERROR: {BAD / 'refactored_syntax.py'}:14: syntax error")
    assert p.stdout == ""
    assert_complete_result(out, "ERROR")


def test_subprocess_pass() -> None:
    # FAIL and the other ERROR paths run in-process above; one real process start is enough here.
    p = _cli("--original", str(BAD / "original.py"), "--refactored", str(BAD / "refactored_ok.py"), "-q")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("PASS: ")


def test_static_violations_kept_in_an_error_result(tmp_path: Path) -> None:
    import shutil

    from hdecomp.verify.step import verify_step

    shutil.copytree(BAD / "children", tmp_path / "children")
    src = (BAD / "refactored_forward.py").read_text().replace("y = self.fc(x)", "y = torch.relu(self.fc(x))")
    (tmp_path / "refactored.py").write_text(src)
    out = tmp_path / "r.json"
    r = verify_step(BAD / "original.py", tmp_path / "refactored.py", output=out)
    assert r.status == "ERROR" and "shape '[3, 7]' is invalid" in r.error
    data = assert_complete_result(out, "ERROR")
    assert any(v["op"] == "relu" for v in data["anticheat"]["source_violations"])
    assert any(v.op == "relu" for v in r.violations)


def test_oom_while_comparing_is_an_error(monkeypatch, tmp_path: Path) -> None:
    import hdecomp.verify.step as verify_mod

    def boom(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(verify_mod, "compare_outputs", boom)   # the driver compares the two sides' outputs
    out = tmp_path / "r.json"
    r = verify_mod.verify_step(BAD / "original.py", BAD / "refactored_ok.py", output=out)
    assert r.status == "ERROR" and r.exit_code == 2
    assert "ran out of memory" in r.error and "--batch-limit" in r.error
    assert r.error.startswith(str(BAD / "refactored_ok.py"))
    assert_complete_result(out, "ERROR")
