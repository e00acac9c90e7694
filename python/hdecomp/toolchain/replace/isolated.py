"""The kernel-level proof of `hdecomp replace`, with the judge apart from the judged: the kernel runs in one
process, the candidate (`ModelNew`) in another, both fresh (`runtime.side`), and this process, which imports
neither, draws the trials, compares the outputs and keeps the clock. Outputs cross as plain data, so the
candidate cannot reach the comparison, the clock, the reference's outputs or the reference cache; whatever
it changes in its own process is part of the verdict (`hacks.check_global_state`).

The trials: the kernel file's own seeded draws (seeds 42, 43, ...), one draw with a seed nobody can know
in advance, the judge's own draw (every float input of the first draw moved: x * 1.37 + 0.11, which also
tells whether the kernel's output follows its inputs at all), and the first draw again with every float
weight re-drawn on both sides (`verify.weights._randomize_`).
"""

from __future__ import annotations

import math
import secrets
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from hdecomp.errors import HdecompError
from hdecomp.runtime.settings import RunSettings
from hdecomp.runtime.side import Side
from hdecomp.runtime.wire import Opaque, decode, encode, tensor_descriptions
from hdecomp.toolchain.replace.hacks import (
    Check,
    check_alias,
    check_degenerate,
    check_global_state,
    check_input_dependence,
    check_introspection,
    check_mutation,
    check_output_type,
    check_reference_call,
    check_side_work,
    check_signature,
    check_stale,
    same_values,
)
from hdecomp.verify.compare import compare_outputs, first_float_dtype


class Refused(Exception):
    """A check decided the verdict (FAIL, or ERROR where `error`)."""

    def __init__(self, check: Check, error: bool = False) -> None:
        super().__init__(check.detail)
        self.check, self.error = check, error


@dataclass
class Answer:
    """One side's answer: its message, its value decoded (where it sent one), its audit."""

    message: dict[str, Any]
    buffers: list[bytes]

    def value(self, key: str, start: int = 0, stop: int | None = None) -> Any:
        return decode(self.message[key], self.buffers[start:stop])

    @property
    def audit(self) -> dict[str, Any]:
        return dict(self.message.get("audit") or {})


def ask(side: Side, op: str, inputs: Any = None, **params: Any) -> Answer:
    """A request whose `inputs` (a value) cross as plain data."""
    if inputs is None:
        return Answer(*side.request(op, **params))
    desc, bufs = encode(inputs)
    return Answer(*side.request(op, bufs, inputs=desc, **params))


def objects_in(value: Any) -> list[str]:
    """The types of the values that did not cross (named only)."""
    if isinstance(value, Opaque):
        return [value.type_name]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in objects_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in objects_in(v)]
    return []


def moved(draw: Any) -> Any:
    """The judge's own draw: every float tensor x of `draw` as x * 1.37 + 0.11 (positive stays positive)."""
    from hdecomp.runtime.component import map_nested
    return map_nested(draw, lambda t: t * 1.37 + 0.11 if t.is_floating_point() else t.clone())


@dataclass
class KernelProof:
    """What the kernel-level proof measured (recorded in replacement_result.json)."""

    trials: list[dict[str, Any]] = field(default_factory=list)
    max_diff: float = 0.0
    kernel_outputs: list[Any] = field(default_factory=list)
    flops: int = 0
    nbytes: int = 0
    kernel_seconds: float = 0.0
    replacement_seconds: float = 0.0
    dtype: torch.dtype = torch.float32
    follows_inputs: bool = True


def prove_kernel(kernel_path: Path, new_path: Path, root: Path, forbidden: set[Path], *, run: RunSettings,
                 tolerance: Callable[[torch.dtype], tuple[float, float]], warmup: int, runs: int,
                 record: Callable[[Check], None], say: Callable[[str], None]) -> KernelProof:
    """Every kernel-level check, each `record`ed in CHECK_ORDER (a FAIL raises there), and the timing, under the
    run settings `run` (the device, the batch limit, the time limit, the number of seeded trials)."""
    device, batch_limit, timeout, num_trials = run.device, run.batch_limit, run.timeout, run.num_trials
    proof = KernelProof()
    with Side("kernel", timeout=timeout) as ref, Side("candidate", timeout=timeout) as new:
        say(f"loading {kernel_path.name} and {new_path.name}, each in a process of its own")
        loaded = ask(ref, "load", path=str(kernel_path), class_names=["Model"], device=device,
                     batch_limit=batch_limit, timeout=timeout, seed=0)
        seeds = [42 + i for i in range(max(5, num_trials))]
        unseen = 1000 + secrets.randbelow(1 << 30)
        draws = ask(ref, "inputs", seeds=[*seeds, unseen], batch_limit=batch_limit).value("draws")
        judge_draw = moved(draws[0])
        kernel_state = ask(ref, "state")
        ref_outs = [ask(ref, "call", d).value("out") for d in [*draws, judge_draw]]
        proof.kernel_outputs = ref_outs[:len(seeds)]
        init_desc, init_bufs = loaded.message["init"], loaded.buffers
        try:
            got = Answer(*new.request("load", init_bufs, path=str(new_path), class_names=["ModelNew"],
                                      require_inputs=False, init=init_desc, batch_kept=loaded.message["batch_kept"],
                                      device=device, batch_limit=batch_limit, timeout=timeout, seed=0, watch=True,
                                      forbidden=sorted(str(p) for p in forbidden)))
        except HdecompError as exc:
            raise Refused(Check("signature", "FAIL", f"ModelNew could not be built: {exc.headline}"), error=True) \
                from None
        record_audit = _auditor(record)
        bound = ask(new, "bind", draws[0])
        sig = check_signature(loaded.message["state"], got.message["state"], bound.message.get("problem"))
        if sig.status == "FAIL":
            raise Refused(sig, error=True)
        record(sig)
        new.request("set_state", kernel_state.buffers, state=kernel_state.message["state"])
        kernel_ops = ask(ref, "ops", draws[0]).message["ops"]
        new_ops_answer = ask(new, "ops", draws[0])
        # one call on the first draw, then one on the second: what they did, what they left
        first_k = ask(ref, "call", draws[0], return_inputs=True)
        first_n = ask(new, "call", draws[0], return_inputs=True, settle=0.05)
        second_n = ask(new, "call", draws[1], settle=0.0)
        repeat_n = ask(new, "call", draws[1], settle=0.0)   # the same values in memory of their own
        record_audit(repeat_n.audit, new_ops_answer.audit)
        record(check_reference_call(list(second_n.audit.get("files", [])),
                                    [tuple(o) for o in kernel_ops], [tuple(o) for o in new_ops_answer.message["ops"]],
                                    root))
        out_n = first_n.value("out", 0, first_n.message.get("inputs_after_buffers", [None])[0])
        new_descs = tensor_descriptions(first_n.message["out"])
        record(check_output_type(new_descs, objects_in(out_n), objects_in(ref_outs[0])))
        record(check_side_work(list(first_n.message["threads_left"]), bool(first_n.message["changed_after"])))
        k_split, n_split = first_k.message["inputs_after_buffers"], first_n.message["inputs_after_buffers"]
        record(check_mutation(draws[0], first_n.value("inputs_after", *n_split),
                              first_k.value("inputs_after", *k_split)))
        record(check_alias(bool(first_n.message["alias"]), bool(first_k.message["alias"])))
        out_n1 = second_n.value("out")
        record(check_stale(bool(second_n.message.get("shares_previous") or repeat_n.message.get("shares_previous")),
                           bool(second_n.message.get("previous_changed")),
                           same_values(out_n, out_n1), not same_values(ref_outs[0], ref_outs[1])))

        # the judge's own draw: does the output follow the inputs (the kernel's, the candidate's)?
        judge_n = ask(new, "call", judge_draw).value("out")
        again_n = ask(new, "call", draws[0]).value("out")
        proof.follows_inputs = not same_values(ref_outs[-1], ref_outs[0])
        kernel_repeats = same_values(ref_outs[0], first_k.value("out", 0, k_split[0]))
        record(check_input_dependence(proof.follows_inputs, not same_values(judge_n, out_n),
                                      kernel_repeats and not same_values(again_n, out_n)))

        # the trials, compared here
        proof.dtype = first_float_dtype(ref_outs[0]) or first_float_dtype(draws[0]) or torch.float32
        rtol, atol = tolerance(proof.dtype)
        say(f"proving ModelNew against {kernel_path.name}: {len(seeds)} seeded draws, one unseen, the judge's own, "
            "re-randomised weights")
        labels = [f"seed {s}" for s in seeds] + ["an unseen seed", "the judge's own draw"]
        for label, draw, expected in zip(labels, [*draws, judge_draw], ref_outs, strict=True):
            out = out_n if draw is draws[0] else judge_n if draw is judge_draw else ask(new, "call", draw).value("out")
            _compare(proof, label, expected, out, rtol, atol, kernel_path, record)
        # every float weight re-drawn, identically on both sides
        state = kernel_state.value("state")
        if any(t.is_floating_point() for t in state.values()):
            from hdecomp.verify.weights import randomized_state
            desc, bufs = encode(randomized_state(state))
            for side in (ref, new):
                side.request("set_state", bufs, state=desc)
            _compare(proof, "re-randomised weights", ask(ref, "call", draws[0]).value("out"),
                     ask(new, "call", draws[0]).value("out"), rtol, atol, kernel_path, record)
            for side in (ref, new):
                side.request("set_state", kernel_state.buffers, state=kernel_state.message["state"])
        final = ask(new, "call", draws[0])
        record_audit(final.audit, {})
        record(Check("trials", "PASS", f"{len(proof.trials)} trials ({', '.join(t['trial'] for t in proof.trials)}), "
                     f"max diff {proof.max_diff:.2e} (rtol {rtol:g}, atol {atol:g}), compared by the judge"))
        record(check_degenerate(proof.kernel_outputs, proof.follows_inputs))

        say("timing the kernel and ModelNew, each in its own process, by the judge's clock")
        work = ask(ref, "work", draws[0]).message
        proof.flops, proof.nbytes = int(work["flops"]), int(work["bytes"])
        proof.kernel_seconds, proof.replacement_seconds = time_sides(ref, new, draws[0], warmup=warmup, runs=runs)
        record_audit(ask(new, "call", draws[1]).audit, {})
    return proof


def _auditor(record: Callable[[Check], None]) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    """Records global_state and introspection once from the candidate's audits; later audits only refuse."""
    done: list[bool] = []

    def check(*audits: dict[str, Any]) -> None:
        changes = sorted({c for a in audits for c in a.get("global_state", [])})
        hits = sorted({h for a in audits for h in a.get("introspection", [])})
        gs, intro = check_global_state(changes), check_introspection(hits)
        if not done:
            done.append(True)
            record(gs)
            record(intro)
        else:
            for c in (gs, intro):
                if c.status == "FAIL":
                    record(c)
    return check


def _compare(proof: KernelProof, label: str, expected: Any, got: Any, rtol: float, atol: float, kernel_path: Path,
             record: Callable[[Check], None]) -> None:
    cmp = compare_outputs(expected, got, rtol=rtol, atol=atol)
    diff = cmp.max_diff if math.isfinite(cmp.max_diff) else float("inf")
    proof.trials.append({"trial": label, "match": cmp.match, "max_diff": diff})
    proof.max_diff = max(proof.max_diff, diff)
    if not cmp.match:
        bad = cmp.first_failure()
        why = f"{bad.path}: {bad.reason}" if bad is not None and bad.reason else f"max diff {diff:.2e}"
        record(Check("trials", "FAIL", f"ModelNew differs from the kernel {kernel_path.name} on {label}: {why} "
                     f"(rtol {rtol:g}, atol {atol:g})"))


def time_sides(a: Side, b: Side, draw: Any, *, warmup: int, runs: int, target: float = 0.02) -> tuple[float, float]:
    """(median seconds of one forward of a, of b), by the judge's clock: each measurement is one request
    that runs k forwards, each on a fresh copy of the inputs made beforehand, and answers when they (and
    the device) are done; the round trip of an empty request made just before it is taken off (paired, so a
    machine whose load changes during the measurement shifts both alike), and k is chosen so a request lasts
    about `target` seconds, with the k copies together at most 8 MiB (run newest first, so each forward reads
    inputs still in cache, as in a model). Measured alternately (a, b, a, b, ...) after `warmup` of each."""
    desc, bufs = encode(draw)
    nbytes = sum(len(x) for x in bufs)
    per: list[tuple[Side, float, int]] = []
    for side in (a, b):
        overhead = statistics.median(side.timed("noop")[0] for _ in range(7))
        side.request("prepare_timing", bufs, inputs=desc, k=1)
        one = max(min(side.timed("timed")[0] for _ in range(3)) - overhead, 1e-7)
        cap = max(1, (8 << 20) // max(1, nbytes))   # the copies of one request fit in a cache (8 MiB)
        per.append((side, overhead, int(min(cap, 1000, max(1, math.ceil(target / one))))))
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(warmup + runs):
        for (side, overhead, k), out in zip(per, times, strict=True):
            side.request("prepare_timing", bufs, inputs=desc, k=k, seed=i)   # (the same copies for both sides)
            empty, _ = side.timed("noop")
            seconds, _ = side.timed("timed")
            if i >= warmup:
                out.append(max(seconds - min(empty, overhead), 0.0) / k)
    return statistics.median(times[0]), statistics.median(times[1])


__all__ = ["KernelProof", "Refused", "prove_kernel", "time_sides"]
