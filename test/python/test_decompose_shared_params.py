"""`hdecomp decompose` on a parent-owned parameter that several children read (KernelBench level 2 #79
`x * self.multiplier` twice, #68 `torch.min(x, self.constant)` then `x - self.constant`, and one read in
two different fusions). Each reading child gets the parameter, still an nn.Parameter; the weight map sends
the original key to the first child only and the refactored parent ties the other copies to it, so the
weights transfer once and every step verifies, also with re-randomised weights. The composition test
follows a tie into children that are decomposed further."""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest
import torch
import torch.fx as fx
from decompose_checks import assert_fully_verified
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.plan import plan_children
from hdecomp.toolchain.compose.script import _ChildTensorPaths
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step
from torch import nn

FIXTURES = Path(__file__).parent / "fixtures" / "decompose"
NAMES = ("shared_param_mul", "shared_param_min_sub", "shared_param_two_fusions")
TIE = "# tied (one tensor) in the original"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("shared")
    return {name: decompose(FIXTURES / f"{name}.py", out, DecomposeOptions(self_tests=False), progress=False)
            for name in NAMES}


def _step(dec: object, index: int = 1) -> Path:
    steps = sorted((dec.root / "steps").iterdir(), key=lambda p: int(p.name.split("_")[1]))  # type: ignore[attr-defined]
    return steps[index - 1]


def _child_stems(ref: str) -> dict[str, str]:
    """{attribute: child file stem} of a refactored.py (`self.a = A()` with `from children.a_1 import Model as A`)."""
    alias = dict((a, stem) for stem, a in re.findall(r"^from children\.(\w+) import Model as (\w+)$", ref, re.MULTILINE))
    return {attr: alias[cls] for attr, cls in re.findall(r"^        self\.(\w+) = (\w+)\(\)$", ref, re.MULTILINE)}


def _weight_map(step: Path) -> dict[str, str]:
    return json.loads((step / "weight_map.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_every_step_passes_and_composes(trees: dict, name: str) -> None:
    assert_fully_verified(trees[name])


def test_multiplier_read_twice(trees: dict) -> None:
    dec = trees["shared_param_mul"]
    # the model's first step keeps both reads in one fusion; the fusion's step splits them into kernels
    fusion_step = _step(dec, 2)
    ref = (fusion_step / "refactored.py").read_text()
    muls = re.findall(r"self\.(mul\w*) = MulFp32\(\)", ref)
    assert len(muls) == 2, ref
    assert f"self.{muls[1]}.multiplier = self.{muls[0]}.multiplier  {TIE}" in ref
    assert _weight_map(fusion_step)["multiplier"] == f"{muls[0]}.multiplier"
    # one kernel file for both instances; the parameter stays a parameter (not a random buffer)
    kernel = (dec.root / "level_0_kernel" / "mul_fp32.py").read_text()
    assert "self.multiplier = nn.Parameter(torch.randn((4, 1, 1)))" in kernel
    assert "register_buffer" not in kernel
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    assert tree["nodes"]["mul_fp32"]["instance_count"] == 2
    fusion = next((dec.root / "level_1_fusion").glob("*.py")).read_text()
    assert fusion.count("nn.Parameter(") == 1 and "register_buffer" not in fusion


def test_constant_read_by_min_and_sub(trees: dict) -> None:
    dec = trees["shared_param_min_sub"]
    step = _step(dec)
    ref = (step / "refactored.py").read_text()
    tie = re.search(rf"self\.(sub\w*)\.constant = self\.(min\w*)\.constant  {re.escape(TIE)}", ref)
    assert tie, ref
    assert _weight_map(step)["constant"] == f"{tie.group(2)}.constant"
    for kernel in (tie.group(1), tie.group(2)):
        text = (step / "children" / f"{kernel}.py").read_text()
        assert "self.constant = nn.Parameter(torch.full((), 2.0))" in text
    log = json.loads((dec.root / "decomposition_log.json").read_text())["entries"]
    assert any(e["type"] == "decision" and "read by several children" in e["title"] for e in log)


def test_parameter_in_two_fusions_composes_through_the_tie(trees: dict) -> None:
    dec = trees["shared_param_two_fusions"]
    step = _step(dec)
    ref = (step / "refactored.py").read_text()
    tie = re.search(rf"self\.(\w+)\.scale = self\.(\w+)\.scale  {re.escape(TIE)}", ref)
    assert tie, ref
    assert _weight_map(step)["scale"] == f"{tie.group(2)}.scale"
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    levels = {n["id"]: n["level"] for n in tree["nodes"].values()}
    stems = _child_stems(ref)
    assert levels[stems[tie.group(1)]] == levels[stems[tie.group(2)]] == "fusion"
    # both fusions are decomposed further (the scale moves on into their mul kernels): the composed
    # model follows the tie there
    script = (dec.root / "verification" / "composition_test.py").read_text()
    assert re.search(r"self\.\w+\.mul_fp32\.scale = self\.\w+\.mul_fp32\.scale", script), script


@pytest.mark.parametrize("name", ["shared_param_mul", "shared_param_min_sub"])
def test_without_the_tie_verification_fails(trees: dict, name: str, tmp_path: Path) -> None:
    """The tie is what makes the copies one tensor: without it the later copy keeps its own initial
    value, and verification catches that (for the scalar constant, whose initial value equals the
    original's, only the trial with re-randomised weights can)."""
    dec = trees[name]
    step = next(s for s in sorted((dec.root / "steps").iterdir()) if TIE in (s / "refactored.py").read_text())
    broken = tmp_path / step.name
    shutil.copytree(step, broken)
    ref = broken / "refactored.py"
    ref.write_text("\n".join(ln for ln in ref.read_text().splitlines() if TIE not in ln) + "\n")
    result = verify_step(broken / "original.py", ref, VerifyOptions(num_trials=2))
    assert result.status == "FAIL", result.to_dict().get("fail_reason")


# ---- planning ------------------------------------------------------------------------------------------


class _BufferTwice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.arange(4.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.table) * self.table


class _ReturnsParam(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(x * self.w), self.w


def test_plan_gives_a_buffer_read_twice_to_both_children() -> None:
    model = _BufferTwice()
    graph = fx.symbolic_trace(model).graph
    reads = [n for n in graph.nodes if n.op == "get_attr"]
    assert len(reads) == 2   # fx reads a buffer once per access
    children = plan_children(model, graph, 1, {}, {}, 1)
    holding = [c for c in children if any(m.op == "get_attr" for m in c.members)]
    assert [c.op_names for c in holding] == [["add"], ["mul"]]
    for c in holding:
        assert all(a.op != "get_attr" for a in c.inputs)


def test_a_parameter_the_component_returns_as_it_is_is_held_by_a_constant_child() -> None:
    # (RWKV's `u = self.time_faaaa`, handed back to the loop that reads it): the parent owns no state
    model = _ReturnsParam()
    graph = fx.symbolic_trace(model).graph
    children = plan_children(model, graph, 1, {}, {}, 1)
    const = [c for c in children if c.constant]
    assert len(const) == 1 and [m.target for m in const[0].members] == ["w"]
    assert any(c.op_names == ["mul"] for c in children)


class _ReturnsParamView(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(4, 4))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(x @ self.w), self.w.t()


def test_a_view_of_a_parameter_the_component_returns_is_a_kernel_holding_it() -> None:
    model = _ReturnsParamView()
    graph = fx.symbolic_trace(model).graph
    children = plan_children(model, graph, 1, {}, {}, 1)
    assert [c.op_names for c in children] == [["matmul"], ["relu"], ["t"]]
    assert all(any(m.op == "get_attr" for m in c.members) for c in children if c.op_names != ["relu"])


# ---- composition -----------------------------------------------------------------------------------------


def test_compose_rewrites_child_tensor_paths() -> None:
    src = ("class M:\n    def __init__(self):\n        self.b.w = self.a.w\n        self.c.w = self.a.w\n"
           "    def forward(self, x):\n        return self.a(x) + self.a.w.shape[0]\n")
    tree = ast.parse(src)
    out = ast.unparse(_ChildTensorPaths({"a": {"w": "mul.w"}, "b": {"w": "k.w"}}).visit(tree))
    assert "self.b.k.w = self.a.mul.w" in out
    assert "self.c.w = self.a.mul.w" in out          # c is not decomposed further: unchanged
    assert "self.a(x) + self.a.mul.w.shape[0]" in out
    # (a field of a tensor the composed child moved, read in the forward: VITS's `mask_dtype =
    # self.text_encoder.embed_tokens.weight.dtype` was dropped as a tie to a tensor the child no longer holds)
    read = ast.parse("class M:\n    def forward(self, m):\n        dtype = self.a.w.dtype\n        return m.to(dtype)\n")
    assert "dtype = self.a.mul.w.dtype" in ast.unparse(_ChildTensorPaths({"a": {"w": "mul.w"}}).visit(read))
