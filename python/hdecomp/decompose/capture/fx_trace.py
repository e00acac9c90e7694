"""Capture by a torch.fx trace, every submodule a leaf (the first method tried)."""

from __future__ import annotations

import contextlib
import operator
import types
from collections.abc import Iterator
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture.common import (
    AUGMENTED_OPERATORS,
    CAPTURE_SEED,
    Capture,
    CaptureError,
    expected_output,
    first_line,
    flat_values,
    graph_module,
    is_constant_object,
    node_values,
    output_matches,
    restored_attributes,
    work_copy,
)
from hdecomp.decompose.value_names import user_frame_trace
from hdecomp.runtime.component import clone_nested, is_output_class


class LeafTracer(fx.Tracer):
    """Every submodule is a leaf (except those in `expand`, traced through): the graph shows only the
    direct children and the ops between them."""

    def __init__(self, expand: set[str] | None = None) -> None:
        super().__init__()
        self.expand = expand or set()
        # Where each value came from (value_names.py names it by its source): the innermost user frame,
        # taken by create_node below. fx's own record_stack_traces symbolises a native traceback per node
        # (its first use imports the profiler bindings: 1.4 s) for the same line.
        self.record_stack_traces = False

    def create_node(self, *args: Any, **kwargs: Any) -> fx.Node:
        node = super().create_node(*args, **kwargs)
        if not node.stack_trace:
            node.stack_trace = user_frame_trace()
        return node

    def create_arg(self, a: Any) -> Any:
        if is_constant_object(a):   # a settings object built in forward: a HeldObject node (graph_module)
            return a
        return super().create_arg(a)

    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        return module_qualified_name not in self.expand

    def trace(self, root: Any, concrete_args: Any = None) -> fx.Graph:
        with _package_wraps_traced_through(), _inplace_operators_traced():
            return super().trace(root, concrete_args)


@contextlib.contextmanager
def _inplace_operators_traced() -> Iterator[None]:
    """`acc += x` on a Proxy traced as `operator.iadd` (what Python calls on a tensor: an in-place add), not
    fx's fallback `acc = acc + x`, which leaves the caller's tensor unchanged (Autoformer's auto-correlation
    accumulates `delays_agg += ...` in a loop: a step written from the fallback fails its input-mutation
    check)."""
    added = []
    for op in AUGMENTED_OPERATORS:
        dunder = f"__{op.__name__}__"   # (`__iadd__` for operator.iadd)
        if dunder in vars(fx.Proxy):
            continue

        def method(self: fx.Proxy, other: Any, op: Any = op) -> fx.Proxy:
            return self.tracer.create_proxy("call_function", op, (self, other), {})

        setattr(fx.Proxy, dunder, method)
        added.append(dunder)
    if "__setitem__" not in vars(fx.Proxy):
        # `attn[..., i, :i] = row + ...` (a chunked delta rule's loop body): operator.setitem, as a recording
        # writes it, where fx itself refuses item assignment on a Proxy
        def setitem(self: fx.Proxy, key: Any, value: Any) -> None:
            self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

        fx.Proxy.__setitem__ = setitem  # type: ignore[index]
        added.append("__setitem__")
    try:
        yield
    finally:
        for dunder in added:
            delattr(fx.Proxy, dunder)


@contextlib.contextmanager
def _package_wraps_traced_through() -> Iterator[None]:
    """Python functions a package made fx leaves (`torch.fx.wrap("shifted_window_attention")` in
    torchvision's Swin) are traced into while we trace: a Python function is not a kernel, and as a leaf
    it would be one child holding the whole attention. torch's own wrapped functions stay leaves."""
    table = getattr(fx._symbolic_trace, "_wrapped_fns_to_patch", None)
    if not isinstance(table, dict):
        yield
        return
    removed = {}
    for key, frame_globals in list(table.items()):
        fn = frame_globals.get(key[1]) if isinstance(frame_globals, dict) else None
        module = getattr(fn, "__module__", "") or ""
        if isinstance(fn, types.FunctionType) and module.split(".")[0] != "torch":   # torchvision's are not torch's
            removed[key] = table.pop(key)
    try:
        yield
    finally:
        table.update(removed)


def capture_fx(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                expand: set[str]) -> Capture:
    work = work_copy(module)  # tracing may leave Proxies on attributes: never trace the live module
    tracer = LeafTracer(expand)
    try:
        with torch.no_grad(), restored_attributes(work):
            graph = tracer.trace(work)
    except Exception as exc:  # fx raises many kinds (TraceError, TypeError on Proxy use, ...)
        raise CaptureError(f"trace failed ({first_line(exc)})") from exc
    _output_classes_kept(graph, expected_output(expected))
    gm = graph_module(work, graph, "the traced graph")
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            out, values = node_values(gm, [clone_nested(a) for a in args], clone_nested(kwargs))
    except Exception as exc:
        raise CaptureError(f"traced graph does not run ({type(exc).__name__}: {exc})") from exc
    if any(isinstance(v, fx.Proxy) for v in flat_values(out)) or not output_matches(expected, out):
        raise CaptureError("traced graph does not reproduce the module's output")
    if any(n.op == "get_attr" and _is_plain_tensor_attr(module, str(n.target)) for n in graph.nodes):
        raise CaptureError("a plain tensor attribute is read in forward")
    if any(n.op == "call_method" and n.target == "__call__" for n in graph.nodes):
        # (an input called as a function, torchvision's `levels = mapper(boxes)` with a LevelMapper handed in:
        # the graph holds the call, not the ops it runs, and one child would be the whole parent, HD305)
        raise CaptureError("the forward calls an input value, whose ops a trace does not see")
    calls: dict[str, int] = {}
    for n in graph.nodes:
        if n.op == "call_module":
            calls[str(n.target)] = calls.get(str(n.target), 0) + 1
    return Capture(graph=graph, values=values, method="fx", child_calls=calls)


def _output_classes_kept(graph: fx.Graph, expected: Any) -> None:
    """An output object the forward returns (`BaseModelOutput(last_hidden_state=x)`, a transformers ModelOutput:
    a dict of its own class) is built as a call of its class where the trace left a plain dict of its items
    (fx writes any dict as one), as a recording writes it: read by attribute, the plain dict is no such
    output, and the verifier takes it for another value (verify.compare.container_mismatch)."""
    out = next(n for n in graph.nodes if n.op == "output")

    def kept(arg: Any, value: Any) -> Any:
        if isinstance(arg, dict) and is_output_class(type(value)) and list(arg) == list(value):
            with graph.inserting_before(out):
                node = graph.call_function(type(value), (), {k: kept(arg[k], value[k]) for k in arg})
            node.stack_trace = out.stack_trace
            return node
        if isinstance(arg, (list, tuple)) and not hasattr(arg, "_fields") and isinstance(value, (list, tuple)) \
                and len(arg) == len(value):
            return type(arg)(kept(a, v) for a, v in zip(arg, value, strict=True))
        return arg

    out.args = (kept(out.args[0], expected),)


def _is_plain_tensor_attr(module: nn.Module, target: str) -> bool:
    names: dict[str, torch.Tensor] = dict(module.named_parameters(remove_duplicate=False))
    names.update(dict(module.named_buffers(remove_duplicate=False)))
    return target not in names
