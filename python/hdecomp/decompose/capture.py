"""Capturing one component's forward as a graph of direct child calls and ops.

`capture(module, args, kwargs)` returns a `Capture`: a torch.fx Graph whose call_module nodes are the
component's direct children (every submodule is a leaf), plus the real value of every node from one run.
It tries a torch.fx trace first (on a copy, so a failing trace never leaves Proxies on the real module);
where that fails, or where the traced graph does not reproduce the module's output, a non-strict
torch.export with every leaf child's call signature preserved (Proxies used as ints or slice bounds: causal
masks built from sizes, hidden sizes from shapes), unflattened and rewritten with public torch spellings;
where that fails too, it records the real execution (module hooks for child calls + a TorchFunctionMode for
the ops in between) and builds the same kind of graph from it. Every captured graph is checked numerically
against the module before use (`reference_run`: one seeded, recorded forward that also gives the op counts);
an exported graph must also run the module's op inventory (torch.export drops dead code). Captures run on a
deep copy whose function attributes are rebound to the copy's submodules (a lambda closing over an
nn.ModuleDict, as minGPT's `mlpf`). Batch-sized ints that export and recording bake into the graph are
written batch-relative afterwards (batch_ints.py).

`record_init_args()` records the constructor arguments of every module built inside it, so that generated
files can rebuild modules the way a person would write them (`nn.Conv2d(3, 64, kernel_size=3, padding=1)`).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import operator
import sys
import types
import weakref
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import torch
import torch.fx as fx
from torch import nn
from torch.overrides import TorchFunctionMode

from hdecomp.decompose.value_names import user_frame_trace
from hdecomp.runtime.component import clone_nested
from hdecomp.vocab.roles import STRUCTURE_KINDS, category

# ---- constructor arguments ---------------------------------------------------------------------------


@dataclass
class InitCall:
    """The arguments one module's (most derived) __init__ received."""

    cls: type
    params: list[tuple[str, Any, str]]   # (name, value, kind) in signature order; kind: "arg"|"varargs"|"varkw"


_INIT_ARGS: weakref.WeakKeyDictionary[Any, InitCall] = weakref.WeakKeyDictionary()
_DEEPCOPY_CODE = copy.deepcopy.__code__


# parameters a module's own constructor leaves as torch.empty memory (transformers' MixtralExperts and
# routers: the model's post_init fills them): module -> their names, relative to it
_UNINITIALISED: weakref.WeakKeyDictionary[nn.Module, list[str]] = weakref.WeakKeyDictionary()
_EMPTY_FACTORIES = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"})


def uninitialised_parameters(module: nn.Module) -> list[str]:
    """Names (relative to `module`) of the parameters its constructor, run alone, leaves uninitialised:
    recorded while the model was built under record_init_args()."""
    found = []
    for prefix, sub in module.named_modules():
        with contextlib.suppress(TypeError):
            found += [f"{prefix}.{n}" if prefix else n for n in _UNINITIALISED.get(sub, [])]
    return found


class _EmptyWatch(TorchFunctionMode):
    """Storages made by torch.empty & co. during construction, and whether anything wrote them since."""

    def __init__(self) -> None:
        super().__init__()
        self.unwritten: set[int] = set()

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name in _EMPTY_FACTORIES and isinstance(out, torch.Tensor) and not out.is_meta:
            with contextlib.suppress(Exception):
                self.unwritten.add(out.untyped_storage().data_ptr())
        elif self.unwritten and ((name.endswith("_") and not name.endswith("__")) or name == "__setitem__"):
            # the written tensor: the first argument, or a keyword one (`nn.init.constant_(tensor=..., val=...)`
            # reaches a mode with its tensor as a keyword)
            target = next((a for a in [*args[:1], *kwargs.values()] if isinstance(a, torch.Tensor)), None)
            if target is not None:
                with contextlib.suppress(Exception):
                    self.unwritten.discard(target.untyped_storage().data_ptr())
        return out

    def check(self, module: nn.Module) -> None:
        # (torch.nn's own layers initialise themselves when built alone, in reset_parameters, even where a
        # package's model construction skips that: transformers' no_init_weights)
        if not self.unwritten or (type(module).__module__ or "").startswith("torch."):
            return
        names = []
        for n, p in module._parameters.items():
            with contextlib.suppress(Exception):
                if p is not None and p.numel() and p.untyped_storage().data_ptr() in self.unwritten:
                    names.append(n)
        if names:
            with contextlib.suppress(TypeError):
                _UNINITIALISED[module] = names


def init_call(obj: Any) -> InitCall | None:
    """The arguments `obj` (a module, or another object built with it) was constructed with, if recorded."""
    try:
        return _INIT_ARGS.get(obj)
    except TypeError:   # not weak-referenceable or not hashable
        return None


def _recordable(obj: Any) -> bool:
    """Modules, and plain objects of classes from user files or installed packages other than torch's own
    (the config objects a block is built from); not tensors, containers or torch internals."""
    if isinstance(obj, nn.Module):
        return True
    mod = getattr(type(obj), "__module__", "") or ""
    return not (mod == "builtins" or mod == "torch" or mod.startswith(("torch.", "typing", "collections",
                                                                        "enum", "functools", "abc")))


@contextlib.contextmanager
def record_init_args() -> Iterator[None]:
    """Record the arguments of every nn.Module (and other object of a user or package class) constructed in
    the body (the first __init__ entered per object is the most derived class's, i.e. what the user wrote)."""
    previous = sys.getprofile()
    watch = _EmptyWatch()
    outermost: dict[int, nn.Module] = {}   # id of the frame of a module's first (most derived) __init__

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and id(frame) in outermost and frame.f_code.co_name == "__init__":
            watch.check(outermost.pop(id(frame)))
            return
        if event == "return" and frame.f_code is _DEEPCOPY_CODE:
            # A module copied with copy.deepcopy (nn.TransformerEncoder clones its layer) never runs
            # __init__: it was built with the arguments of the module it copies.
            src = frame.f_locals.get("x")
            if isinstance(src, nn.Module) and type(arg) is type(src):
                with contextlib.suppress(TypeError):
                    if src in _INIT_ARGS and arg not in _INIT_ARGS:
                        _INIT_ARGS[arg] = _INIT_ARGS[src]
            return
        if event != "call" or frame.f_code.co_name != "__init__":
            return
        code = frame.f_code
        if code.co_argcount == 0:
            return
        first = code.co_varnames[0]
        obj = frame.f_locals.get(first)
        if not _recordable(obj):
            return
        try:   # (by the object itself, not its id: a freed temporary's id is given to later objects)
            if obj in _INIT_ARGS:
                return
        except TypeError:
            return
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
            return
        if isinstance(obj, nn.Module):
            outermost[id(frame)] = obj

    sys.setprofile(profiler)
    try:
        with watch:
            yield
    finally:
        sys.setprofile(previous)


# ---- the captured graph ------------------------------------------------------------------------------


@dataclass
class Capture:
    """One component's forward as a graph over its direct children, with the value of every node."""

    graph: fx.Graph
    values: dict[str, Any]              # node name -> value from the real run
    method: str                         # "fx" | "export" | "record"
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
        self.record_stack_traces = True   # where each value came from: value_names.py names it by its source

    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        return module_qualified_name not in self.expand

    def trace(self, root: Any, concrete_args: Any = None) -> fx.Graph:
        with _package_wraps_traced_through():
            return super().trace(root, concrete_args)


@contextlib.contextmanager
def _package_wraps_traced_through() -> Iterator[None]:
    """Python functions a package made fx leaves (`torch.fx.wrap("shifted_window_attention")` in
    torchvision's Swin) are traced into while we trace: a Python function is not a kernel, and as a leaf
    it would be one child holding the whole attention. torch's own wrapped functions stay leaves."""
    from torch.fx import _symbolic_trace as st
    table = getattr(st, "_wrapped_fns_to_patch", None)
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


_COPY_LIMIT_BYTES = 256 * 2**20


def _work_copy(module: nn.Module) -> nn.Module:
    """A copy to trace/record on; big models are used in place (their attributes are restored after)."""
    size = sum(t.numel() * t.element_size() for t in module.state_dict().values())
    if size > _COPY_LIMIT_BYTES:
        return module
    memo: dict[int, Any] = {}
    work = copy.deepcopy(module, memo)
    _rebind_closures(work, memo)
    return work


def _rebind_closures(work: nn.Module, memo: dict[int, Any]) -> None:
    """copy.deepcopy shares plain functions with the original, so a function attribute closing over a
    submodule (minGPT's `m = self.mlp; self.mlpf = lambda x: m.c_proj(m.c_fc(x))`) would still call the
    ORIGINAL module's children from the copy: not installed in the copy (fx), tensors of another module
    (export, recording). Rebuild such functions with their closure cells and defaults mapped to the copies."""

    def remap(obj: Any) -> Any:
        return memo.get(id(obj), obj)

    def rebind(fn: Any) -> Any:
        if type(fn) in (list, tuple):  # a container is rebuilt only where one of its functions changed
            items = [rebind(f) for f in fn]
            return fn if all(a is b for a, b in zip(items, fn, strict=True)) else type(fn)(items)
        if type(fn) is dict:
            table = {k: rebind(f) for k, f in fn.items()}
            return fn if all(table[k] is fn[k] for k in fn) else table
        if not isinstance(fn, types.FunctionType):
            return fn
        cells = fn.__closure__ or ()
        contents = []
        for c in cells:
            try:
                contents.append(c.cell_contents)
            except ValueError:  # an empty cell (a name assigned after the function was made)
                return fn
        defaults = fn.__defaults__ or ()
        if not any(id(v) in memo for v in (*contents, *defaults)):
            return fn
        new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                 tuple(remap(d) for d in defaults) if fn.__defaults__ is not None else None,
                                 tuple(types.CellType(remap(v)) for v in contents) if cells else None)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__dict__.update(fn.__dict__)
        new.__qualname__ = fn.__qualname__
        return new

    for m in work.modules():
        for attr, value in list(vars(m).items()):
            if attr in ("_modules", "_parameters", "_buffers") or attr.endswith("_hooks"):
                continue  # torch's own tables (hooks are copied as they are, like any function)
            new = rebind(value)
            if new is not value:
                m.__dict__[attr] = new


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
                if not _allclose_chunked(x.detach().cpu(), y.detach().cpu(), rtol, atol):
                    return False
            elif not torch.equal(x.cpu(), y.cpu()):
                return False
        elif x != y and not (isinstance(x, float) and x != x and y != y):
            return False
    return True


_SAME_CHUNK = 1 << 24  # elements per allclose chunk


def _allclose_chunked(x: torch.Tensor, y: torch.Tensor, rtol: float, atol: float) -> bool:
    """torch.allclose(equal_nan=True) without full-size temporaries: bit-identical tensors (the usual
    case: a capture runs the same kernels) need no pass at all; otherwise chunk by chunk, so a 4 GiB
    attention score matrix is not copied several times over (hdecomp memory order, bench/memory)."""
    if torch.equal(x, y):
        return True
    fx_, fy = x.reshape(-1), y.reshape(-1)
    return all(torch.allclose(fx_[i:i + _SAME_CHUNK], fy[i:i + _SAME_CHUNK], rtol=rtol, atol=atol, equal_nan=True)
               for i in range(0, fx_.numel(), _SAME_CHUNK))


@dataclass
class Reference:
    """What a capture is checked against: the component's output from one seeded run, recorded with
    hdecomp.runtime.ops, so the same run also gives the compute-op counts (the planner's sizes) and the aten
    inventory (a capture must run the same ops: torch.export drops dead code, the verifier would not).
    A forward may take another kernel path while ops are recorded (a TorchFunctionMode disables some
    fused fast paths); `matches` then also accepts the plain forward's output, computed only if needed."""

    output: Any
    inventory: Counter[str]
    total: int
    per_module: dict[str, int]
    # per submodule: its contractions, softmaxes, pools and gates in execution order
    # (vocab/roles.effective_contractions)
    contraction_ops: dict[str, list[str]] = field(default_factory=dict)
    # the component's own code (not a child's) turned a tensor into a Python value (`if x.mean() > 0:`,
    # `.item()`): a graph holds only the recorded path through it
    materializes: list[str] = field(default_factory=list)
    _plain: Any = None
    _rerun: Any = None

    def release(self) -> None:
        """Drop the outputs (the counts and inventory stay): once the captures are checked."""
        self.output = self._plain = self._rerun = None

    def matches(self, out: Any) -> bool:
        if same_outputs(self.output, out):
            return True
        if self._rerun is None:
            return False
        if self._plain is None:
            self._plain = (self._rerun(),)
        return bool(same_outputs(self._plain[0], out))


def reference_run(module: nn.Module, args: list[Any], kwargs: dict[str, Any]) -> Reference:
    """One seeded, recorded forward on copies of the inputs (forwards may change their inputs in place)."""
    from hdecomp.runtime.ops import record_ops

    def plain() -> Any:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            return module(*clone_nested(args), **clone_nested(kwargs))
    torch.manual_seed(CAPTURE_SEED)
    out, trace = record_ops(module, clone_nested(args), clone_nested(kwargs))
    per: dict[str, int] = {}
    total = 0
    materializes = sorted({e.raw.rsplit(".", 1)[-1] for e in trace.events
                           if e.level == "function" and e.module == "" and e.raw.rsplit(".", 1)[-1] in _MATERIALIZE})
    contraction_ops: dict[str, list[str]] = {}
    for e in trace.events:
        if e.level != "aten" or not e.compute:
            continue
        total += 1
        parts = e.module.split(".") if e.module else []
        kind = category(e.name)
        for i in range(1, len(parts) + 1):
            key = ".".join(parts[:i])
            per[key] = per.get(key, 0) + 1
            if kind in STRUCTURE_KINDS or e.name == "mean":
                contraction_ops.setdefault(key, []).append(e.name)
    return Reference(output=out, inventory=trace.compute_inventory("aten"), total=total, per_module=per,
                     contraction_ops=contraction_ops, materializes=materializes, _rerun=plain)


# Tensor methods that hand a tensor's value to Python (which may then branch on it)
_MATERIALIZE = {"__bool__", "item", "tolist", "__int__", "__float__", "__index__", "__len__", "numpy"}


def _matches(expected: Any, out: Any) -> bool:
    return expected.matches(out) if isinstance(expected, Reference) else same_outputs(expected, out)


def _expected_output(expected: Any) -> Any:
    return expected.output if isinstance(expected, Reference) else expected


# Python scalar types passed where torch wants a dtype (`torch.ones(n, dtype=bool)`): torch accepts them, but
# a graph holding the class `bool` prints as `<class 'bool'>`, which is not Python. Spelled as torch dtypes.
_PY_TYPE_DTYPES: dict[type, torch.dtype] = {bool: torch.bool, int: torch.int64, float: torch.float64,
                                            complex: torch.complex128}


def _printable_constant(value: Any) -> Any:
    if isinstance(value, type):
        if value in _PY_TYPE_DTYPES:
            return _PY_TYPE_DTYPES[value]
        raise CaptureError(f"the class {value.__name__} is passed to an op")
    return value


def normalise_constants(graph: fx.Graph) -> None:
    """Rewrite node arguments that fx cannot print as code (Python types used as dtypes)."""
    for n in graph.nodes:
        if n.op in ("call_function", "call_method", "call_module"):
            n.args = fx.node.map_aggregate(n.args, _printable_constant)
            n.kwargs = fx.node.map_aggregate(n.kwargs, _printable_constant)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _graph_module(work: nn.Module, graph: fx.Graph, what: str) -> fx.GraphModule:
    """The captured `graph` (`what`: "the traced graph", ...) checked, with printable constants, as a
    GraphModule over `work`; any failure (a call fx cannot express as Python code) is a CaptureError."""
    try:
        graph.lint()
        normalise_constants(graph)
        return fx.GraphModule(work, graph)
    except CaptureError:
        raise
    except Exception as exc:
        raise CaptureError(f"{what} cannot be turned into code ({_first_line(exc)})") from exc


class _ValueRecorder(fx.Interpreter):
    def __init__(self, gm: fx.GraphModule) -> None:
        super().__init__(gm)
        self.values: dict[str, Any] = {}

    def run_node(self, n: fx.Node) -> Any:
        out = super().run_node(n)
        if out is None and n.target is operator.setitem and isinstance(n.args[0], fx.Node):
            out = self.env[n.args[0]]   # `x[i] = v` stands for the written x afterwards (thread_inplace)
        self.values[n.name] = frozen_view(out)
        return out


def frozen_view(value: Any) -> Any:
    """`value` as it is now: each tensor (not a parameter) as a fresh alias of its storage, so that a later
    in-place change of shape (`einsum(...).unsqueeze_(1)`, BigBird) leaves the recorded shape alone."""
    if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
        try:
            return value.detach()
        except Exception:   # a tensor subclass that will not alias
            return value
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(frozen_view(v) for v in value)
    return value


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
    want = _expected_output(expected)
    try:
        return _finish(_capture_fx(module, args, kwargs, expected, expand or set()), want)
    except CaptureError as exc:
        notes.append(f"torch.fx: {exc}")
    try:
        cap = _capture_export(module, args, kwargs, expected, expand or set())
        cap.notes = notes + cap.notes
        return _finish(cap, want)
    except CaptureError as exc:
        notes.append(f"torch.export: {exc}")
    except Exception as exc:  # a fallback that breaks must not stop the next one
        notes.append(f"torch.export: {type(exc).__name__}: {exc}")
    try:
        cap = _capture_record(module, args, kwargs, expected, expand or set())
    except CaptureError as exc:
        notes.append(f"execution recording: {exc}")
        raise CaptureError("; ".join(notes)) from exc
    cap.notes = notes + cap.notes
    return _finish(cap, want)


def _finish(cap: Capture, want: Any) -> Capture:
    return restore_output_type(thread_inplace(fold_state_metadata(cap)), want)


def _returns_self(n: fx.Node) -> bool:
    """An in-place op that returns the tensor it changed (`x.unsqueeze_(1)`, `x.add_(y)`, `torch.relu_(x)`),
    or an index assignment (`x[i] = v`: its node stands for the written `x` afterwards)."""
    if n.op == "call_function" and n.target is operator.setitem:
        return bool(n.args) and isinstance(n.args[0], fx.Node)
    if n.op == "call_method":
        name = str(n.target)
    elif n.op == "call_function":
        name = getattr(n.target, "__name__", "")
    else:
        return False
    return name.endswith("_") and not name.startswith("_") and not name.endswith("__") and bool(n.args) \
        and isinstance(n.args[0], fx.Node)


def thread_inplace(cap: Capture) -> Capture:
    """Every use of a tensor after an in-place op on it reads that op's result instead (the same tensor, as
    the op returns it): the graph says which value each op reads, so a child that holds `scores.unsqueeze_(1)`
    hands its result on, and the next child is recorded with the shape it really gets."""
    latest: dict[fx.Node, fx.Node] = {}   # a tensor's first node -> the node of its last in-place change
    first: dict[fx.Node, fx.Node] = {}    # any node of a tensor -> that tensor's first node

    def now(a: fx.Node) -> fx.Node:
        return latest.get(first.get(a, a), a)

    changed = False
    for n in list(cap.graph.nodes):
        if latest:
            new_args = fx.node.map_arg(n.args, now)
            new_kwargs = fx.node.map_arg(n.kwargs, now)
            if new_args != n.args or new_kwargs != n.kwargs:
                n.args, n.kwargs = new_args, new_kwargs
                changed = True
        if _returns_self(n):
            base = first.get(n.args[0], n.args[0])   # type: ignore[arg-type]
            first[n] = base
            latest[base] = n
            if n.target is operator.setitem and cap.values.get(n.name) is None:
                written = n.args[0]
                if isinstance(written, fx.Node) and written.name in cap.values:
                    cap.values[n.name] = cap.values[written.name]
    if changed:
        cap.graph.lint()
    return cap


def _named_container(value: Any) -> bool:
    """A namedtuple, a dict subclass (a transformers ModelOutput, an OrderedDict) or a dataclass instance:
    read by field name, so a plain tuple or dict with the same leaves is another value."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return True
    if isinstance(value, dict) and type(value) is not dict:
        return True
    import dataclasses
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _fields_of(value: Any) -> list[str]:
    import dataclasses
    if isinstance(value, tuple):
        return list(getattr(value, "_fields", ()))
    if isinstance(value, dict):
        return [str(k) for k in value]
    return [f.name for f in dataclasses.fields(value)]


def restore_output_type(cap: Capture, expected: Any) -> Capture:
    """The captured graph returns what the module returns: where the module's output is a named container
    (Reformer's AttentionOutput namedtuple, a ModelOutput) and the graph gives the same leaves in a plain
    tuple or dict, the graph builds the container (`AttentionOutput(hidden_states=..., ...)`), so that a
    parent reading `out.hidden_states` still can."""
    out_node = next((n for n in cap.graph.nodes if n.op == "output"), None)
    if out_node is None:
        return cap

    def rebuild(struct: Any, want: Any) -> Any:
        if _named_container(want) and not isinstance(struct, fx.Node) and not _named_container(struct):
            fields = _fields_of(want)
            items: list[Any]
            if isinstance(struct, dict) and set(map(str, struct)) == set(fields):
                items = [struct[k] for k in fields]
            elif isinstance(struct, (tuple, list)) and len(struct) == len(fields):
                items = list(struct)
            else:
                return struct
            if isinstance(want, dict):
                sub = [rebuild(v, want[k]) for v, k in zip(items, fields, strict=True)]
            elif isinstance(want, tuple):
                sub = [rebuild(v, w) for v, w in zip(items, want, strict=True)]
            else:
                sub = [rebuild(v, getattr(want, k)) for v, k in zip(items, fields, strict=True)]
            with cap.graph.inserting_before(out_node):
                node = cap.graph.call_function(type(want), (), dict(zip(fields, sub, strict=True)))
            cap.values[node.name] = type(want)(**{k: _node_value(v, cap) for k, v in zip(fields, sub, strict=True)})
            return node
        if isinstance(struct, (tuple, list)) and isinstance(want, (tuple, list)) and not _named_container(want) \
                and len(struct) == len(want):
            return type(struct)(rebuild(v, w) for v, w in zip(struct, want, strict=True))
        if isinstance(struct, dict) and isinstance(want, dict) and type(want) is dict:
            return {k: rebuild(v, want[k]) if k in want else v for k, v in struct.items()}
        return struct

    try:
        new = rebuild(out_node.args[0], expected)
    except Exception:   # a container that will not build from its fields: the graph stays as it is
        return cap
    if new is not out_node.args[0]:
        out_node.args = (new,)
        cap.graph.lint()
    return cap


def _node_value(v: Any, cap: Capture) -> Any:
    if isinstance(v, fx.Node):
        return cap.values[v.name]
    if isinstance(v, (tuple, list)):
        return type(v)(_node_value(x, cap) for x in v)
    if isinstance(v, dict):
        return {k: _node_value(x, cap) for k, x in v.items()}
    return v


# what a forward may read of a parameter or buffer besides its values: constants of the captured run
_STATE_METADATA = {"dtype", "device", "is_cuda", "is_floating_point", "layout", "requires_grad"}


def fold_state_metadata(cap: Capture) -> Capture:
    """`self.wo.weight.dtype` (T5 casts its input to its weight's dtype): the dtype of a parameter is a
    constant of the captured run, not a use of the parameter; folded into the graph as that constant, so
    that no plumbing of the parent reads the parameter (a parent owns no state). A parameter read only
    that way leaves the graph."""
    graph = cap.graph
    changed = False
    for n in list(graph.nodes):
        if n.op != "get_attr":
            continue
        for user in list(n.users):
            if user.op == "call_function" and user.target is getattr and len(user.args) == 2 and \
                    user.args[1] in _STATE_METADATA and user.name in cap.values:
                value = cap.values[user.name]
                if not isinstance(value, (torch.dtype, torch.device, bool, torch.layout)):
                    continue
                for use in list(user.users):
                    use.args = fx.node.map_arg(use.args, lambda a, u=user, v=value: v if a is u else a)  # type: ignore[misc]
                    use.kwargs = fx.node.map_arg(use.kwargs, lambda a, u=user, v=value: v if a is u else a)  # type: ignore[misc]
                graph.erase_node(user)
                changed = True
        if not n.users:
            graph.erase_node(n)
            changed = True
    if changed:
        graph.lint()
    return cap

def _capture_fx(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                expand: set[str]) -> Capture:
    work = _work_copy(module)  # tracing may leave Proxies on attributes: never trace the live module
    tracer = _LeafTracer(expand)
    try:
        with torch.no_grad(), _restored_attributes(work):
            graph = tracer.trace(work)
    except Exception as exc:  # fx raises many kinds (TraceError, TypeError on Proxy use, ...)
        raise CaptureError(f"trace failed ({_first_line(exc)})") from exc
    gm = _graph_module(work, graph, "the traced graph")
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            out, values = node_values(gm, [clone_nested(a) for a in args], clone_nested(kwargs))
    except Exception as exc:
        raise CaptureError(f"traced graph does not run ({type(exc).__name__}: {exc})") from exc
    if any(isinstance(v, fx.Proxy) for v in _flatten(out)) or not _matches(expected, out):
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


# ---- non-strict torch.export -------------------------------------------------------------------------

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


def _capture_export(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    """Non-strict torch.export with every leaf child's call signature preserved, unflattened and turned
    into the capture's graph; shapes are fixed to the recorded inputs (as for recording)."""
    import warnings

    import torch.utils._pytree as pytree
    work = _work_copy(module)
    leaves = _leaf_children(work, expand)
    cargs, ckw = clone_nested(args), clone_nested(kwargs)
    try:
        with warnings.catch_warnings(), _restored_attributes(work), _quiet_export_logs():
            warnings.simplefilter("ignore")
            ep = torch.export.export(work, tuple(cargs), dict(ckw), strict=False,
                                     preserve_module_call_signature=tuple(leaves))
            with contextlib.redirect_stdout(io.StringIO()):   # torch 2.14.1 prints while it unflattens
                unflat = torch.export.unflatten(ep)
    except CaptureError:
        raise
    except Exception as exc:  # export raises many kinds (UserError, GuardOnDataDependent, AssertionError)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise CaptureError(f"export failed ({type(exc).__name__}: {first[:200]})") from exc
    sig_names = _forward_param_names(work, len(args), kwargs)
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
        raise CaptureError(f"the exported graph cannot be turned into code ({_first_line(exc)})") from exc
    gm = _graph_module(work, graph, "the exported graph")
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
    if not _matches(expected, replay) or \
            pytree.tree_structure(_expected_output(expected)) != pytree.tree_structure(replay):
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
        # plain tensor attributes (`self.hidden = torch.randn(batch_size, h)` in __init__) as they were
        # before the forward: read as get_attr, the child that uses one owns it as a non-persistent buffer
        self.plain: dict[int, str] = {}
        for qual, mod in module.named_modules(remove_duplicate=False):
            for attr, t in vars(mod).items():
                if isinstance(t, torch.Tensor) and not isinstance(t, nn.Parameter) and id(t) not in self.state \
                        and not attr.startswith("_"):
                    self.plain.setdefault(id(t), f"{qual}.{attr}" if qual else attr)

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
                    sub.meta["stack_trace"] = node.meta.get("stack_trace")   # `q, k, v = ...`: named by it
                    self.values[sub.name] = v
                    self._bind(sub, v)
        elif isinstance(value, dict):
            for k in value:
                v = value[k]
                if any(isinstance(t, torch.Tensor) for t in _flatten(v)):
                    sub = self.graph.call_function(operator.getitem, (node, k))
                    sub.meta["stack_trace"] = node.meta.get("stack_trace")
                    self.values[sub.name] = v
                    self._bind(sub, v)

    def arg(self, value: Any) -> Any:
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
        if not any(isinstance(t, torch.Tensor) for t in _flatten(out)) and \
                getattr(func, "__name__", "") not in _COMPUTING_QUERIES:
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


def _capture_record(module: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    expand: set[str]) -> Capture:
    work = _work_copy(module)
    b = _GraphBuilder(work)
    sig_names = _forward_param_names(work, len(args), kwargs)
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
    b.graph.output(b.arg(out))
    # Every element of a tuple result got a getitem node when it was recorded (`x.max(-1)` gives values and
    # indices); the unused ones are dead plumbing an fx trace would not have: an op with a dead extra user
    # would look shared (plan.py's semantic runs require every intermediate to be used inside the run).
    for n in reversed(list(b.graph.nodes)):
        if n.op == "call_function" and n.target is operator.getitem and not n.users:
            b.values.pop(n.name, None)
            b.graph.erase_node(n)
    gm = _graph_module(work, b.graph, "the recorded graph")
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            replay, values = node_values(gm, clone_nested(args), clone_nested(kwargs))
    except Exception as exc:
        raise CaptureError(f"the recorded graph does not run ({type(exc).__name__}: {exc})") from exc
    if not _matches(expected, replay):
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
