"""What code can change for the whole process it runs in, snapshot and compared: torch's global settings
(threads, oneDNN, determinism, default dtype, matmul precision, TF32/cuDNN flags, grad and anomaly mode,
denormal flushing, ...), the interpreter's (trace and profile functions, the GC, the switch interval), and
the attributes of the modules and classes a judge or a reference relies on (`torch`, `torch.nn.functional`,
`torch.Tensor`, the `nn` layers' `forward`, `time`, `gc`, `sys`, `math`, `builtins`, `torch.testing`):
a replaced function is a changed attribute.

And `Introspection`: an audit hook that notes code of given files reaching into the interpreter's memory
(`gc.get_objects`, `gc.get_referrers`, `gc.get_referents`, `sys._getframe`, `sys._current_frames`): the
calls that find another component's tensors or a caller's locals.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import math
import os
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.nn.functional as F
from torch import nn


def _flush_denormal() -> bool:
    """Whether denormals are flushed to zero (torch has a setter only: read it off a product)."""
    tiny = torch.tensor([1e-39], dtype=torch.float32)
    return bool((tiny * 1.0).item() == 0.0)


def _opt(fn: Callable[[], Any]) -> Callable[[], Any]:
    def read() -> Any:
        try:
            return fn()
        except Exception as exc:   # a setting this build does not have
            return f"unavailable ({type(exc).__name__})"
    return read


SETTINGS: dict[str, Callable[[], Any]] = {
    "torch.get_num_threads()": torch.get_num_threads,
    "torch.get_num_interop_threads()": torch.get_num_interop_threads,
    "torch.backends.mkldnn.enabled": _opt(lambda: torch.backends.mkldnn.enabled),
    "torch.backends.mkldnn.deterministic": _opt(lambda: torch.backends.mkldnn.deterministic),
    "torch.backends.mkldnn.allow_tf32": _opt(lambda: getattr(torch.backends.mkldnn, "allow_tf32", None)),
    "torch.backends.mkl.is_available()": _opt(torch.backends.mkl.is_available),
    "torch.backends.openmp.is_available()": _opt(torch.backends.openmp.is_available),
    "torch.backends.opt_einsum.enabled": _opt(lambda: torch.backends.opt_einsum.enabled),
    "torch.are_deterministic_algorithms_enabled()": torch.are_deterministic_algorithms_enabled,
    "torch.is_deterministic_algorithms_warn_only_enabled()": torch.is_deterministic_algorithms_warn_only_enabled,
    "torch.get_default_dtype()": lambda: str(torch.get_default_dtype()),
    "torch.get_default_device()": _opt(lambda: str(torch.get_default_device())),
    "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision,
    "torch.backends.cuda.matmul.allow_tf32": _opt(lambda: torch.backends.cuda.matmul.allow_tf32),
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction":
        _opt(lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction),
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction":
        _opt(lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
    "torch.backends.cudnn.enabled": _opt(lambda: torch.backends.cudnn.enabled),
    "torch.backends.cudnn.benchmark": _opt(lambda: torch.backends.cudnn.benchmark),
    "torch.backends.cudnn.deterministic": _opt(lambda: torch.backends.cudnn.deterministic),
    "torch.backends.cudnn.allow_tf32": _opt(lambda: torch.backends.cudnn.allow_tf32),
    "torch.is_grad_enabled()": torch.is_grad_enabled,
    "torch.is_inference_mode_enabled()": torch.is_inference_mode_enabled,
    "torch.is_anomaly_enabled()": torch.is_anomaly_enabled,
    # a mode left entered runs for every op of everyone after (a fence, a recorder, a rewriter)
    "torch function modes entered": _opt(lambda: torch._C._len_torch_function_stack()),
    "torch dispatch modes entered": _opt(lambda: torch._C._len_torch_dispatch_stack()),
    "denormals flushed to zero": _flush_denormal,
    "sys.gettrace()": lambda: None if sys.gettrace() is None else "set",
    "sys.getprofile()": lambda: None if sys.getprofile() is None else "set",
    "sys.getswitchinterval()": sys.getswitchinterval,
    "gc.isenabled()": gc.isenabled,
    "gc.get_threshold()": lambda: list(gc.get_threshold()),
}


def settings() -> dict[str, Any]:
    """The value of every setting in SETTINGS now."""
    return {name: read() for name, read in SETTINGS.items()}


def _watched() -> dict[str, Any]:
    """The namespaces whose attributes must not change: name -> module or class."""
    spaces: dict[str, Any] = {"torch": torch, "torch.nn.functional": F, "torch.Tensor": torch.Tensor,
                              "torch._C.TensorBase": torch._C.TensorBase, "torch.testing": torch.testing,
                              "torch.nn.Module": nn.Module, "time": time, "gc": gc, "sys": sys, "math": math,
                              "builtins": builtins, "threading": threading, "os": os}
    for name in dir(nn):
        cls = getattr(nn, name, None)
        if isinstance(cls, type) and issubclass(cls, nn.Module) and cls is not nn.Module:
            spaces[f"torch.nn.{name}"] = cls
            for base in cls.__mro__[1:]:   # the layers' bases (_BatchNorm, _ConvNd) hold their forward
                if base.__module__.startswith("torch.nn.") and base is not nn.Module:
                    spaces.setdefault(f"{base.__module__}.{base.__qualname__}", base)
    if torch.cuda.is_available():
        spaces["torch.cuda"] = torch.cuda
        spaces["torch.cuda.Event"] = torch.cuda.Event
    return spaces


# attributes that change in normal operation (the interpreter's bookkeeping), never compared
_VOLATILE = {"sys.last_type", "sys.last_value", "sys.last_traceback", "sys.last_exc", "sys.ps1", "sys.ps2",
             "sys.stdout", "sys.stderr", "sys.stdin", "sys.exc_info", "builtins._", "os.environ"}


def attributes() -> dict[str, int]:
    """id() of every attribute of the watched namespaces, by qualified name ("torch.allclose"); a module's
    submodules are left out (importing one adds it to its package)."""
    out: dict[str, int] = {}
    for space, obj in _watched().items():
        for key, value in list(vars(obj).items()):
            name = f"{space}.{key}"
            if name in _VOLATILE or isinstance(value, type(os)) or (
                    key.startswith("__") and key.endswith("__") and isinstance(obj, type(os))):
                continue
            out[name] = id(value)
    return out


@dataclass
class ProcessState:
    settings: dict[str, Any] = field(default_factory=settings)
    attributes: dict[str, int] = field(default_factory=attributes)

    def changes_since(self, before: ProcessState) -> list[str]:
        """What differs from `before`: a setting's old and new value, an attribute replaced or deleted
        (one added is not: importing a submodule adds one)."""
        out = [f"{k}: {before.settings[k]!r} -> {v!r}" for k, v in self.settings.items()
               if k in before.settings and v != before.settings[k]]
        out += [f"{k} replaced" for k, v in self.attributes.items()
                if k in before.attributes and v != before.attributes[k]]
        out += [f"{k} deleted" for k in before.attributes if k not in self.attributes]
        # an attribute set where there was none: a class's method shadowed (torch.Tensor.__mul__ is inherited
        # from TensorBase until someone sets it), a module given state of the judged code's own
        out += [f"{k} added" for k in self.attributes if k not in before.attributes]
        return out


# ---- reaching into the interpreter's memory --------------------------------------------------------------

_EVENTS = {"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._getframe", "sys._current_frames"}
# installing an interpreter hook: code run at every call of every function (a place to hide work or to
# finish it after a call returned); global state, reported as such
_HOOKS = {"sys.setprofile", "sys.settrace"}
_STDLIB = (os.path.realpath(os.path.dirname(os.__file__)) + os.sep,)
# (a virtual environment's site-packages may sit inside a folder named like the standard library's)
_SITE = tuple(os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("purelib", "platlib"))


def _standard_library(filename: str) -> bool:
    path = os.path.realpath(filename)
    return path.startswith(_STDLIB) and not path.startswith(_SITE)


class _AuditWatch:
    """A watch on the process's audit events: while active (a context manager), its `note(event, args)` sees
    each one. One audit hook serves every watch, installed once (hooks cannot be removed); it does nothing
    while no watch is active, and ignores the events a note itself raises."""

    _watches: ClassVar[list[_AuditWatch]] = []
    _installed: ClassVar[bool] = False
    _busy = threading.local()

    def __enter__(self) -> Any:
        if not _AuditWatch._installed:
            sys.addaudithook(_audit)
            _AuditWatch._installed = True
        _AuditWatch._watches.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self in _AuditWatch._watches:
            _AuditWatch._watches.remove(self)

    def note(self, event: str, args: tuple[Any, ...]) -> None:
        raise NotImplementedError


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _AuditWatch._watches or getattr(_AuditWatch._busy, "on", False):
        return
    _AuditWatch._busy.on = True
    try:
        for watch in list(_AuditWatch._watches):
            with contextlib.suppress(Exception):   # an audit hook must never raise into the code it watches
                watch.note(event, args)
    finally:
        _AuditWatch._busy.on = False


class Introspection(_AuditWatch):
    """While active, notes each audited introspection call whose nearest caller outside the standard
    library (inspect.stack() counts as its caller's) is code of one of `files`; and, apart, the interpreter
    hooks (`sys.setprofile`, `sys.settrace`) that code installs."""

    def __init__(self, files: set[str]) -> None:
        self.files = {os.path.realpath(f) for f in files}
        self.hits: list[str] = []
        self.hooks: list[str] = []   # sys.setprofile / sys.settrace called from the files' code

    def note(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _EVENTS and event not in _HOOKS:
            return
        frame: Any = sys._getframe(2)   # (0: note, 1: the hook; 2: the Python code that made the call)
        while frame is not None and _standard_library(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is not None and os.path.realpath(frame.f_code.co_filename) in self.files:
            hit = f"{event} (line {frame.f_lineno} of {os.path.basename(frame.f_code.co_filename)})"
            found = self.hooks if event in _HOOKS else self.hits
            if hit not in found:
                found.append(hit)


# ---- the files a component must not read ---------------------------------------------------------------


class FileWatch(_AuditWatch):
    """While active, records every file of `forbidden`, or inside one of `folders`, that the process opens
    (imports included: a cached `__pycache__/x.*.pyc` counts as its `x.py`) and every process it starts."""

    def __init__(self, forbidden: set[Path], folders: set[Path] | None = None) -> None:
        self.forbidden = {os.path.realpath(p) for p in forbidden}
        self.folders = tuple(os.path.realpath(p) + os.sep for p in folders or ())
        self.hits: list[str] = []

    def note(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            folder, name = os.path.split(path)
            if os.path.basename(folder) == "__pycache__" and name.endswith(".pyc"):
                path = os.path.join(os.path.dirname(folder), name.split(".")[0] + ".py")
            if (path in self.forbidden or path.startswith(self.folders)) and path not in self.hits:
                self.hits.append(path)
        elif event in ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec"):
            what = f"starts a process ({event})"
            if what not in self.hits:
                self.hits.append(what)


def audit_report(baseline: ProcessState, files: FileWatch | None = None,
                 introspection: Introspection | None = None) -> dict[str, list[str]]:
    """What a side reports of the code it ran: what changed in its process since `baseline` (a trace or
    profile hook set from that code counted as a change), the introspection calls and the watched files it
    reached."""
    hooks = [f"{hook} called" for hook in introspection.hooks] if introspection is not None else []
    return {"global_state": ProcessState().changes_since(baseline) + hooks,
            "introspection": list(introspection.hits) if introspection is not None else [],
            "files": list(files.hits) if files is not None else []}


def live_threads() -> dict[int, str]:
    """The live Python threads: ident -> name."""
    return {t.ident or 0: t.name for t in threading.enumerate() if t.is_alive()}


__all__ = ["SETTINGS", "FileWatch", "Introspection", "ProcessState", "attributes", "audit_report", "live_threads",
           "settings"]
