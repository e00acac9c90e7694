"""Recording the torch ops a model runs, eagerly, each attributed to the innermost running module.

Two records are taken at once:
  * aten level (TorchDispatchMode): what really executes after Python-level decompositions; in-place,
    out-of-place and `out=` variants fold to one canonical name (`add_`, `add.out` -> `add`), overloads
    are dropped; views, copies, casts, tensor creation and cat/stack/split style data movement are
    *plumbing* (`compute=False`): both as hdecomp.vocab.ops says (`canonical_op_name`, `is_plumbing`).
  * torch-function level (TorchFunctionMode): the public API call (`torch.nn.functional.dropout`,
    `Tensor.relu`), so ops that leave no aten trace in eval mode (dropout) still show up; such calls
    are marked `aten_invisible`.

Attribution: forward pre/post hooks on every module of the model keep a stack of running modules;
each event carries the qualified name of the innermost one ("" = the root model). Modules that are not
registered in the model's tree (a Linear hidden in a plain list or a helper object) are not hooked, so
their ops are attributed to the registered module that called them — which is what the runtime
anti-cheat wants.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from torch import nn
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode

from hdecomp.runtime.host_values import HostValues, on_numbers
from hdecomp.runtime.memoized import clear_memoized
from hdecomp.vocab.ops import canonical_op_name, is_neutral_operand, is_plumbing

Level = Literal["aten", "function"]

# Fused aten ops counted as their parts, so `x @ w.t() + b` (mm, add) and F.linear (addmm) agree:
# both are the same computation, spelled differently by the author or by the dispatcher.
FUSED_PARTS: dict[str, tuple[str, ...]] = {
    "addmm": ("mm", "add"), "baddbmm": ("bmm", "add"), "addmv": ("mv", "add"), "addr": ("outer", "add"),
    "_addmm_activation": ("mm", "add", "relu"),
}


def is_identity_op(name: str, args: tuple[Any, ...]) -> bool:
    """True for an op whose Python-number operand makes it return its tensor unchanged: `0 + x` (the
    `acc = 0; for ...: acc = acc + y` accumulator's first turn), `x + 0`, `x * 1` (hdecomp.vocab.ops.
    NEUTRAL_OPERANDS). It computes nothing, so it is data plumbing (a copy) wherever it runs, in the model or
    in a tree."""
    return len(args) >= 2 and isinstance(args[0], torch.Tensor) and is_neutral_operand(name, args[1])


def _is_inplace(raw: str) -> bool:
    base = raw.split("::")[-1]
    base = base.split(".")[-1] if base.startswith(("torch.", "Tensor.")) else base.split(".")[0]
    if base.startswith("__i") and base.endswith("__"):
        return True
    return base.endswith("_") and not base.endswith("__")


@dataclass
class OpEvent:
    """One recorded op call."""

    name: str  # canonical name (`add`, `convolution`, `dropout`)
    level: Level
    module: str  # qualified name of the innermost running module ("" = the root model)
    module_type: str
    compute: bool
    inplace: bool
    raw: str = ""  # the name as torch reported it (`aten::add_.Tensor`, `torch.nn.functional.dropout`)
    aten_invisible: bool = False  # function-level call that left no aten compute trace (dropout in eval)
    residual: bool = False  # aten add of two tensors: a residual connection, allowed in a parent's forward
    where: tuple[str, int] | None = None  # innermost user source location (recorded for root compute only)
    frames: tuple[tuple[str, int], ...] = ()   # every frame outside torch it was called from (on request)
    host: bool = False   # aten compute on host values alone (runtime.host_values: a constant of the shapes)
    # aten compute whose every tensor in and out is a number (0-dim, integer or bool: `extra > total`, which
    # Python's `max` of two padding amounts runs): arithmetic on numbers, no kernel's work
    number: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "level": self.level, "module": self.module,
                "module_type": self.module_type, "compute": self.compute, "inplace": self.inplace,
                "raw": self.raw, "aten_invisible": self.aten_invisible, "residual": self.residual,
                "where": list(self.where) if self.where else None, "host": self.host, "number": self.number}


@dataclass
class OpTrace:
    """Every op recorded during one forward, in execution order, plus module call counts."""

    events: list[OpEvent] = field(default_factory=list)
    module_calls: Counter[str] = field(default_factory=Counter)  # qualified module name -> forward calls
    # (caller, callee) module names -> calls; caller is the innermost running module ("" = root, None = none)
    call_edges: Counter[tuple[str | None, str]] = field(default_factory=Counter)

    def compute_inventory(self, level: Level = "aten", module: str | None = None,
                          *, invisible_only: bool = False, fold: bool = True) -> Counter[str]:
        """Counter of compute ops (plumbing excluded) at `level`; optionally only those attributed to
        `module` exactly, or (function level) only those invisible at the aten level. `fold`: count fused
        aten ops as their parts (FUSED_PARTS: addmm -> mm + add)."""
        inv: Counter[str] = Counter()
        for e in self.events:
            if e.level != level or not e.compute:
                continue
            if module is not None and e.module != module:
                continue
            if invisible_only and not e.aten_invisible:
                continue
            if fold and level == "aten" and e.name in FUSED_PARTS:
                inv.update(FUSED_PARTS[e.name])
            else:
                inv[e.name] += 1
        return inv

    def under(self, prefix: str) -> list[OpEvent]:
        """Events attributed to module `prefix` or anything below it."""
        return [e for e in self.events
                if prefix == "" or e.module == prefix or e.module.startswith(prefix + ".")]

    def subtree_inventory(self, prefix: str, level: Level = "aten", *, fold: bool = True,
                          invisible_only: bool = False) -> Counter[str]:
        inv: Counter[str] = Counter()
        for e in self.under(prefix):
            if e.level == level and e.compute and (e.aten_invisible or not invisible_only):
                inv.update(FUSED_PARTS.get(e.name, (e.name,)) if fold and level == "aten" else (e.name,))
        return inv

    def to_plain(self) -> dict[str, Any]:
        """Everything of the trace as JSON-able data (for a judge in another process: `from_plain`)."""
        return {"events": [[e.name, e.level, e.module, e.module_type, e.compute, e.inplace, e.raw, e.aten_invisible,
                            e.residual, list(e.where) if e.where else None, [list(f) for f in e.frames], e.host,
                            e.number]
                           for e in self.events],
                "module_calls": [[k, n] for k, n in self.module_calls.items()],
                "call_edges": [[a, b, n] for (a, b), n in self.call_edges.items()]}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> OpTrace:
        events = [OpEvent(name=str(e[0]), level=e[1], module=str(e[2]), module_type=str(e[3]), compute=bool(e[4]),
                          inplace=bool(e[5]), raw=str(e[6]), aten_invisible=bool(e[7]), residual=bool(e[8]),
                          where=(str(e[9][0]), int(e[9][1])) if e[9] else None,
                          frames=tuple((str(f), int(n)) for f, n in e[10]), host=bool(e[11]),
                          number=bool(e[12]) if len(e) > 12 else False)
                  for e in data["events"]]
        return cls(events=events, module_calls=Counter({str(k): int(n) for k, n in data["module_calls"]}),
                   call_edges=Counter({(a, str(b)): int(n) for a, b, n in data["call_edges"]}))

    def to_dict(self) -> dict[str, Any]:
        return {"aten": dict(sorted(self.compute_inventory("aten").items())),
                "function": dict(sorted(self.compute_inventory("function").items())),
                "aten_invisible": dict(sorted(self.compute_inventory("function", invisible_only=True).items())),
                "module_calls": dict(self.module_calls), "events": len(self.events)}


_THIS_FILE = __file__
_TORCH_DIR = torch.__file__.rsplit("/", 1)[0] if "/" in torch.__file__ else ""


def _code_locations() -> tuple[tuple[str, int], ...]:
    """Every Python frame outside torch's own package and hdecomp (a library's helper called by the forward,
    the forward's line that calls it, ...), innermost first."""
    out = []
    frame = sys._getframe(2)
    while frame is not None:
        fn = frame.f_code.co_filename
        if fn != _THIS_FILE and not (_TORCH_DIR and fn.startswith(_TORCH_DIR + "/")) \
                and "/contextlib.py" not in fn and "/hdecomp/" not in fn:
            out.append((fn, frame.f_lineno))
        frame = frame.f_back  # type: ignore[assignment]
    return tuple(out)


def _user_location() -> tuple[str, int] | None:
    """The innermost Python frame outside torch and this module (where a recorded op was called)."""
    frame = sys._getframe(2)
    while frame is not None:
        fn = frame.f_code.co_filename
        if fn != _THIS_FILE and not (_TORCH_DIR and fn.startswith(_TORCH_DIR)) \
                and "/contextlib.py" not in fn and "/hdecomp/" not in fn:
            return fn, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


class _Recorder:
    """Shared state of the two modes and the module hooks."""

    def __init__(self, want_locations: Callable[[str], bool] | None, frames: bool = False) -> None:
        self.trace = OpTrace()
        self.stack: list[tuple[str, str]] = []  # (qualified name, type name)
        self.want_locations = want_locations
        self.frames = frames
        self.aten_compute_count = 0
        self.host = HostValues()

    def current(self) -> tuple[str, str]:
        return self.stack[-1] if self.stack else ("", "")

    def add(self, event: OpEvent) -> None:
        if event.compute and self.want_locations is not None and self.want_locations(event.module):
            event.where = _user_location()
            if self.frames:
                event.frames = _code_locations()
        self.trace.events.append(event)


class _DispatchRecorder(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Otherwise torch wraps __torch_dispatch__ in torch._dynamo.disable, whose first call imports
        # all of torch._dynamo (~8 s here). Nothing is compiled while we record.
        return False

    def __init__(self, rec: _Recorder) -> None:
        super().__init__()
        self.rec = rec

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        raw = str(func._schema.name) + (f".{func._overloadname}" if getattr(func, "_overloadname", "") else "")
        packet = func.overloadpacket.__name__
        name = canonical_op_name(packet)
        compute = not is_plumbing(name) and not is_identity_op(name, args)
        module, mtype = self.rec.current()
        residual = (name == "add" and len(args) >= 2 and isinstance(args[0], torch.Tensor)
                    and isinstance(args[1], torch.Tensor) and kwargs.get("alpha", 1) == 1
                    and args[1].dim() > 0)
        if compute:
            self.rec.aten_compute_count += 1
        event = OpEvent(name=name, level="aten", module=module, module_type=mtype, compute=compute,
                        inplace=_is_inplace(packet), raw=raw, residual=residual)
        self.rec.add(event)
        out = func(*args, **kwargs)
        event.host = self.rec.host.op(func, packet, compute, args, kwargs, out) and compute
        event.number = compute and on_numbers((args, kwargs), out)
        return out


class _FunctionRecorder(TorchFunctionMode):
    def __init__(self, rec: _Recorder) -> None:
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        if isinstance(func, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            # an aten op called as such (by TorchScript's interpreter: a `@torch.jit.script` function): the
            # aten level records it, under its own name
            return func(*args, **kwargs)
        try:
            raw = resolve_name(func) or getattr(func, "__name__", repr(func))
        except Exception:  # resolve_name can fail on exotic callables
            raw = getattr(func, "__name__", repr(func))
        name = canonical_op_name(raw)
        compute = not is_plumbing(name) and not is_identity_op(name, args)
        module, mtype = self.rec.current()
        event = OpEvent(name=name, level="function", module=module, module_type=mtype, compute=compute,
                        inplace=_is_inplace(raw), raw=raw)
        before = self.rec.aten_compute_count
        # Record before running so the order matches execution; fix `aten_invisible` afterwards.
        self.rec.add(event)
        out = func(*args, **kwargs)
        event.aten_invisible = compute and self.rec.aten_compute_count == before
        # (a call on host values alone that leaves no aten compute, `repeat_interleave` of a host mask: HD402
        # judges it by its call)
        event.host = event.aten_invisible and self.rec.host.called_on_host(name, args, kwargs)
        return out


@contextlib.contextmanager
def recording(model: nn.Module, *, locations_for: Callable[[str], bool] | None = None,
              frames: bool = False) -> Iterator[OpTrace]:
    """Record every op run inside the block; events are attributed to `model`'s modules.

    `locations_for(module_name)`: for which modules compute events also record the user source
    location (cheap only when rare: the runtime check asks for the root only); with `frames`, every frame
    outside torch as well.
    Hooks and modes are always removed, also when the body raises. Memoized methods are emptied first
    (hdecomp.runtime.memoized): what the forward computes is recorded, however often it ran before.
    """
    clear_memoized(model)
    rec = _Recorder(locations_for, frames)
    rec.host.numbers_of(model)
    names: dict[int, str] = {}
    for qn, m in model.named_modules(remove_duplicate=True):
        names.setdefault(id(m), qn)
    handles: list[Any] = []

    def pre(mod: nn.Module, _args: Any) -> None:
        qn = names.get(id(mod))
        if qn is not None:
            rec.trace.call_edges[(rec.stack[-1][0] if rec.stack else None, qn)] += 1
            rec.stack.append((qn, type(mod).__name__))
            rec.trace.module_calls[qn] += 1

    def post(mod: nn.Module, _args: Any, _out: Any) -> None:
        if id(mod) in names and rec.stack:
            rec.stack.pop()

    seen: set[int] = set()
    for m in model.modules():
        if id(m) in seen:
            continue
        seen.add(id(m))
        # A module's own hooks run inside its call: its pre-hooks after our push (prepend), its forward hooks
        # before our pop. A child's file registers them in its constructor (the decomposer carries a
        # module's hooks into its file); a parent cannot install one on a child (static HD206).
        handles.append(m.register_forward_pre_hook(pre, prepend=True))
        handles.append(m.register_forward_hook(post, always_call=True))
    try:
        with _FunctionRecorder(rec), _DispatchRecorder(rec):
            yield rec.trace
    finally:
        for h in handles:
            h.remove()


def record_ops(model: nn.Module, args: Any = (), kwargs: dict[str, Any] | None = None, *,
               locations_for: Callable[[str], bool] | None = None,
               call: Callable[[], Any] | None = None, frames: bool = False) -> tuple[Any, OpTrace]:
    """Run `model(*args, **kwargs)` (or `call()`) under no_grad and record its ops.

    Returns (output, OpTrace). The caller puts the model in eval mode and on the device it wants.
    """
    kwargs = kwargs or {}
    with torch.no_grad(), recording(model, locations_for=locations_for, frames=frames) as trace:
        out = call() if call is not None else model(*args, **kwargs)
    return out, trace


def meta_inputs(obj: Any) -> Any:
    """Meta-device copies of the tensors nested in `obj` (shapes and dtypes only, no memory)."""
    if isinstance(obj, torch.Tensor):
        return torch.empty_like(obj, device="meta")
    if isinstance(obj, (list, tuple)):
        return type(obj)(meta_inputs(o) for o in obj)
    if isinstance(obj, dict):
        return {k: meta_inputs(v) for k, v in obj.items()}
    return obj


def record_ops_meta(model: nn.Module, args: Any = (), kwargs: dict[str, Any] | None = None) -> tuple[Any, OpTrace]:
    """Record the op inventory without real data: the model moves to the meta device (a copy is not
    made: the caller's model is changed, so pass a model built for this), inputs become meta tensors.

    Data-dependent control flow (`.item()`, boolean masks) cannot run on meta tensors and raises;
    fall back to `record_ops` with a small batch then.
    """
    model = model.to("meta")
    return record_ops(model, meta_inputs(list(args)), meta_inputs(kwargs or {}))


def format_counter_diff(original: Counter[str], refactored: Counter[str]) -> list[str]:
    """Human lines for the differences: `original runs relu×2, refactored relu×1`."""
    lines = []
    for op in sorted(set(original) | set(refactored)):
        a, b = original.get(op, 0), refactored.get(op, 0)
        if a != b:
            lines.append(f"original runs {op}×{a}, refactored {op}×{b}")
    return lines


__all__ = [
    "FUSED_PARTS",
    "OpEvent",
    "OpTrace",
    "format_counter_diff",
    "meta_inputs",
    "record_ops",
    "record_ops_meta",
    "recording",
]
