"""Decompose a tiny model the way an LLM agent following data/prompts/ would, driven only through the
`hdecomp` command line (subprocesses, exit codes, result files), and check that the gates stop an agent
that cheats or gets the numbers wrong.

The agent's work is hand-written in fixtures/agent/: `models/tiny_residual_mlp.py` is the model,
`tiny_residual_mlp/` is the finished decomposition in the DESIGN.md layout (its step folders hold what the
agent writes at each step: refactored.py, children/, weight_map.json), and `bad_steps/` holds two wrong
attempts at step 2. The test replays the agent one level at a time: it writes a step, runs the gate,
and promotes the children into the level folders only after the gate passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_validate import make_complete_decomposition

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agent"
MODEL = FIXTURES / "models" / "tiny_residual_mlp.py"
ANSWERS = FIXTURES / "tiny_residual_mlp"
BAD_STEPS = FIXTURES / "bad_steps"
LEVEL_FOLDERS = ("level_3_model", "level_2_layer", "level_1_fusion", "level_0_kernel")

# (step folder, the parent component file the agent copies to original.py)
STEPS = [
    ("step_1_model_to_layers", "level_3_model/tiny_residual_mlp.py"),
    ("step_2_residual_block_to_fusions", "level_2_layer/residual_block_16x32_fp32.py"),
    ("step_3_linear_relu_to_kernels", "level_1_fusion/linear_relu_16x32_fp32.py"),
]


def hdecomp(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `python -m hdecomp ARGS` as an agent's shell would."""
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "hdecomp", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _explain(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"


def _level_folder_of(child: str) -> str:
    """Where the finished decomposition keeps a child file (the agent classified it when writing it)."""
    for folder in LEVEL_FOLDERS:
        if (ANSWERS / folder / child).is_file():
            return folder
    raise AssertionError(f"{child} is in no level folder of the fixture")


def write_step(out: Path, step: str, parent: str, attempt: Path) -> Path:
    """The agent writes one step: original.py = the parent file, plus its refactored.py, children, map."""
    step_dir = out / "steps" / step
    if step_dir.exists():
        shutil.rmtree(step_dir)
    (step_dir / "children").mkdir(parents=True)
    shutil.copy(out / parent, step_dir / "original.py")
    shutil.copy(attempt / "refactored.py", step_dir / "refactored.py")
    for child in sorted((attempt / "children").glob("*.py")):
        shutil.copy(child, step_dir / "children" / child.name)
    if (attempt / "weight_map.json").is_file():
        shutil.copy(attempt / "weight_map.json", step_dir / "weight_map.json")
    return step_dir


def promote_children(out: Path, step_dir: Path) -> None:
    """After PASS: each child goes to its level folder (a kernel already there is reused, not renamed)."""
    for child in sorted((step_dir / "children").glob("*.py")):
        target = out / _level_folder_of(child.name) / child.name
        if target.exists():
            assert target.read_text() == child.read_text(), f"two different kernels named {child.name}"
            continue
        shutil.copy(child, target)


def verify(step_dir: Path) -> subprocess.CompletedProcess[str]:
    return hdecomp("verify-step", "--original", "original.py", "--refactored", "refactored.py",
                   "--output", "verification_result.json", cwd=step_dir)


def _result(step_dir: Path) -> dict:
    return json.loads((step_dir / "verification_result.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~20 subprocesses that each import torch; minutes on a busy machine
def test_agent_decomposes_a_tiny_model_through_the_gates(tmp_path: Path) -> None:
    out = tmp_path / "output" / "examples" / "tiny_residual_mlp"

    # Round 0: the prompt, the folders, the root component (the model with a component header).
    proc = hdecomp("prompt", str(MODEL), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, _explain(proc)
    assert f"Output: {out}/" in proc.stdout
    for folder in (*LEVEL_FOLDERS, "steps", "verification"):
        (out / folder).mkdir(parents=True)
    shutil.copy(ANSWERS / "level_3_model" / "tiny_residual_mlp.py", out / "level_3_model")
    shutil.copy(ANSWERS / "decomposition_analysis.md", out)

    for step, parent in STEPS:
        if step == "step_2_residual_block_to_fusions":
            # First attempt: the ReLU computed inline. The numbers match; the gate must still stop it.
            step_dir = write_step(out, step, parent, BAD_STEPS / "step_2_inline_relu")
            proc = hdecomp("check", "refactored.py", cwd=step_dir)
            assert proc.returncode == 1, _explain(proc)
            assert "HD101" in proc.stdout and "relu" in proc.stdout
            proc = verify(step_dir)
            assert proc.returncode == 1, _explain(proc)
            result = _result(step_dir)
            assert result["status"] == "FAIL"
            assert result["anticheat"]["status"] == "FAIL"
            assert result["numerical_comparison"]["status"] == "PASS"  # only anti-cheat caught it
            # The agent reads the message and extracts Linear+ReLU into a fusion child instead.
        step_dir = write_step(out, step, parent, ANSWERS / "steps" / step)
        proc = hdecomp("check", "refactored.py", cwd=step_dir)
        assert proc.returncode == 0, _explain(proc)
        proc = verify(step_dir)
        assert proc.returncode == 0, f"{step}: " + _explain(proc)
        assert _result(step_dir)["status"] == "PASS"
        promote_children(out, step_dir)

    # Every leaf is now a kernel: the bookkeeping, then the final gates.
    assert sorted(p.name for p in (out / "level_0_kernel").glob("*.py")) == sorted(
        p.name for p in (ANSWERS / "level_0_kernel").glob("*.py"))
    for name in ("decomposition_tree.json", "decomposition_log.json"):
        shutil.copy(ANSWERS / name, out / name)

    proc = hdecomp("coverage", "--model", "level_3_model/tiny_residual_mlp.py", "--decomp-dir", ".",
                   "--output", "verification/coverage_summary.json", cwd=out)
    assert proc.returncode == 0, _explain(proc)
    proc = hdecomp("pipeline", ".", cwd=out)
    assert proc.returncode == 0, _explain(proc)
    proc = hdecomp("test", ".", "--jobs", "2", cwd=out)
    assert proc.returncode == 0, _explain(proc)
    proc = hdecomp("compose", ".", cwd=out)
    assert proc.returncode == 0, _explain(proc)
    proc = hdecomp("validate", ".", "--json", cwd=out)
    assert proc.returncode == 0, _explain(proc)
    report = json.loads(proc.stdout)
    assert report["status"] == "PASS"
    assert (report["checked"]["nodes"], report["checked"]["steps"], report["checked"]["kernels"]) == (8, 3, 5)
    assert report["errors"] == 0
    assert (out / "verification" / "composition_test.py").is_file()


@pytest.mark.parametrize("bad", ["step_2_inline_relu", "step_2_dropped_residual"])
def test_gate_stops_a_bad_step(tmp_path: Path, bad: str) -> None:
    """A cheat (ReLU inline, numbers right) or a mismatch (residual dropped): verify-step exits 1, and an
    agent that carries on anyway is caught again by `validate`."""
    out = make_complete_decomposition(tmp_path)
    step_dir = write_step(out, "step_2_residual_block_to_fusions", "level_2_layer/residual_block_16x32_fp32.py",
                          BAD_STEPS / bad)
    proc = hdecomp("check", "refactored.py", cwd=step_dir)
    # The cheat is visible in the source; the dropped branch only shows when the models run.
    assert proc.returncode == (1 if bad == "step_2_inline_relu" else 0), _explain(proc)
    proc = verify(step_dir)
    assert proc.returncode == 1, _explain(proc)
    result = _result(step_dir)
    assert result["status"] == "FAIL"
    numbers = result["numerical_comparison"]
    if bad == "step_2_inline_relu":
        assert result["anticheat"]["status"] == "FAIL"
        assert any("relu" in json.dumps(v) for v in result["anticheat"]["violations"])
        assert numbers["status"] == "PASS"
    else:
        assert numbers["status"] == "FAIL"
        assert numbers["max_diff_across_trials"] > 0.1
        assert not any(trial["pass"] for trial in numbers["trials"])
    proc = hdecomp("validate", ".", "--json", cwd=out)
    assert proc.returncode == 1, _explain(proc)
    problems = [p for p in json.loads(proc.stdout)["problems"] if p["severity"] == "error"]
    assert [p["file"] for p in problems] == ["steps/step_2_residual_block_to_fusions/verification_result.json"]
    assert "not PASS" in problems[0]["message"]
