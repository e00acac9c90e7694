"""The reward hacks `hdecomp replace` refuses. The kernel and the candidate each run in a process of their
own (`runtime.side`); what they did arrives here as plain data, and every check below is the judge's:
- `global_state`: the candidate's process changed a global setting (threads, oneDNN, determinism, default
  dtype, matmul precision, grad mode, ...) or replaced an attribute of `torch`, `torch.nn.functional`,
  `torch.Tensor`, an `nn` layer, `time`, `gc`, `sys`, ... (a patched comparison, clock or functional);
- `introspection`: its code reached into the interpreter's memory (`gc.get_objects`, `sys._getframe`, ...),
  the way one finds another component's output;
- `reference_call`: it read a file of the decomposition, or runs the kernel's own aten op sequence;
- `output_type`: an output that is not a plain dense `torch.Tensor` (a subclass, lazy or lying);
- `input_mutation`, `output_alias`, `stale_output`, `side_work`: what one call did to its inputs, which
  memory it returned, whether a later call reuses or changes it, what went on after it returned;
- `input_dependence`: its output ignores inputs the kernel's output follows;
- `degenerate_reference`: a kernel whose output does not follow its inputs is reported and compared as
  the constant it is.

Each check gives a `Check` (PASS, FAIL with the reason, or SKIPPED with why); `replace.run` stops at the
first FAIL. The speed-of-light check lives with the timing (`replace.timing`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from hdecomp.runtime.batch_limit import tensors_at
from hdecomp.verify.compare import compare_outputs


@dataclass
class Check:
    name: str
    status: str          # PASS | FAIL | SKIPPED
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


def tensors(obj: Any) -> list[torch.Tensor]:
    """The tensors nested in `obj` (runtime.batch_limit's walk)."""
    return [t for _, t in tensors_at(obj, "")]


def same_values(a: Any, b: Any) -> bool:
    """Bit for bit (NaN equal to NaN), nested outputs leaf by leaf."""
    return compare_outputs(a, b, rtol=0.0, atol=0.0).match


def check_signature(kernel_state: dict[str, Any], new_state: dict[str, Any], bind_problem: str | None) -> Check:
    """The kernel's state (keys, shapes, dtypes) and a forward that takes the kernel's inputs."""
    ks = {k: (tuple(v[0]), v[1]) for k, v in kernel_state.items()}
    ns = {k: (tuple(v[0]), v[1]) for k, v in new_state.items()}
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
    if bind_problem:
        return Check("signature", "FAIL", f"ModelNew.forward does not take the kernel's inputs ({bind_problem})")
    return Check("signature", "PASS", f"{len(ks)} state tensors as the kernel's; forward takes its inputs")


def check_global_state(changes: list[str]) -> Check:
    if changes:
        return Check("global_state", "FAIL", "ModelNew changes its process for everything else that runs in it: "
                     + "; ".join(changes[:4]) + (f" (and {len(changes) - 4} more)" if len(changes) > 4 else "")
                     + ". A replacement computes its outputs; it must not patch torch, the clock or the "
                     "comparison, nor change global settings")
    return Check("global_state", "PASS", "no global setting changed, no attribute of torch, torch.nn.functional, "
                 "torch.Tensor, the nn layers, time, gc, sys, math or builtins replaced")


def check_introspection(hits: list[str]) -> Check:
    if hits:
        return Check("introspection", "FAIL", "ModelNew reaches into the interpreter's memory: "
                     + ", ".join(hits[:3]) + " (the way one finds another component's output or a caller's "
                     "locals); a replacement computes from its inputs and its own state")
    return Check("introspection", "PASS", "no gc.get_objects/get_referrers/get_referents, sys._getframe or "
                 "sys._current_frames from ModelNew's code")


def check_reference_call(file_hits: list[str], kernel_ops: list[Any], new_ops: list[Any], root: Path) -> Check:
    if file_hits:
        shown = [os.path.relpath(h, root) if os.path.isabs(h) else h for h in file_hits[:3]]
        return Check("reference_call", "FAIL", "ModelNew uses the reference itself: it reads "
                     + ", ".join(shown) + " (a replacement must not load the decomposition's files)")
    if kernel_ops and new_ops == kernel_ops:
        names = sorted({op for op, _ in kernel_ops})
        return Check("reference_call", "FAIL", f"ModelNew runs the reference kernel's own computation: the "
                     f"same {len(kernel_ops)} aten op call(s) ({', '.join(names[:5])}) on the same shapes in the "
                     "same order; a replacement must compute it another way")
    return Check("reference_call", "PASS", f"{len(new_ops)} aten op call(s), not the kernel's {len(kernel_ops)}; "
                 "no file of the decomposition read")


def check_output_type(new_out: list[dict[str, Any]], new_objects: list[str], kernel_objects: list[str]) -> Check:
    """`new_out`: the wire descriptions of ModelNew's output tensors; `*_objects`: the types of values in the
    outputs that are neither tensors nor plain data (they do not cross)."""
    odd = [d for d in new_out if d.get("type") != "torch.Tensor" or d.get("layout") != "strided" or d.get("meta")]
    if odd:
        d = odd[0]
        what = (f"a {d['type']}" if d.get("type") != "torch.Tensor" else
                "a meta tensor" if d.get("meta") else f"a {d.get('layout')} tensor")
        return Check("output_type", "FAIL", f"ModelNew returns {what}, not a plain dense torch.Tensor: a subclass "
                     "can defer its work until it is read, or answer a comparison as it likes; the kernel's "
                     "outputs are plain tensors")
    extra = sorted(set(new_objects) - set(kernel_objects))
    if extra:
        return Check("output_type", "FAIL", f"ModelNew returns an object of type {extra[0]} where the kernel "
                     "returns tensors and plain data")
    return Check("output_type", "PASS", f"{len(new_out)} plain dense tensor(s)")


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


def check_alias(new_aliases: bool, kernel_aliases: bool) -> Check:
    if new_aliases and not kernel_aliases:
        return Check("output_alias", "FAIL", "an output of ModelNew shares memory with an input or a parameter "
                     "(the kernel's outputs do not): it hands back data it was given instead of computing it")
    return Check("output_alias", "PASS", "outputs in memory of their own")


def check_stale(shares_previous: bool, previous_changed: bool, same_for_new_inputs: bool,
                kernel_differs: bool) -> Check:
    if shares_previous:
        return Check("stale_output", "FAIL", "ModelNew returns the same buffer on every call: the output of a "
                     "previous call, overwritten or not")
    if previous_changed:
        return Check("stale_output", "FAIL", "a second call changed the output of the first one")
    if same_for_new_inputs and kernel_differs:
        return Check("stale_output", "FAIL", "ModelNew gives the same output for new inputs (the kernel does "
                     "not): an output left over from a previous call")
    return Check("stale_output", "PASS", "two calls on fresh inputs: fresh outputs, the first left as it was")


def check_side_work(threads_left: list[str], changed_after: bool) -> Check:
    if threads_left:
        return Check("side_work", "FAIL", f"ModelNew has thread(s) of its own running after forward returns "
                     f"({', '.join(threads_left[:3])}): work beside the call that the timing would miss")
    if changed_after:
        return Check("side_work", "FAIL", "ModelNew's output still changes after forward returned: work goes "
                     "on outside the call (a side stream or a thread) that the timing would miss")
    return Check("side_work", "PASS", "nothing runs after forward returns; its outputs stay as returned")


def check_input_dependence(kernel_follows: bool, new_follows: bool, new_drifts: bool = False) -> Check:
    """On the judge's own draw (every float input moved) the kernel's output changed: ModelNew's must too;
    and on the same inputs again the kernel gives the same output: so must ModelNew (`new_drifts`: it did
    not), or its output follows something else than its inputs and weights (a call count, a clock)."""
    if kernel_follows and not new_follows:
        return Check("input_dependence", "FAIL", "ModelNew returns the same output for other inputs while the "
                     "kernel's output follows them: it ignores its inputs (a memorised or replayed answer)")
    if new_drifts:
        return Check("input_dependence", "FAIL", "ModelNew returns another output for the same inputs and weights "
                     "on a later call (the kernel does not): it computes from something else than its inputs "
                     "(a call count, a clock, a replayed sequence)")
    return Check("input_dependence", "PASS", "ModelNew's output follows its inputs as the kernel's does, and "
                 "repeats for the same inputs" if kernel_follows else
                 "the kernel's output does not follow its float inputs (below); ModelNew's repeats for the same inputs")


def check_degenerate(kernel_outputs: list[Any], follows_inputs: bool) -> Check:
    """A kernel whose output is the same on every draw (and on the judge's own) does not depend on its
    inputs: reported, and compared as that constant (a replacement must return it, bit for bit within the
    tolerance; one that returns it passes, as it should)."""
    if not follows_inputs and all(same_values(kernel_outputs[0], o) for o in kernel_outputs[1:]):
        values = [f"{t.flatten()[0].item():g}" for t in tensors(kernel_outputs[0]) if t.numel()][:2]
        const = all(t.numel() <= 1 or bool((t == t.flatten()[0]).all()) for t in tensors(kernel_outputs[0]))
        what = f"the constant {', '.join(values)}" if const and values else "one and the same value"
        return Check("degenerate_reference", "PASS", f"the kernel's output does not depend on its inputs: it is "
                     f"{what} on all {len(kernel_outputs)} draws and on the judge's own; compared as that "
                     "constant (a replacement must return it)")
    return Check("degenerate_reference", "PASS", f"the kernel's output follows its inputs over "
                 f"{len(kernel_outputs)} draws")


def check_speed_of_light(seconds: float, floor: float, margin: float, spec: str, flops: int, nbytes: int) -> Check:
    """ModelNew's measured `seconds` against `margin` x the speed-of-light `floor` of the kernel's work."""
    if seconds < margin * floor:
        return Check("speed_of_light", "FAIL", f"ModelNew's median time {seconds * 1e6:.2f} µs is below "
                     + (f"{margin:g} x " if margin != 1 else "")
                     + f"the speed-of-light floor {floor * 1e6:.2f} µs of the kernel's work on {spec} ({flops} FLOPs, "
                     f"{nbytes} bytes): no honest implementation is that fast (work skipped, cached across calls, or "
                     "done outside the call)")
    return Check("speed_of_light", "PASS", f"{seconds * 1e6:.2f} µs against a floor of {floor * 1e6:.2f} µs on {spec}")


__all__ = ["Check", "check_alias", "check_degenerate", "check_global_state", "check_input_dependence",
           "check_introspection", "check_mutation", "check_output_type", "check_reference_call",
           "check_side_work", "check_signature", "check_speed_of_light", "check_stale", "same_values", "tensors"]
