"""Capture by a non-strict torch.export with every leaf child's call signature preserved, unflattened and
rewritten with public torch spellings (Proxies used as ints or slice bounds: causal masks built from
sizes, hidden sizes from shapes)."""

from __future__ import annotations

import contextlib
import io
import operator
from collections import Counter
from collections.abc import Iterator
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture.common import (
    CAPTURE_SEED,
    Capture,
    CaptureError,
    Reference,
    expected_output,
    first_line,
    forward_param_names,
    graph_module,
    node_values,
    output_matches,
    restored_attributes,
    work_copy,
)
from hdecomp.runtime.component import clone_nested

# aten ops whose public torch spelling differs from the packet name (or that are pure bookkeeping)
_ATEN_DROP = {"_assert_tensor_metadata", "_assert_scalar", "sym_constrain_range", "sym_constrain_range_for_size",
              "_assert_async", "_functional_assert_async"}


_ATEN_IDENTITY = {"alias", "lift_fresh"}


_ATEN_AS_METHOD = {"view", "reshape", "expand", "contiguous", "to", "type_as", "expand_as", "view_as",
                   "reshape_as", "repeat", "masked_fill", "index_select", "new_zeros", "new_ones", "new_full",
                   "new_empty", "copy_", "fill_", "zero_", "unfold", "float", "half", "double", "bfloat16"}


_INT64_MAX = 2**63 - 1


def _leaf_children(module: nn.Module, expand: set[str]) -> list[str]:
    """The submodules that are leaves of the capture: the first module on every path not in `expand`.
    Containers without a forward of their own (nn.ModuleList, nn.ModuleDict) are never called: their
    children are (`self.layers[0](x)`, minGPT's `m.c_fc(x)` on a ModuleDict), so they are leaves instead."""
    out: list[str] = []

    def walk(m: nn.Module, prefix: str) -> None:
        for name, child in m.named_children():
            qn = f"{prefix}{name}"
            if qn in expand or type(child).forward is nn.Module.forward:
                walk(child, qn + ".")
            else:
                out.append(qn)
    walk(module, "")
    return out


def _fn(target: Any, keep: int | None = None) -> Any:
    """A rename: the public function called with the first `keep` positional arguments (all by default)."""
    def spell(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any, tuple[Any, ...], dict[str, Any]]:
        return "call_function", target, tuple(args[:keep] if keep is not None else args), dict(kwargs)
    return spell


def _interpolate(mode: str, has_align: bool) -> Any:
    """aten.upsample_<mode>(x, output_size, [align_corners,] *scales) -> F.interpolate(x, size=..., mode=...)."""
    def spell(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any, tuple[Any, ...], dict[str, Any]]:
        x, size = args[0], kwargs.get("output_size", args[1] if len(args) > 1 else None)
        kw: dict[str, Any] = {"size": size, "mode": mode}
        if has_align:
            kw["align_corners"] = kwargs.get("align_corners", args[2] if len(args) > 2 else False)
        return "call_function", torch.nn.functional.interpolate, (x,), kw
    return spell


# aten ops that exported graphs hold under a name no public torch function has (or with other arguments):
# their public spelling. Each entry is checked against the aten op itself (test_capture.py).
ATEN_RENAMES: dict[str, Any] = {
    "log_sigmoid": _fn(torch.nn.functional.logsigmoid),
    "_softmax": _fn(torch.softmax, 2),           # (x, dim, half_to_float)
    "_log_softmax": _fn(torch.log_softmax, 2),
    "_adaptive_avg_pool2d": _fn(torch.nn.functional.adaptive_avg_pool2d),
    "_adaptive_avg_pool3d": _fn(torch.nn.functional.adaptive_avg_pool3d),
    "upsample_nearest1d": _interpolate("nearest", False),
    "upsample_nearest2d": _interpolate("nearest", False),
    "upsample_nearest3d": _interpolate("nearest", False),
    "upsample_bilinear2d": _interpolate("bilinear", True),
    "upsample_bicubic2d": _interpolate("bicubic", True),
    "upsample_linear1d": _interpolate("linear", True),
    "upsample_trilinear3d": _interpolate("trilinear", True),
    "_unsafe_view": lambda args, kwargs: ("call_method", "view", tuple(args), dict(kwargs)),
    "_reshape_alias": lambda args, kwargs: ("call_method", "reshape", tuple(args[:2]), {}),
}


def _aten_to_torch(op: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> tuple[str, Any, tuple[Any, ...], dict[str, Any]] | None:
    """(fx op kind, target, args, kwargs) in public torch spelling for an aten OpOverload call; None for
    bookkeeping ops that are dropped. Raises CaptureError for ops without a public equivalent. The graph
    this builds is run and compared with the module's output, so a wrong spelling cannot go unnoticed."""
    name = op.overloadpacket.__name__
    if name in _ATEN_DROP:
        return None
    if name == "slice":
        x, dim, start, end, step = (list(args) + [0, None, None, 1][len(args) - 1:])[:5]
        dim, start, end, step = (kwargs.get("dim", dim), kwargs.get("start", start), kwargs.get("end", end),
                                 kwargs.get("step", step))
        end = None if isinstance(end, int) and end >= _INT64_MAX else end
        start = None if start == 0 else start
        idx = (slice(None),) * int(dim) + (slice(start, end, None if step == 1 else step),)
        return "call_function", operator.getitem, (x, idx if len(idx) > 1 else idx[0]), {}
    if name == "select":
        x, dim, index = args
        idx = (slice(None),) * int(dim) + (index,)
        return "call_function", operator.getitem, (x, idx if len(idx) > 1 else idx[0]), {}
    if name == "index" and len(args) == 2 and not kwargs:
        x, indices = args
        idx = tuple(slice(None) if i is None else i for i in indices)
        return "call_function", operator.getitem, (x, idx if len(idx) > 1 else idx[0]), {}
    if name == "_to_copy":   # Tensor.to takes no layout / pin_memory (a strided copy is what .to makes)
        kw = {k: v for k, v in kwargs.items() if not (k == "layout" and v == torch.strided)
              and not (k == "pin_memory" and not v)}
        if set(kw) - {"dtype", "device", "non_blocking", "copy", "memory_format"}:
            raise CaptureError(f"the exported graph copies a tensor with {sorted(kw)}, which .to cannot spell")
        return "call_method", "to", args, kw
    if name in _ATEN_AS_METHOD or (name.endswith("_") and hasattr(torch.Tensor, name)):
        return "call_method", name, args, kwargs
    if name in ATEN_RENAMES:
        return ATEN_RENAMES[name](args, kwargs)
    if name.startswith("_"):
        raise CaptureError(f"the exported graph uses aten.{name}, which has no public torch spelling")
    for home in (torch, torch.nn.functional, torch.special, torch.linalg, torch.fft):
        fn = getattr(home, name, None)
        if callable(fn) and not isinstance(fn, type):
            return "call_function", fn, args, kwargs
    if hasattr(torch.Tensor, name):
        return "call_method", name, args, kwargs
    raise CaptureError(f"the exported graph uses aten.{name}, which has no public torch spelling")


def _traced(new: fx.Node, old: fx.Node) -> fx.Node:
    """`new` with the stack trace of the exported node it stands for (value_names.py reads it)."""
    if old.meta.get("stack_trace"):
        new.meta["stack_trace"] = old.meta["stack_trace"]
    return new


class _ExportConverter:
    """Rewrites an unflattened torch.export graph into the capture's graph: the preserved (leaf) children
    become call_module nodes with their real call signature, submodules being traced through are inlined,
    the pytree plumbing of torch.export disappears and aten ops get their public torch spelling."""

    def __init__(self, work: nn.Module, unflat: nn.Module, leaves: set[str]) -> None:
        self.work = work
        self.unflat = unflat
        self.leaves = leaves
        self.graph = fx.Graph()
        self.state = set(dict(work.named_parameters(remove_duplicate=False)))
        self.state |= set(dict(work.named_buffers(remove_duplicate=False)))
        self.calls: dict[str, int] = {}

    def _inline(self, gm: nn.Module, prefix: str, inputs: list[Any]) -> Any:
        import torch.fx._pytree as fx_pytree
        import torch.utils._pytree as pytree
        graph: fx.Graph = gm.graph  # type: ignore[assignment]
        env: dict[fx.Node, Any] = {}
        it = iter(inputs)

        def load(a: Any) -> Any:
            return fx.node.map_aggregate(a, lambda x: env[x] if isinstance(x, fx.Node) else x)

        for n in graph.nodes:
            if n.op == "placeholder":
                try:
                    env[n] = next(it)
                except StopIteration as exc:
                    raise CaptureError("the exported graph has more inputs than the call") from exc
            elif n.op == "get_attr":
                target = str(n.target)
                obj = getattr(gm, target, None) if "." not in target else None
                if isinstance(obj, pytree.TreeSpec):
                    env[n] = obj
                    continue
                full = prefix + target
                if full not in self.state:
                    raise CaptureError("a plain tensor attribute or a tensor constant is read in forward")
                env[n] = self.graph.get_attr(full)
            elif n.op == "call_module":
                target = str(n.target).split("@")[0]
                full = prefix + target
                args, kwargs = load(n.args), load(n.kwargs)
                if full in self.leaves:
                    env[n] = _traced(self.graph.call_module(full, tuple(args), dict(kwargs)), n)
                    self.calls[full] = self.calls.get(full, 0) + 1
                else:
                    if kwargs:
                        raise CaptureError(f"the exported call of {full} has keyword inputs")
                    env[n] = self._inline(gm.get_submodule(str(n.target)), full + ".", list(args))
            elif n.op == "call_function":
                t = n.target
                args, kwargs = load(n.args), load(n.kwargs)
                if t is pytree.tree_unflatten:
                    env[n] = pytree.tree_unflatten(list(args[0]), args[1])
                elif t is fx_pytree.tree_flatten_spec:
                    env[n] = self._flatten_spec(args[0], args[1])
                elif t is operator.getitem and not isinstance(args[0], fx.Node):
                    env[n] = args[0][args[1]]
                elif isinstance(t, torch._ops.OpOverload):
                    if t.overloadpacket.__name__ in _ATEN_IDENTITY:
                        env[n] = args[0]
                        continue
                    spelled = _aten_to_torch(t, tuple(args), dict(kwargs))
                    if spelled is None:
                        continue
                    kind, target, a, kw = spelled
                    env[n] = _traced(self.graph.create_node(kind, target, a, kw), n)
                elif getattr(t, "__module__", "") in ("_operator", "operator", "builtins", "math") or \
                        t is operator.getitem:
                    env[n] = _traced(self.graph.call_function(t, tuple(args), dict(kwargs)), n)
                else:
                    raise CaptureError(f"the exported graph calls {getattr(t, '__name__', t)!r}")
            elif n.op == "call_method":
                env[n] = _traced(self.graph.call_method(str(n.target), tuple(load(n.args)), dict(load(n.kwargs))), n)
            elif n.op == "output":
                out = load(n.args[0])
                return out
        raise CaptureError("the exported graph has no output")

    def _flatten_spec(self, value: Any, spec: Any) -> list[Any]:
        """The leaves a child's output is flattened into, as getitem nodes on the call's result."""
        import torch.utils._pytree as pytree
        marks = pytree.tree_unflatten(list(range(spec.num_leaves)), spec)
        paths: dict[int, tuple[Any, ...]] = {}

        def walk(obj: Any, path: tuple[Any, ...]) -> None:
            if isinstance(obj, int) and not isinstance(obj, bool) and path is not None:
                paths[obj] = path
            elif isinstance(obj, (list, tuple)):
                for i, o in enumerate(obj):
                    walk(o, (*path, i))
            elif isinstance(obj, dict):
                for k, o in obj.items():
                    walk(o, (*path, k))
            else:
                raise CaptureError(f"a child returns a {type(obj).__name__}")
        walk(marks, ())
        leaves = []
        for i in range(spec.num_leaves):
            cur = value
            for key in paths[i]:
                cur = self.graph.call_function(operator.getitem, (cur, key)) if isinstance(cur, fx.Node) \
                    else cur[key]
            leaves.append(cur)
        return leaves


def capture_export(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    """Non-strict torch.export with every leaf child's call signature preserved, unflattened and turned
    into the capture's graph; shapes are fixed to the recorded inputs (as for recording)."""
    import warnings

    import torch.utils._pytree as pytree
    work = work_copy(module)
    leaves = _leaf_children(work, expand)
    cargs, ckw = clone_nested(args), clone_nested(kwargs)
    try:
        with warnings.catch_warnings(), restored_attributes(work), _quiet_export_logs():
            warnings.simplefilter("ignore")
            # (a failed export prints its partial graph to stderr: the capture says why it failed instead)
            with contextlib.redirect_stderr(io.StringIO()):
                ep = torch.export.export(work, tuple(cargs), dict(ckw), strict=False,
                                         preserve_module_call_signature=tuple(leaves))
            with contextlib.redirect_stdout(io.StringIO()):   # torch 2.14.1 prints while it unflattens
                unflat = torch.export.unflatten(ep)
    except CaptureError:
        raise
    except Exception as exc:  # export raises many kinds (UserError, GuardOnDataDependent, AssertionError)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise CaptureError(f"export failed ({type(exc).__name__}: {first[:200]})") from exc
    sig_names = forward_param_names(work, len(args), kwargs)
    names = [sig_names[i] if i < len(sig_names) else f"arg{i}" for i in range(len(args))]
    # torch.export orders keyword inputs as given; the capture's placeholders take them sorted by name
    graph_inputs = [n for n in unflat.graph.nodes if n.op == "placeholder"]  # type: ignore[union-attr]
    flat_inputs = list(cargs) + [ckw[k] for k in ckw]
    if len(graph_inputs) != len(flat_inputs):
        raise CaptureError("the exported graph's inputs do not match the call (nested or non-tensor inputs)")
    conv = _ExportConverter(work, unflat, set(leaves))
    graph = conv.graph
    phs = [graph.placeholder(n) for n in names] + [graph.placeholder(k) for k in ckw]
    try:
        out = conv._inline(unflat, "", phs)
        # the root graph returns the flat leaves: give the output the module's own structure back
        out = pytree.tree_unflatten(list(out), ep.call_spec.out_spec) if ep.call_spec.out_spec is not None \
            else out
        graph.output(out)
        for n in reversed(list(graph.nodes)):  # leftovers of torch.export's pytree plumbing
            if not n.users and (n.op == "get_attr" or (n.op == "call_function" and n.target is operator.getitem)):
                graph.erase_node(n)
    except CaptureError:
        raise
    except Exception as exc:
        raise CaptureError(f"the exported graph cannot be turned into code ({first_line(exc)})") from exc
    gm = graph_module(work, graph, "the exported graph")
    inventory: Counter[str] | None = None
    try:
        torch.manual_seed(CAPTURE_SEED)
        if isinstance(expected, Reference):  # the same recorded run gives the values and the op inventory
            from hdecomp.runtime.ops import record_ops
            (replay, values), trace = record_ops(gm, call=lambda: node_values(gm, clone_nested(args), clone_nested(kwargs)))
            inventory = trace.compute_inventory("aten")
        else:
            with torch.no_grad():
                replay, values = node_values(gm, clone_nested(args), clone_nested(kwargs))
    except Exception as exc:
        raise CaptureError(f"the exported graph does not run ({type(exc).__name__}: {exc})") from exc
    if not output_matches(expected, replay) or \
            pytree.tree_structure(expected_output(expected)) != pytree.tree_structure(replay):
        raise CaptureError("the exported graph does not reproduce the module's output")
    if inventory is not None and inventory != expected.inventory:
        from hdecomp.runtime.ops import format_counter_diff
        raise CaptureError("the exported graph does not run the module's ops (dead code dropped?): "
                           + "; ".join(format_counter_diff(expected.inventory, inventory)[:4]))
    return Capture(graph=graph, values=values, method="export", child_calls=conv.calls,
                   notes=["forward captured with non-strict torch.export (shapes fixed to the recorded "
                          "inputs)"])


@contextlib.contextmanager
def _quiet_export_logs() -> Iterator[None]:
    """torch.export logs (and warns about) every fallback it takes; a failed export is our fallback."""
    import logging
    loggers = [logging.getLogger(n) for n in ("torch._export", "torch.export", "torch._dynamo",
                                                "torch.fx.experimental.symbolic_shapes", "torch._functorch")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, lvl in zip(loggers, levels, strict=True):
            lg.setLevel(lvl)
