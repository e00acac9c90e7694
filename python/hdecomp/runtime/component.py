"""Loading one component file in isolation -> Component.

A component file follows the KernelBench convention: `class Model(nn.Module)` (a refactored parent:
`class RefactoredModel`), `get_inputs()`, `get_init_inputs()`, optionally `get_input_kwargs()`.
Each load gets a unique module name, sees its own folder and its `children/` folder on sys.path only
while it is being imported, and leaves no trace in sys.path or sys.modules afterwards, so two files
both named `conv.py` (or both defining `Model`) never collide.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.util
import itertools
import re
import signal
import sys
import sysconfig
import threading
import traceback
import weakref
from collections import UserDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType, TracebackType
from typing import Any

import torch
from torch import nn

from hdecomp.errors import ComponentLoadError, ComponentRunError, ComponentTimeout
from hdecomp.runtime.forkserver import NOT_LOWERED_TAG
from hdecomp.runtime.settings import RunSettings

_counter = itertools.count()
# A file's own word that `--batch-limit` keeps its batch (`batch_size = 2  # hdecomp: not lowered (why)`): what
# the decomposer writes on its copy of a model whose batch cannot be lowered; a user may write it too.
_NOT_LOWERED_LINE = re.compile(r"^batch_size[ \t]*=[ \t]*[0-9]+[ \t]*#[^\n]*" + re.escape(NOT_LOWERED_TAG),
                               re.MULTILINE)
_OWN_PACKAGES = ("hdecomp", "_hdecomp_component_")
_import_lock = threading.RLock()

_LIBRARY_ROOTS = tuple(
    {str(Path(p).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")
     if (p := sysconfig.get_paths().get(key))}
    | {str(Path(sys.prefix).resolve()), str(Path(sys.base_prefix).resolve())}
)


def _is_user_module(mod: ModuleType) -> bool:
    """True for modules loaded from user code (not the standard library or installed packages)."""
    files: list[str] = []
    f = getattr(mod, "__file__", None)
    if f:
        files.append(f)
    else:
        files.extend(list(getattr(mod, "__path__", []) or []))
    if not files:
        return False
    for fp in files:
        try:
            rp = str(Path(fp).resolve())
        except OSError:
            continue
        if not rp.startswith(_LIBRARY_ROOTS):
            return True
    return False


# class -> the file that defined it. Loaded modules leave sys.modules (no leaks), which blinds
# inspect.getfile(cls); the anti-cheat still needs to know where a child class came from.
_CLASS_FILES: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()


def _remember_classes(mod: ModuleType) -> None:
    f = getattr(mod, "__file__", None)
    if not f:
        return
    try:
        resolved = str(Path(f).resolve())
    except OSError:
        return
    for obj in list(vars(mod).values()):
        if isinstance(obj, type) and getattr(obj, "__module__", None) == mod.__name__:
            try:
                _CLASS_FILES[obj] = resolved
            except TypeError:  # pragma: no cover - classes are weak-referenceable
                pass


def class_source_file(cls: type) -> Path | None:
    """The file that defined `cls`, also for classes of components loaded (and unloaded) by us. A class
    torch.nn.utils.parametrize made for a parametrized module (weight_norm) counts as the class it
    derives from."""
    if getattr(cls, "__module__", "") == "torch.nn.utils.parametrize" and cls.__name__.startswith("Parametrized") \
            and cls.__bases__:
        cls = cls.__bases__[0]
    f = _CLASS_FILES.get(cls)
    if f:
        return Path(f)
    mod = sys.modules.get(getattr(cls, "__module__", "") or "")
    mf = getattr(mod, "__file__", None)
    if mf:
        return Path(mf).resolve()
    for attr in vars(cls).values():  # a method's code object remembers its file
        code = getattr(getattr(attr, "__func__", attr), "__code__", None)
        if code is not None and not code.co_filename.startswith("<"):
            return Path(code.co_filename).resolve()
    return None


def user_frame(tb: TracebackType | None, roots: list[Path]) -> tuple[str, int] | None:
    """The innermost traceback frame inside one of `roots` (the component's folders)."""
    found = None
    resolved = [str(r.resolve()) for r in roots]
    for frame, lineno in traceback.walk_tb(tb):
        fn = frame.f_code.co_filename
        try:
            rfn = str(Path(fn).resolve())
        except OSError:
            continue
        if any(rfn.startswith(r) for r in resolved):
            found = (display_path(fn), lineno)
    return found


def display_path(fn: str | Path) -> str:
    """`fn` relative to the working directory when it lies below it (shorter error lines), else as is."""
    try:
        return str(Path(fn).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(fn)


# The weights of the model a decomposition splits and of the one its coverage counts: one seed, so that a
# count that follows the weights (the experts a router picks, each a loop turn) is the same in both.
BUILD_SEED = 0


def _whole(run: RunSettings, device: Any, timeout: float | None, batch_limit: int | None,
           ) -> tuple[Any, float | None, int | None]:
    """The device, time limit and batch limit of `run`, where none of the three is also passed one by one."""
    if device is not None or timeout is not None or batch_limit is not None:
        raise TypeError("pass the run settings whole (run=) or one by one, not both")
    return run.device, run.timeout, run.batch_limit


@dataclass
class Component:
    """A loaded component file: its module, model class and input factories."""

    path: Path
    module: ModuleType
    class_name: str
    model_class: type[nn.Module]
    get_inputs: Callable[[], Any]
    get_init_inputs: Callable[[], Any]
    get_input_kwargs: Callable[[], Any] | None = None
    # (module batch_size, lowered to) of the last make_inputs call that lowered it; see make_inputs
    last_batch_override: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    # user modules the file imported (its children/ files): their `batch_size` is lowered with the file's
    imported: list[ModuleType] = field(default_factory=list, repr=False, compare=False)
    # limit -> why `--batch-limit limit` keeps the file's own `batch_size` (None: it is lowered); batch_size_kept
    _kept: dict[int, str | None] = field(default_factory=dict, repr=False, compare=False)

    @property
    def folders(self) -> list[Path]:
        return [self.path.parent]

    def build(self, device: str | torch.device | None = None, timeout: float | None = None,
              batch_limit: int | None = None, checked: bool = True, seed: int | None = None, *,
              run: RunSettings | None = None) -> nn.Module:
        """Instantiate the model from get_init_inputs() (eval mode, on `device`); with `seed`, its weights drawn
        from that torch seed (the caller's random state left as it was). `run`: the device, time limit and
        batch limit taken whole from a command's settings (hdecomp.runtime.settings), in place of the three.

        With `batch_limit`, the module-level int `batch_size` is lowered while get_init_inputs() and the
        constructor run, exactly as in make_inputs: a model that sizes state by the batch in `__init__`
        (an RNN's `self.h0 = torch.randn(num_layers, batch_size, hidden)`) matches the lowered inputs.
        `checked=False` lowers it even where the file does not work lowered (batch_size_kept): the
        decomposer's own probe at a second batch, never the user's limit.
        """
        if run is not None:
            device, timeout, batch_limit = _whole(run, device, timeout, batch_limit)
        with self._batch_size_lowered(batch_limit, record=False, checked=checked), \
                torch.random.fork_rng(devices=[], enabled=seed is not None):
            if seed is not None:
                torch.manual_seed(seed)
            init = self.init_inputs(timeout)
            model = self._call(f"{self.class_name}(*get_init_inputs())",
                               lambda: self.model_class(*init), timeout)
        if not isinstance(model, nn.Module):
            raise ComponentLoadError(f"{self.class_name} is not an nn.Module", self.path)
        if device is not None:
            model = model.to(device)
        model.eval()   # (not `return model.eval()`: a train() override may return None, timm's EfficientFormer)
        return model

    def batch_size_kept(self, limit: int | None, timeout: float | None = None) -> str | None:
        """Why `--batch-limit limit` keeps this file's module-level int `batch_size` as written (one line), None
        when it lowers it (or there is nothing to lower). Lowering is checked, as a cut is: it is taken only
        when the file works at the lower batch, so that the option never breaks a valid file. The file's
        get_inputs() must run with it lowered (a file writing one padded sample, `mask[1, -5:] = 0`, does
        not), and its model, built with it lowered, must run on those inputs (a timestep tensor written for
        two samples does not): on the meta device first, with a real forward only where the meta one cannot
        tell. A file whose `batch_size` line says `# hdecomp: not lowered` is kept as it says. A kept
        batch goes through the cut rule instead (hdecomp.runtime.batch_limit.cut_for). Memoised per limit."""
        value = getattr(self.module, "batch_size", None)
        if limit is None or not isinstance(value, int) or isinstance(value, bool) or value <= limit:
            return None
        if limit not in self._kept:
            # (on the CPU whatever device the caller builds on: verify-step builds on the meta device)
            with torch.device("cpu"):
                self._kept[limit] = self._lowering_refused(limit, timeout)
        return self._kept[limit]

    def _lowering_refused(self, limit: int, timeout: float | None) -> str | None:
        try:
            source = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            source = ""
        if _NOT_LOWERED_LINE.search(source):
            return f"its `batch_size` line says '{NOT_LOWERED_TAG}'"
        at = f"at batch_size={limit}"
        try:
            with self._batch_size_lowered(limit, record=False, checked=False):
                args = self._call("get_inputs", self.get_inputs, timeout)
                kw = (self._call("get_input_kwargs", self.get_input_kwargs, timeout)
                      if self.get_input_kwargs is not None else None)
        except ComponentTimeout:
            raise
        except ComponentRunError as exc:
            return f"{at}, {exc.cause}"
        args = list(args) if isinstance(args, (list, tuple)) else ([] if args is None else [args])
        kwargs = dict(kw) if isinstance(kw, dict) else {}
        try:   # shapes only: a meta build and forward cost no memory and no compute
            with torch.device("meta"):
                meta = self._build_unchecked(limit, timeout)
            with torch.no_grad():
                self._call(f"{self.class_name}.forward on meta tensors",
                           lambda: meta(*move_to(args, "meta"), **move_to(kwargs, "meta")), timeout)
            return None
        except (ComponentRunError, ComponentLoadError):
            pass   # no meta support (a data-dependent op, a constructor that reads values): a real forward decides
        try:
            model = self._build_unchecked(limit, timeout)
            with torch.no_grad():
                self._call(f"{self.class_name}.forward", lambda: model(*clone_nested(args), **clone_nested(kwargs)),
                           timeout)
        except ComponentTimeout:
            raise
        except (ComponentRunError, ComponentLoadError) as exc:
            if exc.__cause__ is not None and is_oom(exc.__cause__):
                raise
            return f"{at}, {exc.cause}"
        return None

    def _build_unchecked(self, limit: int, timeout: float | None) -> nn.Module:
        with self._batch_size_lowered(limit, record=False, checked=False):
            init = self.init_inputs(timeout)
            model = self._call(f"{self.class_name}(*get_init_inputs())", lambda: self.model_class(*init), timeout)
        if not isinstance(model, nn.Module):
            raise ComponentLoadError(f"{self.class_name} is not an nn.Module", self.path)
        return model.eval()

    def init_inputs(self, timeout: float | None = None, batch_limit: int | None = None) -> list[Any]:
        """get_init_inputs() as a list (`batch_limit`: with `batch_size` lowered, as in `build`)."""
        with self._batch_size_lowered(batch_limit, record=False):
            init = self._call("get_init_inputs", self.get_init_inputs, timeout)
        if init is None:
            return []
        return list(init) if isinstance(init, (list, tuple)) else [init]

    def make_inputs(self, seed: int | None = None, device: str | torch.device | None = None,
                    timeout: float | None = None, batch_limit: int | None = None, checked: bool = True, *,
                    run: RunSettings | None = None) -> tuple[list[Any], dict[str, Any]]:
        """Positional and keyword inputs from get_inputs() / get_input_kwargs() under `seed` (`run`: as in build).

        With `batch_limit`, a module-level int `batch_size` (the KernelBench convention) larger than the
        limit is lowered to it while the factories run, so a GPU-sized batch is never built only to be
        cut afterwards; it is restored even when a factory raises. `last_batch_override` records the
        (from, to) pair of the last call that did so (None otherwise). Callers still cut the leading
        dimension for files without `batch_size`.
        """
        if run is not None:
            device, timeout, batch_limit = _whole(run, device, timeout, batch_limit)
        self.last_batch_override = None
        if seed is not None:
            seed_everything(seed)
        with self._batch_size_lowered(batch_limit, checked=checked):
            args = self._call("get_inputs", self.get_inputs, timeout)
            kw = (self._call("get_input_kwargs", self.get_input_kwargs, timeout)
                  if self.get_input_kwargs is not None else None)
        if args is None:
            args = []
        if not isinstance(args, (list, tuple)):
            args = [args]
        kwargs: dict[str, Any] = {}
        if self.get_input_kwargs is not None:
            if kw is not None and not isinstance(kw, dict):
                raise ComponentLoadError(f"get_input_kwargs() returned {type(kw).__name__}, not a dict",
                                         self.path)
            kwargs = dict(kw or {})
        args = list(args)
        if device is not None:
            args = [move_to(a, device) for a in args]
            kwargs = {k: move_to(v, device) for k, v in kwargs.items()}
        return args, kwargs

    @contextlib.contextmanager
    def _batch_size_lowered(self, batch_limit: int | None, record: bool = True, checked: bool = True,
                            ) -> Iterator[None]:
        """The `--batch-limit` rule for user code: a module-level int `batch_size` above the limit is the
        limit while the body runs, in the file and in every child file it imported (a child that sizes
        state by the batch in __init__ is built by its parent's constructor), unless the file does not work
        at the lower batch (`checked`: batch_size_kept)."""
        if batch_limit is None or (checked and self.batch_size_kept(batch_limit) is not None):
            yield
            return
        lowered: list[tuple[ModuleType, int]] = []
        for mod in [self.module, *self.imported]:
            value = getattr(mod, "batch_size", None)
            # bool is an int subclass; a flag named batch_size is not a batch size
            if isinstance(value, int) and not isinstance(value, bool) and value > batch_limit:
                lowered.append((mod, value))
        for mod, _ in lowered:
            setattr(mod, "batch_size", batch_limit)  # noqa: B010 (a user module: no declared attribute)
        # module-level values computed from batch_size at import (`input_shape = (batch_size, 3, 224, 224)`)
        # follow it, as they do when the file runs with its `batch_size` line lowered (`hdecomp test`)
        saved = _reassign_derived(self.module, self.path) if any(m is self.module for m, _ in lowered) else {}
        try:
            yield
            own = next((v for m, v in lowered if m is self.module), None)
            if record and own is not None:
                self.last_batch_override = (own, batch_limit)
        finally:
            for mod, value in lowered:
                setattr(mod, "batch_size", value)  # noqa: B010
            self.module.__dict__.update(saved)

    @contextlib.contextmanager
    def batch_lowered_like(self, other: Component, batch_limit: int | None,
                           timeout: float | None = None) -> Iterator[None]:
        """This file's module-level `batch_size` lowered to `batch_limit` while the body runs, where `other`'s
        is (a candidate `ModelNew` file built like the kernel it replaces: the same state shapes)."""
        lower = batch_limit if other.batch_size_kept(batch_limit, timeout) is None else None
        with self._batch_size_lowered(lower, record=False, checked=False):
            yield

    def _call(self, what: str, fn: Callable[[], Any], timeout: float | None) -> Any:
        return run_user_code(fn, what=what, path=self.path, timeout=timeout)


def seed_everything(seed: int) -> None:
    """torch.manual_seed, without its cost on machines with no accelerator: there it queues lazy
    CUDA/XPU/MTIA seeding with a captured stack trace (~2.5 ms a call, several per trial)."""
    if torch.cuda.is_available() or (hasattr(torch, "xpu") and torch.xpu.is_available()):
        torch.manual_seed(seed)
    else:
        torch.default_generator.manual_seed(seed)


def dataclass_fields(obj: Any) -> dict[str, Any] | None:
    """The fields of a dataclass instance by name (a forward returning its own `@dataclass` output), or the
    attributes of a plain object that holds tensors (torchvision's `ImageList(tensors, image_sizes)`, handed
    from one block to the next: holding_tensors), else None: every walk over nested values (outputs, inputs)
    goes through them as through a dict's values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return dict(vars(obj)) if holding_tensors(obj) else None


def plain_object_state(obj: Any) -> dict[str, Any] | None:
    """The attributes of a plain Python object that compares by identity only and holds plain values
    (torchvision's `LevelMapper`, which a pooler builds on its first forward from plain numbers), by which two
    of them are the same value: the same class, equal attributes. None for anything else (tensors, modules,
    classes, builtins, objects with an equality of their own, or that hold tensors: state, as a cache's)."""
    return object_state(obj, tensors=False)


def object_state(obj: Any, tensors: bool = True) -> dict[str, Any] | None:
    """plain_object_state with tensors allowed (`tensors`): the attributes of a Python object that compares by
    identity and holds plain values and tensors (diffusers' DiagonalGaussianDistribution, a VAE encoder's
    output: its parameters, mean, log-variance and std), by which two outputs are the same value: the same
    class, equal attributes, tensors leaf by leaf. None for anything else (modules, objects holding objects,
    caches)."""
    if isinstance(obj, (torch.Tensor, nn.Module, type)) or type(obj).__module__ in ("builtins", "torch") or \
            not hasattr(obj, "__dict__") or type(obj).__eq__ is not object.__eq__:
        return None
    state = dict(vars(obj))
    return state if all(_plain_data(v, tensors=tensors) for v in state.values()) else None


def compared_state(obj: Any, depth: int = 0) -> dict[str, Any] | None:
    """The attributes by which two objects that compare by identity are the same value, as every comparison of
    outputs reads them (the capture check, verify-step, the composition test): of one class (by name), equal
    attributes, tensors leaf by leaf, objects nested in them attribute by attribute, classes by name. A
    transformers cache handed back in a decoder's output: EncoderDecoderCache -> DynamicCache -> DynamicLayer's
    keys and values. object_state with nested objects and classes allowed: for comparing, not for building
    (no file writes such an object). None for anything else (modules, callables, objects with an equality of
    their own, objects nested more than four deep)."""
    if depth > 4 or isinstance(obj, (torch.Tensor, nn.Module, type)) or \
            type(obj).__module__ in ("builtins", "torch") or not hasattr(obj, "__dict__") or \
            type(obj).__eq__ is not object.__eq__:
        return None
    try:
        state = dict(vars(obj))
    except TypeError:
        return None
    return state if all(_compared_data(v, depth) for v in state.values()) else None


def _compared_data(v: Any, depth: int) -> bool:
    """An attribute compared_state walks: plain data, tensors, classes, and objects it walks in turn."""
    if isinstance(v, type) or _plain_data(v, tensors=True, depth=3):
        return True
    if depth > 8:
        return False
    if isinstance(v, (list, tuple)):
        return all(_compared_data(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, (str, int)) and _compared_data(x, depth + 1) for k, x in v.items())
    return compared_state(v, depth + 1) is not None


def _plain_data(v: Any, tensors: bool, depth: int = 0) -> bool:
    """Numbers, strings, None, dtypes, devices (and tensors, where `tensors`), in lists, tuples and dicts up to
    three levels deep: the attributes of an object that is plain data."""
    if isinstance(v, torch.Tensor):
        return tensors
    if isinstance(v, (int, float, bool, str, type(None), torch.dtype, torch.device, torch.Size)):
        return True
    if isinstance(v, (list, tuple)) and depth < 3:
        return all(_plain_data(x, tensors, depth + 1) for x in v)
    if isinstance(v, dict) and depth < 3:
        return all(isinstance(k, (str, int)) and _plain_data(x, tensors, depth + 1) for k, x in v.items())
    return False


def holding_tensors(obj: Any) -> bool:
    """A plain object that carries tensors from one block to the next: its attributes are tensors (directly,
    or in lists, tuples and dicts of tensors) next to plain values, and it is built from them (each tensor
    attribute is a parameter of its constructor: `ImageList(tensors, image_sizes)`). Not a module, a tensor,
    a class, an object holding objects of its own, nor state an object fills after it is made (a
    transformers cache layer's `keys`/`values`): those stay opaque."""
    if isinstance(obj, (torch.Tensor, nn.Module, type, tuple, list, dict)) or \
            type(obj).__module__ in ("builtins", "torch") or not hasattr(obj, "__dict__"):
        return False
    try:
        state = vars(obj)
    except TypeError:
        return False
    if not (state and all(_plain_data(v, tensors=True) for v in state.values()) and
            not all(plain_value(v) for v in state.values())):
        return False
    import inspect
    try:
        params = inspect.signature(type(obj)).parameters
    except (TypeError, ValueError):
        return False
    holding = [k for k, v in state.items() if not plain_value(v)]
    return all(k in params for k in holding)


def plain_value(v: Any) -> bool:
    """No tensor anywhere in `v` (lists, tuples and dicts walked)."""
    if isinstance(v, torch.Tensor):
        return False
    if isinstance(v, (list, tuple)):
        return all(plain_value(x) for x in v)
    if isinstance(v, dict):
        return all(plain_value(x) for x in v.values())
    return True


def map_nested(obj: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    """`fn` applied to every tensor nested in lists, tuples (namedtuples too), dicts (a ModelOutput and
    other dict subclasses keep their type) and dataclass instances, the containers rebuilt around the
    results."""
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    fields = dataclass_fields(obj)
    if fields is not None:
        import copy
        new = copy.copy(obj)
        for k, v in fields.items():
            object.__setattr__(new, k, map_nested(v, fn))   # (a frozen dataclass too)
        return new
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):   # a namedtuple takes its fields one by one
        return type(obj)(*(map_nested(o, fn) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_nested(o, fn) for o in obj)
    if isinstance(obj, dict):
        return same_kind_dict(obj, {k: map_nested(v, fn) for k, v in obj.items()})
    if isinstance(obj, UserDict):   # (Gemma 3n's KVSharingDict: each forward gets its own, as a dict's copy)
        return user_dict_holding(obj, {k: map_nested(v, fn) for k, v in obj.data.items()})
    return obj


_FACTORIES: dict[type, Callable[[dict[str, Any]], Any]] = {}


def object_factory(cls: type) -> Callable[[dict[str, Any]], Any]:
    """The function that makes an object of `cls` holding `state` as its attributes, without running its
    constructor: how a graph returns a plain object whose constructor computes (diffusers'
    DiagonalGaussianDistribution clamps and exponentiates its parameters in `__init__`), from the values the
    graph computed. Code generation writes a call of it as `object.__new__(cls)` and an update of its `__dict__`."""
    if cls in _FACTORIES:   # (one function per class: a graph calls the same target for each object)
        return _FACTORIES[cls]

    def build(state: dict[str, Any]) -> Any:
        obj: Any = object.__new__(cls)
        obj.__dict__.update(state)
        return obj
    build.__name__ = build.__qualname__ = f"new_{cls.__name__}"
    build.object_class = cls   # type: ignore[attr-defined]
    _FACTORIES[cls] = build
    return build


def factory_class(fn: Any) -> type | None:
    """The class an object_factory function makes, else None."""
    cls = getattr(fn, "object_class", None)
    return cls if isinstance(cls, type) and getattr(fn, "__name__", "") == f"new_{cls.__name__}" else None


def is_output_class(cls: Any) -> bool:
    """A class of output objects that pack values by name: a dict subclass that is a dataclass
    (transformers' ModelOutputs), built by keyword from its fields."""
    return isinstance(cls, type) and issubclass(cls, dict) and cls is not dict and dataclasses.is_dataclass(cls)


def user_dict_holding(like: UserDict[Any, Any], items: dict[Any, Any]) -> UserDict[Any, Any]:
    """A copy of UserDict `like` (its class and attributes: transformers' KVSharingDict) holding `items`."""
    import copy
    made = copy.copy(like)
    made.data = items
    return made


def same_kind_dict(like: dict[Any, Any], values: dict[Any, Any]) -> dict[Any, Any]:
    """`values` in a dict of `like`'s type (a ModelOutput or another dict subclass keeps its type: children
    read it by attribute); a plain dict where that type cannot be filled so."""
    if type(like) is not dict:
        import copy
        try:
            new = copy.copy(like)
            for k, v in values.items():
                new[k] = v
            return new
        except Exception:
            pass
    return values


def nested_tensor_bytes(obj: Any) -> int:
    """Bytes of the tensors nested in `obj` (tuples, lists, dict values)."""
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    obj = dataclass_fields(obj) or obj
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nested_tensor_bytes(o) for o in obj)
    return 0


def clone_nested(obj: Any) -> Any:
    """Clone tensors nested in lists/tuples/dicts (each forward gets its own copy of the inputs)."""
    return map_nested(obj, lambda t: t.clone())


def move_to(obj: Any, device: str | torch.device) -> Any:
    """Move tensors nested in lists/tuples/dicts to `device`."""
    return map_nested(obj, lambda t: t.to(device))


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str, path: Path | str) -> Iterator[None]:
    """Raise ComponentTimeout if the body runs longer than `seconds` (main thread, POSIX only)."""
    usable = (seconds and seconds > 0 and hasattr(signal, "SIGALRM")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    root = str(Path(path).resolve().parent)

    def _on_alarm(signum: int, frame: FrameType | None) -> None:
        # Name the line the user code was stuck on: the innermost frame inside the component's folder.
        file, line = str(path), None
        f = frame
        while f is not None:
            fn = f.f_code.co_filename
            if not fn.startswith("<") and Path(fn).resolve().is_relative_to(root):
                file, line = display_path(fn), f.f_lineno
                break
            f = f.f_back
        raise ComponentTimeout(f"{what} did not finish within {seconds:g} s (timeout)", file, line)

    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    oom = getattr(torch, "OutOfMemoryError", None)
    if oom is not None and isinstance(exc, oom):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def run_user_code(fn: Callable[[], Any], *, what: str, path: Path | str, timeout: float | None = None,
                  roots: list[Path] | None = None) -> Any:
    """Call user code; turn any exception into ComponentRunError naming file, line and cause."""
    path = Path(path)
    try:
        with time_limit(timeout, what, path):
            return fn()
    except ComponentTimeout:
        raise
    except (ComponentLoadError, ComponentRunError):
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # user code may raise anything, SystemExit included
        where = user_frame(exc.__traceback__, roots or [path.parent])
        file, line = (where if where else (str(path), None))
        if is_oom(exc):
            cause = (f"{what} ran out of memory ({type(exc).__name__}: {_first_line(exc)}); "
                     f"try --batch-limit 1 or a device with more memory")
        else:
            cause = f"{what} raised {type(exc).__name__}: {_first_line(exc)}"
        raise ComponentRunError(cause, file, line,
                                details="".join(traceback.format_exception(exc))) from exc


def derived_from_batch_size(source: str) -> list[ast.Assign | ast.AnnAssign]:
    """The file's top-level assignments computed from its `batch_size`, directly or through an earlier
    one of them, in file order (`input_shape = (batch_size, 3, 224, 224)`, then `shape2 = input_shape`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    derived, out = {"batch_size"}, []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) != len(targets) or "batch_size" in names:
            continue
        if any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(value)):
            out.append(stmt)
            derived.update(names)
    return out


def _reassign_derived(module: ModuleType, path: Path) -> dict[str, Any]:
    """Run the module's assignments derived from `batch_size` again (batch_size already lowered); the
    values they replaced, to put back. An assignment that raises leaves every value as it was."""
    try:
        stmts = derived_from_batch_size(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}
    names = [t.id for st in stmts for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
             if isinstance(t, ast.Name)]
    saved = {n: module.__dict__[n] for n in names if n in module.__dict__}
    try:
        for st in stmts:
            exec(compile(ast.Module(body=[st], type_ignores=[]), str(path), "exec"), module.__dict__)
    except Exception:
        module.__dict__.update(saved)
        return {}
    return saved


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


@contextlib.contextmanager
def isolated_import_paths(folder: Path, collect: list[ModuleType] | None = None) -> Iterator[None]:
    """sys.path gets `folder` and `folder/children` for the duration; sys.path and sys.modules are
    restored afterwards: user modules imported meanwhile are dropped (and appended to `collect`), and
    modules cached elsewhere under a name this folder's files define (`conv`, `children`, ...) are
    hidden, then put back."""
    with _import_lock:
        saved_path = list(sys.path)
        before = set(sys.modules)
        search = [folder]
        if (folder / "children").is_dir():
            search.append(folder / "children")
        local_names = {p.stem for d in search for p in d.iterdir()
                       if (p.suffix == ".py" or p.is_dir()) and p.stem.isidentifier()}
        hidden = {name: mod for name, mod in sys.modules.items()
                  if name.split(".")[0] in local_names and not name.startswith(_OWN_PACKAGES)}
        for name in hidden:
            del sys.modules[name]
        sys.path[:0] = [str(d) for d in search]
        try:
            yield
        finally:
            sys.path[:] = saved_path
            for name in set(sys.modules) - before:
                mod = sys.modules.get(name)
                if mod is not None and not name.startswith(_OWN_PACKAGES) and (
                        _is_user_module(mod) or name.split(".")[0] in local_names):
                    _remember_classes(mod)
                    del sys.modules[name]
                    if collect is not None and not name.startswith("_hdecomp_component_"):
                        collect.append(mod)
            sys.modules.update(hidden)
            importlib.invalidate_caches()


def load_component(path: str | Path, class_name: str | None = None, *,
                   require_inputs: bool = True, timeout: float | None = None,
                   class_names: Sequence[str] | None = None) -> Component:
    """Import the component file at `path` in isolation.

    `class_name`: the model class to use; default `RefactoredModel` if the file defines one, else `Model`.
    `class_names`: the names to try in order instead (an original file: `("Model", "RefactoredModel")`).
    Raises ComponentLoadError naming the file, line and cause.
    """
    path = Path(path)
    if not path.exists():
        raise ComponentLoadError("file not found", path)
    if path.is_dir():
        raise ComponentLoadError("is a folder, not a Python file", path)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ComponentLoadError(f"cannot read file: {exc}", path) from exc
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise ComponentLoadError(f"syntax error: {exc.msg}", exc.filename or path, exc.lineno) from exc

    mod_name = f"_hdecomp_component_{next(_counter)}_{_safe(path.stem)}"
    spec = importlib.util.spec_from_file_location(mod_name, str(path))
    if spec is None or spec.loader is None:
        raise ComponentLoadError("cannot be imported as a Python module", path)
    module = importlib.util.module_from_spec(spec)
    folder = path.resolve().parent
    roots = [folder]
    imported: list[ModuleType] = []
    with isolated_import_paths(folder, imported):
        sys.modules[mod_name] = module
        try:
            with time_limit(timeout, "importing the file", path):
                spec.loader.exec_module(module)
        except ComponentTimeout:
            raise
        except SyntaxError as exc:  # in an imported child file
            raise ComponentLoadError(f"syntax error: {exc.msg}", exc.filename or path, exc.lineno) from exc
        except ModuleNotFoundError as exc:
            where = user_frame(exc.__traceback__, roots) or (str(path), None)
            missing = exc.name or str(exc)
            local = (folder / f"{missing.split('.')[0]}.py").exists() or \
                (folder / "children" / f"{missing.split('.')[0]}.py").exists()
            if missing.split(".")[0] in ("children",) or local:
                cause = f"cannot import '{missing}': the module file is missing or broken"
            elif (folder / "children").is_dir() or missing.split(".")[0] not in _known_distributions():
                cause = (f"imports '{missing}', which is not installed or not found "
                         f"(pip install {missing.split('.')[0]}, or add the missing child file)")
            else:
                cause = f"cannot import '{missing}'"
            raise ComponentLoadError(cause, where[0], where[1],
                                     details="".join(traceback.format_exception(exc))) from exc
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            where = user_frame(exc.__traceback__, roots) or (str(path), None)
            raise ComponentLoadError(f"importing the file raised {type(exc).__name__}: {_first_line(exc)}",
                                     where[0], where[1],
                                     details="".join(traceback.format_exception(exc))) from exc
        finally:
            _remember_classes(module)
            sys.modules.pop(mod_name, None)

    names = [class_name] if class_name else list(class_names or ("RefactoredModel", "Model"))
    chosen = next((n for n in names if isinstance(getattr(module, n, None), type)), None)
    if chosen is None:
        raise ComponentLoadError(f"no model class: expected {' or '.join(names)}", path)
    model_class = getattr(module, chosen)
    if not issubclass(model_class, nn.Module):
        raise ComponentLoadError(f"class {chosen} is not a subclass of torch.nn.Module", path)

    get_inputs = getattr(module, "get_inputs", None)
    if get_inputs is None or not callable(get_inputs):
        if require_inputs:
            raise ComponentLoadError("missing get_inputs(): every component file must define it", path)
        get_inputs = list
    get_init_inputs = getattr(module, "get_init_inputs", None)
    if get_init_inputs is None or not callable(get_init_inputs):
        get_init_inputs = list
    get_input_kwargs = getattr(module, "get_input_kwargs", None)
    if get_input_kwargs is not None and not callable(get_input_kwargs):
        get_input_kwargs = None
    return Component(path=path, module=module, class_name=chosen, model_class=model_class,
                     get_inputs=get_inputs, get_init_inputs=get_init_inputs,
                     get_input_kwargs=get_input_kwargs, imported=imported)


def _safe(stem: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in stem)


def _known_distributions() -> set[str]:
    try:
        from importlib.metadata import packages_distributions
        return set(packages_distributions())
    except Exception:  # pragma: no cover - metadata is best effort
        return set()


def plain_attributes(module: nn.Module) -> list[tuple[nn.Module, dict[str, Any]]]:
    """Each submodule's public attributes that are not modules (plain values and plain tensors; one a
    constructor computed with autograd on, weight_norm's `weight`, detached: restored, a non-leaf tensor
    would make the module one copy.deepcopy refuses)."""
    def kept(v: Any) -> Any:
        return v.detach() if isinstance(v, torch.Tensor) and v.grad_fn is not None else v
    return [(m, {k: kept(v) for k, v in vars(m).items() if not k.startswith("_") and not isinstance(v, nn.Module)})
            for m in module.modules()]


def restore_plain_attributes(module: nn.Module, before: list[tuple[nn.Module, dict[str, Any]]]) -> None:
    """A module as built, not as its first forward left it: attributes a forward sets lazily (torchvision's
    MultiScaleRoIAlign keeps `scales` and a `LevelMapper` after its first call; RecurrentGemma's temporal
    block a `conv1d_state` tensor) go back to their constructed values or away, so the step that splits it
    reads what a fresh build holds (and its own first forward sets them again)."""
    for m, attrs in before:
        now = {k: v for k, v in vars(m).items() if not k.startswith("_") and not isinstance(v, nn.Module)}
        for k, v in attrs.items():
            if k in now and now[k] is not v:
                m.__dict__[k] = v
        for k in now:
            if k not in attrs:
                del m.__dict__[k]


__all__ = [
    "Component",
    "class_source_file",
    "is_oom",
    "isolated_import_paths",
    "load_component",
    "move_to",
    "run_user_code",
    "seed_everything",
    "time_limit",
]

