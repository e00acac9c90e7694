"""Capturing one component's forward as a graph of direct child calls and ops.

`capture(module, args, kwargs)` returns a `Capture`: a torch.fx Graph whose call_module nodes are the
component's direct children (every submodule is a leaf), plus the real value of every node from one run.
It tries a torch.fx trace first (on a copy, so a failing trace never leaves Proxies on the real module);
where that fails, or where the traced graph does not reproduce the module's output, it records the real
execution instead (module hooks for child calls + a TorchFunctionMode for the ops in between) and builds the
same kind of graph from it. Every captured graph is checked numerically against the module before use.

`record_init_args()` records the constructor arguments of every module built inside it, so that generated
files can rebuild modules the way a person would write them (`nn.Conv2d(3, 64, kernel_size=3, padding=1)`).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import operator
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import torch
import torch.fx as fx
from torch import nn
from torch.overrides import TorchFunctionMode

# ---- constructor arguments ---------------------------------------------------------------------------


@dataclass
class InitCall:
    """The arguments one module's (most derived) __init__ received."""

    cls: type
    params: list[tuple[str, Any, str]]   # (name, value, kind) in signature order; kind: "arg"|"varargs"|"varkw"


_INIT_ARGS: weakref.WeakKeyDictionary[nn.Module, InitCall] = weakref.WeakKeyDictionary()


def init_call(module: nn.Module) -> InitCall | None:
    return _INIT_ARGS.get(module)


@contextlib.contextmanager
def record_init_args() -> Iterator[None]:
    """Record the arguments of every nn.Module constructed in the body (the first __init__ entered per
    object is the most derived class's, i.e. what the user wrote)."""
    previous = sys.getprofile()
    seen: set[int] = set()

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_name != "__init__":
            return
        code = frame.f_code
        if code.co_argcount == 0:
            return
        first = code.co_varnames[0]
        obj = frame.f_locals.get(first)
        if not isinstance(obj, nn.Module) or id(obj) in seen:
            return
        try:
            if obj in _INIT_ARGS:
                return
        except TypeError:
            return
        seen.add(id(obj))
        names = list(code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount])
        params: list[tuple[str, Any, str]] = [(n, frame.f_locals.get(n), "arg") for n in names]
        idx = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & inspect.CO_VARARGS:
            vname = code.co_varnames[idx]
            params.append((vname, frame.f_locals.get(vname, ()), "varargs"))
            idx += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            kname = code.co_varnames[idx]
            params.append((kname, dict(frame.f_locals.get(kname, {}) or {}), "varkw"))
        try:
            _INIT_ARGS[obj] = InitCall(type(obj), params)
        except TypeError:
            pass

    sys.setprofile(profiler)
    try:
        yield
    finally:
        sys.setprofile(previous)


# ---- the captured graph ------------------------------------------------------------------------------


@dataclass
class Capture:
    """One component's forward as a graph over its direct children, with the value of every node."""

    graph: fx.Graph
    values: dict[str, Any]              # node name -> value from the real run
    method: str                         # "fx" | "record"
    notes: list[str] = field(default_factory=list)
    child_calls: dict[str, int] = field(default_factory=dict)   # module target -> number of calls


# Every run that a capture is compared with starts from this RNG state (forwards that draw random numbers).
CAPTURE_SEED = 1234


class CaptureError(Exception):
    """The component's forward could not be captured as a graph (the message says why)."""


class _LeafTracer(fx.Tracer):
    """Every submodule is a leaf (except those in `expand`, traced through): the graph shows only the
    direct children and the ops between them."""

    def __init__(self, expand: set[str] | None = None) -> None:
        super().__init__()
        self.expand = expand or set()

    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        return module_qualified_name not in self.expand


_COPY_LIMIT_BYTES = 256 * 2**20


def _work_copy(module: nn.Module) -> nn.Module:
    """A copy to trace/record on; big models are used in place (their attributes are restored after)."""
    size = sum(t.numel() * t.element_size() for t in module.state_dict().values())
    return copy.deepcopy(module) if size <= _COPY_LIMIT_BYTES else module


@contextlib.contextmanager
def _restored_attributes(module: nn.Module) -> Iterator[None]:
    """Put every module's plain attributes and buffer table back afterwards (a trace may assign Proxies)."""
    saved = [(m, dict(m.__dict__), dict(m._buffers)) for m in module.modules()]
    try:
        yield
    finally:
        for m, d, bufs in saved:
            m.__dict__.update(d)  # attributes the trace added (fx's _tensor_constant*) stay for the check
            m._buffers.clear()
            m._buffers.update(bufs)


def _flatten(obj: Any) -> list[Any]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _flatten(o)]
    if isinstance(obj, dict):
        return [t for k in obj for t in _flatten(obj[k])]
    return [obj]


def same_outputs(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Nested outputs equal leaf by leaf (NaN == NaN, same shape and dtype)."""
    fa, fb = _flatten(a), _flatten(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb, strict=True):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return False
        if isinstance(x, torch.Tensor):
            if isinstance(y, fx.Proxy) or x.shape != y.shape or x.dtype != y.dtype:
                return False
            if x.is_floating_point() or x.is_complex():
                if not torch.allclose(x.detach().cpu(), y.detach().cpu(), rtol=rtol, atol=atol, equal_nan=True):
                    return False
            elif not torch.equal(x.cpu(), y.cpu()):
                return False
        elif x != y and not (isinstance(x, float) and x != x and y != y):
            return False
    return True


def _clone(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _clone(v) for k, v in obj.items()}
    return obj


class _ValueRecorder(fx.Interpreter):
    def __init__(self, gm: fx.GraphModule) -> None:
        super().__init__(gm)
        self.values: dict[str, Any] = {}

    def run_node(self, n: fx.Node) -> Any:
        out = super().run_node(n)
        self.values[n.name] = out
        return out


def node_values(gm: fx.GraphModule, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Run the graph, keeping every node's value (kwargs are bound to placeholders by name)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    flat = list(args)
    for ph in placeholders[len(args):]:
        name = ph.target if isinstance(ph.target, str) else ph.name
        name = name.lstrip("*")
        if name in kwargs:
            flat.append(kwargs[name])
        elif ph.args:
            flat.append(ph.args[0])
        else:
            flat.append(None)
    rec = _ValueRecorder(gm)
    out = rec.run(*flat)
    return out, rec.values


def capture(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
            expand: set[str] | None = None) -> Capture:
    """Capture `module`'s forward over its direct children (submodules in `expand` are traced through);
    the result reproduces `expected`."""
    notes: list[str] = []
    try:
        return _capture_fx(module, args, kwargs, expected, expand or set())
    except CaptureError as exc:
        notes.append(f"torch.fx: {exc}")
    try:
        cap = _capture_record(module, args, kwargs, expected, expand or set())
    except CaptureError as exc:
        notes.append(f"execution recording: {exc}")
        raise CaptureError("; ".join(notes)) from exc
    cap.notes = notes + cap.notes
    return cap


def _capture_fx(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                expand: set[str]) -> Capture:
    work = _work_copy(module)  # tracing may leave Proxies on attributes: never trace the live module
    tracer = _LeafTracer(expand)
    try:
        with torch.no_grad(), _restored_attributes(work):
            graph = tracer.trace(work)
    except Exception as exc:  # fx raises many kinds (TraceError, TypeError on Proxy use, ...)
        raise CaptureError(f"trace failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
                           ) from exc
    try:
        gm = fx.GraphModule(work, graph)
    except Exception as exc:
        raise CaptureError(f"traced graph cannot be compiled ({type(exc).__name__})") from exc
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            out, values = node_values(gm, [_clone(a) for a in args], _clone(kwargs))
    except Exception as exc:
        raise CaptureError(f"traced graph does not run ({type(exc).__name__}: {exc})") from exc
    if any(isinstance(v, fx.Proxy) for v in _flatten(out)) or not same_outputs(expected, out):
        raise CaptureError("traced graph does not reproduce the module's output")
    if any(n.op == "get_attr" and _is_plain_tensor_attr(module, str(n.target)) for n in graph.nodes):
        raise CaptureError("a plain tensor attribute is read in forward")
    calls: dict[str, int] = {}
    for n in graph.nodes:
        if n.op == "call_module":
            calls[str(n.target)] = calls.get(str(n.target), 0) + 1
    return Capture(graph=graph, values=values, method="fx", child_calls=calls)


def _is_plain_tensor_attr(module: nn.Module, target: str) -> bool:
    names: dict[str, torch.Tensor] = dict(module.named_parameters(remove_duplicate=False))
    names.update(dict(module.named_buffers(remove_duplicate=False)))
    return target not in names


# ---- recording the real execution ---------------------------------------------------------------------

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

    def bind(self, node: fx.Node, value: Any) -> None:
        self.values[node.name] = value
        self._bind(node, value)

    def _bind(self, node: fx.Node, value: Any) -> None:
        if isinstance(value, torch.Tensor):
            self.by_id[id(value)] = node
            self.keep.append(value)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if _flatten(v) and any(isinstance(t, torch.Tensor) for t in _flatten(v)):
                    sub = self.graph.call_function(operator.getitem, (node, i))
                    self.values[sub.name] = v
                    self._bind(sub, v)
        elif isinstance(value, dict):
            for k in value:
                v = value[k]
                if any(isinstance(t, torch.Tensor) for t in _flatten(v)):
                    sub = self.graph.call_function(operator.getitem, (node, k))
                    self.values[sub.name] = v
                    self._bind(sub, v)

    def arg(self, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            node = self.by_id.get(id(value))
            if node is not None:
                return node
            name = self.state.get(id(value))
            if name is not None:
                node = self.graph.get_attr(name)
                self.values[node.name] = value
                self.by_id[id(value)] = node
                return node
            self.unknown_tensors.append(f"{tuple(value.shape)} {value.dtype}")
            raise CaptureError("forward uses a tensor that is neither an input, a parameter/buffer nor "
                               "computed in forward (a plain tensor attribute or a global)")
        if isinstance(value, tuple):
            return tuple(self.arg(v) for v in value)
        if isinstance(value, list):
            return [self.arg(v) for v in value]
        if isinstance(value, dict):
            return {k: self.arg(v) for k, v in value.items()}
        if isinstance(value, nn.Module):
            raise CaptureError("a module is passed as an argument to an op")
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
            return func(*args, **kwargs)
        # Run first without recording nested calls (a Python-level op calling other torch functions).
        self.depth[0] += 1
        try:
            out = func(*args, **kwargs)
        finally:
            self.depth[0] -= 1
        if not any(isinstance(t, torch.Tensor) for t in _flatten(out)):
            return out   # size/shape/dtype queries and .item(): constants in the generated code
        try:
            target, op, a, kw = _normalise_call(func, args, kwargs)
            b = self.builder
            node = b.graph.create_node(op, target, b.arg(a), b.arg(kw))
            b.bind(node, out)
        except CaptureError as exc:
            self.error = exc
        return out


def _normalise_call(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str, tuple[Any, ...],
                                                                                    dict[str, Any]]:
    name = getattr(func, "__name__", "")
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
    if name and getattr(torch.Tensor, name, None) is func:
        return name, "call_method", args, kwargs
    return func, "call_function", args, kwargs


builtins_getattr = getattr


def _capture_record(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    work = _work_copy(module)
    b = _GraphBuilder(work)
    sig_names = _forward_param_names(work, len(args), kwargs)
    cargs, ckw = _clone(args), _clone(kwargs)
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
            except CaptureError as exc:
                mode.error = exc
                node = None
            mod._hdecomp_node = node  # type: ignore[assignment]
            calls[target] = calls.get(target, 0) + 1
            direct.add(target)
        depth[0] += 1

    def post(mod: nn.Module, margs: Any, mkw: Any, out: Any) -> None:
        if names[mod] in expand and depth[0] == 0:
            return
        depth[0] -= 1
        node = getattr(mod, "_hdecomp_node", None)
        if depth[0] == 0 and node is not None and mode.error is None:
            b.bind(node, out)
            mod._hdecomp_node = None  # type: ignore[assignment]

    for m in names:
        hooks.append(m.register_forward_pre_hook(pre, with_kwargs=True))
        hooks.append(m.register_forward_hook(post, with_kwargs=True))
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
            if hasattr(m, "_hdecomp_node"):
                del m._hdecomp_node
    if mode.error is not None:
        raise mode.error
    try:
        b.graph.output(b.arg(out))
    except CaptureError:
        raise
    try:
        b.graph.lint()
        gm = fx.GraphModule(work, b.graph)
    except Exception as exc:  # a recorded call fx cannot express as Python code
        raise CaptureError(f"the recorded graph cannot be turned into code ({type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else ''})") from exc
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            replay, values = node_values(gm, _clone(args), _clone(kwargs))
    except Exception as exc:
        raise CaptureError(f"the recorded graph does not run ({type(exc).__name__}: {exc})") from exc
    if not same_outputs(expected, replay):
        raise CaptureError("the recorded graph does not reproduce the module's output "
                           "(autocast region, randomness or hidden state)")
    return Capture(graph=b.graph, values=values, method="record", child_calls=calls,
                   notes=["forward captured by recording its execution (control flow fixed for the recorded "
                          "input shapes)"])


def _forward_param_names(module: nn.Module, n: int, kwargs: dict[str, Any]) -> list[str]:
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        return [f"arg{i}" for i in range(n)]
    out = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in kwargs:
            out.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            out.extend(f"{p.name}_{i}" for i in range(n - len(out)))
            break
    out += [f"arg{i}" for i in range(len(out), n)]
    return out[:n]
