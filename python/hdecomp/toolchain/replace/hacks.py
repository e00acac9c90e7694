"""The reward hacks `hdecomp replace` refuses, checked on the kernel's own inputs before any proof counts:
a replacement that runs the reference, changes its inputs, hands back an input or an old buffer, leaves
work running after it returns, or matches a reference whose output is constant.

Each check gives a `Check` (PASS, FAIL with the reason, or SKIPPED with why); `replace.run` stops at the
first FAIL. The speed-of-light check lives with the timing (`replace.timing`).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from hdecomp.runtime.batch_limit import tensors_at
from hdecomp.runtime.component import clone_nested, run_user_code
from hdecomp.verify.compare import compare_outputs, degenerate_kind


@dataclass
class Check:
    name: str
    status: str          # PASS | FAIL | SKIPPED
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


# ---- the files the replacement must not read: an audit hook -------------------------------------------


class FileWatch:
    """While active, records every file of `forbidden` that the process opens (imports included: a cached
    `__pycache__/x.*.pyc` counts as its `x.py`) and every process it starts. One audit hook, installed
    once (they cannot be removed); it does nothing while no watch is active."""

    _active: ClassVar[FileWatch | None] = None
    _installed: ClassVar[bool] = False

    def __init__(self, forbidden: set[Path]) -> None:
        self.forbidden = {os.path.realpath(p) for p in forbidden}
        self.hits: list[str] = []

    def __enter__(self) -> FileWatch:
        if not FileWatch._installed:
            sys.addaudithook(_audit)
            FileWatch._installed = True
        FileWatch._active = self
        return self

    def __exit__(self, *exc: object) -> None:
        FileWatch._active = None

    def note(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            folder, name = os.path.split(path)
            if os.path.basename(folder) == "__pycache__" and name.endswith(".pyc"):
                path = os.path.join(os.path.dirname(folder), name.split(".")[0] + ".py")
            if path in self.forbidden and path not in self.hits:
                self.hits.append(path)
        elif event in ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec"):
            what = f"starts a process ({event})"
            if what not in self.hits:
                self.hits.append(what)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    watch = FileWatch._active
    if watch is not None:
        with contextlib.suppress(Exception):   # an audit hook must never raise into the code it watches
            watch.note(event, args)


# ---- helpers -------------------------------------------------------------------------------------------


def tensors(obj: Any) -> list[torch.Tensor]:
    """The tensors nested in `obj` (runtime.batch_limit's walk)."""
    return [t for _, t in tensors_at(obj, "")]


def _storages(ts: list[torch.Tensor]) -> set[int]:
    return {t.untyped_storage().data_ptr() for t in ts if t.numel() and t.untyped_storage().nbytes()}


def same_values(a: Any, b: Any) -> bool:
    """Bit for bit (NaN equal to NaN), nested outputs leaf by leaf."""
    return compare_outputs(a, b, rtol=0.0, atol=0.0).match


def call(model: nn.Module, args: list[Any], kwargs: dict[str, Any], path: Path, timeout: float | None) -> Any:
    with torch.no_grad():
        return run_user_code(lambda: model(*args, **kwargs), what=f"{type(model).__name__}.forward", path=path,
                             timeout=timeout)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class _OpTrace(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[str, tuple[tuple[int, ...], ...]]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        shapes = tuple(tuple(a.shape) for a in args if isinstance(a, torch.Tensor))
        self.ops.append((func._overloadpacket.__name__, shapes))
        return func(*args, **(kwargs or {}))


def op_trace(model: nn.Module, args: list[Any], kwargs: dict[str, Any], path: Path,
             timeout: float | None) -> list[tuple[str, tuple[tuple[int, ...], ...]]]:
    with _OpTrace() as trace:
        call(model, clone_nested(args), clone_nested(kwargs), path, timeout)
    return trace.ops


# ---- the checks ----------------------------------------------------------------------------------------


def check_signature(kernel: nn.Module, new: nn.Module, args: list[Any], kwargs: dict[str, Any]) -> Check:
    """The kernel's state (keys, shapes, dtypes) and a forward that takes the kernel's inputs."""
    ks = {k: (tuple(v.shape), v.dtype) for k, v in kernel.state_dict().items()}
    ns = {k: (tuple(v.shape), v.dtype) for k, v in new.state_dict().items()}
    missing, extra = sorted(set(ks) - set(ns)), sorted(set(ns) - set(ks))
    differ = sorted(k for k in set(ks) & set(ns) if ks[k] != ns[k])
    if missing or extra or differ:
        parts = [f"missing {', '.join(missing[:3])}" if missing else "",
                 f"unexpected {', '.join(extra[:3])}" if extra else "",
                 "; ".join(f"{k} is {list(ns[k][0])} {ns[k][1]}, the kernel's {list(ks[k][0])} {ks[k][1]}"
                           for k in differ[:2])]
        return Check("signature", "FAIL", "ModelNew's state differs from the kernel's (" +
                     "; ".join(p for p in parts if p) + "): the steps' weight maps move the weights in by "
                     "the kernel's names, so ModelNew must hold the same parameters and buffers")
    try:
        inspect.signature(new.forward).bind(*args, **kwargs)
    except TypeError as exc:
        return Check("signature", "FAIL", f"ModelNew.forward does not take the kernel's inputs ({exc})")
    except ValueError:   # no signature to read (a builtin): the call itself will tell
        pass
    return Check("signature", "PASS", f"{len(ks)} state tensors as the kernel's; forward takes its inputs")


def check_reference_call(watch: FileWatch, kernel_ops: list[Any], new_ops: list[Any], root: Path) -> Check:
    if watch.hits:
        shown = [os.path.relpath(h, root) if os.path.isabs(h) else h for h in watch.hits[:3]]
        return Check("reference_call", "FAIL", "ModelNew uses the reference itself: it reads "
                     + ", ".join(shown) + " (a replacement must not load the decomposition's files)")
    if kernel_ops and new_ops == kernel_ops:
        names = sorted({op for op, _ in kernel_ops})
        return Check("reference_call", "FAIL", f"ModelNew runs the reference kernel's own computation: the "
                     f"same {len(kernel_ops)} aten op call(s) ({', '.join(names[:5])}) on the same shapes in the "
                     "same order; a replacement must compute it another way")
    return Check("reference_call", "PASS", f"{len(new_ops)} aten op call(s), not the kernel's {len(kernel_ops)}; "
                 "no file of the decomposition read")


def check_mutation(before: Any, after_new: Any, after_kernel: Any) -> Check:
    kernel_mutates = not same_values(before, after_kernel)
    new_mutates = not same_values(before, after_new)
    if new_mutates and not kernel_mutates:
        return Check("input_mutation", "FAIL", "ModelNew changes its inputs in place (the kernel does not): "
                     "a later use of that input would see the change")
    if kernel_mutates and not same_values(after_kernel, after_new):
        return Check("input_mutation", "FAIL", "the kernel changes its inputs in place and ModelNew does not "
                     "change them the same way")
    return Check("input_mutation", "PASS", "inputs unchanged" if not kernel_mutates else
                 "inputs changed exactly as the kernel changes them")


def check_alias(out_new: Any, inputs_new: Any, new: nn.Module, out_kernel: Any, inputs_kernel: Any,
                kernel: nn.Module) -> Check:
    def aliased(out: Any, inputs: Any, model: nn.Module) -> bool:
        held = _storages(tensors(inputs)) | _storages([*model.parameters(), *model.buffers()])
        return bool(_storages(tensors(out)) & held)
    if aliased(out_new, inputs_new, new) and not aliased(out_kernel, inputs_kernel, kernel):
        return Check("output_alias", "FAIL", "an output of ModelNew shares memory with an input or a parameter "
                     "(the kernel's outputs do not): it hands back data it was given instead of computing it")
    return Check("output_alias", "PASS", "outputs in memory of their own")


def check_stale(first: Any, first_copy: Any, second: Any, kernel_first: Any, kernel_second: Any) -> Check:
    if _storages(tensors(first)) & _storages(tensors(second)):
        return Check("stale_output", "FAIL", "ModelNew returns the same buffer on every call: the output of a "
                     "previous call, overwritten or not")
    if not same_values(first, first_copy):
        return Check("stale_output", "FAIL", "a second call changed the output of the first one")
    if same_values(first, second) and not same_values(kernel_first, kernel_second):
        return Check("stale_output", "FAIL", "ModelNew gives the same output for new inputs (the kernel does "
                     "not): an output left over from a previous call")
    return Check("stale_output", "PASS", "two calls on fresh inputs: fresh outputs, the first left as it was")


def check_side_work(threads_left: list[str], changed_after: bool, device: torch.device,
                    event_seconds: float | None, wall_seconds: float | None) -> Check:
    if threads_left:
        return Check("side_work", "FAIL", f"ModelNew leaves thread(s) running after forward returns "
                     f"({', '.join(threads_left[:3])}): work the timing would miss")
    if changed_after:
        return Check("side_work", "FAIL", "ModelNew's output still changes after forward returned: work goes "
                     "on outside the call (a side stream or a thread) that the timing would miss")
    if device.type == "cuda" and event_seconds is not None and wall_seconds is not None and \
            event_seconds < 0.5 * wall_seconds and wall_seconds - event_seconds > 50e-6:
        return Check("side_work", "FAIL", f"the CUDA-event time of ModelNew ({event_seconds * 1e6:.1f} µs) is "
                     f"under half its synchronised time ({wall_seconds * 1e6:.1f} µs): work on a side stream "
                     "that the timing misses")
    detail = "nothing runs after forward returns"
    return Check("side_work", "PASS", detail + ("; event time matches the synchronised time"
                                                if device.type == "cuda" else ""))


def check_degenerate(kernel_outputs: list[Any]) -> Check:
    """A constant matches the kernel only when the kernel gives one and the same constant on every trial."""
    leaves = [t for out in kernel_outputs for t in tensors(out)]
    constant = all(t.numel() <= 1 or degenerate_kind(t) is not None for t in leaves)
    if leaves and constant and all(same_values(kernel_outputs[0], o) for o in kernel_outputs[1:]):
        values = [f"{t.flatten()[0].item():g}" for t in tensors(kernel_outputs[0]) if t.numel()][:2]
        return Check("degenerate_reference", "FAIL", f"the kernel's output is the constant {', '.join(values)} "
                     f"on every one of {len(kernel_outputs)} trials: a matching output proves nothing (a "
                     "replacement that returns that constant would match)")
    return Check("degenerate_reference", "PASS", f"the kernel's output varies over {len(kernel_outputs)} trials")


@contextlib.contextmanager
def watching_threads() -> Iterator[list[str]]:
    """The names of Python threads started meanwhile and still alive at the end (filled on exit)."""
    before = {t.ident for t in threading.enumerate()}
    left: list[str] = []
    yield left
    left.extend(t.name for t in threading.enumerate() if t.ident not in before and t.is_alive())


def settle(device: torch.device, seconds: float = 0.05) -> None:
    """Let anything still running after a call finish: a device synchronise, then a short wait."""
    synchronize(device)
    time.sleep(seconds)
    synchronize(device)


__all__ = ["Check", "FileWatch", "call", "check_alias", "check_degenerate", "check_mutation",
           "check_reference_call", "check_side_work", "check_signature", "check_stale", "op_trace",
           "same_values", "settle", "synchronize", "tensors", "watching_threads"]
