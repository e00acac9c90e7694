"""Dataflow patterns the planner keeps whole, whatever their size (plan._Grouping): rotary embeddings as
`x * cos + rotate(x) * sin` (rope_runs) or written on pairs, `cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin])`
(pair_rope_runs), and the cos/sin tables a forward computes from positions and inverse frequencies
(rope_table_runs). Each is a set of a graph's nodes whose intermediate values nothing outside it reads: one
fusion, named by its role (vocab.roles.PATTERN_ROLES)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx

from hdecomp.decompose.capture.common import is_shape_int

# what the planner keeps in a parent (node_kinds.is_parent_plumbing), handed in: views, slicing, casts, assembly
Plumbing = Callable[[fx.Node], bool]
INTEGER_WORK = "hdecomp_integer_work"   # node meta: an op on integer/bool tensors only (plan.mark_integer_work)

_ADDS = {operator.add, torch.add, operator.iadd}
_MULS = {operator.mul, torch.mul, operator.imul}
_NEGS = {operator.neg, torch.neg}
_SUBS = {operator.sub, torch.sub, operator.isub}
_JOINS = {torch.cat, torch.concat, torch.stack}


def _is_call(n: Any, fns: set[Any], methods: tuple[str, ...]) -> bool:
    return isinstance(n, fx.Node) and ((n.op == "call_function" and n.target in fns) or
                                       (n.op == "call_method" and str(n.target) in methods))


def rope_runs(graph: fx.Graph, plumbing: Plumbing) -> list[list[fx.Node]]:
    """Rotary position embeddings applied to a tensor, `x * cos + rotate(x) * sin`, each as its nodes in
    graph order: `rotate(x)` is data plumbing of `x` around one negation (`cat(-x2, x1)` of its halves, or
    `stack(-x2, x1).flatten()` of its even and odd items), and cos and sin do not come from `x`. Every
    intermediate value is used only inside the run, so the run is one fusion (LLaMA, Mistral, Qwen, GPT-J,
    GPT-NeoX apply it to q and to k)."""
    runs: list[list[fx.Node]] = []
    pos = {n: i for i, n in enumerate(graph.nodes)}
    for add in graph.nodes:
        if not _is_call(add, _ADDS, ("add", "__add__")) or len(add.all_input_nodes) != 2:
            continue
        m1, m2 = add.all_input_nodes
        if not (_is_call(m1, _MULS, ("mul", "__mul__")) and _is_call(m2, _MULS, ("mul", "__mul__"))):
            continue
        for direct, rotated in ((m1, m2), (m2, m1)):
            run = _rope_run(add, direct, rotated, plumbing)
            if run is not None:
                runs.append(sorted(run, key=pos.__getitem__))
                break
    return runs


def pair_rope_runs(graph: fx.Graph, plumbing: Plumbing) -> list[list[fx.Node]]:
    """Rotary position embeddings written on pairs, `cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin])` (x1, x2
    the halves or the even and odd items of x: DeepSeek's interleaved RoPE, GPT-J's and Meta's written out),
    each as its nodes in graph order: the join, the sub, the add, the four products, and the plumbing that
    takes x1 and x2 out of x where only the run reads it. Every intermediate value is used only inside the
    run, so the run is one fusion, as rope_runs' `x * cos + rotate(x) * sin`."""
    runs: list[list[fx.Node]] = []
    pos = {n: i for i, n in enumerate(graph.nodes)}
    for join in graph.nodes:
        if not _is_call(join, _JOINS, ("cat", "stack")) or not join.args or \
                not isinstance(join.args[0], (list, tuple)) or len(join.args[0]) != 2:
            continue
        first, second = join.args[0]
        for sub, add in ((first, second), (second, first)):
            run = _pair_rope_run(join, sub, add, plumbing)
            if run is not None:
                runs.append(sorted(run, key=pos.__getitem__))
                break
    return runs


_COS, _SIN = {torch.cos}, {torch.sin}
# what the tables of a rotary embedding are computed with: positions times inverse frequencies, and the
# frequencies from the base (`1 / base ** (arange / dim)`, `exp(-log(base) * arange / dim)`)
_TABLE_OPS = frozenset({"mul", "truediv", "div", "pow", "reciprocal", "exp", "log", "neg", "outer", "matmul",
                        "einsum", "rsub", "sub", "add", "float_power", "ger", "cos", "sin"})
_TABLE_MAX_OPS = 8


def rope_table_runs(graph: fx.Graph, plumbing: Plumbing) -> list[list[fx.Node]]:
    """The cos/sin tables of a rotary embedding computed in the forward: a `cos` and a `sin` of one value
    (through views and a `cat(freqs, freqs)`), with the ops that compute that value from positions and
    inverse frequencies as far as only the tables read them (an outer product or a matmul of two vectors,
    the products, powers and reciprocals of the frequencies; integer work on positions and submodules stay
    out). One fusion, `rope_tables`, where written out as ops it would be a `cos` and a `sin` kernel beside a
    fusion named after a matmul it does not hold."""
    runs: list[list[fx.Node]] = []
    pos = {n: i for i, n in enumerate(graph.nodes)}
    claimed: set[fx.Node] = set()
    sines = [n for n in graph.nodes if _is_call(n, _SIN, ("sin",)) and len(n.all_input_nodes) == 1]
    for c in graph.nodes:
        if c in claimed or not _is_call(c, _COS, ("cos",)) or len(c.all_input_nodes) != 1:
            continue
        root, _ = plumbing_root(c.all_input_nodes[0], plumbing)
        s = next((t for t in sines if t not in claimed and plumbing_root(t.all_input_nodes[0], plumbing)[0] is root), None)
        if s is None:
            continue
        run = {c, s}
        for t in (c, s):
            _, chain = plumbing_root(t.all_input_nodes[0], plumbing)
            run |= set(chain)
        grew = True
        while grew:
            grew = False
            for m in list(run):
                for a in m.all_input_nodes:
                    if a in run or a in claimed or a.op not in ("call_function", "call_method") or \
                            a.meta.get(INTEGER_WORK) or not all(u in run for u in a.users):
                        continue
                    name = getattr(a.target, "__name__", str(a.target)).strip("_").lower()
                    if not (plumbing(a) or name in _TABLE_OPS) or is_shape_int(a) or \
                            sum(1 for x in run if not plumbing(x)) >= _TABLE_MAX_OPS:
                        continue
                    run.add(a)
                    grew = True
        # plumbing at the run's start (a view of the positions) reads values from outside: it stays out
        while True:
            edge = {m for m in run if plumbing(m) and not any(a in run for a in m.all_input_nodes)}
            if not edge:
                break
            run -= edge
        if not all(u in run for m in run - {c, s} for u in m.users):
            continue
        claimed |= run
        runs.append(sorted(run, key=pos.__getitem__))
    return runs


def _products(n: Any, fns: set[Any], methods: tuple[str, ...]) -> tuple[fx.Node, fx.Node] | None:
    """The two products `n` adds or subtracts (`a * b - c * d`), each a mul of two values."""
    if not _is_call(n, fns, methods) or len(n.args) < 2 or not all(isinstance(a, fx.Node) for a in n.args[:2]):
        return None
    m1, m2 = n.args[0], n.args[1]
    if all(_is_call(m, _MULS, ("mul", "__mul__")) and len(m.all_input_nodes) == 2 for m in (m1, m2)):
        return m1, m2
    return None


def plumbing_root(n: fx.Node, plumbing: Plumbing) -> tuple[fx.Node, list[fx.Node]]:
    """The value `n` views or slices (through parent plumbing of one tensor input), with the nodes between."""
    chain: list[fx.Node] = []
    while plumbing(n) and not is_shape_int(n):
        ins = [a for a in n.all_input_nodes if not is_shape_int(a)]
        if len(ins) != 1:
            break
        chain.append(n)
        n = ins[0]
    return n, chain


def _viewed_from(n: fx.Node, plumbing: Plumbing) -> list[fx.Node]:
    """`n`, then each value it is a view or slice of, back to the first that is none (plumbing_root)."""
    root, chain = plumbing_root(n, plumbing)
    return [*chain, root]


def _pair_rope_run(join: fx.Node, sub: Any, add: Any, plumbing: Plumbing) -> set[fx.Node] | None:
    minus = _products(sub, _SUBS, ("sub", "__sub__"))
    plus = _products(add, _ADDS, ("add", "__add__"))
    if minus is None or plus is None:
        return None
    plus_operands = {frozenset(m.all_input_nodes) for m in plus}
    for a, c in (minus[0].all_input_nodes, reversed(minus[0].all_input_nodes)):
        for b, s in (minus[1].all_input_nodes, reversed(minus[1].all_input_nodes)):
            if len({a, b, c, s}) != 4 or plus_operands != {frozenset((b, c)), frozenset((a, s))}:
                continue
            up_a, up_b = _viewed_from(a, plumbing), _viewed_from(b, plumbing)
            common = next((n for n in up_a if n in up_b), None)
            if common is None or common in (a, b, c, s):
                continue
            # the slicing of x1 and x2 out of the value they meet at (views of that value before stay out)
            chain_a, chain_b = up_a[:up_a.index(common)], up_b[:up_b.index(common)]
            run = {join, sub, add, *minus, *plus}
            for chain in (chain_a, chain_b):       # the slicing, as far as only the run reads it
                for node in chain:
                    if not all(u in run for u in node.users):
                        break
                    run.add(node)
            if all(u in run for m in run - {join} for u in m.users):
                return run
    return None


def _rope_run(add: fx.Node, direct: fx.Node, rotated: fx.Node, plumbing: Plumbing) -> set[fx.Node] | None:
    if len(direct.all_input_nodes) != 2 or len(rotated.all_input_nodes) != 2:
        return None
    for x, cos in (direct.all_input_nodes, reversed(direct.all_input_nodes)):
        for rot, sin in (rotated.all_input_nodes, reversed(rotated.all_input_nodes)):
            if cos is sin or x in (cos, sin):
                continue
            inner = _rotation_of(rot, x, plumbing)
            if inner is None:
                continue
            run = {add, direct, rotated} | inner
            if all(u in run for m in run - {add} for u in m.users):
                return run
    return None


def _rotation_of(rot: fx.Node, x: fx.Node, plumbing: Plumbing) -> set[fx.Node] | None:
    """The nodes from `x` to `rot` when they are plumbing around exactly one negation, else None."""
    seen: set[fx.Node] = set()
    negs = 0
    stack = [rot]
    reached = False
    while stack:
        n = stack.pop()
        if n is x:
            reached = True
            continue
        if n in seen:
            continue
        seen.add(n)
        if _is_call(n, _NEGS, ("neg", "__neg__")):
            negs += 1
        elif not plumbing(n) or is_shape_int(n):
            return None
        ins = [a for a in n.all_input_nodes if not is_shape_int(a)]
        if not ins:
            return None
        stack.extend(ins)
    return seen if reached and negs == 1 else None


__all__ = ["INTEGER_WORK", "Plumbing", "pair_rope_runs", "plumbing_root", "rope_runs", "rope_table_runs"]
