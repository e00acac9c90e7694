"""QA findings on verify-step: --batch-limit lowers a module's `batch_size` before get_inputs() runs,
option validation, max_diff when no trial ran, the auto-picked weight map, --json help texts."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hdecomp.cli import build_parser, main
from hdecomp.errors import ComponentRunError
from hdecomp.runtime.component import load_component
from hdecomp.toolchain.validate import schema_errors
from hdecomp.verify.report import verdict_line
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

BAD = Path(__file__).parent / "fixtures" / "verify" / "bad"
REPO = Path(__file__).resolve().parents[2]

MODEL = '''import torch
import torch.nn as nn

{header}


class {cls}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    {body}


def get_init_inputs():
    return []
'''


def write_pair(folder: Path, *, header: str = "batch_size = 64",
               body: str = "return [torch.randn(batch_size, 8)]") -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    orig, ref = folder / "original.py", folder / "refactored.py"
    orig.write_text(MODEL.format(header=header, cls="Model", body=body))
    ref.write_text(MODEL.format(header=header, cls="RefactoredModel", body=body))
    return orig, ref


# ----------------------------------------------------------------------------- V1 --batch-limit


def test_batch_limit_lowers_batch_size_before_get_inputs_cli(tmp_path: Path) -> None:
    orig, ref = write_pair(tmp_path / "s")
    out = tmp_path / "r.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    p = subprocess.run([str(Path(sys.executable).parent / "hdecomp"), "verify-step", "--original", str(orig),
                        "--refactored", str(ref), "--batch-limit", "2", "--skip-anticheat", "--num-trials", "1",
                        "--output", str(out), "-q"],
                       capture_output=True, text=True, cwd=REPO, env=env, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    data = json.loads(out.read_text())
    # get_inputs() itself built a batch of 2: nothing was left to cut
    assert data["input_shapes"] == {"args[0]": [2, 8]}
    assert data["batch_limit_method"] == "batch_size"
    assert data["batch_size_override"] == {"from": 64, "to": 2}
    assert data["batch_cuts"] == []
    assert schema_errors(data, "verification_result") == []


def test_batch_limit_still_cuts_without_batch_size(tmp_path: Path) -> None:
    orig, ref = write_pair(tmp_path, header="", body="return [torch.randn(64, 8)]")
    r = verify_step(orig, ref, VerifyOptions(batch_limit=2, num_trials=1, skip_anticheat=True))
    assert r.status == "PASS", r.error
    assert r.data["input_shapes"] == {"args[0]": [2, 8]}
    assert r.data["batch_limit_method"] == "cut"
    assert r.data["batch_size_override"] is None
    assert r.data["batch_cuts"] == [{"input": "args[0]", "from": 64, "to": 2}]


def test_batch_limit_larger_than_batch_size_changes_nothing(tmp_path: Path) -> None:
    orig, ref = write_pair(tmp_path)
    r = verify_step(orig, ref, VerifyOptions(batch_limit=100, num_trials=1, skip_anticheat=True))
    assert r.status == "PASS", r.error
    assert r.data["input_shapes"] == {"args[0]": [64, 8]}
    assert r.data["batch_limit_method"] == "not_needed"
    r = verify_step(orig, ref, VerifyOptions(num_trials=1, skip_anticheat=True))
    assert r.data["batch_limit_method"] is None and r.data["input_shapes"] == {"args[0]": [64, 8]}


def test_make_inputs_restores_batch_size(tmp_path: Path) -> None:
    orig, _ = write_pair(tmp_path, body="seen.append(batch_size)\n    return [torch.randn(batch_size, 8)]",
                         header="batch_size = 64\nseen = []")
    comp = load_component(orig)
    args, _ = comp.make_inputs(seed=0, batch_limit=3)
    # (the first use of a limit checks that the file works lowered: get_inputs ran once more at 3)
    assert comp.module.seen == [3, 3] and list(args[0].shape) == [3, 8]
    assert comp.module.batch_size == 64
    assert comp.last_batch_override == (64, 3)
    args, _ = comp.make_inputs(seed=0)  # backward compatible: no limit, full size
    assert comp.module.seen == [3, 3, 64] and list(args[0].shape) == [64, 8]
    assert comp.last_batch_override is None


def test_make_inputs_restores_batch_size_on_error(tmp_path: Path) -> None:
    orig, _ = write_pair(tmp_path, body="raise ValueError(f'no inputs for {batch_size}')")
    comp = load_component(orig)
    # get_inputs raises lowered, so the file keeps its batch (Component.batch_size_kept), and raises at it too
    with pytest.raises(ComponentRunError, match="no inputs for 64"):
        comp.make_inputs(seed=0, batch_limit=2)
    assert comp.batch_size_kept(2) == "at batch_size=2, get_inputs raised ValueError: no inputs for 2"
    assert comp.module.batch_size == 64


def test_make_inputs_ignores_a_non_int_batch_size(tmp_path: Path) -> None:
    orig, _ = write_pair(tmp_path, header="batch_size = True", body="return [torch.randn(5, 8)]")
    comp = load_component(orig)
    comp.make_inputs(seed=0, batch_limit=0)
    assert comp.module.batch_size is True and comp.last_batch_override is None


# ----------------------------------------------------------------------------- V2 option validation


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--rtol", "-1", "--rtol must be >= 0"),
    ("--atol", "-0.5", "--atol must be >= 0"),
    ("--rtol", "nan", "--rtol must be >= 0"),
    ("--timeout", "0", "--timeout must be > 0"),
    ("--timeout", "-3", "--timeout must be > 0"),
])
def test_negative_tolerances_and_timeout_are_errors(capsys, flag: str, value: str, message: str) -> None:
    code = main(["verify-step", "--original", str(BAD / "original.py"), "--refactored",
                 str(BAD / "refactored_ok.py"), "-q", flag, value])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines()[0] == f"ERROR: {message} (got {float(value)})"


# ----------------------------------------------------------------------------- V3 max_diff


def test_max_diff_is_none_when_no_trial_ran(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    r = verify_step(BAD / "original.py", BAD / "refactored_ctor.py", output=out)
    assert r.status == "ERROR"
    assert r.max_diff is None
    data = json.loads(out.read_text())
    assert data["numerical_comparison"]["max_diff_across_trials"] is None
    assert schema_errors(data, "verification_result") == []
    assert verdict_line(r).startswith("ERROR: ")


def test_max_diff_is_a_number_when_trials_ran() -> None:
    r = verify_step(BAD / "original.py", BAD / "refactored_ok.py", VerifyOptions(num_trials=1))
    assert r.status == "PASS" and isinstance(r.max_diff, float)
    assert r.data["numerical_comparison"]["max_diff_across_trials"] == r.max_diff


def test_lsp_lens_title_accepts_none() -> None:
    from hdecomp_lsp.features.code_lens import lens_title

    r = verify_step(BAD / "original.py", BAD / "refactored_ctor.py")
    assert lens_title(r.to_dict()).startswith("⚠ ERROR · ")
    # a FAIL without a comparison (a violation found before any trial) names the reason instead
    fail = {**r.to_dict(), "status": "FAIL", "fail_reason": "weight_transfer"}
    assert lens_title(fail) == "✗ FAIL · weight_transfer"


# ----------------------------------------------------------------------------- V4 weight map pickup


def test_same_file_is_an_error(capsys, tmp_path: Path) -> None:
    step = tmp_path / "s"
    orig, _ = write_pair(step)
    (step / "weight_map.json").write_text(json.dumps({"fc.weight": "nope.weight"}))
    for ref in (orig, step / ".." / "s" / "original.py"):
        code = main(["verify-step", "--original", str(orig), "--refactored", str(ref), "-q"])
        first = capsys.readouterr().err.splitlines()[0]
        assert code == 2
        assert "original and refactored are the same file" in first
        assert "weight map" not in first


def test_auto_picked_weight_map_says_where_it_came_from(capsys, tmp_path: Path) -> None:
    step = tmp_path / "s"
    step.mkdir()
    shutil.copy(BAD / "original.py", step / "original.py")
    shutil.copy(BAD / "refactored_ok.py", step / "refactored.py")
    shutil.copytree(BAD / "children", step / "children")
    wm = step / "weight_map.json"
    wm.write_text(json.dumps({"fc.wieght": "fc.linear.weight"}))
    code = main(["verify-step", "--original", str(step / "original.py"), "--refactored",
                 str(step / "refactored.py"), "-q"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2
    assert "'fc.wieght'" in first
    assert f"picked up automatically from {wm}" in first and "--weight-map" in first and "delete" in first
    # the same file given explicitly: the plain message
    code = main(["verify-step", "--original", str(step / "original.py"), "--refactored",
                 str(step / "refactored.py"), "--weight-map", str(wm), "-q"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2 and "'fc.wieght'" in first and "automatically" not in first
    # an unreadable auto-picked file too
    wm.write_text("{not json")
    code = main(["verify-step", "--original", str(step / "original.py"), "--refactored",
                 str(step / "refactored.py"), "-q"])
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 2 and "not valid JSON" in first and "picked up automatically" in first


def test_auto_picked_weight_map_that_fits_is_recorded(tmp_path: Path) -> None:
    step = tmp_path / "s"
    step.mkdir()
    shutil.copy(BAD / "original.py", step / "original.py")
    shutil.copy(BAD / "refactored_ok.py", step / "refactored.py")
    shutil.copytree(BAD / "children", step / "children")
    (step / "weight_map.json").write_text(json.dumps({"fc.weight": "fc.linear.weight"}))
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=1))
    assert r.status == "PASS", r.error
    assert r.data["weight_transfer"]["picked_up_automatically"] is True
    assert r.data["weight_transfer"]["explicit_file"] == str(step / "weight_map.json")


# ----------------------------------------------------------------------------- V5 --json help


def test_every_json_flag_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    seen = 0
    for name, p in sub.choices.items():
        for action in p._actions:
            if "--json" in action.option_strings:
                seen += 1
                assert action.help == "print the result as JSON on stdout", name
    assert seen >= 10
