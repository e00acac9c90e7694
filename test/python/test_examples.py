"""The bundled example models (data/examples): KernelBench convention, self-test PASS, tiny and fast."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hdecomp.runtime.component import load_component

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "data" / "examples"
EXPECTED = {
    # name: (input shapes, output shape)
    "simple_transformer": ([(2, 16)], (2, 16, 128)),
    "attention_block": ([(2, 16, 64)], (2, 16, 64)),
    "mlp_block": ([(2, 16, 64)], (2, 16, 64)),
    "small_convnet": ([(2, 3, 32, 32)], (2, 10)),
}


def test_every_expected_example_is_there() -> None:
    present = {p.stem for p in EXAMPLES_DIR.glob("*.py")}
    assert set(EXPECTED) <= present


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_loads_runs_and_has_expected_shapes(name: str) -> None:
    comp = load_component(EXAMPLES_DIR / f"{name}.py")
    assert comp.class_name == "Model"
    model = comp.build()
    args, kwargs = comp.make_inputs(seed=42)
    in_shapes, out_shape = EXPECTED[name]
    assert [tuple(a.shape) for a in args] == in_shapes
    model.eval()
    with torch.no_grad():
        out = model(*args, **kwargs)
    assert tuple(out.shape) == out_shape
    assert torch.isfinite(out).all()
    # small enough to decompose and verify in seconds on a CPU
    assert sum(p.numel() for p in model.parameters()) < 200_000


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_self_test_prints_pass(name: str) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(EXAMPLES_DIR / f"{name}.py")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "PASS"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_has_docstring_header(name: str) -> None:
    source = (EXAMPLES_DIR / f"{name}.py").read_text()
    assert source.startswith('"""'), "component files start with a docstring header"
    assert "Inputs:" in source and "Output:" in source
