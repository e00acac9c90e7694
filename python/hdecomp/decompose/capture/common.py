"""What every capture method shares: the `Capture` (a graph of direct child calls and ops, with each
node's value), the reference run it is checked against, the deep work copy a capture runs on, and the
post-processing of a captured graph (in-place ops threaded, the output type restored, tensor metadata
folded)."""

from __future__ import annotations

import builtins
import contextlib
import copy
import dataclasses
import enum
import functools
import inspect
import math
import operator
import re
import types
from collections import Counter, UserDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.fx as fx
from torch import nn

from hdecomp.errors import DecomposeError
from hdecomp.runtime.component import (
    clone_nested,
    compared_state,
    dataclass_fields,
    plain_attributes,
    restore_plain_attributes,
    user_dict_holding,
)
from hdecomp.verify.compare import container_mismatch
from hdecomp.vocab.ops import SHAPE_METHODS
from hdecomp.vocab.roles import STRUCTURE_KINDS, category


@dataclass
class Capture:
    """One component's forward as a graph over its direct children, with the value of every node."""

    graph: fx.Graph
    values: dict[str, Any]              # node name -> value from the real run
    method: str                         # "fx" | "export" | "record"
    notes: list[str] = field(default_factory=list)
    child_calls: dict[str, int] = field(default_factory=dict)   # module target -> number of calls
    # submodules the capture had to trace through beyond those it was asked to (capture_record: a tensor a
    # child computed reaches the forward by a side channel, not as its output)
    expanded: set[str] = field(default_factory=set)


# Every run that a capture is compared with starts from this RNG state (forwards that draw random numbers).
CAPTURE_SEED = 1234


class CaptureError(DecomposeError):
    """The component's forward could not be captured as a graph (the message says why)."""


_COPY_LIMIT_BYTES = 256 * 2**20


def work_copy(module: nn.Module) -> nn.Module:
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
def restored_attributes(module: nn.Module) -> Iterator[None]:
    """Put every module's plain attributes and buffer table back afterwards (a trace may assign Proxies)."""
    saved = [(m, dict(m.__dict__), dict(m._buffers)) for m in module.modules()]
    try:
        yield
    finally:
        for m, d, bufs in saved:
            m.__dict__.update(d)  # attributes the trace added (fx's _tensor_constant*) stay for the check
            m._buffers.clear()
            m._buffers.update(bufs)


def flat_values(obj: Any) -> list[Any]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in flat_values(o)]
    if isinstance(obj, (dict, UserDict)):   # (a UserDict of tensors: Gemma 3n's KVSharingDict of shared keys/values)
        return [t for k in obj for t in flat_values(obj[k])]
    fields = dataclass_fields(obj)
    if fields is not None and not is_constant_object(obj):   # an output dataclass holding tensors
        return [t for v in fields.values() for t in flat_values(v)]
    return [obj]


def same_outputs(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Nested outputs equal leaf by leaf (NaN == NaN, same shape and dtype), in containers of the kinds the
    verifier takes for the same (a ModelOutput is no plain dict: verify.compare.container_mismatch)."""
    fa, fb = flat_values(a), flat_values(b)
    if len(fa) != len(fb) or container_mismatch(a, b) is not None:
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
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            # (a numpy array a forward made: equal in shape, dtype and values, NaN == NaN)
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape and
                    x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")):
                return False
        elif x != y and not (isinstance(x, float) and x != x and y != y):
            # (an object that compares by identity: the same value when of one class with equal attributes,
            # tensors leaf by leaf, nested objects alike (a decoder's cache handed back: compared_state);
            # a class by name, as a generated file carries its own copy of a model file's class)
            if isinstance(x, type) and isinstance(y, type):
                if x.__qualname__ != y.__qualname__:
                    return False
                continue
            sx, sy = compared_state(x), compared_state(y)
            if sx is None or sy is None or type(x).__qualname__ != type(y).__qualname__ or \
                    not same_outputs(sx, sy, rtol, atol):
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
    # calls of each submodule (qualified name) in the run
    module_calls: dict[str, int] = field(default_factory=dict)
    # the run wrote the module's own parameters or buffers in place (hdecomp.runtime.settle): the module was
    # left as that run left it, and this reference is of its first forward, not of the ones after
    settled: bool = False
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
    from hdecomp.runtime.settle import state_versions, wrote_state
    torch.manual_seed(CAPTURE_SEED)
    built = plain_attributes(module)
    versions = state_versions(module)
    out, trace = record_ops(module, clone_nested(args), clone_nested(kwargs))
    # (a forward that wrote its own weights is kept as it left them: the caller settles it, runtime/settle.py)
    settled = wrote_state(module, versions)
    if not settled:
        restore_plain_attributes(module, built)
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
    module_calls: dict[str, int] = {}
    for (_, callee), n in trace.call_edges.items():
        module_calls[callee] = module_calls.get(callee, 0) + n
    return Reference(output=out, inventory=trace.compute_inventory("aten"), total=total, per_module=per,
                     contraction_ops=contraction_ops, materializes=materializes, module_calls=module_calls,
                     settled=settled, _rerun=plain)


# Tensor methods that hand a tensor's value to Python (which may then branch on it)
_MATERIALIZE = {"__bool__", "item", "tolist", "__int__", "__float__", "__index__", "__len__", "numpy"}


def output_matches(expected: Any, out: Any) -> bool:
    return expected.matches(out) if isinstance(expected, Reference) else same_outputs(expected, out)


def expected_output(expected: Any) -> Any:
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


# Python int arithmetic: plumbing when every operand is a shape query (`x.size(0) * x.size(1)`).
INT_FUNCTIONS: set[Any] = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv,
                           operator.mod, operator.neg, operator.pow, operator.getitem, builtins.int,
                           builtins.len, builtins.max, builtins.min,
                           # comparisons of sizes (`H % window == 0`): Python bools
                           operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
                           operator.not_, operator.and_, operator.or_, builtins.bool, builtins.float,
                           # rounding of sizes (`nblocks = math.ceil(seq_len / window)`, Granite Speech)
                           math.ceil, math.floor, math.trunc, math.gcd, builtins.round, builtins.abs}


def is_shape_int(n: fx.Node) -> bool:
    """A shape query (`x.size(0)`, `x.shape`, `x.dim()`), or int arithmetic on shape queries only: a
    Python int of the forward, which is data plumbing (never a kernel of its own)."""
    if n.op == "call_method":
        return str(n.target) in SHAPE_METHODS
    if n.op != "call_function":
        return False
    if n.target is builtins.getattr:
        return len(n.args) > 1 and n.args[1] in ("shape", "ndim")
    if n.target in INT_FUNCTIONS:
        ins = n.all_input_nodes
        return bool(ins) and all(is_shape_int(a) for a in ins)
    if n.target is torch._assert:   # `torch._assert(H % window == 0, msg)`: a check of sizes, not compute
        return all(is_shape_int(a) for a in n.all_input_nodes)
    return False


_NOT_OBJECTS = (bool, int, float, complex, str, bytes, torch.Tensor, nn.Module, torch.dtype, torch.device,
                torch.memory_format, torch.layout, slice, range, type, tuple, list, dict, set, frozenset, fx.Node,
                fx.Proxy, enum.Enum)
_FUNCTIONS = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType,
              functools.partial)


def is_constant_object(value: Any, callables: bool = False) -> bool:
    """A plain Python object of a user or package class (a settings object, a dataclass instance) that
    holds no tensors: what a forward builds from constants and hands a child (`self.block(x, Settings(2.0))`).
    Not a number, string, container, tensor, module, enum, function or torch value. `callables`: an instance
    of a class with `__call__` counts too (diffusers' attention processors)."""
    if value is None or value is Ellipsis or isinstance(value, _NOT_OBJECTS):
        return False
    if callable(value) and (not callables or isinstance(value, _FUNCTIONS)):
        return False
    module = getattr(type(value), "__module__", "") or ""
    if module == "builtins" or module == "torch" or module.startswith("torch."):
        return False
    state = getattr(value, "__dict__", None)
    if not isinstance(state, dict):   # __slots__ or a C type: nothing to rebuild it from
        return False
    return not any(isinstance(t, (torch.Tensor, nn.Module, fx.Proxy, fx.Node)) for t in _leaves(list(state.values())))


def _leaves(value: Any, depth: int = 0) -> list[Any]:
    if depth > 8:
        return []
    if isinstance(value, (list, tuple, set, frozenset)):
        return [x for v in value for x in _leaves(v, depth + 1)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v, depth + 1)]
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and not isinstance(value, (torch.Tensor, nn.Module, type, fx.Proxy, fx.Node)):
        return _leaves(list(state.values()), depth + 1)
    return [value]


def _from_sizes(a: fx.Node, cap: Capture) -> bool:
    """`a` is a tensor's dtype or device, or a size int (is_shape_int) that reads no leading, batch size
    (`x.shape[-1] // 2`): the same for every input of the recorded sizes."""
    if a.op == "call_function" and a.target is getattr and len(a.args) > 1 and a.args[1] in ("dtype", "device"):
        return True
    return is_shape_int(a) and not _reads_batch(a, cap)


def _reads_batch(a: fx.Node, cap: Capture) -> bool:
    """Whether size int `a` depends on a leading size: `x.size(0)`, `x.shape[0]`, or a whole `x.shape`,
    `x.size()` or `x.numel()`."""
    if a.op == "call_method":
        if a.target == "size":
            return len(a.args) < 2 or bool(a.args[1] in (0, -_len_of(cap, a)))
        return a.target not in ("dim", "ndimension")   # numel, nelement: every size
    if a.target is operator.getitem and isinstance(a.args[0], fx.Node) and a.args[0].target is getattr and \
            a.args[0].args[1] == "shape":
        return bool(a.args[1] in (0, -_len_of(cap, a.args[0])))
    if a.target is getattr:
        return bool(a.args[1] == "shape")   # the whole shape (`ndim` reads no size)
    return any(_reads_batch(b, cap) for b in a.all_input_nodes)


def _len_of(cap: Capture, n: fx.Node) -> int:
    """The number of dimensions of the tensor whose size `n` reads (its shape node or its .size() call)."""
    t = cap.values.get(n.args[0].name) if n.args and isinstance(n.args[0], fx.Node) else None
    return t.dim() if isinstance(t, torch.Tensor) else 0


class HeldObject:
    """The target of a graph node that returns a constant object (`is_constant_object`) the forward built
    and passed to a child: the graph prints as code (fx binds the target as a global), and the child that
    takes the object builds it in its own file (step_writer.py); the parent never writes it."""

    __module__ = __name__

    def __init__(self, value: Any) -> None:
        self.value = value
        # the node (and the local that builds it) is named like the class: `mixing = Mixing(width=16)`
        self.__name__ = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(value).__name__).lower() or "settings"

    def __call__(self) -> Any:   # a fresh one each run, as the forward builds it each call
        return copy.deepcopy(self.value)

    def __deepcopy__(self, memo: dict[int, Any]) -> HeldObject:
        return HeldObject(copy.deepcopy(self.value, memo))


def is_held_object(n: Any) -> bool:
    return isinstance(n, fx.Node) and n.op == "call_function" and isinstance(n.target, HeldObject)


def held_value(n: fx.Node) -> Any:
    """The object a HeldObject node returns."""
    assert isinstance(n.target, HeldObject)
    return n.target.value


def normalise_constants(graph: fx.Graph) -> None:
    """Rewrite node arguments that fx cannot print as code: Python types used as dtypes, and constant
    objects (one HeldObject node each, before its first use)."""
    held: dict[int, fx.Node] = {}

    def printable(n: fx.Node) -> Any:
        def one(value: Any) -> Any:
            if not is_constant_object(value):
                return _printable_constant(value)
            if id(value) not in held:
                with graph.inserting_before(n):
                    held[id(value)] = graph.call_function(HeldObject(value))
            return held[id(value)]
        return one

    for n in list(graph.nodes):
        if n.op in ("call_function", "call_method", "call_module", "output"):
            fix = printable(n)
            n.args = fx.node.map_aggregate(n.args, fix)
            n.kwargs = fx.node.map_aggregate(n.kwargs, fix)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def graph_module(work: nn.Module, graph: fx.Graph, what: str) -> fx.GraphModule:
    """The captured `graph` (`what`: "the traced graph", ...) checked, with printable constants, as a
    GraphModule over `work`; any failure (a call fx cannot express as Python code) is a CaptureError."""
    objects = _plain_objects_read(work, graph)
    try:
        graph.lint()
        normalise_constants(graph)
        # (fx copies a tensor read through a plain object, `mapping.table`, as it copies a module's plain
        # tensor attribute, and asks its holder which buffers are non-persistent: a plain object says none)
        for obj in objects:
            vars(obj)["_non_persistent_buffers_set"] = set()
        return fx.GraphModule(work, graph)
    except CaptureError:
        raise
    except Exception as exc:
        raise CaptureError(f"{what} cannot be turned into code ({first_line(exc)})") from exc
    finally:
        for obj in objects:
            vars(obj).pop("_non_persistent_buffers_set", None)


def object_tensors(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """(qualified name, tensor) of the tensors held by a plain object (not a module) that a module holds,
    named through it: Chameleon's vocabulary mapping, whose cached property builds the table that maps image
    codes to tokens (`mapping.table`). Not state: the object computes them itself (lazily, from its own
    arguments), so a child holds their values (`held_by_object`)."""
    out = []
    for qual, mod in model.named_modules(remove_duplicate=False):
        for attr, value in vars(mod).items():
            if attr.startswith("_") or not _plain_object(value):
                continue
            name = f"{qual}.{attr}" if qual else attr
            out += [(f"{name}.{a}", v) for a, v in vars(value).items()
                    if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter) and a.isidentifier()]
    return out


def held_by_object(root: nn.Module, target: str) -> bool:
    """Whether the qualified name `target` reaches its tensor through a plain object (`object_tensors`)."""
    return any(not isinstance(h, nn.Module) for h in _holders(root, target))


def _holders(root: nn.Module, target: str) -> list[Any]:
    """The objects the qualified name `target` passes through below `root`, its tensor's holder last (up to
    the first that is missing)."""
    out: list[Any] = []
    holder: Any = root
    for item in target.split(".")[:-1]:
        holder = getattr(holder, item, None)
        if holder is None:
            break
        out.append(holder)
    return out


def _plain_object(value: Any) -> bool:
    """An instance of a user's class holding attributes of its own: not a module, a tensor, a class, a function
    or one of Python's or torch's own objects."""
    return (hasattr(value, "__dict__") and not isinstance(value, (nn.Module, torch.Tensor, type, types.FunctionType,
                                                                  types.MethodType, types.ModuleType, functools.partial))
            and not type(value).__module__.startswith(("builtins", "torch", "typing", "collections")))


def _plain_objects_read(work: nn.Module, graph: fx.Graph) -> list[Any]:
    """The plain objects (not modules) that the graph's get_attr targets pass through last: `mapping` of
    `mapping.table` (object_tensors names a plain object's tensors so)."""
    out: list[Any] = []
    for node in graph.nodes:
        holders = _holders(work, str(node.target)) if node.op == "get_attr" else []
        holder = holders[-1] if holders and len(holders) == str(node.target).count(".") else None
        if holder is not None and not isinstance(holder, nn.Module) and hasattr(holder, "__dict__") \
                and not any(holder is o for o in out):
            out.append(holder)
    return out


# the key of a call_module node's arguments as it was called, in node_values (asked for in `keep`)
CALL_INPUTS = "::call"


class _ValueRecorder(fx.Interpreter):
    def __init__(self, gm: fx.GraphModule, keep: set[str] | None = None) -> None:
        super().__init__(gm)   # (fx frees each value after its last use: `keep` holds the peak to one forward's)
        self.values: dict[str, Any] = {}
        self.keep = keep

    def fetch_args_kwargs_from_env(self, n: fx.Node) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # lists and dicts as the generated code builds them: fresh and mutable (torchvision's LastLevelMaxPool
        # appends to the lists it is handed; fx's own containers are immutable)
        args, kwargs = super().fetch_args_kwargs_from_env(n)
        if n.op != "call_module":
            return args, kwargs
        return tuple(_mutable(a) for a in args), {k: _mutable(v) for k, v in kwargs.items()}

    def run_node(self, n: fx.Node) -> Any:
        if n.op == "call_module" and self.keep is not None and n.name + CALL_INPUTS in self.keep:
            # what the submodule is handed as it is called: a list an earlier child wrote in place (Wan's feature
            # cache and its index) holds by then what the placeholder's value, taken before, does not
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            self.values[n.name + CALL_INPUTS] = (frozen_view(list(args)),
                                                 {k: frozen_view(v) for k, v in kwargs.items()})
            with self._set_current_node(n):
                out = self.call_module(n.target, args, kwargs)
            if n.name in self.keep:
                self.values[n.name] = frozen_view(out)
            return out
        out = super().run_node(n)
        if out is None and n.target is operator.setitem and isinstance(n.args[0], fx.Node):
            out = self.env[n.args[0]]   # `x[i] = v` stands for the written x afterwards (thread_inplace)
        if self.keep is None or n.name in self.keep:
            self.values[n.name] = frozen_view(out)
        return out


def _mutable(value: Any) -> Any:
    from torch.fx.immutable_collections import immutable_dict, immutable_list
    if isinstance(value, immutable_list):
        return [_mutable(v) for v in value]
    if isinstance(value, immutable_dict):
        return {k: _mutable(v) for k, v in value.items()}
    if type(value) is tuple:
        return tuple(_mutable(v) for v in value)
    return value


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
    if type(value) is dict:   # (and the entries of a dict as they are now: a later layer writes into it)
        return {k: frozen_view(v) for k, v in value.items()}
    if isinstance(value, UserDict):   # (Gemma 3n's KVSharingDict, which the layer after writes into)
        return user_dict_holding(value, {k: frozen_view(v) for k, v in value.data.items()})
    return value


def node_values(gm: fx.GraphModule, args: list[Any], kwargs: dict[str, Any],
                keep: set[str] | None = None) -> tuple[Any, dict[str, Any]]:
    """Run the graph, keeping every node's value (only those named in `keep`, when given); kwargs are bound
    to placeholders by name."""
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
    rec = _ValueRecorder(gm, keep)
    out = rec.run(*flat)
    return out, rec.values


def finish_capture(cap: Capture, want: Any) -> Capture:
    return restore_output_type(thread_inplace(hold_built_objects(fold_state_metadata(cap))), want)


def hold_built_objects(cap: Capture) -> Capture:
    """A constant object the forward builds from sizes and literals (`Mixing(width=x.shape[-1])`: fx
    records a dataclass's construction as a call) becomes a HeldObject of its recorded value, as one built
    from literals is: the children that take it build it (the sizes are the recorded ones, as everywhere
    in the children's files), and what only computed its arguments goes."""
    graph = cap.graph
    for n in list(graph.nodes):
        value = cap.values.get(n.name)
        if n.op != "call_function" or not isinstance(n.target, type) or issubclass(n.target, tuple) or \
                not is_constant_object(value) or not all(_from_sizes(a, cap) for a in n.all_input_nodes):
            continue
        with graph.inserting_before(n):
            held = graph.call_function(HeldObject(value))
        cap.values[held.name] = value
        inputs = n.all_input_nodes
        n.replace_all_uses_with(held)
        graph.erase_node(n)
        while inputs:   # the size reads that only fed it
            a = inputs.pop()
            if not a.users and a.op in ("call_function", "call_method") and a in graph.nodes:
                inputs += a.all_input_nodes
                graph.erase_node(a)
    return cap


# augmented assignments, by operator (the spelling `acc += x` writes; Python's `__iadd__`): in place on a
# tensor (`acc += x` is `acc.add_(x)`), a new value for a number
AUGMENTED_OPERATORS = {operator.iadd: "+", operator.isub: "-", operator.imul: "*", operator.itruediv: "/",
                       operator.ifloordiv: "//", operator.imod: "%", operator.ipow: "**", operator.imatmul: "@",
                       operator.iand: "&", operator.ior: "|", operator.ixor: "^"}


def _returns_self(n: fx.Node, values: dict[str, Any] | None = None) -> bool:
    """An in-place op that returns the tensor it changed (`x.unsqueeze_(1)`, `x.add_(y)`, `torch.relu_(x)`,
    `x += y` on a tensor), or an index assignment (`x[i] = v`: its node stands for the written `x`
    afterwards)."""
    if n.op == "call_function" and n.target is operator.setitem:
        return bool(n.args) and isinstance(n.args[0], fx.Node)
    if n.op == "call_function" and n.target in AUGMENTED_OPERATORS:
        return bool(n.args) and isinstance(n.args[0], fx.Node) and \
            isinstance((values or {}).get(n.args[0].name), torch.Tensor)
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
        if _returns_self(n, cap.values):
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
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _fields_of(value: Any) -> list[str]:
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


def forward_param_names(module: nn.Module, n: int, kwargs: dict[str, Any]) -> list[str]:
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
