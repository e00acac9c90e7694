"""plan.py: shape queries (`x.size(0)`, `x.shape`, `x.dim()`) and int arithmetic on them are data plumbing,
never a child of their own. One on a parameter (`self.C.size(0)`, as hdecomp.decompose.batch_relative writes a
batch-dependent int of a recorded graph) travels with the parameter's view into the child that reads it,
and a group with one compute op is a kernel (KernelBench's 49_Mamba2ReturnFinalState under
`--batch-limit 1`: a size -> reshape -> einsum "fusion" was the parent in disguise, HD305)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.fx as fx
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.node_kinds import is_parent_plumbing
from hdecomp.decompose.outputs import result_dict
from hdecomp.decompose.plan import ChildPlan, plan_children
from hdecomp.toolchain.compose import compose
from torch import nn

FIXTURES = Path(__file__).parent / "fixtures" / "size_plumbing"


class SizeArithmetic(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(x)
        z = y.reshape(y.size(0) * y.size(1), -1)
        return torch.sigmoid(self.fc(z))


class ParamViews(nn.Module):
    """The graph batch_relative leaves: views of parameters sized by `self.X.size(0)`."""

    def __init__(self) -> None:
        super().__init__()
        self.B = nn.Parameter(torch.randn(2, 12))
        self.C = nn.Parameter(torch.randn(2, 12))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c = self.C.reshape(self.C.size(0), 3, 4)
        b = self.B.reshape(self.B.size(0), 3, 4)
        y = torch.einsum("bnd,bnd->bn", c, x)
        s = torch.einsum("bnd,bn->bd", b, y)
        return s, torch.einsum("bnd,bnd->bd", b, x)


def _plan(model: nn.Module, level: int = 2) -> tuple[fx.GraphModule, list[ChildPlan]]:
    gm = fx.symbolic_trace(model)
    calls = {str(n.target): 1 for n in gm.graph.nodes if n.op == "call_module"}
    return gm, plan_children(model, gm.graph, level, {}, calls, 5)


def _names(nodes: list[fx.Node]) -> list[str]:
    return [n.name for n in nodes]


def test_int_arithmetic_on_sizes_stays_in_the_parent() -> None:
    gm, children = _plan(SizeArithmetic())
    mul = next(n for n in gm.graph.nodes if n.name == "mul")
    assert is_parent_plumbing(mul)
    assert [c.op_names for c in children] == [["relu"], ["linear", "sigmoid"]]
    assert not any(m.name.startswith(("size", "mul")) for c in children for m in c.members)


def test_a_size_of_a_parameter_goes_with_its_view_into_the_reader() -> None:
    _, children = _plan(ParamViews())
    # each einsum is a contraction: a fusion holds one, so no two of them share a child
    assert sorted(c.op_names for c in children) == [["einsum"], ["einsum"], ["einsum"], ["reshape"]]
    for c in children:   # no child is a shape query, every child with one compute op is a kernel
        assert "size" not in c.op_names
        assert c.kernel == (len(c.op_names) == 1)
    # C's view is read by one einsum: C, its size and its view go into that einsum's child
    c_reader = next(c for c in children if any(m.name == "c" for m in c.members))
    assert _names(c_reader.members)[:3] == ["c", "size", "reshape"]
    assert _names(c_reader.core) == ["einsum"]
    # B's view is read by two children: a view kernel of its own, its size inside
    b_view = next(c for c in children if c.op_names == ["reshape"])
    assert _names(b_view.members) == ["b", "size_1", "reshape_1"] and b_view.kernel
    assert _names(b_view.core) == ["reshape_1"]


@pytest.fixture(scope="module")
def param_views(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("size_plumbing")
    return decompose(FIXTURES / "param_views.py", tmp, DecomposeOptions(batch_limit=1, self_tests=False),
                     progress=False)


def test_recorded_parameter_views_decompose_fully(param_views: Any) -> None:
    res = result_dict(param_views)
    assert res["status"] == "PASS", res
    assert res["steps_passed"] == res["steps"] >= 1
    assert param_views.nodes[param_views.root_node].capture_method == "record"
    log = json.loads((param_views.root / "decomposition_log.json").read_text())
    texts = [e["description"] for e in log["entries"]]
    assert any("batch-dependent ints written batch-relative" in t and "c.size(0)" in t for t in texts)
    kernels = sorted(p.name for p in param_views.root.glob("level_0_kernel/*.py"))
    assert not [k for k in kernels if k.startswith("size")], kernels
    # no size -> reshape -> einsum "fusion": C's view and its size are plumbing of the einsum kernel
    steps = sorted(p.name for p in (param_views.root / "steps").iterdir())
    assert not [s for s in steps if "size" in s or "reshape" in s], steps
    # the batch of each parameter view is read from the parameter, inside the children that hold it
    sized = sorted(p.parent.name for p in param_views.root.glob("level_[01]_*/*.py") if ".size(0)" in p.read_text())
    assert sized == ["level_0_kernel", "level_0_kernel"], sized   # B's view; C's view in the einsum kernel
    # the whole model from kernel files only, at the ORIGINAL batch (4)
    full = compose(param_views.root, run=True)
    assert full.status == "PASS", full


def test_a_module_without_compute_ops_is_one_kernel(tmp_path: Path) -> None:
    """A channel shuffle (int arithmetic on sizes, view, transpose, contiguous, view) has nothing to split:
    one kernel file, not a fusion whose step finds no compute op (25_ShuffleNetUnit stayed partial)."""
    from decompose_checks import assert_fully_verified
    dec = decompose(FIXTURES / "shuffle_unit.py", tmp_path, DecomposeOptions(self_tests=False), progress=False)
    assert_fully_verified(dec)
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    (shuffle,) = [n for n in tree["nodes"].values() if "channel_shuffle" in n["name"]]
    assert shuffle["level"] == "kernel" and shuffle["path"].startswith("level_0_kernel/"), shuffle
    text = (dec.root / shuffle["path"]).read_text()
    assert ".transpose(1, 2).contiguous()" in text       # the user's module carried over as it is
    assert [p.name for p in (dec.root / "steps").iterdir()] == ["step_1_shuffle_unit"]


def _masked_projection(with_projection: bool) -> fx.GraphModule:
    """A recorded forward's graph, as the step writer captures one: constants of the shapes (a causal mask from
    ones, a chunk count with torch.div, a float table from arange) beside a projection (or the constants
    alone)."""
    import operator
    root = nn.Module()
    root.fc = nn.Linear(4, 4)
    g = fx.Graph()
    x = g.placeholder("x")
    ones = g.call_function(torch.ones, (6, 6), {"dtype": torch.bool})
    tril = g.call_method("tril", (ones,))
    invert = g.call_function(operator.invert, (tril,))
    div = g.call_function(torch.div, (6, 2), {"rounding_mode": "trunc"})
    sub = g.call_function(operator.sub, (div, 1))
    if not with_projection:   # (only constants: the mask and the count)
        g.output((invert, sub))
        return fx.GraphModule(root, g)
    arange = g.call_function(torch.arange, (6,))
    table = g.call_function(operator.truediv, (arange, 6))   # float arithmetic on a whole table
    y = g.call_module("fc", (x,))
    row = g.call_function(operator.getitem, (invert, (-1, None, slice(None), None)))
    masked = g.call_method("masked_fill", (y, row, 0.0))
    scaled = g.call_function(operator.mul, (masked, sub))
    g.output(g.call_function(operator.add, (scaled, g.call_function(operator.getitem, (table, (None, slice(None), None))))))
    return fx.GraphModule(root, g)


def _values(gm: fx.GraphModule, *args: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}

    class Keep(fx.Interpreter):
        def run_node(self, n: fx.Node) -> Any:
            values[n.name] = out = super().run_node(n)
            return out

    Keep(gm).run(*args)
    return values


def test_constants_of_the_shapes_are_host_values_where_the_forward_computes_more() -> None:
    """mark_host_values: a mask from ones, its negation and a chunk count computed with torch from sizes stay in
    the parent (host values, as the run judges them); a float table computed from them does not. A forward
    that computes nothing but constants keeps them as its compute (a region the parent could not keep, LED's
    `create_causal_mask`: its children)."""
    from hdecomp.decompose.node_kinds import HOST_VALUE, mark_host_values
    x = torch.randn(2, 6, 4)
    for with_projection, expected in ((True, {"ones", "tril", "div", "sub", "invert"}), (False, set())):
        gm = _masked_projection(with_projection)
        mark_host_values(gm.graph, _values(gm, x))
        host = {n.name for n in gm.graph.nodes if HOST_VALUE in n.meta}
        assert {h.rstrip("_0123456789") for h in host} >= expected, host
        assert not any(h.startswith(("truediv", "masked_fill", "mul", "add")) for h in host), host
        if not with_projection:
            assert host == set(), host


@pytest.mark.parametrize(("value", "annotation"), [
    (3, "int"), (True, "bool"), ((8, 8), "tuple[int, int]"), ([1, 2], "list[int]"), ((1, 2, 3, 4, 5), "tuple[int, ...]"),
    ([(8, 8), (4, 4)], "list[tuple[int, int]]"), (((8, 8), (4, 4)), "tuple[tuple[int, int], ...]"),
    (torch.tensor(3), "int"), ([(8, 8), (4, 4, 2)], None), ([1, (2, 3)], None), ([[(1, 2)]], None),
    ((torch.randn(2),), None), ((), None)])
def test_numbers_handed_in_are_annotated_as_the_static_check_reads_them(value: Any, annotation: str | None) -> None:
    """A forward's parameter handed Python numbers (Deformable DETR's list of (height, width) pairs among them)
    is written annotated, and the static anti-cheat reads every such annotation as numbers; anything holding a
    tensor, mixed or ragged, is left unannotated."""
    import ast

    from hdecomp.anticheat.static.forward_eval import numbers_annotation
    from hdecomp.anticheat.static.values import SCALAR, SEQ
    from hdecomp.runtime.host_values import number_annotation
    assert number_annotation(value) == annotation
    if annotation is not None and "[" in annotation:
        claimed = numbers_annotation(ast.parse(annotation, mode="eval").body)
        assert claimed is not None and claimed.kind == SEQ, annotation
        inner = claimed.elem
        while inner is not None and inner.kind == SEQ:
            inner = inner.elem
        assert inner is not None and inner.kind == SCALAR, annotation
