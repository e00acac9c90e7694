"""`hdecomp decompose` on tiny models covering what a one-level torch.fx trace cannot do alone:
loops over ModuleLists, shared submodules and tied weights, in-place ops on inputs and intermediates,
buffers, int and keyword inputs, dict/tuple outputs, mixed dtypes. Each generated tree must then pass
the pipeline (re-verification) and the composition test (the self-tests of generated trees are run in
test_decompose_examples.py: one subprocess per component is too slow to repeat here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from decompose_checks import assert_fully_verified
from hdecomp.decompose.driver import DecomposeOptions, decompose

FIXTURES = Path(__file__).parent / "fixtures" / "decompose"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("decomp")
    result = {}
    for name in ("loops_shared_tied", "inplace_buffers", "io_kinds"):
        result[name] = decompose(FIXTURES / f"{name}.py", out, DecomposeOptions(self_tests=False),
                                 progress=False)
    return result


def _tree(dec: object) -> dict:
    return json.loads((dec.root / "decomposition_tree.json").read_text())  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["loops_shared_tied", "inplace_buffers", "io_kinds"])
def test_fully_decomposed_and_verified(trees: dict, name: str) -> None:
    assert_fully_verified(trees[name])


def test_loops_and_shared_modules(trees: dict) -> None:
    dec = trees["loops_shared_tied"]
    ref = (dec.root / "steps" / "step_1_loops_shared_tied" / "refactored.py").read_text()
    # the loop is unrolled over the ModuleList; the shared Linear is one child called twice
    assert "self.blocks_0(" in ref and "self.blocks_1(" in ref
    assert ref.count("self.shared(") == 2 and ref.count("self.shared = ") == 1
    # tied embedding/head weights stay tied in the refactored parent
    assert "# tied (one tensor) in the original" in ref
    tree = _tree(dec)
    block = tree["nodes"]["block"]
    assert block["instance_count"] == 2 and block["level"] in ("fusion", "layer")


def test_inplace_and_buffers(trees: dict) -> None:
    dec = trees["inplace_buffers"]
    texts = "\n".join(p.read_text() for p in sorted(dec.root.glob("level_[012]_*/*.py")))
    assert ".mul_(2.0)" in texts and ".relu_()" in texts           # in-place ops kept in place
    assert "persistent=False" in texts                              # the non-persistent buffer moved along
    wm = json.loads((dec.root / "steps" / "step_1_inplace_buffers" / "weight_map.json").read_text())
    assert any(k == "gamma" for k in wm) and any(k == "table" for k in wm)   # parent-owned state moved
    assert any(k.startswith("bn.running_") for k in wm)


def test_int_kwargs_dict_outputs_mixed_dtypes(trees: dict) -> None:
    dec = trees["io_kinds"]
    ref = (dec.root / "steps" / "step_1_io_kinds" / "refactored.py").read_text()
    assert "def forward(self, x, repeats: int, mask" in ref   # (a number handed in is written annotated)
    assert "'h':" in ref and "'pair':" in ref
    kernels = sorted(p.name for p in (dec.root / "level_0_kernel").glob("*.py"))
    assert "linear_8x8_fp64.py" in kernels and "linear_8x8_fp32.py" in kernels, kernels
    assert sum(1 for k in kernels if k.startswith("tanh")) == 1       # two tanh instances, one file
    tree = _tree(dec)
    assert tree["nodes"]["tanh_fp32"]["instance_count"] == 2
