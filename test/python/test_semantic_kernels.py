"""Semantic classification inside a forward: an RMSNorm, softmax or GELU written inline as primitives is
ONE kernel child (decompose/plan.py `semantic_runs`, patterns in decompose/semantic.py), named after the
pattern, with the parameters it reads; the steps and the composition still verify (same primitives)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
import torch.fx as fx
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.outputs import result_dict
from hdecomp.decompose.plan import plan_children, semantic_runs
from hdecomp.decompose.semantic import semantic_kernel
from torch import nn

FIXTURES = Path(__file__).parent / "fixtures" / "decompose"

TANH_GELU = ["pow", "mul", "add", "mul", "tanh", "add", "mul", "mul"]
ERF_GELU = ["div", "erf", "add", "mul", "mul"]


@pytest.mark.parametrize(("ops", "name"), [
    (TANH_GELU, "gelu"),
    (["mul", "mul", "mul", "add", "mul", "tanh", "add", "mul", "mul"], "gelu"),   # x * x * x for the cube
    (ERF_GELU, "gelu"),
    (["pow", "mean", "add", "rsqrt", "mul", "mul"], "rms_norm"),
    (["max", "sub", "exp", "sum", "div"], "softmax"),
    (["mean", "sub", "pow", "mean", "add", "sqrt", "div", "mul", "add"], "layer_norm"),
])
def test_patterns(ops: list[str], name: str) -> None:
    assert semantic_kernel(ops) == name


@pytest.mark.parametrize("ops", [
    ["tanh", "mul", "add"],                              # tanh(x) * 2 + 1: too short for a GELU
    [*TANH_GELU, "relu"],                                # an unrelated op in the run
    [*ERF_GELU, "sigmoid"],
    ["pow", "mean", "add", "rsqrt", "mul", "relu"],      # a norm with an extra op is not a norm
    ["pow", "mean", "add", "rsqrt", "mul", "exp"],
    ["pow", "mul", "add", "mul", "add", "mul", "mul"],   # no tanh / erf
    ["max", "sub", "exp", "sum", "div", "matmul"],
    [*TANH_GELU, *TANH_GELU],                              # two GELUs back to back: too long for one
    ["mul"],
])
def test_negative_patterns(ops: list[str]) -> None:
    assert semantic_kernel(ops) is None


def _plan(model: nn.Module, level: int = 2) -> list:
    gm = fx.symbolic_trace(model)
    return plan_children(gm, gm.graph, level, {}, {}, cap=5)


class _GeluChainModels(nn.Module):
    """A plain chain over the GELU vocabulary (tanh then mul/add) and an erf GELU after a relu."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(x) * 2 + 1 + x.sum()          # no value read twice: no GELU
        z = torch.relu(y)
        return z * 0.5 * (1.0 + torch.erf(z / math.sqrt(2.0)))


def test_runs_in_a_graph_are_maximal_and_conservative() -> None:
    runs = semantic_runs(_GeluChainModels(), fx.symbolic_trace(_GeluChainModels()).graph)
    assert [(name, [n.name for n in nodes]) for name, nodes in runs] == [
        ("gelu", ["mul_1", "truediv", "erf", "add_2", "mul_2"])]
    children = _plan(_GeluChainModels())
    gelu = [c for c in children if c.semantic]
    assert len(gelu) == 1 and gelu[0].kernel and gelu[0].op_names == ["gelu"] and gelu[0].level == 0
    # the relu and the tanh chain are not in it
    assert not any(n.name in ("relu", "tanh") for n in gelu[0].members)


class _NormReadTwice(nn.Module):
    """The norm's intermediate is also used outside: not a run (its intermediates are needed elsewhere)."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ms = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(ms + 1e-6) * self.weight, ms


class _TwoInputs(nn.Module):
    """x normalised by the statistics of another tensor: not an RMSNorm of one value."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6)


@pytest.mark.parametrize("model", [_NormReadTwice(), _TwoInputs()])
def test_no_run_when_the_values_do_not_form_one_kernel(model: nn.Module) -> None:
    gm = fx.symbolic_trace(model)
    names = [name for name, _ in semantic_runs(gm, gm.graph)]
    assert "rms_norm" not in names


class _ReluNorm(nn.Module):
    """relu -> inline RMSNorm with a weight: the relu stays out of the norm, the weight moves into it."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(x)
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def test_weight_moves_into_the_norm_kernel() -> None:
    children = _plan(_ReluNorm())
    norm = [c for c in children if c.semantic == "rms_norm"]
    assert len(norm) == 1 and norm[0].kernel and norm[0].op_names == ["rms_norm"]
    assert any(m.op == "get_attr" and m.target == "weight" for m in norm[0].members)
    assert [n.name for n in norm[0].core] == ["pow_1", "mean", "add", "rsqrt", "mul", "mul_1"]
    assert [n.name for n in norm[0].inputs] == ["relu"]


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("semantic")
    return {name: decompose(FIXTURES / f"{name}.py", out, DecomposeOptions(self_tests=False), progress=False)
            for name in ("inline_norms", "inline_gelu")}


@pytest.mark.parametrize(("name", "kernels"), [
    ("inline_norms", {"rms_norm": ["pow", "mean", "rsqrt", "self.weight"],
                      "softmax": ["max(", "torch.exp(", ".sum(", " / "]}),
    ("inline_gelu", {"gelu": ["pow(3)", "torch.tanh(", "0.044715", "0.5"]}),
])
def test_inline_kernels_decompose_and_verify(trees: dict, name: str, kernels: dict[str, list[str]]) -> None:
    dec = trees[name]
    res = result_dict(dec)
    assert res["status"] == "PASS", res
    assert res["steps"] >= 1 and res["steps_passed"] == res["steps"]
    assert res["composition"]["status"] == "PASS", res["composition"]
    assert res["coverage"]["coverage_pct"] == 100.0
    files = sorted(p.name for p in (dec.root / "level_0_kernel").glob("*.py"))
    for kernel, snippets in kernels.items():
        mine = [f for f in files if f.startswith(kernel)]
        assert len(mine) == 1, files
        assert mine[0].endswith("_fp32.py")
        body = (dec.root / "level_0_kernel" / mine[0]).read_text()
        forward = body.split("def forward")[1].split("def get_inputs")[0]
        for s in snippets:
            assert s in forward, (mine[0], s)
    # nothing but the two Linears and the semantic kernels
    assert len(files) == 2 + len(kernels), files
    ref = next((dec.root / "steps").glob("step_1_*/refactored.py")).read_text()
    forward = ref.split("def forward")[1].split("def get_inputs")[0]
    for op in ("torch.exp", "rsqrt", "torch.tanh", ".pow(", ".mean("):
        assert op not in forward


@pytest.mark.parametrize(("ops", "name"), [
    (["aten.pow.Tensor_Scalar", "aten.mean.dim", "aten.add.Tensor", "aten.rsqrt.default", "aten.mul.Tensor",
      "aten.mul.Tensor"], "rms_norm"),
    (["aten.amax.default", "aten.sub.Tensor", "aten.exp.default", "aten.sum.dim_IntList", "aten.div.Tensor"],
     "softmax"),
    (["amax", "subtract", "exp", "sum", "true_divide"], "softmax"),
    (["__rmul__", "pow", "__mul__", "__add__", "mul", "tanh", "__radd__", "mul", "mul"], "gelu"),
    (["_to_copy", "pow", "mean", "add_", "rsqrt", "mul"], "rms_norm"),
])
def test_aten_and_operator_spellings_match(ops: list[str], name: str) -> None:
    assert semantic_kernel(ops) == name


def test_aten_spellings_do_not_widen_the_patterns() -> None:
    assert semantic_kernel(["aten.pow.Tensor_Scalar", "aten.mean.dim", "aten.add.Tensor", "aten.rsqrt.default",
                            "aten.mul.Tensor", "aten.relu.default"]) is None
    assert semantic_kernel(["aten.tanh.default", "aten.mul.Tensor", "aten.add.Tensor"]) is None


class _InlineSoftmax(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e = torch.exp(x - x.max(-1, keepdim=True)[0])
        return torch.relu(e / e.sum(-1, keepdim=True))


class _InlineLayerNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(8))
        self.b = nn.Parameter(torch.zeros(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mu = x.mean(-1, keepdim=True)
        var = (x - mu).pow(2).mean(-1, keepdim=True)
        return torch.relu((x - mu) / torch.sqrt(var + 1e-5) * self.w + self.b)


class _InlineGelu(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(x)
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


@pytest.mark.parametrize(("model", "name"), [(_ReluNorm, "rms_norm"), (_InlineSoftmax, "softmax"),
                                             (_InlineLayerNorm, "layer_norm"), (_InlineGelu, "gelu")])
@pytest.mark.parametrize("method", ["fx", "export", "record"])
def test_runs_match_on_every_capture_method(model: type[nn.Module], name: str, method: str) -> None:
    # torch.export and execution recording spell ops from aten (torch.div for `/`, a getitem per element of
    # `x.max(-1)`'s result): the same inline kernel must be found as on an fx trace.
    from hdecomp.decompose import capture as cap_mod
    m = model().eval()
    x = torch.randn(2, 8)
    ref = cap_mod.reference_run(m, [x], {})
    fn = {"fx": cap_mod.capture_fx, "export": cap_mod.capture_export, "record": cap_mod.capture_record}[method]
    cap = fn(m, [x], {}, ref, set())
    assert cap.method == method
    gm = fx.GraphModule(m, cap.graph)
    runs = semantic_runs(gm, cap.graph)
    assert [r[0] for r in runs] == [name]
    children = plan_children(gm, cap.graph, 2, {}, cap.child_calls, cap=5)
    assert [c.semantic for c in children if c.semantic] == [name]
