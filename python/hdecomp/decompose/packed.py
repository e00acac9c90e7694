"""Packed parameters: one tensor of the parent that its forward cuts into parts, each part used by one op.

nn.MultiheadAttention keeps q, k and v projections in one `in_proj_weight` (and `in_proj_bias`) and, for
distinct query/key/value inputs, runs `w_q, w_k, w_v = w.chunk(3)` then one `F.linear` per part. Moving the
whole tensor into one child that chunks it (and hands the parts over as a tuple) gives a kernel that holds a
weight it only slices, and three linears that take tuples and index them. An expert draws three projection
kernels, each owning its part as an ordinary weight: that is what this module finds.

A parameter (or buffer) is packed when everything computed from it alone (views, chunk/split/narrow,
indexing, its size queries) ends in at least two parts, each read by exactly one op, and each part is one
contiguous slice of the tensor along one dimension. The parts become the weights of the children that read
them, and weight_map.json maps the packed tensor to its slices (hdecomp.verify.weights.WeightSlice).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.node_kinds import NUMBER_VALUE
from hdecomp.formats.weight_map import WeightSlice


def narrow_of(base: torch.Tensor, part: torch.Tensor) -> tuple[int, int, int] | None:
    """(dim, start, stop) when `part` is exactly `base.narrow(dim, start, stop - start)`: the same storage and
    strides, one dimension shorter, at the matching offset. None for anything else (a copy, a strided pick,
    the whole tensor)."""
    if part.dim() != base.dim() or part.stride() != base.stride() or part.dtype != base.dtype:
        return None
    if part.untyped_storage().data_ptr() != base.untyped_storage().data_ptr():
        return None
    shorter = [d for d in range(base.dim()) if part.shape[d] != base.shape[d]]
    if len(shorter) != 1:
        return None
    d = shorter[0]
    offset = int(part.storage_offset()) - int(base.storage_offset())
    stride = int(base.stride(d))
    if stride <= 0 or offset < 0 or offset % stride:
        return None
    start = offset // stride
    stop = start + int(part.shape[d])
    return (d, start, stop) if stop <= int(base.shape[d]) else None


def select_of(base: torch.Tensor, part: torch.Tensor) -> tuple[int, int] | None:
    """(dim, index) when `part` is exactly `base.select(dim, index)` (an item of `base.unbind(dim)`); None for
    anything else."""
    if part.dim() != base.dim() - 1 or part.dtype != base.dtype or \
            part.untyped_storage().data_ptr() != base.untyped_storage().data_ptr():
        return None
    offset = int(part.storage_offset()) - int(base.storage_offset())
    for d in range(base.dim()):
        stride = int(base.stride(d))
        if list(part.shape) == [*base.shape[:d], *base.shape[d + 1:]] and \
                list(part.stride()) == [*base.stride()[:d], *base.stride()[d + 1:]] and \
                stride > 0 and offset >= 0 and offset % stride == 0 and offset // stride < base.shape[d]:
            return d, offset // stride
    return None


def _tensor_of(root: nn.Module, target: str) -> torch.Tensor | None:
    owner, _, leaf = target.rpartition(".")
    try:
        mod = root.get_submodule(owner) if owner else root
    except AttributeError:
        return None
    t = mod._parameters.get(leaf) if leaf in mod._parameters else mod._buffers.get(leaf)
    return t if isinstance(t, torch.Tensor) and not t.is_meta else None


def _evaluate(nodes: list[fx.Node], env: dict[fx.Node, Any]) -> bool:
    """Run plumbing nodes (graph order) on the values in `env`; False when one cannot be run here."""
    for n in nodes:
        try:
            args = fx.node.map_arg(n.args, lambda a: env[a])
            kwargs = fx.node.map_arg(n.kwargs, lambda a: env[a])
            if n.op == "call_function":
                env[n] = n.target(*args, **kwargs)  # type: ignore[operator]
            elif n.op == "call_method":
                env[n] = getattr(args[0], str(n.target))(*args[1:], **kwargs)
            else:
                return False
        except Exception:   # not plumbing we can replay on the tensor alone: not packed
            return False
    return True


def packed_pieces(root: nn.Module, graph: fx.Graph, derived: set[fx.Node], single_consumer: dict[fx.Node, fx.Node],
                  ) -> tuple[dict[fx.Node, WeightSlice], set[fx.Node]]:
    """({part node: the slice of the packed tensor it is, keyed by the tensor's target}, nodes that only computed the parts: the packed tensor's get_attr and the
    plumbing between it and its parts). `derived`: the plumbing computed from parameters alone;
    `single_consumer`: such plumbing whose values one op reads (plan.py's param_view)."""
    pos = {n: i for i, n in enumerate(graph.nodes)}
    pieces: dict[fx.Node, WeightSlice] = {}
    dropped: set[fx.Node] = set()
    for p in graph.nodes:
        if p.op != "get_attr" or p in single_consumer:
            continue
        base = _tensor_of(root, str(p.target))
        if base is None:
            continue
        parts: list[fx.Node] = []
        between: set[fx.Node] = set()
        frontier, ok = [p], True
        while frontier and ok:
            cur = frontier.pop()
            for u in cur.users:
                if u in single_consumer:
                    if u not in parts:
                        parts.append(u)
                elif u in derived and all(a is p or a in derived or NUMBER_VALUE in a.meta for a in u.all_input_nodes):
                    if u not in between:
                        between.add(u)
                        frontier.append(u)
                else:
                    ok = False   # read whole by an op, or mixed with other tensors: not packed
                    break
        if not ok or len(parts) < 2 or any(a not in between and a is not p for n in parts for a in n.all_input_nodes):
            continue
        env: dict[fx.Node, Any] = {p: base, **{a: a.meta[NUMBER_VALUE] for n in between for a in n.all_input_nodes
                                              if NUMBER_VALUE in a.meta}}
        with torch.no_grad():
            if not _evaluate(sorted(between | set(parts), key=pos.__getitem__), env):
                continue
        cuts = [_cut(base, env[n]) for n in parts]
        if any(c is None for c in cuts):
            continue
        spans = sorted((c for c in cuts if c is not None), key=lambda c: c.start)
        if len({c.dim for c in spans}) != 1 or any(a.stop > b.start for a, b in pairwise(spans)):
            continue   # parts along two dimensions, or overlapping: not one packed tensor
        for n, c in zip(parts, cuts, strict=True):
            assert c is not None
            pieces[n] = replace(c, key=str(p.target))
        dropped |= {p} | between
    return pieces, dropped


def _cut(base: torch.Tensor, part: Any) -> WeightSlice | None:
    """The slice (narrow_of) or the entry (select_of: `scale.unbind(0)`'s items) of `base` that `part` is."""
    if not isinstance(part, torch.Tensor):
        return None
    if (span := narrow_of(base, part)) is not None:
        return WeightSlice("", *span)
    if (entry := select_of(base, part)) is not None:
        return WeightSlice.entry("", *entry)
    return None
