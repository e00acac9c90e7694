"""Hostile input on every command: each answers with one `ERROR: <file>: <cause>` first line on stderr and
exit 2 (never a traceback, never exit 1 for a broken invocation), and writes nothing half-done."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hdecomp.cli import main

TINY = Path(__file__).resolve().parent / "fixtures" / "toolchain" / "tiny_mlp"
STEP = "step_2_linear_relu_16x32_to_kernels"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hdecomp", *args], capture_output=True, text=True, timeout=120,
                          env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})


def _assert_one_error_line(res: subprocess.CompletedProcess[str], names: Path, cause: str) -> None:
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-1500:])
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    first = res.stderr.splitlines()[0]
    assert first.startswith(f"ERROR: {names}") and cause in first, first


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny_mlp"
    shutil.copytree(TINY, root)
    return root


def test_output_that_is_a_folder(tiny: Path, tmp_path: Path) -> None:
    folder = tmp_path / "out_folder"
    folder.mkdir()
    step = tiny / "steps" / STEP
    res = _run("verify-step", "--original", str(step / "original.py"), "--refactored", str(step / "refactored.py"),
               "--num-trials", "1", "--no-randomized-trial", "--output", str(folder))
    _assert_one_error_line(res, folder, "Is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out_folder", "tiny_mlp"]  # no temporary file left


def test_output_root_that_is_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "out.txt"
    afile.write_text("x")
    model = tmp_path / "m.py"
    shutil.copy(TINY / "level_0_kernel" / "relu_fp32.py", model)
    _assert_one_error_line(_run("decompose", str(model), "-o", str(afile)), afile, "Not a directory")


def test_oserror_names_the_target_of_a_rename(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import hdecomp.cli as cli

    def boom(args: object) -> int:
        raise IsADirectoryError(21, "Is a directory", str(tmp_path / ".x.tmp"), None, str(tmp_path / "x"))
    monkeypatch.setitem(cli.HANDLERS, "validate", (__name__, "_boom"))
    monkeypatch.setattr(sys.modules[__name__], "_boom", boom, raising=False)
    assert main(["validate", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"ERROR: {tmp_path / 'x'}: Is a directory\n"


@pytest.mark.parametrize("command", ["pipeline", "test", "compose", "validate"])
def test_a_file_where_a_decomposition_folder_is_expected(tmp_path: Path, command: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "model.py"
    afile.write_text("import torch\n")
    assert main([command, str(afile)]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"ERROR: {afile}: not a") and "not found" not in first, first
