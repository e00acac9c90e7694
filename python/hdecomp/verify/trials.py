"""The halves of a trial, one per side (hdecomp.verify.sides): the original's draw of the inputs and its
forward on a clone of them (or a cached reference), the refactored model's forward on the pristine inputs,
watched for writes; big outputs spilled to disk. hdecomp.verify.step compares the two."""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.errors import ComponentRunError
from hdecomp.runtime.batch_limit import batch_cut_policy, cut_for, input_tensors
from hdecomp.runtime.component import (
    Component,
    clone_nested,
    map_nested,
    move_to,
    nested_tensor_bytes,
    run_user_code,
    seed_everything,
)
from hdecomp.runtime.input_writes import HeldEntries, WithWrites
from hdecomp.runtime.ops import OpTrace, record_ops
from hdecomp.runtime.settle import settle, state_versions, wrote_state
from hdecomp.verify.compare import LeafComparison, OutputComparison, first_float_dtype
from hdecomp.verify.reference_cache import Reference, ReferenceCache
from hdecomp.verify.result import SEED_BASE, Clock, VerifyOptions

_FP_CHUNK = 1 << 24  # elements per fingerprint chunk


def _fingerprint(t: torch.Tensor) -> tuple[Any, ...]:
    """A cheap summary that changes when a tensor is modified in place: the version counter (bumped by
    every in-place op) plus float64 sums computed chunk by chunk, so no full-size temporaries."""
    if t.numel() == 0:
        return (t._version,)
    flat = t.reshape(-1)
    total, sq = 0.0, 0.0
    for chunk in flat.split(_FP_CHUNK):
        if chunk.is_complex():
            chunk = torch.view_as_real(chunk)
        if chunk.dtype == torch.bool:
            chunk = chunk.to(torch.uint8)
        total += float(chunk.sum(dtype=torch.float64))
        if chunk.is_floating_point():
            sq += float(torch.linalg.vector_norm(chunk, dtype=torch.float64)) ** 2
    return (t._version, repr(total), repr(sq))


def _mutated(before: list[tuple[str, torch.Tensor]], after: list[tuple[str, torch.Tensor]]) -> list[str]:
    """Paths whose tensor changed: exact comparison between the pristine inputs and a model's copy."""
    out = []
    for (path, a), (_, b) in zip(before, after, strict=True):
        if a.shape != b.shape or a.dtype != b.dtype or not bool(
                torch.equal(a, b) or (a.is_floating_point() and bool(torch.isnan(a).any())
                                      and torch.allclose(a, b, rtol=0, atol=0, equal_nan=True))):
            out.append(path)
    return out


def _detach(obj: Any) -> Any:
    return map_nested(obj, lambda t: t.detach())


_BIG_BYTES = 256 << 20


def free_memory(device: torch.device, nbytes: int = 0) -> None:
    """Release what the last model run left. On CPU, reference counting frees a trial's tensors at
    once; a full collection costs up to ~0.3 s with torch loaded, so it runs only when big inputs may
    be kept alive by reference cycles (or on an accelerator); otherwise only the young generation."""
    if nbytes >= _BIG_BYTES or device.type != "cpu":
        gc.collect()
    else:
        gc.collect(0)
    if device.type == "cuda":
        torch.cuda.empty_cache()


# Outputs at least this big are kept on disk (memory-mapped back) between the two forwards of a trial.
SPILL_BYTES = 1 << 30


def spill_output(out: Any, device: torch.device) -> Path | None:
    """Write a big CPU output to a temporary file (exact: torch.save), so it does not sit in memory
    during the other model's forward; None when it is small, not on the CPU, or cannot be written."""
    if device.type != "cpu" or nested_tensor_bytes(out) < SPILL_BYTES:
        return None
    import os
    import tempfile
    fd, name = tempfile.mkstemp(prefix="hdecomp-out-", suffix=".pt")
    os.close(fd)
    path = Path(name)
    try:
        torch.save(out, path)
    except Exception:  # a full disk or an unpicklable leaf: keep the output in memory, as before
        path.unlink(missing_ok=True)
        return None
    return path


def load_spilled(path: Path) -> Any:
    """The spilled output, memory-mapped (pages come from the file as the chunked comparison reads them)."""
    return torch.load(path, mmap=True, weights_only=False)


def drop_spilled(path: Path) -> None:
    path.unlink(missing_ok=True)


def _forward(comp: Component, model: nn.Module, args: list[Any], kwargs: dict[str, Any], *, label: str,
             timeout: float | None, record: bool, root_locations: bool, clock: Clock, seed: int,
             ) -> tuple[Any, OpTrace | None]:
    what = f"{comp.class_name}.forward ({label})"
    # Same RNG state for both models: a forward that draws random numbers (noise, stochastic depth
    # written with torch.rand) then draws the same ones on both sides.
    seed_everything(seed)
    rng_before = torch.random.get_rng_state()
    clock.sync()
    t0 = time.perf_counter()
    trace: OpTrace | None = None
    held = HeldEntries(args, kwargs)   # (what it writes into the containers it is handed is output too)
    if record:
        out, trace = run_user_code(
            lambda: record_ops(model, args, kwargs,
                               locations_for=(lambda m: m == "") if root_locations else None),
            what=what, path=comp.path, timeout=timeout)
    else:
        def plain() -> Any:
            with torch.no_grad():
                return model(*args, **kwargs)
        out = run_user_code(plain, what=what, path=comp.path, timeout=timeout)
    clock.sync()
    clock.add("forward_recorded" if record else "forward", time.perf_counter() - t0)
    clock.forward_calls += 1
    if not torch.equal(rng_before, torch.random.get_rng_state()):
        clock.random_draws += 1   # the forward drew random numbers (the same ones on both sides)
    return _detach(WithWrites.of(out, held.written())), trace


@dataclass
class Trial:
    index: int | str
    seed: int
    comparison: OutputComparison
    mutated_original: list[str]
    mutated_refactored: list[str]
    randomized: bool = False
    input_dtype: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"trial": self.index, "seed": self.seed, "max_diff": self.comparison.max_diff,
                "pass": self.comparison.match, **({"inconclusive": True} if self.comparison.inconclusive else {}),
                "randomized_weights": self.randomized,
                "degenerate": self.comparison.degenerate,
                "input_mutated_by_original": self.mutated_original,
                "input_mutated_by_refactored": self.mutated_refactored,
                "output_details": self.comparison.details()}


BRANCH_TRIALS = 8  # extra trials at most, looking for the inputs/weights that take a child's branch


def branch_trial_seed(k: int) -> int:
    """The input seed of the k-th branch trial."""
    return SEED_BASE + 100 + k


def trial_input_seeds(num_trials: int) -> list[int]:
    """The seeds of every input a step's verification may draw, in its order: the trials, the randomized-weights
    trial, the branch trials. A planner that looks for the inputs reaching a branch draws these, so that the
    children it writes are the ones the verifier's trials call."""
    return [SEED_BASE + i for i in range(num_trials + 1)] + [branch_trial_seed(k) for k in range(BRANCH_TRIALS)]


class ChildCalls:
    """Counts the calls of the refactored model's children across trials (forward pre-hooks); with
    `every_module`, of every submodule (the original's, whose items a child may mirror)."""

    def __init__(self, model: nn.Module, every_module: bool = False) -> None:
        from hdecomp.anticheat.structural import component_children
        self.counts: dict[str, int] = {}
        self.unknown = False   # a run whose calls these counts miss
        self._handles: list[Any] = []
        named = list(model.named_modules()) if every_module else component_children(model)
        for qn, child in named:
            self.counts[qn] = 0
            self._handles.append(child.register_forward_pre_hook(self._hook(qn)))

    def _hook(self, qn: str) -> Any:
        def pre(_m: nn.Module, _a: Any) -> None:
            self.counts[qn] += 1
        return pre

    def never_called(self) -> list[str]:
        return [qn for qn, n in self.counts.items() if n == 0]

    def add(self, counts: dict[str, int] | None) -> None:
        """The calls of a run these hooks did not see (a cached reference's); None: not known."""
        if counts is None:
            self.unknown = True
            return
        for q, n in counts.items():
            if q in self.counts:
                self.counts[q] += n

    def close(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []


class EntryReads:
    """Which entries of stacked tensors of the original its forwards read (`self.weight[i]`, one expert's weight
    of a mixture of experts' stacked weights), across trials: the counterpart of the original's submodule calls
    for a refactored child holding one entry (hdecomp.formats.weight_map.WeightSlice.entry). An entry is read as
    `tensor[i]` (an int, or a 0-dim integer tensor); any other use of the tensor but its metadata reads all of
    it (`whole`)."""

    _METADATA = frozenset({"shape", "dtype", "device", "size", "dim", "ndim", "numel", "is_floating_point",
                           "requires_grad", "is_cuda", "layout", "stride", "__len__", "__get__"})

    def __init__(self, model: nn.Module, names: list[str]) -> None:
        from torch.overrides import TorchFunctionMode

        from hdecomp.verify.weights import named_tensors
        held = {e.name: e.tensor for e in named_tensors(model, attributes=True)}
        self.read: dict[str, set[int]] = {n: set() for n in names if n in held}
        self.whole: set[str] = {n for n in names if n not in held or held[n].dim() == 0}
        self._sizes = {n: int(held[n].shape[0]) for n in self.read if n not in self.whole}
        self._by_id = by_id = {id(held[n]): n for n in self.read}
        reads = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                kwargs = kwargs or {}
                if by_id and any(id(a) in by_id for a in (*args, *kwargs.values())):
                    reads._note(func, args)
                return func(*args, **kwargs)

        self._mode = Mode()

        def enter(_m: nn.Module, _a: Any) -> None:
            self._mode.__enter__()

        def leave(_m: nn.Module, _a: Any, _o: Any) -> None:
            self._mode.__exit__(None, None, None)
        self._handles = [model.register_forward_pre_hook(enter), model.register_forward_hook(leave, always_call=True)]

    def _note(self, func: Any, args: Any) -> None:
        name = getattr(func, "__name__", "")
        held = self._by_id.get(id(args[0])) if args else None
        index = _entry_index(args[1]) if name == "__getitem__" and held is not None and len(args) == 2 else None
        if index is not None and held in self._sizes:
            self.read[held].add(index % self._sizes[held])
        elif name not in self._METADATA:
            self.whole |= {self._by_id[id(a)] for a in args if id(a) in self._by_id}

    def unread(self, name: str, index: int) -> bool:
        """Whether no forward so far read entry `index` of tensor `name`, nor the whole tensor."""
        return name in self.read and name not in self.whole and index not in self.read[name]

    def close(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []


def _entry_index(i: Any) -> int | None:
    """The entry `tensor[i]` reads where `i` picks one (an int, a 0-dim integer tensor), else None."""
    if isinstance(i, int) and not isinstance(i, bool):
        return i
    if isinstance(i, torch.Tensor) and i.dim() == 0 and not i.is_floating_point() and i.dtype != torch.bool:
        return int(i)
    return None


def idle_for(counts: dict[str, int], unknown: bool, child: str, mapping: dict[str, str]) -> bool:
    """Whether the refactored `child`, never called, holds (by the weight map's `mapping`) only state of original
    submodules these trials never called either (`counts`: the original's submodule calls, `unknown`: some run
    went uncounted): an expert the router picked in no trial, in the original as in the refactored model.
    Nothing runs on either side, so nothing is skipped."""
    if unknown or counts.get("", 0) == 0:
        return False   # not known which of the original's submodules ran
    originals = [o for o, r in mapping.items() if r.startswith(child + ".")]
    if not originals:
        return False
    owners = {o.rsplit(".", 1)[0] if "." in o else "" for o in originals}
    return all(o and counts.get(o, 1) == 0 for o in owners)


class SharedStateWritten(Exception):
    """A forward wrote a tensor both models share: the step is verified again with copies."""


class Unsettled(Exception):
    """The original's first forward wrote its own parameters or buffers (hdecomp.runtime.settle): the step is
    verified again with both models settled (VerifyOptions.settle)."""


@dataclass
class TrialContext:
    """What every trial of one model runs with: its component and built model, the options it is verified under
    (the run settings: hdecomp.runtime.settings), the clock that times the run, and the device of this side.
    One per model a side holds (the refactored side holds the original's copy too, to draw its inputs)."""

    comp: Component
    model: nn.Module
    options: VerifyOptions
    clock: Clock
    device: torch.device


def settle_model(ctx: TrialContext, orig: TrialContext, label: str) -> None:
    """`ctx`'s model run once on the first trial's inputs, drawn from the original `orig`, as a trial runs it,
    its output dropped: it is then as its first forward left it (hdecomp.runtime.settle)."""
    args, kwargs = trial_inputs(orig, SEED_BASE, {})
    settle(ctx.model, lambda: _forward(ctx.comp, ctx.model, args, kwargs, label=f"{label}, settling",
                                       timeout=ctx.options.timeout, record=False, root_locations=False,
                                       clock=ctx.clock, seed=SEED_BASE))


def holds_meta_tensors(model: nn.Module) -> bool:
    """Whether anything of `model` still lives on the meta device: a tensor the weight map did not give it,
    or a plain tensor attribute its constructor made."""
    if any(t.is_meta for t in [*model.parameters(), *model.buffers()]):
        return True
    # (a plain attribute, or a list of them: torchvision's AnchorGenerator.cell_anchors)
    return any(isinstance(t, torch.Tensor) and t.is_meta for m in model.modules() for v in vars(m).values()
               for t in (v if isinstance(v, (list, tuple)) else [v]))


_PLAIN = (int, float, bool, str, type(None))


def state_signature(model: nn.Module) -> list[Any]:
    """What a forward could change of its own state: every tensor attribute (parameters, buffers and plain
    tensors: which object, and its version counter) and every plain Python value of every submodule (a
    call counter). Equal before and after a forward: the forward is stateless as far as can be seen."""
    sig: list[Any] = []
    for qn, m in model.named_modules():
        for k, v in vars(m).items():
            if isinstance(v, torch.Tensor):
                sig.append((qn, k, id(v), v._version))
            elif isinstance(v, _PLAIN):
                sig.append((qn, k, v))
            elif k in ("_parameters", "_buffers"):
                sig.extend((qn, n, id(t), t._version) for n, t in v.items() if t is not None)
    return sig


def trial_inputs(original: TrialContext, seed: int, batch_info: dict[str, Any], input_scale: float | None = None,
                 ) -> tuple[list[Any], dict[str, Any]]:
    """A trial's inputs, drawn from the original's file under `seed` and cut to --batch-limit as the original
    allows; `batch_info` (empty) is filled with how, from the first trial's inputs (they describe the step).
    With `input_scale`: a probe, float inputs redrawn as N(0, scale²) (same shapes and dtypes)."""
    orig, m_orig, options, clock, device = (original.comp, original.model, original.options, original.clock,
                                            original.device)
    t0 = time.perf_counter()
    args, kwargs = orig.make_inputs(seed=seed, device=device, timeout=options.timeout,
                                    batch_limit=options.batch_limit)   # (on this side's device object)
    override = orig.last_batch_override
    cuts: list[dict[str, Any]] = []
    policy = batch_cut_policy(orig.module, args, kwargs, orig.batch_size_kept(options.batch_limit, options.timeout))
    full_size = False
    if options.batch_limit is not None and policy == "cut":
        # only a file without `batch_size` builds its full batch; a square-matrix input has no batch; the
        # original model decides which leading size is the batch (hdecomp.runtime.batch_limit.choose_cut)
        chosen = cut_for(orig, args, kwargs, options, model=m_orig)
        args, kwargs, cuts, full_size = chosen.args, chosen.kwargs, chosen.cuts, chosen.full_size
    if not batch_info:  # the first trial's inputs describe the step
        batch_info["batch_cuts"] = cuts
        batch_info["batch_size_override"] = (None if override is None
                                             else {"from": override[0], "to": override[1]})
        batch_info["batch_limit_method"] = (
            None if options.batch_limit is None
            else "+".join(m for m, used in (("batch_size", override is not None), ("cut", bool(cuts))) if used)
            or ("not_applicable" if policy == "not_applicable" else "full_size" if full_size else "not_needed"))
        batch_info["input_shapes"] = {p: list(t.shape) for p, t in input_tensors(args, kwargs)}
    if input_scale is not None:
        gen = torch.Generator(device=device).manual_seed(seed)
        with torch.no_grad():
            for _, t in input_tensors(args, kwargs):
                if t.is_floating_point():
                    t.copy_(torch.randn(t.shape, generator=gen, device=t.device, dtype=t.dtype) * input_scale)
    clock.add("inputs", time.perf_counter() - t0)
    return args, kwargs


def trial_label(index: int | str, seed: int, weights: str, input_scale: float | None) -> str:
    """A trial's name in the reference cache: its index, input seed, weights and probe scale."""
    return f"{index}-s{seed}-w{weights}" + (f"-x{input_scale:g}" if input_scale is not None else "")


@dataclass
class OriginalRun:
    """The original's side of one trial: its output (None while spilled to disk), trace and input writes."""
    output: Any
    trace: OpTrace | None
    mutated: list[str]
    spilled: Path | None = None
    wrote_state: bool = False   # the forward wrote the original's own parameters or buffers (runtime/settle.py)

    def take_output(self) -> Any:
        """The output, read back from disk where it was spilled (the file is removed; the mapping stays)."""
        if self.spilled is not None:
            self.output = load_spilled(self.spilled)
            drop_spilled(self.spilled)
            self.spilled = None
        return self.output

    def drop(self) -> None:
        if self.spilled is not None:
            drop_spilled(self.spilled)
            self.spilled = None


def original_half(ctx: TrialContext, args: list[Any], kwargs: dict[str, Any], seed: int, label: str, record: bool,
                  reference: ReferenceCache | None = None, original_calls: ChildCalls | None = None,
                  spill: bool = True) -> OriginalRun:
    """The original's forward on a clone of the trial's inputs (`args`/`kwargs` stay pristine), or a cached
    reference for `label` (the same original, seeds and settings verified before: reference_cache.py).
    `original_calls`: the counts of the original's submodule calls, to which a cached reference adds the ones
    it stands for. With `spill`, a big output waits for the comparison on disk."""
    orig, m_orig, options, clock, device = ctx.comp, ctx.model, ctx.options, ctx.clock, ctx.device
    t0 = time.perf_counter()
    pristine = input_tensors(args, kwargs)
    nbytes = sum(t.numel() * t.element_size() for _, t in pristine)
    cached = reference.get(label, need_trace=record, device=device) if reference is not None else None
    wrote = False
    clock.add("inputs", time.perf_counter() - t0)
    if cached is not None:
        out_o, trace_o, mutated_o = cached.output, cached.trace, cached.mutated
        clock.random_draws += cached.drew_random
        if original_calls is not None:
            original_calls.add(cached.module_calls)
    else:
        calls_before = dict(original_calls.counts) if original_calls is not None else {}
        t0 = time.perf_counter()
        o_args, o_kwargs = clone_nested(args), clone_nested(kwargs)
        # (the input tensors themselves, read again after the run: a forward that appends to an input list,
        # torchvision's LastLevelP6P7 `p.extend([p6, p7])`, leaves the ones it got where they were)
        o_before = input_tensors(o_args, o_kwargs)
        o_versions = [t._version for _, t in o_before]
        state = state_signature(m_orig) if reference is not None else None
        versions = state_versions(m_orig)
        draws = clock.random_draws
        clock.add("inputs", time.perf_counter() - t0)
        out_o, trace_o = _forward(orig, m_orig, o_args, o_kwargs, label="original", timeout=options.timeout,
                                  seed=seed, record=record, root_locations=False, clock=clock)
        t0 = time.perf_counter()
        # judged as the refactored model is: changed values, or an in-place write of the same values
        # (a ReLU(inplace=True) on inputs that are already positive)
        wrote = wrote_state(m_orig, versions)
        changed_o = set(_mutated(pristine, o_before))
        mutated_o = [p for (p, t), v in zip(o_before, o_versions, strict=True) if p in changed_o or t._version != v]
        mutated_o += [f"{p} (an entry written)" for p in WithWrites.paths(out_o)]
        del o_before
        del o_args, o_kwargs
        clock.add("inputs", time.perf_counter() - t0)
        t0 = time.perf_counter()
        if reference is not None:
            if state != state_signature(m_orig):
                reference.poison()   # its own state changed: a later trial would start elsewhere
            else:
                ran = ({q: n - calls_before.get(q, 0) for q, n in original_calls.counts.items()}
                       if original_calls is not None else None)
                reference.put(label, Reference(out_o, mutated_o, clock.random_draws > draws, trace_o, ran))
            clock.add("reference_cache", time.perf_counter() - t0)
    t0 = time.perf_counter()
    # A big output waits for the comparison on disk, not in memory, while the refactored model runs (an
    # attention fusion's output is a 4 GB score matrix at batch 1: held, it would be a third copy).
    spilled = spill_output(out_o, device) if spill else None
    if spilled is not None:
        out_o = None
    free_memory(device, nbytes)
    clock.add("inputs", time.perf_counter() - t0)
    return OriginalRun(out_o, trace_o, mutated_o, spilled, wrote_state=wrote)


def refactored_half(ctx: TrialContext, args: list[Any], kwargs: dict[str, Any], seed: int, record: bool,
                    ) -> tuple[Any, OpTrace | None, list[str]]:
    """The refactored model's forward on the trial's pristine inputs, watched for writes: (output, trace,
    the input paths it modified). An exact snapshot while inputs are small (one memcpy now and one equality
    pass after: ~20x cheaper than the fingerprint's float64 passes, and exact); fingerprints only for big
    inputs, where a third copy would not fit."""
    ref, m_ref, clock = ctx.comp, ctx.model, ctx.clock
    t0 = time.perf_counter()
    pristine = input_tensors(args, kwargs)
    nbytes = sum(t.numel() * t.element_size() for _, t in pristine)
    snapshot = [t.clone() for _, t in pristine] if nbytes < _BIG_BYTES else None
    prints = [_fingerprint(t) for _, t in pristine] if snapshot is None else [t._version for _, t in pristine]
    clock.add("inputs", time.perf_counter() - t0)
    out_r, trace_r = _forward(ref, m_ref, args, kwargs, label="refactored", timeout=ctx.options.timeout,
                              seed=seed, record=record, root_locations=True, clock=clock)
    t0 = time.perf_counter()
    if snapshot is not None:
        changed = set(_mutated(list(zip([p for p, _ in pristine], snapshot, strict=True)), pristine))
        # the version counter too, as the fingerprint does: an in-place write of the same values counts
        mutated_r = [p for (p, t), v in zip(pristine, prints, strict=True) if p in changed or t._version != v]
        del snapshot
    else:
        mutated_r = [p for (p, t), fp in zip(pristine, prints, strict=False) if _fingerprint(t) != fp]
    mutated_r += [f"{p} (an entry written)" for p in WithWrites.paths(out_r)]
    clock.add("inputs", time.perf_counter() - t0)
    return out_r, trace_r, mutated_r


def input_dtype_name(args: list[Any], kwargs: dict[str, Any]) -> str | None:
    dtype = first_float_dtype([t for _, t in input_tensors(args, kwargs)])
    return str(dtype).replace("torch.", "") if dtype is not None else None


def given_half(ctx: TrialContext, args: list[Any], kwargs: dict[str, Any], label: str) -> Any:
    """One side's forward on inputs given as they are (hdecomp.verify.in_model: what the component receives in
    the model), on its own copy, under the trial seed."""
    args, kwargs = move_to(list(args), ctx.device), move_to(dict(kwargs), ctx.device)
    out, _ = _forward(ctx.comp, ctx.model, clone_nested(args), clone_nested(kwargs), label=label,
                      timeout=ctx.options.timeout, record=False, root_locations=label == "refactored",
                      clock=ctx.clock, seed=SEED_BASE)
    return out


def refactored_raised(exc: ComponentRunError) -> OutputComparison:
    """The comparison of a given-inputs trial on which the original runs and the refactored model raised."""
    return OutputComparison(leaves=[LeafComparison(
        path="out", match=False, max_diff=math.inf, reason=f"the refactored model raised: {exc.headline}")])
