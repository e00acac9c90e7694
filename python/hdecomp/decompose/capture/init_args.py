"""Constructor arguments: `record_init_args()` records the arguments every module built inside it was
given, so that generated files rebuild modules the way a person writes them
(`nn.Conv2d(3, 64, kernel_size=3, padding=1)`)."""

from __future__ import annotations

import contextlib
import copy
import inspect
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

import torch
from torch import nn
from torch.overrides import TorchFunctionMode


@dataclass
class InitCall:
    """The arguments one module's (most derived) __init__ received."""

    cls: type
    # (name, value, kind) in signature order; kind: "posonly" | "arg" | "kwonly" | "varargs" | "varkw"
    params: list[tuple[str, Any, str]]


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
    """Storages made by torch.empty & co. during construction, and whether anything wrote them since; and
    every storage an op made (`seen`): one no op made nor wrote is a legacy constructor's uninitialised
    memory (`nn.Parameter(torch.FloatTensor(d, h))`, which no TorchFunctionMode sees: transformers' XLNet)."""

    def __init__(self) -> None:
        super().__init__()
        self.unwritten: set[int] = set()
        # storage address -> the size of what an op made there: a temporary freed during construction leaves
        # its address to the allocator, and a legacy FloatTensor(d, h) of another size made there later is no
        # op's (transformers' XLNet: q, k, v, o)
        self.seen: dict[int, int] = {}
        self.pending: list[tuple[nn.Module, str, torch.Tensor, int]] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if isinstance(out, torch.Tensor) and not out.is_meta:
            with contextlib.suppress(Exception):
                self.seen[out.untyped_storage().data_ptr()] = out.untyped_storage().nbytes()
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
                    self.seen[target.untyped_storage().data_ptr()] = target.untyped_storage().nbytes()
        return out

    def check(self, module: nn.Module) -> None:
        # (torch.nn's own layers initialise themselves when built alone, in reset_parameters, even where a
        # package's model construction skips that: transformers' no_init_weights)
        if (type(module).__module__ or "").startswith("torch."):
            return
        names = []
        for n, p in module._parameters.items():
            if p is None or not p.numel() or p.is_meta:
                continue
            with contextlib.suppress(Exception):
                ptr = p.untyped_storage().data_ptr()
                if ptr in self.unwritten:
                    names.append(n)
                elif self.seen.get(ptr) != p.untyped_storage().nbytes():   # made by no op: uninitialised if
                    # the model writes it afterwards
                    self.pending.append((module, n, p, p._version))
        if names:
            with contextlib.suppress(TypeError):
                _UNINITIALISED[module] = names

    def finish(self) -> None:
        """The parameters no op made that the model's construction wrote after their module's __init__ (its
        post_init: a legacy `torch.FloatTensor(d, h)` left as memory until then); one from numpy or passed in,
        which nothing writes, is what it is."""
        for module, name, p, version in self.pending:
            if p._version != version:
                with contextlib.suppress(TypeError):
                    _UNINITIALISED.setdefault(module, [])
                    if name not in _UNINITIALISED[module]:
                        _UNINITIALISED[module].append(name)
        self.pending.clear()


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
                                                                        "enum", "functools", "abc", "importlib",
                                                                        "_frozen_importlib", "zipimport")))


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
        except Exception:   # not hashable yet (an import's loader, mid-construction) or not weak-referenceable
            return
        # each parameter with its kind, as the signature declares it: a keyword-only one (diffusers'
        # `ResnetBlock2D(*, in_channels, ...)`) is written by name, a positional-only one by position
        params: list[tuple[str, Any, str]] = []
        for i in range(1, code.co_argcount + code.co_kwonlyargcount):
            kind = "posonly" if i < code.co_posonlyargcount else "arg" if i < code.co_argcount else "kwonly"
            params.append((code.co_varnames[i], frame.f_locals.get(code.co_varnames[i]), kind))
        idx = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & inspect.CO_VARARGS:
            vname = code.co_varnames[idx]
            # *args come after the positional parameters (the keyword-only ones follow them by name)
            at = sum(1 for _, _, k in params if k != "kwonly")
            params.insert(at, (vname, frame.f_locals.get(vname, ()), "varargs"))
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
        watch.finish()
    finally:
        sys.setprofile(previous)
