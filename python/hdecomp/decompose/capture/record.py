"""Capture by recording the real execution: module hooks for the child calls and a TorchFunctionMode for
the ops in between, built into the same kind of graph (the last method, for what neither traces)."""

from __future__ import annotations

import contextlib
import operator
import weakref
from collections import UserDict
from typing import Any

import torch
import torch.fx as fx
from torch import nn
from torch.overrides import TorchFunctionMode

from hdecomp.decompose.capture.common import (
    CAPTURE_SEED,
    Capture,
    CaptureError,
    flat_values,
    forward_param_names,
    graph_module,
    is_constant_object,
    node_values,
    object_tensors,
    output_matches,
    same_outputs,
    work_copy,
)
from hdecomp.decompose.value_names import user_frame_trace
from hdecomp.runtime.component import (
    clone_nested,
    holding_tensors,
    is_output_class,
    object_factory,
    object_state,
)
from hdecomp.runtime.input_writes import HeldEntries
from hdecomp.runtime.memoized import clear_memoized
from hdecomp.verify.weights import plain_tensor_attributes

_DUNDER_TO_OPERATOR = {
    "__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul, "__truediv__": operator.truediv,
    "__floordiv__": operator.floordiv, "__matmul__": operator.matmul, "__pow__": operator.pow,
    "__mod__": operator.mod, "__neg__": operator.neg, "__getitem__": operator.getitem,
    "__and__": operator.and_, "__or__": operator.or_, "__xor__": operator.xor, "__invert__": operator.invert,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__eq__": operator.eq, "__ne__": operator.ne, "__abs__": operator.abs,
}


_REFLECTED = {"__radd__": operator.add, "__rsub__": operator.sub, "__rmul__": operator.mul,
              "__rtruediv__": operator.truediv, "__rmatmul__": operator.matmul, "__rpow__": operator.pow,
              "__rfloordiv__": operator.floordiv}


_INPLACE_DUNDER = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
                   "__ipow__": "pow_", "__iand__": "bitwise_and_", "__ior__": "bitwise_or_"}


class _Escaped(CaptureError):
    """A tensor computed inside a child's call reached the forward by another way than the child's outputs
    (transformers' output capturing hands a layer's hidden state to the model through hooks)."""

    def __init__(self, target: str) -> None:
        super().__init__(f"a tensor computed inside {target} reaches the forward by a side channel")
        self.target = target


def _host_list(value: Any) -> bool:
    """A list of Python numbers (`counts.tolist()`): an object of its own, followed by identity."""
    return type(value) is list and bool(value) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                         for v in value)


class _GraphBuilder:
    """Builds an fx.Graph from a recorded execution: tensors are tracked by identity."""

    def __init__(self, module: nn.Module) -> None:
        self.graph = fx.Graph()
        self.module = module
        self.by_id: dict[int, fx.Node] = {}
        self.keep: list[Any] = []     # keeps recorded tensors alive so ids stay unique
        self.values: dict[str, Any] = {}
        self.state = {id(t): name for name, t in module.named_parameters(remove_duplicate=False)}
        self.state.update({id(t): name for name, t in module.named_buffers(remove_duplicate=False)})
        self.state_obj: dict[str, torch.Tensor] = dict(module.named_parameters(remove_duplicate=False))
        self.state_obj.update(dict(module.named_buffers(remove_duplicate=False)))
        self.unknown_tensors: list[str] = []
        self.scalars: list[tuple[fx.Node, Any]] = []   # Python numbers read out of tensors, and their nodes
        # tensors made inside a child's call, by identity: (a weak reference to it, the child's target)
        self.inner: dict[int, tuple[Any, str]] = {}
        self.current: str | None = None   # the child whose call runs now
        # opaque objects a child returns (the cache a decoder makes and hands back), by identity: where the
        # forward hands one on (into its output object, to another child), read from that child's output
        self.returned: dict[int, tuple[Any, fx.Node, Any]] = {}
        # plain tensor attributes (`self.hidden = torch.randn(batch_size, h)` in __init__) as they were
        # before the forward: read as get_attr, the child that uses one owns it as a non-persistent buffer
        self.plain: dict[int, str] = {}
        for name, t in [*plain_tensor_attributes(module), *object_tensors(module)]:
            if id(t) not in self.state:
                self.plain.setdefault(id(t), name)

    def scalar_node(self, name: str, tensor: torch.Tensor) -> fx.Node | None:
        """A node reading a Python number out of `tensor` (`int(t)`, `t.item()`), where the forward computed
        `tensor` or read it as an input."""
        source = self.by_id.get(id(tensor))
        if source is None:
            return None
        cast = _SCALAR_READS[name]
        node = self.graph.call_method("item", (source,))   # (host code: decompose.node_kinds.is_host_scalar)
        node.meta["stack_trace"] = user_frame_trace()
        if cast is not None:
            node = self.graph.call_function(cast, (node,))
            node.meta["stack_trace"] = user_frame_trace()
        return node

    def output(self, out: Any) -> None:
        """The graph's output: `out`'s tensors as their nodes; a Python number the forward returns, as the last
        read of a tensor that gave it (a read the output does not use is dropped)."""
        def scalar(v: Any) -> Any:
            if isinstance(v, (bool, int, float)):
                for node, value in reversed(self.scalars):
                    if type(value) is type(v) and value == v:
                        return node
            return self.arg(v)
        if isinstance(out, (bool, int, float)):
            result = scalar(out)
        elif type(out) in (tuple, list):
            result = type(out)(scalar(v) for v in out)
        else:
            result = self.arg(out)
        self.graph.output(result)
        for read, _ in self.scalars:   # (the read, then the `.item()` under a cast)
            node: Any = read
            while isinstance(node, fx.Node) and not node.users and (node.target == "item" or node.target in
                                                                     (int, float, bool)):
                source = node.args[0]
                self.graph.erase_node(node)
                node = source

    def bind(self, node: fx.Node, value: Any) -> None:
        self.values[node.name] = value
        self._bind(node, value)

    def _bind(self, node: fx.Node, value: Any) -> None:
        if isinstance(value, torch.Tensor) or _host_list(value):
            # (a list of numbers a child returns, `expert_size = counts.tolist()`, is the same object where the
            # forward hands it on, `self.experts(x, expert_size)`: read from the child's output, not a constant)
            self.by_id[id(value)] = node
            self.keep.append(value)
        elif isinstance(value, (list, tuple)):
            if hasattr(value, "_fields"):   # passed on whole (one RNN's PackedSequence into the next)
                self.by_id[id(value)] = node
                self.keep.append(value)
            for i, v in enumerate(value):
                self._returned(node, i, v)
                if (flat_values(v) and any(isinstance(t, torch.Tensor) for t in flat_values(v))) or _host_list(v):
                    sub = self.graph.call_function(operator.getitem, (node, i))
                    sub.meta["stack_trace"] = node.meta.get("stack_trace")   # `q, k, v = ...`: named by it
                    self.values[sub.name] = v
                    self._bind(sub, v)
        elif isinstance(value, (dict, UserDict)):   # (a UserDict input's items are read by key, as a dict's)
            for k in value:
                v = value[k]
                self._returned(node, k, v)
                if any(isinstance(t, torch.Tensor) for t in flat_values(v)):
                    sub = self.graph.call_function(operator.getitem, (node, k))
                    sub.meta["stack_trace"] = node.meta.get("stack_trace")
                    self.values[sub.name] = v
                    self._bind(sub, v)

    def _returned(self, node: fx.Node, key: Any, value: Any) -> None:
        if opaque_state(value) and id(value) not in self.returned:
            self.returned[id(value)] = (value, node, key)

    def _read_back(self, value: Any) -> fx.Node | None:
        """The node reading opaque object `value` out of the output of the child that returned it (made at its
        first use), None where no child returned it (an object the forward itself made or was handed)."""
        known = self.returned.get(id(value))
        if known is None or known[0] is not value:
            return None
        node = self.by_id.get(id(value))
        if node is None:
            _, source, key = known
            node = self.graph.call_function(operator.getitem, (source, key))
            node.meta["stack_trace"] = source.meta.get("stack_trace")
            self.values[node.name] = value
            self.by_id[id(value)] = node
        return node

    def arg(self, value: Any) -> Any:
        if opaque_state(value) and (node := self._read_back(value)) is not None:
            return node
        if isinstance(value, torch.Tensor):
            node = self.by_id.get(id(value))
            if node is not None:
                return node
            name = self.state.get(id(value)) or self.plain.get(id(value))
            if name is not None:
                node = self.graph.get_attr(name)
                self.values[node.name] = value
                self.by_id[id(value)] = node
                return node
            self.unknown_tensors.append(f"{tuple(value.shape)} {value.dtype}")
            made = self.inner.get(id(value))
            if made is not None and made[0]() is value:
                raise _Escaped(made[1])
            raise CaptureError("forward uses a tensor that is neither an input, a parameter/buffer nor "
                               f"computed in forward (a plain tensor attribute or a global: {list(value.shape)} "
                               f"{str(value.dtype).replace('torch.', '')}, at {user_frame_trace() or 'an unknown line'})")
        if isinstance(value, tuple) and hasattr(value, "_fields") and \
                any(isinstance(t, torch.Tensor) for t in flat_values(value)):
            # a namedtuple the forward built (pack_padded_sequence's PackedSequence, read by field in the
            # RNN): the call of its class, as the forward wrote it
            node = self.by_id.get(id(value))
            if node is None:
                node = self.graph.call_function(type(value), tuple(self.arg(v) for v in value))
                node.meta["stack_trace"] = user_frame_trace()
                self.values[node.name] = value
                self.by_id[id(value)] = node
                self.keep.append(value)
            return node
        if isinstance(value, tuple):
            return tuple(self.arg(v) for v in value)
        if isinstance(value, list):
            known = self.by_id.get(id(value)) if _host_list(value) else None
            return known if known is not None else [self.arg(v) for v in value]
        if is_output_class(type(value)) and all(isinstance(k, str) for k in value) and \
                any(isinstance(t, torch.Tensor) for t in flat_values(value)):
            # a ModelOutput the forward built (BaseModelOutput(last_hidden_state=...)): the call of its class,
            # as the forward wrote it (a plain dict in its place is another kind of output)
            node = self.by_id.get(id(value))
            if node is None:
                node = self.graph.call_function(type(value), (), {k: self.arg(v) for k, v in value.items()})
                node.meta["stack_trace"] = user_frame_trace()
                self.values[node.name] = value
                self.by_id[id(value)] = node
                self.keep.append(value)
            return node
        if isinstance(value, dict):
            return {k: self.arg(v) for k, v in value.items()}
        if isinstance(value, nn.Module):
            raise CaptureError("a module is passed as an argument to an op")
        state = object_state(value)
        if state is not None and any(isinstance(t, torch.Tensor) for t in flat_values(list(state.values()))):
            # a plain object the forward built whose constructor computes (diffusers' DiagonalGaussianDistribution:
            # the graph holds its clamp and exp), handed on whole: made from the graph's values, its constructor
            # not run again (object_factory)
            node = self.by_id.get(id(value))
            if node is None:
                node = self.graph.call_function(object_factory(type(value)),
                                                ({k: self.arg(v) for k, v in state.items()},))
                node.meta["stack_trace"] = user_frame_trace()
                self.values[node.name] = value
                self.by_id[id(value)] = node
                self.keep.append(value)
            return node
        return value


class _OpRecorder(TorchFunctionMode):
    def __init__(self, builder: _GraphBuilder, depth: list[int]) -> None:
        super().__init__()
        self.builder = builder
        self.depth = depth
        self.error: CaptureError | None = None

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        if self.depth[0] > 0 or self.error is not None:
            out = func(*args, **kwargs)
            if self.builder.current is not None:   # made inside a child: known, in case it escapes
                for t in flat_values(out):
                    if isinstance(t, torch.Tensor):
                        with contextlib.suppress(TypeError):
                            self.builder.inner[id(t)] = (weakref.ref(t), self.builder.current)
            return out
        # Run first without recording nested calls (a Python-level op calling other torch functions).
        self.depth[0] += 1
        try:
            out = func(*args, **kwargs)
        finally:
            self.depth[0] -= 1
        name = getattr(func, "__name__", "")
        if name in _SCALAR_READS and getattr(torch.Tensor, name, None) is func and \
                isinstance(out, (bool, int, float)) and args and isinstance(args[0], torch.Tensor):
            # `int((scores > t).sum())`: a Python number read from a tensor is a constant where the forward
            # uses it, but where it returns it, it is what the tensor held (CapturedScalars)
            node = self.builder.scalar_node(name, args[0])
            if node is not None:
                self.builder.scalars.append((node, out))
            return out
        if not any(isinstance(t, torch.Tensor) for t in flat_values(out)) and name not in _COMPUTING_QUERIES:
            return out   # size/shape/dtype queries and .item(): constants in the generated code
        try:
            target, op, a, kw = _normalise_call(func, args, kwargs)
            b = self.builder
            node = b.graph.create_node(op, target, b.arg(a), b.arg(kw))
            node.meta["stack_trace"] = user_frame_trace()
            b.bind(node, out)
        except CaptureError as exc:
            self.error = exc
        return out


# Calls that compute on tensors and hand Python a plain value (`pad_id in input_ids[:, [-1, 0]]`: eq and
# any inside `Tensor.__contains__`): recorded as nodes, so the graph runs the ops the module runs
# `inv_perm[perm] = torch.arange(n)` (Tensor.__setitem__) returns None but writes a tensor: recorded too (left
# out, a replay reads whatever the allocator left in an empty_like buffer)
_COMPUTING_QUERIES = {"__contains__", "equal", "allclose", "__setitem__"}
# Tensor methods that read a Python number out of a tensor: their results, where the forward returns them
_SCALAR_READS = {"__int__": int, "__float__": float, "__bool__": bool, "__index__": int, "item": None}


def _normalise_call(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str, tuple[Any, ...],
                                                                                    dict[str, Any]]:
    name = getattr(func, "__name__", "")
    spelled = _tensor_dunder(func, args, kwargs)
    if spelled is not None:
        return spelled
    if name in ("__get__",):
        owner = getattr(func, "__self__", None)
        prop = getattr(owner, "__name__", None) or getattr(getattr(owner, "fget", None), "__name__", "")
        return builtins_getattr, "call_function", (args[0], prop), {}
    if name in _DUNDER_TO_OPERATOR and getattr(torch.Tensor, name, None) is func:
        return _DUNDER_TO_OPERATOR[name], "call_function", args, kwargs
    if name in _REFLECTED and len(args) == 2:
        return _REFLECTED[name], "call_function", (args[1], args[0]), kwargs
    if name in _INPLACE_DUNDER:
        return _INPLACE_DUNDER[name], "call_method", args, kwargs
    if name == "__setitem__":
        return operator.setitem, "call_function", args, kwargs
    if name == "__contains__" and len(args) == 2:
        return operator.contains, "call_function", args, kwargs
    if name and getattr(torch.Tensor, name, None) is func:
        return name, "call_method", args, kwargs
    return func, "call_function", args, kwargs


builtins_getattr = getattr


def _dunder_table() -> dict[Any, tuple[str, Any, bool]]:
    """Tensor's operator methods by identity (their __name__ lies: `Tensor.__pow__` is named `pow`,
    `__rtruediv__` is named `__rdiv__`): function -> (fx op kind, target, reflected)."""
    table: dict[Any, tuple[str, Any, bool]] = {}
    for dunder, op in _DUNDER_TO_OPERATOR.items():
        f = vars(torch.Tensor).get(dunder) or getattr(torch.Tensor, dunder, None)
        if f is not None:
            table.setdefault(f, ("call_function", op, False))
    for dunder, op in _REFLECTED.items():
        f = vars(torch.Tensor).get(dunder) or getattr(torch.Tensor, dunder, None)
        if f is not None:
            table.setdefault(f, ("call_function", op, True))
    for dunder, method in _INPLACE_DUNDER.items():
        f = vars(torch.Tensor).get(dunder) or getattr(torch.Tensor, dunder, None)
        if f is not None:
            table.setdefault(f, ("call_method", method, False))
    return table


_TENSOR_DUNDERS = _dunder_table()


def _tensor_dunder(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> tuple[Any, str, tuple[Any, ...], dict[str, Any]] | None:
    try:
        hit = _TENSOR_DUNDERS.get(func)
    except TypeError:   # an unhashable callable
        return None
    if hit is None:
        return None
    kind, target, reflected = hit
    if reflected and len(args) == 2:
        args = (args[1], args[0])
    return target, kind, args, kwargs


def opaque_state(value: Any) -> bool:
    """An object of a package or user class that is neither a tensor nor a constant nor a container of them:
    state a forward made and its blocks read and write (a transformers cache), which no file can build."""
    if value is None or isinstance(value, (torch.Tensor, nn.Module, str, bytes, int, float, complex, bool,
                                           list, tuple, dict, type)) or callable(value):
        return False
    mod = getattr(type(value), "__module__", "") or ""
    if mod == "builtins" or mod == "torch" or mod.startswith("torch."):
        return False
    return hasattr(value, "__dict__") and not holding_tensors(value) and \
        not (is_constant_object(value) and not _has_containers_of_state(value))


def holds_state(value: Any) -> bool:
    """An opaque state object (opaque_state) among the leaves of an output: a model that hands its cache back."""
    return any(opaque_state(v) for v in flat_values(value))


def _has_containers_of_state(value: Any) -> bool:
    """An object holding lists or dicts (a cache's `layers`, filled as the forward runs), not only settings."""
    return any(isinstance(v, (list, dict)) for v in vars(value).values())


def _drop_plumbing_objects(mod: nn.Module, node: fx.Node, out: Any, args: list[Any], kwargs: dict[str, Any],
                           slots: list[int | str]) -> None:
    """The child's call with each opaque object (opaque_state) replaced by None where the child computes the
    very same outputs without it (a fresh cache each layer only appends to): the recorded call passes None,
    so the graph runs again without the state the recording left in the object, and no file needs to write
    it. Where the output differs the object stays (the capture check then says the graph does not run)."""
    trial_args, trial_kwargs = list(args), dict(kwargs)
    for slot in slots:
        if isinstance(slot, int):
            trial_args[slot] = None
        else:
            trial_kwargs[slot] = None
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            got = mod(*trial_args, **trial_kwargs)
    except Exception:
        return
    if not same_without_state(out, got):
        return
    node.args = tuple(None if i in slots else a for i, a in enumerate(node.args))
    node.kwargs = {k: (None if k in slots else v) for k, v in node.kwargs.items()}


def same_without_state(out: Any, got: Any) -> bool:
    """A child's output with an opaque state object handed to it (`out`) equal to its output without one
    (`got`), the state it hands back left out, or standing as the None the call without it hands back: LED's
    decoder layer returns `(hidden_states, cache)`, and `(hidden_states, None)` without one."""
    return same_outputs(without_state(out), without_state(got)) or \
        same_outputs(without_state(out, keep=True), without_state(got, keep=True))


def without_state(value: Any, keep: bool = False) -> Any:
    """An output with the opaque state objects it returns (the cache handed back) left out; with `keep`, each
    replaced by None instead."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(None if opaque_state(v) else without_state(v, keep) for v in value
                           if keep or not opaque_state(v))
    if isinstance(value, dict):
        return {k: None if opaque_state(v) else without_state(v, keep) for k, v in value.items()
                if keep or not opaque_state(v)}
    return value


def _no_object_made_here(graph: fx.Graph) -> None:
    """Raises where the forward returns an opaque object it made itself (a decoder's cache, made in its forward
    when none is handed in, filled by its layers, handed back in its output object): a graph would hold the
    one object the recording filled as a constant, where each call makes and fills its own; the Python that
    makes it stays in a source-level step. (Objects handed to a child as plumbing are left to
    _drop_plumbing_objects; one a child returns is read from its output, _GraphBuilder.returned.)"""
    for n in graph.nodes:
        if n.op == "call_module":
            continue
        made = [v for v in flat_values([list(n.args), dict(n.kwargs)]) if opaque_state(v)]
        if made:
            raise CaptureError(f"the forward returns a {type(made[0]).__name__} it makes itself, which a graph "
                               "would hold as the one object the recording filled")


def capture_record(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    """The forward recorded over its direct children (those in `expand` traced through); a child whose
    internal tensor reaches the forward by a side channel is traced through as well (Capture.expanded)."""
    extra: set[str] = set()
    for _ in range(16):
        clear_memoized(module)   # (a memoized method computes its tensors again: recorded, not constants)
        try:
            cap = _capture_record(module, args, kwargs, expected, expand | extra)
        except _Escaped as exc:
            if exc.target in extra:
                raise
            extra.add(exc.target)
            continue
        cap.expanded = extra
        if extra:
            cap.notes.append(f"traced through {', '.join(sorted(extra))}: a tensor computed inside reaches the "
                             "forward by a side channel (hooks), not as its output")
        return cap
    raise CaptureError("too many children to trace through for tensors that escape them")


def _capture_record(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    work = work_copy(module)
    b = _GraphBuilder(work)
    sig_names = forward_param_names(work, len(args), kwargs)
    cargs, ckw = clone_nested(args), clone_nested(kwargs)
    for i, a in enumerate(cargs):
        node = b.graph.placeholder(sig_names[i] if i < len(sig_names) else f"arg{i}")
        b.bind(node, a)
    for k in sorted(ckw):
        node = b.graph.placeholder(k)
        b.bind(node, ckw[k])
    depth = [0]
    calls: dict[str, int] = {}
    names = {m: n for n, m in work.named_modules(remove_duplicate=False) if n}
    direct = set()
    hooks = []
    mode = _OpRecorder(b, depth)

    def pre(mod: nn.Module, margs: tuple[Any, ...], mkw: dict[str, Any]) -> None:
        if names[mod] in expand and depth[0] == 0:
            return
        if depth[0] == 0 and mode.error is None:
            target = names[mod]
            try:
                node = b.graph.call_module(target, b.arg(tuple(margs)), b.arg(dict(mkw)))
                node.meta["stack_trace"] = user_frame_trace()
            except CaptureError as exc:
                mode.error = exc
                node = None
            mod._hdecomp_node = node  # type: ignore[assignment]
            # an opaque object the forward made and hands the child (a transformers DynamicCache each layer
            # appends to): the child is called again without it after its call, to see if it is plumbing
            slots = [i for i, a in enumerate(margs) if opaque_state(a)] + [k for k, v in mkw.items() if opaque_state(v)]
            mod._hdecomp_probe = (clone_nested(list(margs)), clone_nested(dict(mkw)), slots) if slots else None  # type: ignore[assignment]
            calls[target] = calls.get(target, 0) + 1
            direct.add(target)
            b.current = target
        depth[0] += 1

    def post(mod: nn.Module, margs: Any, mkw: Any, out: Any) -> None:
        if names[mod] in expand and depth[0] == 0:
            return
        depth[0] -= 1
        node = getattr(mod, "_hdecomp_node", None)
        if depth[0] == 0:
            b.current = None
        if depth[0] == 0 and node is not None and mode.error is None:
            b.bind(node, out)
            mod._hdecomp_node = None  # type: ignore[assignment]
            probe = getattr(mod, "_hdecomp_probe", None)
            mod._hdecomp_probe = None  # type: ignore[assignment]
            if probe is not None:
                depth[0] += 1   # (nothing of the probe is recorded)
                try:
                    _drop_plumbing_objects(mod, node, out, *probe)
                finally:
                    depth[0] -= 1

    # the module's own hooks run inside its call: its pre-hooks after ours, its forward hooks before ours
    # (a hook is part of what the module computes, and the module's file carries it)
    for m in names:
        hooks.append(m.register_forward_pre_hook(pre, with_kwargs=True, prepend=True))
        hooks.append(m.register_forward_hook(post, with_kwargs=True))
    held = HeldEntries(cargs, ckw)
    try:
        with torch.no_grad(), mode:
            torch.manual_seed(CAPTURE_SEED)
            out = work(*cargs, **ckw)
    except Exception as exc:
        raise CaptureError(f"recording the forward raised {type(exc).__name__}: {exc}") from exc
    finally:
        for h in hooks:
            h.remove()
        for m in names:
            for attr in ("_hdecomp_node", "_hdecomp_probe"):
                if hasattr(m, attr):
                    delattr(m, attr)
    if mode.error is not None:
        raise mode.error
    written = held.written()
    if written:
        # (Gemma 3n's attentions store their keys and values in the dict the decoder hands every layer): the
        # Python that writes them stays in a source-level parent
        raise CaptureError(f"the forward writes into a container it is handed ({', '.join(sorted(written))}), "
                           "which a recorded graph does not")
    b.output(out)
    # Every element of a tuple result got a getitem node when it was recorded (`x.max(-1)` gives values and
    # indices); the unused ones are dead plumbing an fx trace would not have: an op with a dead extra user
    # would look shared (plan.py's semantic runs require every intermediate to be used inside the run).
    for n in reversed(list(b.graph.nodes)):
        if n.op == "call_function" and n.target is operator.getitem and not n.users:
            b.values.pop(n.name, None)
            b.graph.erase_node(n)
    _no_object_made_here(b.graph)
    gm = graph_module(work, b.graph, "the recorded graph")
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            replay, values = node_values(gm, clone_nested(args), clone_nested(kwargs))
    except Exception as exc:
        raise CaptureError(f"the recorded graph does not run ({type(exc).__name__}: {exc})") from exc
    if not output_matches(expected, replay):
        raise CaptureError("the recorded graph does not reproduce the module's output "
                           "(autocast region, randomness or hidden state)")
    return Capture(graph=b.graph, values=values, method="record", child_calls=calls,
                   notes=["forward captured by recording its execution (control flow fixed for the recorded "
                          "input shapes)"])
