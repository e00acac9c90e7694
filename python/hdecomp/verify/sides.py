"""The two sides of a step's verification, in this process or each in a process of its own.

`OriginalSide` holds the original model: it draws every trial's inputs, runs the original's forward (or reads
it from the reference cache) and re-randomises its weights. `RefactoredSide` holds the refactored model: it
builds it, maps the original's weights onto it, runs it on the inputs the original side drew, and makes the
structural and runtime anti-cheat checks on its own trace. hdecomp.verify.step drives both and compares.

In one process (`local_sides`: the decomposer's own steps, `VerifyOptions.isolate=False`) the two share the
original's weights. Isolated (`isolated_sides`, the default): each side is a fresh interpreter
(`python -m hdecomp.verify.sides`) and the driver, which imports neither file, compares the outputs, which
cross as plain data (hdecomp.runtime.wire). The refactored side never holds an output of the original nor
shares a process with its forward: it cannot read the reference (gc), patch the comparison, the clock, the
functional API the original calls, or the reference cache, which only the original's side reads and writes.
What it changes of its own process (torch's global settings, patched attributes), its introspection calls and
any file it opens in the reference cache come back with its answers (`audit`) and fail the step
(hdecomp.anticheat.runtime.check_isolation).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.errors import ComponentLoadError, ComponentRunError, ComponentTimeout, HdecompError
from hdecomp.formats.weight_map import (
    WEIGHT_MAP_FILE,
    UnknownOriginalKey,
    WeightMapError,
    load_explicit_map,
    parse_explicit_map,
)
from hdecomp.runtime.component import load_component, seed_everything
from hdecomp.runtime.memoized import clear_memoized
from hdecomp.runtime.settle import state_versions, wrote_state
from hdecomp.verify.result import (
    PROBE_SCALES,
    RANDOMIZED_WEIGHT_SEED,
    REFERENCE_KEY_OPTIONS,
    SEED_BASE,
    Clock,
    VerifyOptions,
)
from hdecomp.verify.trials import (
    ChildCalls,
    EntryReads,
    OriginalRun,
    TrialContext,
    given_half,
    holds_meta_tensors,
    input_dtype_name,
    original_half,
    refactored_half,
    settle_model,
    trial_inputs,
    trial_label,
)
from hdecomp.verify.weights import (
    WeightSlice,
    apply_weight_map,
    build_weight_map,
    forget_derived_state,
    has_float_state,
    named_tensors,
    plain_tensor_attributes,
    randomize_named,
    randomize_weights,
    share_weight_map,
)

ORIGINAL_CLASSES = ("Model", "RefactoredModel")


class OriginalSide:
    """The original model of a step and everything it decides: the inputs, the reference outputs, the weights."""

    def __init__(self, original: Path, options: VerifyOptions, device: torch.device, clock: Clock) -> None:
        self.path, self.options, self.device, self.clock = original, options, device, clock
        t0 = time.perf_counter()
        self.comp = load_component(original, class_names=ORIGINAL_CLASSES, timeout=options.timeout)
        clock.add("load", time.perf_counter() - t0)
        self.reference = _reference_cache(self.comp, options, device)
        t0 = time.perf_counter()
        seed_everything(0)
        self.model = self.comp.build(run=options)
        seed_everything(0)
        clock.add("build", time.perf_counter() - t0)
        # (the weights as built, fingerprinted: a reference made from other values is never read)
        if self.reference is not None:
            from hdecomp.verify.reference_cache import state_fingerprint
            self.init_state = f"init{state_fingerprint(self.model)}"
        else:
            self.init_state = "init"
        self.ctx = TrialContext(self.comp, self.model, options, clock, device)
        if options.settle:   # (as its first forward leaves it: hdecomp.runtime.settle)
            settle_model(self.ctx, self.ctx, "original")
            self.init_state += "-settled"
        self.has_float_state = has_float_state(self.model)
        self.calls = ChildCalls(self.model, every_module=True)   # (an item no trial reaches in either model)
        self.entries: EntryReads | None = None   # (the entries of stacked tensors read: track_entries)
        self.batch_info: dict[str, Any] = {}   # filled by the first trial: see trial_inputs
        self.shares_with: RefactoredSide | None = None   # in one process: the side that re-draws our weights
        self._given: list[tuple[list[Any], dict[str, Any]]] | None = None

    def describe(self) -> dict[str, Any]:
        return {"init_state": self.init_state, "has_float_state": self.has_float_state}

    def trial(self, seed: int, index: int | str, record: bool, weights: str,
              input_scale: float | None = None) -> tuple[Any, OriginalRun, str | None]:
        """(the trial's pristine inputs, the original's run on a copy of them, the inputs' float dtype)."""
        args, kwargs = trial_inputs(self.ctx, seed, self.batch_info, input_scale)
        run = original_half(self.ctx, args, kwargs, seed, trial_label(index, seed, weights, input_scale), record,
                            self.reference, self.calls, spill=self.shares_with is not None)
        return (args, kwargs), run, input_dtype_name(args, kwargs)

    def given_count(self) -> int:
        """How many recorded in-model calls sit next to the original (hdecomp.verify.in_model)."""
        if self._given is None:
            from hdecomp.verify.in_model import read_in_model_inputs
            self._given = read_in_model_inputs(self.path, vars(self.comp.module))
        return len(self._given)

    def given(self, k: int) -> tuple[Any, str | None]:
        """(the original's output on the k-th recorded call's inputs, their float dtype)."""
        self.given_count()
        assert self._given is not None
        args, kwargs = self._given[k]
        return (given_half(self.ctx, args, kwargs, "original"),
                input_dtype_name(args, kwargs))

    def randomize(self, names: list[str], seed: int) -> str:
        """Re-draw the weights `names` (in that order) as the refactored side drew them (randomize_weights);
        the label of the weights now held."""
        if self.shares_with is None:   # (in one process, the refactored side re-drew ours with its own)
            randomize_named(self.model, names, seed)
        clear_memoized(self.model)   # (a table its forward memoized from the weights it held is made again)
        return f"rand{seed}{attributes_label(self.model, names)}"

    def original_state(self) -> dict[str, torch.Tensor]:
        """The original's tensors as built, by name (parameters, buffers, plain tensor attributes): what the
        refactored side's copy of the original is given, so that both hold the very same values even where a
        build is not reproducible (weights left as `torch.empty` memory)."""
        return {e.name: e.tensor for e in named_tensors(self.model, attributes=True)}

    def batch_description(self) -> dict[str, Any]:
        """How --batch-limit was applied to the trials' inputs (trial_inputs), from the first trial's."""
        return dict(self.batch_info)

    def track_entries(self, names: list[str]) -> None:
        """Watch which entries of the stacked tensors `names` every later forward reads (trials.EntryReads):
        the refactored model holds them one per child. Each of those runs is the original's own, never a cached
        reference, which does not record them."""
        self.entries = EntryReads(self.model, names)
        self.reference = None

    def unread_entries(self, parts: list[tuple[str, int]]) -> bool:
        """Whether no forward so far read any of the entries `parts` ((tensor name, index)) of the original."""
        return self.entries is not None and all(self.entries.unread(n, i) for n, i in parts)

    def module_calls(self) -> tuple[dict[str, int], bool]:
        """(calls of each of the original's submodules over every trial, whether some run went uncounted)."""
        return dict(self.calls.counts), self.calls.unknown

    def cache_info(self) -> dict[str, Any]:
        ref = self.reference
        return ({"used": False} if ref is None else
                {"used": True, "trials_from_cache": ref.hits, "trials_stored": ref.stored,
                 "original_writes_its_state": ref.poisoned})

    def times(self) -> tuple[dict[str, float], int, int]:
        return dict(self.clock.times), self.clock.random_draws, self.clock.forward_calls

    def close(self) -> None:
        self.calls.close()
        if self.entries is not None:
            self.entries.close()
        self.model = self.ctx = None   # type: ignore[assignment]


class RefactoredSide:
    """The refactored model of a step: built, given the original's weights by the weight map, run on the
    original side's inputs, and checked on its trace."""

    def __init__(self, original: Path, refactored: Path, options: VerifyOptions, device: torch.device, clock: Clock,
                 *, original_side: OriginalSide | None = None, before_loading: Any = None) -> None:
        """`original_side`: in one process, the original side whose model (and weights) this side shares.
        Else this side builds a copy of the original, seeded as the original side builds it, for the weight
        map alone (it never runs here), and then calls `before_loading()`, before the refactored file loads."""
        self.path, self.options, self.device, self.clock = refactored, options, device, clock
        t0 = time.perf_counter()
        if original_side is not None:   # in one process: the original side's model, weights shared
            comp_o, m_orig = original_side.comp, original_side.model
            original_side.shares_with = self
        else:
            comp_o = load_component(original, class_names=ORIGINAL_CLASSES, timeout=options.timeout)
            clock.add("load", time.perf_counter() - t0)
            t0 = time.perf_counter()
            seed_everything(0)
            m_orig = comp_o.build(run=options)
            clock.add("build", time.perf_counter() - t0)
            if options.settle:   # (as the original side's: the weight map may name state its first forward makes)
                settle_model(TrialContext(comp_o, m_orig, options, clock, device),
                             TrialContext(comp_o, m_orig, options, clock, device), "original")
            if before_loading is not None:
                before_loading()
            t0 = time.perf_counter()
        self.comp = load_component(refactored, class_names=options.refactored_class, timeout=options.timeout,
                                   require_inputs=False)
        if options.init_from_original:
            self.comp.get_init_inputs = comp_o.get_init_inputs
        clock.add("load", time.perf_counter() - t0)
        t0 = time.perf_counter()
        seed_everything(0)
        self.original_model, self.original_comp = m_orig, comp_o
        ctor_args: list[Any] = []

        def build(meta: bool) -> nn.Module:
            ctx = torch.device("meta") if meta else contextlib.nullcontext()
            with ctx:
                if options.skip_anticheat:
                    return self.comp.build(None if meta else device, options.timeout, batch_limit=options.batch_limit)
                from hdecomp.anticheat import structural as st  # HD313: what reaches children's constructors
                with st.recording_constructor_arguments(self.comp.imported) as found:
                    built = self.comp.build(None if meta else device, options.timeout,
                                            batch_limit=options.batch_limit)
                ctor_args[:] = found
                return built

        m_ref = None
        if options.share_weights:
            with contextlib.suppress(HdecompError):   # a constructor that needs real tensors: built for real
                m_ref = build(meta=True)
        on_meta = m_ref is not None
        if m_ref is None:
            m_ref = build(meta=False)
        clock.add("build", time.perf_counter() - t0)

        # 4. weights
        t0 = time.perf_counter()
        auto_map = options.weight_map is None  # refined below; already true if reading the auto-picked map fails
        try:
            explicit, explicit_file, auto_map = _load_weight_map(options, refactored)
            wm = build_weight_map(m_orig, m_ref, explicit, explicit_file)
        except WeightMapError as exc:
            if not auto_map:
                raise
            raise type(exc)(f"{exc.cause} ({_auto_map_note(exc.file)})", exc.file, exc.line,
                                 exc.details) from exc
        if auto_map and wm.problems:
            wm.problems.append(_auto_map_note(explicit_file))
        shared = share_weight_map(m_orig, m_ref, wm) if on_meta and not wm.problems else None
        if on_meta and (shared is None or holds_meta_tensors(m_ref)):
            # not exactly shareable (an unmapped tensor, a plain tensor attribute built on meta): copies
            t1 = time.perf_counter()
            seed_everything(0)
            m_ref = build(meta=False)
            clock.add("build", time.perf_counter() - t1)
            wm = build_weight_map(m_orig, m_ref, explicit, explicit_file)
            if auto_map and wm.problems:
                wm.problems.append(_auto_map_note(explicit_file))
            shared = None
        if shared is None:
            apply_weight_map(m_orig, m_ref, wm)
        clock.add("weights", time.perf_counter() - t0)
        self.model, self.wm = m_ref, wm
        self.ctx = TrialContext(self.comp, m_ref, options, clock, device)
        self.original_ctx = TrialContext(comp_o, m_orig, options, clock, device)   # (to draw the inputs with)
        self.weight_transfer = {**wm.to_dict(), "picked_up_automatically": auto_map,
                                "shared_storage": shared is not None}
        # (in one process, a forward that writes a tensor both models share is verified again with copies; in a
        # process of its own, the original's copy here never runs)
        self._shared: list[torch.Tensor] = shared if shared is not None and original_side is not None else []
        self._versions = [t._version for t in self._shared]

        if options.settle:
            # run once, then given the (settled) original's weights again: neither settles a second time
            settle_model(self.ctx, self.original_ctx, "refactored")
            apply_weight_map(m_orig, m_ref, wm)

        # 2. structural checks that need no run
        self.structural: list[Any] = []
        if not options.skip_anticheat:
            from hdecomp.anticheat import structural as st
            t0 = time.perf_counter()
            self.structural += st.check_parameters(m_ref, refactored, self.comp.class_name)
            self.structural += st.check_disguise(m_ref, original, comp_o.model_class, refactored)
            self.structural += st.check_constructor_arguments(m_ref, ctor_args, refactored)
            clock.add("anticheat_structural", time.perf_counter() - t0)
        self.calls = ChildCalls(m_ref)   # every trial's child calls (a branch one trial does not take)
        self.trace: Any = None
        self._given: list[tuple[list[Any], dict[str, Any]]] | None = None
        self._original = original
        self._namespace = vars(comp_o.module)

    def set_original_state(self, state: dict[str, torch.Tensor]) -> None:
        """The original side's values into this side's copy of the original, and through the map into ours."""
        t0 = time.perf_counter()
        entries = {e.name: e for e in named_tensors(self.original_model, attributes=True)}
        with torch.no_grad():
            for name, value in state.items():
                entry = entries.get(name)
                if entry is not None and entry.tensor.shape == value.shape and entry.tensor.dtype == value.dtype:
                    entry.tensor.copy_(value.to(entry.tensor.device))
        if not self.weight_transfer["shared_storage"]:
            apply_weight_map(self.original_model, self.model, self.wm)
        forget_derived_state(self.original_model)
        forget_derived_state(self.model)
        self.clock.add("weights", time.perf_counter() - t0)

    def describe(self) -> dict[str, Any]:
        # (the tensors each holding one entry of a stacked tensor of the original: refactored key -> (original
        # key, index))
        entries = {p.key: (okey, p.start) for okey, parts in self.wm.slices.items() for p in parts
                   if isinstance(p, WeightSlice) and p.select}
        return {"weight_transfer": self.weight_transfer, "mapping": dict(self.wm.mapping),
                "structural": self.structural, "entries": entries}

    def held_by(self, child: str) -> list[str]:
        """The names of the parameters, buffers and tensor attributes child `child` holds."""
        return [e.name for e in named_tensors(self.model, attributes=True) if e.name.startswith(child + ".")]

    def trial(self, inputs: Any, seed: int, record: bool, input_scale: float | None = None,
              ) -> tuple[Any, Any, list[str], bool, bool]:
        """(output, trace, the input paths it modified, whether it wrote a tensor shared with the original,
        whether it wrote its own parameters or buffers).
        `inputs`: the original side's draw, or None where it holds objects that do not cross as they are (a
        cache object, a class's instance with methods): drawn here as the original side draws it, from the same
        file and seed, on this side's copy of the original."""
        if inputs is None:
            inputs = trial_inputs(self.original_ctx, seed, {}, input_scale)
        args, kwargs = inputs
        own = state_versions(self.model)
        out, trace, mutated = refactored_half(self.ctx, args, kwargs, seed, record)
        if record:
            self.trace = trace
        written = any(t._version != v for t, v in zip(self._shared, self._versions, strict=True))
        return out, trace, mutated, written, wrote_state(self.model, own)

    def given(self, k: int) -> Any:
        """The refactored model's output on the k-th recorded in-model call's inputs (read here too)."""
        if self._given is None:
            from hdecomp.verify.in_model import read_in_model_inputs
            self._given = read_in_model_inputs(self._original, self._namespace)
        args, kwargs = self._given[k]
        return given_half(self.ctx, args, kwargs, "refactored")

    def trace_checks(self, trace_o: Any) -> tuple[list[Any], list[Any], list[Any]]:
        """(HD306 children never called in the recorded trial, more structural findings, runtime findings)."""
        from hdecomp.anticheat import runtime as rt
        from hdecomp.anticheat import structural as st
        t0 = time.perf_counter()
        called_later = st.check_children_called(self.model, self.trace, self.path)  # judged after every trial
        structural = st.check_call_nesting(self.model, self.trace, self.path)
        structural += [v for v in st.check_inventory(trace_o, self.trace, self.model, self.path)
                       if not (v.rule == st.HD305 and self._another_path(str(v.details.get("child"))))]
        self.clock.add("anticheat_structural", time.perf_counter() - t0)
        t0 = time.perf_counter()
        runtime_v = rt.check_runtime(self.trace, self.path)
        self.clock.add("anticheat_runtime", time.perf_counter() - t0)
        self.trace = None
        return called_later, structural, runtime_v

    def _another_path(self, child: str) -> bool:
        """Whether another child, one the recorded trial never called, ran in a later trial (a call the model
        makes takes a branch the file's own inputs do not: Wan's upsampler, whose first call only resamples and
        whose later ones run its time conv too): a child that runs all of that trial's compute is then one path
        of the parent, not the parent in disguise (HD305)."""
        first = self.trace.module_calls
        return any(n > 0 and not first.get(q, 0) for q, n in self.calls.counts.items()
                   if q != child and not q.startswith(child + ".") and not child.startswith(q + "."))

    def randomize(self, seed: int) -> list[str]:
        """Re-draw every float weight, the original's copy and ours alike (the names drawn, in order)."""
        names = randomize_weights(self.original_model, self.model, self.wm, seed=seed)
        self._versions = [t._version for t in self._shared]   # (our own writes)
        # (what a forward memoized from the weights it held, timm's `attention_bias_cache`, is made again)
        clear_memoized(self.original_model)
        clear_memoized(self.model)
        return names

    def never_called(self) -> list[str]:
        return self.calls.never_called()

    def child_calls(self) -> dict[str, int]:
        return dict(self.calls.counts)

    def times(self) -> tuple[dict[str, float], int, int]:
        return dict(self.clock.times), self.clock.random_draws, self.clock.forward_calls

    def close(self) -> None:
        self.calls.close()
        self.model = self.original_model = self.ctx = self.original_ctx = None   # type: ignore[assignment]


class MapSummary:
    """What the verdict reads of the weight map (its status, problems and pairs), from its plain form."""

    def __init__(self, transfer: dict[str, Any], mapping: dict[str, str]) -> None:
        self.status = str(transfer["status"])
        self.problems = list(transfer.get("problems") or [])
        self.mapping = dict(mapping)


class Sides:
    """The two sides as the driver calls them: `original(method, *args)`, `refactored(method, *args)`."""

    def __init__(self, original: Any, refactored: Any) -> None:
        self._o, self._r = original, refactored
        self.isolated = isinstance(original, RemoteSide)

    def original(self, method: str, *args: Any) -> Any:
        return self._o.call(method, *args) if self.isolated else getattr(self._o, method)(*args)

    def refactored(self, method: str, *args: Any) -> Any:
        return self._r.call(method, *args) if self.isolated else getattr(self._r, method)(*args)

    def finish(self, clock: Clock, refactored: Path, data: dict[str, Any]) -> list[Any]:
        """The sides' own clocks added to `clock` (isolated), `data["isolation"]`, and the runtime findings on what
        the refactored side did to its process (hdecomp.anticheat.runtime.check_isolation)."""
        if not self.isolated:
            data["isolation"] = {"isolated": False}
            return []
        for side in (self._o, self._r):
            times, draws, calls = side.call("times")
            for k, v in times.items():
                clock.add(k, v)
            clock.random_draws += draws
            clock.forward_calls += calls
        audit = self._r.call("audit")
        data["isolation"] = {"isolated": True, "refactored_process": audit}
        _drop_touched_references(audit.get("files") or [])
        from hdecomp.anticheat.runtime import check_isolation
        return check_isolation(audit, refactored)

    def close(self) -> None:
        for side in (self._r, self._o):
            side.close()


def _drop_touched_references(paths: list[str]) -> None:
    """Every reference-cache folder the refactored side opened a file in, removed: the cache holds only what
    the original's side wrote."""
    import shutil

    from hdecomp.verify.reference_cache import cache_root
    root = os.path.realpath(cache_root())
    for p in paths:
        real = os.path.realpath(p)
        if not real.startswith(root + os.sep):
            continue
        rel = Path(os.path.relpath(real, root))
        target = Path(root) / rel.parts[0]
        if target.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                target.unlink()


@contextlib.contextmanager
def open_sides(original: Path, refactored: Path, options: VerifyOptions, device: torch.device,
               clock: Clock) -> Iterator[Sides]:
    """Both sides, built: in this process (`options.isolate` False) or each in a fresh one, built at once."""
    if not options.isolate:
        o = OriginalSide(original, options, device, clock)
        try:
            r = RefactoredSide(original, refactored, options, device, clock, original_side=o)
        except BaseException:
            o.close()
            raise
        sides = Sides(o, r)
    else:
        from hdecomp.runtime.warm import module_imports
        plain = options_to_plain(options)
        # (the installed packages the original imports, transformers or timm, imported once in the warm worker)
        preload = tuple(module_imports([original]))
        ro = RemoteSide("original", options, preload=preload)
        rr = RemoteSide("refactored", options, env={"HDECOMP_CACHE": "0"})   # (the cache is the original side's)
        sides = Sides(ro, rr)
        try:
            ro.open(options=plain, original=str(original))
            rr.open(options=plain, original=str(original), refactored=str(refactored))
            ro.wait()
            rr.wait()
            rr.call("set_original_state", ro.call("original_state"))
        except BaseException:
            sides.close()
            raise
    try:
        yield sides
    finally:
        sides.close()


def attributes_label(original: nn.Module, randomized: list[str]) -> str:
    """The part of a re-randomised original's label that the weight map decides: which plain tensor attributes
    were re-drawn (those the map hands to the refactored side, hdecomp.verify.weights.randomize_weights). A
    cached reference made under another map must not stand for this one."""
    import hashlib

    attrs = sorted(set(randomized) & {n for n, _ in plain_tensor_attributes(original)})
    return "-a" + hashlib.sha256("\n".join(attrs).encode()).hexdigest()[:12] if attrs else ""


def _reference_cache(comp_o: Any, options: VerifyOptions, device: torch.device) -> Any:
    """The reference cache of this original under these options, or None (off, or no key)."""
    from hdecomp.verify.reference_cache import ReferenceCache, cache_enabled, step_key
    if not (options.reference_cache and cache_enabled()):
        return None
    try:
        # (the device this side runs on, as resolved from the options)
        settings = {name: str(device) if name == "device" else getattr(options, name)
                    for name in REFERENCE_KEY_OPTIONS}
        key = step_key(comp_o.path, comp_o.imported, comp_o.class_name,
                       seeds=(SEED_BASE, RANDOMIZED_WEIGHT_SEED, *PROBE_SCALES), settings=settings)
    except (OSError, UnicodeDecodeError):
        return None
    return ReferenceCache(key)


def _load_weight_map(options: VerifyOptions, refactored: Path) -> tuple[Any, str | None, bool]:
    """(map, its file, picked up automatically?): without --weight-map, <refactored dir>/weight_map.json
    is used when present (the original workspace's convention for steps)."""
    wm = options.weight_map
    if isinstance(wm, dict):
        return parse_explicit_map(wm, "<given>"), "<given>", False
    auto = wm is None
    if wm is None:
        wm = refactored.parent / WEIGHT_MAP_FILE
        if not wm.exists():
            return None, None, False
    return load_explicit_map(wm), str(wm), auto


def _auto_map_note(path: str | None) -> str:
    return (f"this weight map was picked up automatically from {path}; pass --weight-map to use another "
            f"map, or delete it if it does not belong to this step")


# ---- each side in a process of its own -----------------------------------------------------------------------

# what the driver may ask of each side (nothing else is called)
_METHODS = {"original": {"describe", "trial", "given_count", "given", "randomize", "batch_description",
                         "module_calls", "cache_info", "times", "original_state", "track_entries",
                         "unread_entries"},
            "refactored": {"describe", "set_original_state", "trial", "given", "trace_checks", "randomize", "never_called", "child_calls",
                           "times", "audit", "held_by"}}
_ERRORS: dict[str, type[HdecompError]] = {c.__name__: c for c in (HdecompError, ComponentLoadError,
                                                                    ComponentRunError, ComponentTimeout,
                                                                    WeightMapError, UnknownOriginalKey)}


class _Plain:
    """Values as they cross: tensors and containers through hdecomp.runtime.wire, traces as their plain data."""

    @staticmethod
    def encode(value: Any) -> tuple[Any, list[bytes]]:
        from hdecomp.runtime.ops import OpTrace
        from hdecomp.runtime.wire import encode

        def lift(v: Any) -> Any:
            if isinstance(v, OpTrace):
                return {"__optrace__": v.to_plain()}
            if isinstance(v, OriginalRun):
                return {"__originalrun__": [v.take_output(), v.trace and v.trace.to_plain(), v.mutated,
                                            v.wrote_state]}
            if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
                return type(v)(lift(x) for x in v)
            return v
        return encode(lift(value))

    @staticmethod
    def decode(desc: Any, buffers: list[bytes]) -> Any:
        from hdecomp.runtime.ops import OpTrace
        from hdecomp.runtime.wire import decode

        def lower(v: Any) -> Any:
            if isinstance(v, dict) and set(v) == {"__optrace__"}:
                return OpTrace.from_plain(v["__optrace__"])
            if isinstance(v, dict) and set(v) == {"__originalrun__"}:
                out, trace, mutated, wrote = v["__originalrun__"]
                return OriginalRun(out, None if trace is None else OpTrace.from_plain(trace), list(mutated),
                                   wrote_state=bool(wrote))
            if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
                return type(v)(lower(x) for x in v)
            return v
        return lower(decode(desc, buffers))


class RemoteSide:
    """The driver's handle on one side in a process of its own: the side's methods, called over plain data."""

    def __init__(self, role: str, options: VerifyOptions, *, env: dict[str, str] | None = None,
                 preload: tuple[str, ...] = ()) -> None:
        from hdecomp.runtime.side import Side
        self.role = role
        self._side = Side(role, timeout=options.timeout, env=env, module="hdecomp.verify.sides", args=(role,),
                          preload=preload)

    def open(self, **params: Any) -> None:
        """Start building the side (answered by `wait`): both sides build at once."""
        self._side.send("open", **params)

    def wait(self) -> Any:
        return self._answer(self._side.receive("open"))

    def call(self, method: str, *args: Any) -> Any:
        desc, bufs = _Plain.encode(list(args))
        return self._answer(self._side.request("call", bufs, method=method, args=desc))

    def _answer(self, answer: tuple[dict[str, Any], list[bytes]]) -> Any:
        message, buffers = answer
        if "failed" in message:
            info = message["failed"]
            cls = _ERRORS.get(str(info.get("type")), HdecompError)
            raise cls(str(info.get("cause")), info.get("file"), info.get("line"), info.get("details"))
        return _Plain.decode(message.get("value"), buffers)

    def close(self) -> None:
        self._side.close()


class _SideServer:
    """The side process: builds one side on `open`, then answers `call`s of its allowed methods."""

    def __init__(self, role: str) -> None:
        import torch._dynamo  # noqa: F401  (imported by the op recording anyway: before the baseline)
        self.role = role
        self.side: Any = None
        self.baseline: Any = None
        self.watches: list[Any] = []

    def open(self, msg: dict[str, Any], buffers: list[bytes]) -> Any:
        options = VerifyOptions(**_options_from(msg["options"]))
        device = torch.device(options.device)
        clock = Clock(device)
        original = Path(msg["original"])
        if self.role == "original":
            self.side = OriginalSide(original, options, device, clock)
            return self.side.describe()
        # What the refactored side changes is judged against the process after the original's own file was
        # loaded and built (its imports may patch libraries: transformers wraps nn.Module methods).
        refactored = Path(msg["refactored"])
        self.side = RefactoredSide(original, refactored, options, device, clock,
                                   before_loading=lambda: self._watch(refactored))
        return self.side.describe()

    def _watch(self, refactored: Path) -> None:
        from hdecomp.runtime.process_state import FileWatch, Introspection, ProcessState
        from hdecomp.verify.reference_cache import cache_root
        self.baseline = ProcessState()
        files = {str(p) for p in refactored.parent.rglob("*.py")} | {str(refactored)}
        self.watches = [FileWatch(set(), folders={cache_root()}).__enter__(), Introspection(files).__enter__()]

    def audit(self) -> dict[str, list[str]]:
        from hdecomp.runtime.process_state import audit_report
        if self.baseline is None:
            return {"global_state": [], "introspection": [], "files": []}
        files, intro = self.watches
        return audit_report(self.baseline, files, intro)

    def call(self, msg: dict[str, Any], buffers: list[bytes]) -> Any:
        method = str(msg.get("method"))
        if method not in _METHODS[self.role]:
            raise HdecompError(f"unknown request {method!r}")
        if method == "audit":
            return self.audit()
        args = _Plain.decode(msg["args"], buffers)
        return getattr(self.side, method)(*args)


def _options_from(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out["refactored_class"] = tuple(out.get("refactored_class", ()))
    return out


def options_to_plain(options: VerifyOptions) -> dict[str, Any]:
    import dataclasses
    out = dataclasses.asdict(options)
    if isinstance(out.get("weight_map"), Path):
        out["weight_map"] = str(out["weight_map"])
    out["refactored_class"] = list(out["refactored_class"])
    return out


def serve(role: str, read_fd: int, write_fd: int) -> int:
    """The side's loop (hdecomp.runtime.side.serve_requests): a request's error crosses as its type, cause,
    file and line, and the side goes on."""
    import traceback

    from hdecomp.runtime.side import serve_requests
    server = _SideServer(role)

    def answer(msg: dict[str, Any], buffers: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        op = msg.get("op")
        try:
            if op not in ("open", "call"):
                raise HdecompError(f"unknown request {op!r}")
            desc, out = _Plain.encode(getattr(server, str(op))(msg, buffers))
            return {"value": desc}, out
        except HdecompError as exc:
            return {"failed": {"type": type(exc).__name__, "cause": exc.cause, "file": exc.file, "line": exc.line,
                               "details": exc.details}}, []
        except Exception as exc:   # a bug of ours, or a value that does not cross: named, the side goes on
            return {"failed": {"type": "HdecompError", "cause": f"internal error: {type(exc).__name__}: {exc}",
                               "details": "".join(traceback.format_exception(exc))}}, []
    return serve_requests(read_fd, write_fd, answer)


if __name__ == "__main__":
    os.environ.setdefault("HDECOMP_SIDE", sys.argv[1])
    sys.exit(serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
