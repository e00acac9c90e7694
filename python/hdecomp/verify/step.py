"""verify_step: the five checks that decide whether a decomposition step is honest and correct.

1. static anti-cheat on refactored.py's source (anticheat/static/),
2. structural anti-cheat on the loaded models and their op traces (anticheat/structural.py),
3. runtime anti-cheat: compute executed outside every child (anticheat/runtime.py),
4. weight transfer original -> refactored (weights.py),
5. numerical comparison over N seeded trials plus one trial with every float parameter and buffer
   re-randomised identically on both sides (compare.py).

Inputs always come from the ORIGINAL file; each model gets its own copy (the original runs on a clone,
the refactored model on the pristine tensors), so an original that mutates its input cannot poison the
refactored run. The op traces of the first trial feed checks 2 and 3, so anti-cheat costs no extra
forward. The result keeps every field of the original workspace's verification_result.json.

The two models are the two sides of hdecomp.verify.sides, each in a process of its own by default
(`VerifyOptions.isolate`); this module drives them, compares their outputs and decides, and imports neither
file.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from hdecomp.anticheat.rules import AntiCheatViolation
from hdecomp.errors import ComponentRunError, ComponentTimeout, HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.weight_map import UnknownOriginalKey
from hdecomp.runtime.component import is_oom
from hdecomp.runtime.ops import format_counter_diff
from hdecomp.runtime.wire import plain_only
from hdecomp.verify.compare import OutputComparison, compare_outputs, tolerances_for
from hdecomp.verify.report import print_report
from hdecomp.verify.result import (
    PROBE_SCALES,
    RANDOMIZED_WEIGHT_SEED,
    SEED_BASE,
    Clock,
    VerificationResult,
    VerifyOptions,
    new_result,
)
from hdecomp.verify.sides import MapSummary, Sides, open_sides
from hdecomp.verify.trials import (
    BRANCH_TRIALS,
    SharedStateWritten,
    Trial,
    Unsettled,
    branch_trial_seed,
    idle_for,
    refactored_raised,
)


def _static_violations(refactored: Path) -> tuple[list[AntiCheatViolation], str | None]:
    try:
        from hdecomp.anticheat import static  # type: ignore[attr-defined]
    except ImportError as exc:
        return [], f"static analysis unavailable ({exc})"
    return list(static.analyze_file(refactored)), None


def verify_step(original: str | Path, refactored: str | Path, options: VerifyOptions | None = None,
                output: str | Path | None = None, console: Any = None) -> VerificationResult:
    """Verify one decomposition step. Never raises for bad user input: problems become a result with
    status ERROR (and `error` = `file:line: cause`). Writes `output` atomically when given; prints a
    report on `console` (a rich Console) when given."""
    options = options or VerifyOptions()
    original, refactored = Path(original), Path(refactored)
    data = new_result(original, refactored, options)
    result = VerificationResult(status="UNKNOWN", original_file=str(original), refactored_file=str(refactored),
                                data=data)
    t_start = time.perf_counter()
    try:
        device = torch.device(options.device)
    except (RuntimeError, ValueError) as exc:
        device = torch.device("cpu")
        _set_error(result, HdecompError(f"invalid --device {options.device!r}: {exc}"))
    clock = Clock(device)
    if result.status != "ERROR":
        try:
            import dataclasses
            attempt = options
            settled_for_key = False
            for _ in range(3):
                try:
                    _verify(original, refactored, attempt, result, clock, device)
                    if settled_for_key:
                        result.warnings.append("the weight map names a tensor the original holds only once its "
                                               "first forward ran: both models ran once before the weights were "
                                               "handed over")
                    break
                except SharedStateWritten:
                    clock = Clock(device)
                    result.warnings.append("the forward writes its own parameters or buffers: verified with "
                                           "separate copies of the weights")
                    attempt = dataclasses.replace(attempt, share_weights=False)
                except UnknownOriginalKey:
                    if attempt.settle:
                        raise
                    # a tensor the original's first forward makes (a lazily set attribute of a model whose first
                    # forward writes its state, from which the decomposer wrote the step): judged settled (a key
                    # the settled original lacks too is the error it was)
                    clock = Clock(device)
                    settled_for_key = True
                    attempt = dataclasses.replace(attempt, share_weights=False, settle=True)
                except Unsettled:
                    clock = Clock(device)
                    result.warnings.append("the original's first forward writes its own parameters or buffers: "
                                           "both models ran once before the weights were handed over, and are "
                                           "compared as that forward left them")
                    attempt = dataclasses.replace(attempt, share_weights=False, settle=True)
        except HdecompError as exc:
            _set_error(result, exc)
        except Exception as exc:
            if is_oom(exc):  # holding or comparing the outputs did not fit
                _set_error(result, HdecompError(
                    f"verify-step ran out of memory ({type(exc).__name__}) while holding or comparing the "
                    f"outputs; try --batch-limit 1 or a device with more memory", refactored,
                    details="".join(traceback.format_exception(exc))))
            else:  # a bug of ours: still one clear line and a complete result file
                _set_error(result, HdecompError(f"internal error: {type(exc).__name__}: {exc}",
                                                details="".join(traceback.format_exception(exc))))
    clock.times["total"] = time.perf_counter() - t_start
    data["timings"] = {k: round(v, 6) for k, v in clock.times.items()}
    data["timings"]["overhead"] = round(clock.times["total"] - clock.times.get("forward", 0.0)
                                        - clock.times.get("forward_recorded", 0.0), 6)
    data["timings"]["forward_calls"] = clock.forward_calls
    data["status"] = result.status
    data["warnings"] = result.warnings
    if output is not None:
        data["output_file"] = str(output)
        write_json_atomic(output, data)
    if console is not None:
        print_report(result, console)
    return result


def _set_error(result: VerificationResult, exc: HdecompError) -> None:
    result.status = "ERROR"
    result.error = exc.headline
    result.data["status"] = "ERROR"
    result.data["error"] = exc.headline
    result.data["error_details"] = {"cause": exc.cause, "file": exc.file, "line": exc.line,
                                    "type": type(exc).__name__, "details": exc.details}


def _verify(original: Path, refactored: Path, options: VerifyOptions, result: VerificationResult,
            clock: Clock, device: torch.device) -> None:
    data = result.data
    if options.num_trials < 1:
        raise HdecompError(f"--num-trials must be at least 1 (got {options.num_trials})")
    if options.batch_limit is not None and options.batch_limit < 1:
        raise HdecompError(f"--batch-limit must be at least 1 (got {options.batch_limit})")
    # `not x >= 0` also rejects NaN
    for flag, value in (("--rtol", options.rtol), ("--atol", options.atol)):
        if value is not None and not value >= 0:
            raise HdecompError(f"{flag} must be >= 0 (got {value})")
    if options.timeout is not None and not options.timeout > 0:
        raise HdecompError(f"--timeout must be > 0 (got {options.timeout})")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise HdecompError(f"--device {options.device}: CUDA is not available in this torch build "
                           f"({torch.__version__})")
    for p in (original, refactored):
        if not p.exists():
            raise HdecompError("file not found", p)
    if original.resolve() == refactored.resolve():
        raise HdecompError("original and refactored are the same file: pass the step's original.py and its "
                           "refactored.py", refactored)

    # 1. static anti-cheat (pure source; also runs when the models cannot load)
    static_v: list[AntiCheatViolation] = []
    if not options.skip_anticheat:
        t0 = time.perf_counter()
        static_v, note = _static_violations(refactored)
        clock.add("anticheat_static", time.perf_counter() - t0)
        if note:
            result.warnings.append(note)
        # Kept even if loading fails below: the editor shows them on an ERROR result too.
        data["anticheat"]["source_violations"] = [v.to_dict() for v in static_v]
        result.violations = list(static_v)

    with open_sides(original, refactored, options, device, clock) as sides:
        _run_sides(sides, original, refactored, options, result, clock, static_v)


def _run_sides(sides: Sides, original: Path, refactored: Path, options: VerifyOptions,
               result: VerificationResult, clock: Clock, static_v: list[AntiCheatViolation]) -> None:
    """Steps 2 to 5 on the two sides (hdecomp.verify.sides), in this process or each in its own: the same
    calls either way, the outputs compared here."""
    data = result.data
    call_o, call_r = sides.original, sides.refactored
    o_info, r_info = call_o("describe"), call_r("describe")
    init_state = o_info["init_state"]
    data["weight_transfer"] = r_info["weight_transfer"]
    wm = MapSummary(r_info["weight_transfer"], r_info["mapping"])
    # tensors of the refactored model each holding one entry of a stacked tensor of the original (an expert's
    # weight): which entries the original's forwards read is watched, for the children no trial calls
    entries: dict[str, Any] = r_info.get("entries") or {}
    if entries:
        call_o("track_entries", sorted({okey for okey, _ in entries.values()}))

    def idle_entries(child: str) -> bool:
        """Whether `child`, never called, holds only entries of stacked tensors of the original that no
        forward of the original read either: an expert the router picked in no trial, whose weight is one
        entry of the experts' stacked weights. Nothing runs on either side, so nothing is skipped."""
        held = call_r("held_by", child) if entries else []
        return bool(held) and all(k in entries for k in held) and \
            call_o("unread_entries", [tuple(entries[k]) for k in held])
    # 2. structural checks that need no run (made where the refactored model is)
    structural = [AntiCheatViolation.rebuilt(v) for v in r_info["structural"]]

    def compared(out_o: Any, out_r: Any) -> OutputComparison:
        t0 = time.perf_counter()
        comparison = compare_outputs(out_o, out_r, options.rtol, options.atol)
        clock.add("compare", time.perf_counter() - t0)
        return comparison

    def trial(seed: int, index: int | str, record: bool, weights: str,
              input_scale: float | None = None) -> tuple[Trial, Any, Any]:
        inputs, run_o, dtype = call_o("trial", seed, index, record, weights, input_scale)
        if sides.isolated and not plain_only(inputs):
            inputs = None   # (objects that do not cross as they are: the refactored side draws them itself)
        try:
            out_r, trace_r, mutated_r, written, wrote_r = call_r("trial", inputs, seed, record, input_scale)
        except BaseException:
            run_o.drop()
            raise
        if index == 0 and run_o.wrote_state and not wrote_r and not options.settle:
            # its first forward wrote its own weights, the refactored model's did not (a graph of the settled
            # model): verified again, both sides settled (hdecomp.runtime.settle); where both write, in step
            run_o.drop()
            raise Unsettled
        del inputs
        comparison = compared(run_o.take_output(), out_r)
        if written:
            raise SharedStateWritten   # a forward writes its own weights or buffers: verify with copies
        return Trial(index, seed, comparison, run_o.mutated, mutated_r, input_dtype=dtype), run_o.trace, trace_r

    # 5. trials; the first one records both sides' ops for checks 2 and 3
    trials: list[Trial] = []
    trace_o = trace_r = None
    for i in range(options.num_trials):
        record = i == 0 and not options.skip_anticheat
        t, to, tr = trial(SEED_BASE + i, i, record, init_state)
        if record:
            trace_o, trace_r = to, tr
        trials.append(t)
    in_model = _in_model_trials(sides, original, data, compared)
    data["in_model_trials"] = [t.to_dict() for t in in_model]

    # 2 + 3. checks on the recorded traces (before the randomized trial changes the weights)
    called_later, more, runtime_v = _trace_checks(sides, options, trace_o, trace_r, data)
    structural += more
    if trace_o is not None and trace_r is not None:
        result.traces = (trace_o, trace_r)
    del trace_o, trace_r

    def randomize(seed: int) -> tuple[str, int]:
        """Every float weight re-drawn, on both sides alike: (the original's new weights label, how many)."""
        t0 = time.perf_counter()
        names = call_r("randomize", seed)
        label = call_o("randomize", names, seed)
        clock.add("weights", time.perf_counter() - t0)
        return label, len(names)

    randomized: Trial | None = None
    weights_state = init_state   # the original's weights as built; re-randomised below (part of a reference's label)
    float_tensors = o_info["has_float_state"]
    if options.randomized_trial and float_tensors:
        weights_state, drawn = randomize(RANDOMIZED_WEIGHT_SEED)
        randomized, _, _ = trial(SEED_BASE + options.num_trials, "randomized", False, weights_state)
        randomized.randomized = True
        data["randomized_trial"] = {**randomized.to_dict(), "weight_seed": RANDOMIZED_WEIGHT_SEED,
                                    "tensors_randomized": drawn}
    else:
        data["randomized_trial"] = {"status": "SKIPPED", "reason": "disabled" if not options.randomized_trial
                                    else "the original has no float parameters or buffers"}
    # A child no trial called sits on a branch these inputs and weights do not take (an `if` kept in the
    # parent): more inputs, and more weights, until every branch has run and matched, or HD306.
    branch_trials: list[Trial] = []
    for k in range(BRANCH_TRIALS if called_later else 0):
        if not call_r("never_called"):
            break
        if k % 2 == 1 and float_tensors:
            weights_state, _ = randomize(RANDOMIZED_WEIGHT_SEED + 1 + k)
        bt, _, _ = trial(branch_trial_seed(k), f"branch_{k}", False, weights_state)
        branch_trials.append(bt)
    if called_later:
        counts, unknown = call_o("module_calls")
        never = {c for c in call_r("never_called") if not idle_for(counts, unknown, c, wm.mapping)
                 and not idle_entries(c)}
        structural += [v for v in called_later if v.details.get("child") in never]
    data["branch_trials"] = [t.to_dict() for t in branch_trials]
    data["child_calls"] = call_r("child_calls")   # over every trial
    probes = _probes(trials, randomized, trial, options, weights_state)
    probes += branch_trials   # a branch trial that does not match fails the step like a probe
    # what the refactored side did to its process, where it has one of its own (hdecomp.verify.sides)
    runtime_v += sides.finish(clock, refactored, data)
    # A forward that draws random numbers (dropout in train mode, Reformer's LSH rotations, noise) is
    # still verified exactly: each trial runs both models from the same seeded RNG state.
    data["forward_draws_random"] = clock.random_draws > 0
    # how many of the original's trial runs came from the reference cache (none on a first verification)
    data["reference_cache"] = call_o("cache_info")
    if clock.random_draws:
        result.warnings.append("the forward draws random numbers: each trial ran both models from the same "
                               "seeded RNG state, so they drew the same ones")
    _record_batch_limit(data, options, call_o("batch_description"))
    data["_input_dtype"] = trials[0].input_dtype

    _finish(result, options, static_v, structural, runtime_v, wm, trials, randomized, data, probes, in_model)


def _trace_checks(sides: Sides, options: VerifyOptions, trace_o: Any, trace_r: Any, data: dict[str, Any]) -> tuple[
        list[AntiCheatViolation], list[AntiCheatViolation], list[AntiCheatViolation]]:
    """Checks 2 and 3 on the first trial's traces, made where the refactored model is: (the structural
    findings on children no trial called yet, the other structural findings, the runtime findings); the
    op inventories compared into `data`."""
    if options.skip_anticheat or trace_o is None or trace_r is None:
        return [], [], []
    later, more, found = sides.refactored("trace_checks", trace_o)
    a, b = trace_o.compute_inventory("aten"), trace_r.compute_inventory("aten")
    data["op_inventory"] = {"original": trace_o.to_dict(), "refactored": trace_r.to_dict(),
                            "diff": format_counter_diff(a, b), "match": a == b}
    return ([AntiCheatViolation.rebuilt(v) for v in later], [AntiCheatViolation.rebuilt(v) for v in more],
            [AntiCheatViolation.rebuilt(v) for v in found])


def _in_model_trials(sides: Sides, original: Path, data: dict[str, Any],
                     compared: Callable[[Any, Any], OutputComparison]) -> list[Trial]:
    """What the component receives in the model (its first and last call there), a trial each (in_model.py);
    stopping at the first the original itself does not run on (`in_model_skipped`)."""
    in_model: list[Trial] = []
    for k in range(sides.original("given_count")):
        try:
            out_o, dtype = sides.original("given", k)
        except HdecompError as exc:
            if exc.file is not None and Path(exc.file).resolve() == Path(original).resolve():
                data["in_model_skipped"] = f"the original does not run on the recorded inputs ({exc.cause})"
                break
            raise
        try:
            out_r = sides.refactored("given", k)
        except ComponentTimeout:
            raise
        except ComponentRunError as exc:   # the original runs on them and the refactored model does not
            in_model.append(Trial(f"in_model_{k}", SEED_BASE, refactored_raised(exc), [], []))
            continue
        in_model.append(Trial(f"in_model_{k}", SEED_BASE, compared(out_o, out_r), [], [], input_dtype=dtype))
    return in_model


def _probes(trials: list[Trial], randomized: Trial | None, trial: Callable[..., tuple[Trial, Any, Any]],
            options: VerifyOptions, weights_state: str) -> list[Trial]:
    """Degenerate outputs (all zero / constant) prove little. When the randomized-weights trial is
    degenerate too, probe with wider float inputs until the output carries information."""
    probes: list[Trial] = []
    if any(t.comparison.degenerate for t in trials) and (randomized is None or randomized.comparison.degenerate):
        for scale in PROBE_SCALES:
            probe, _, _ = trial(SEED_BASE + options.num_trials + 1, f"probe_x{scale:g}", False, weights_state, scale)
            probes.append(probe)
            if not probe.comparison.degenerate:
                break
    return probes


def _record_batch_limit(data: dict[str, Any], options: VerifyOptions, batch_info: dict[str, Any]) -> None:
    data["batch_limit"] = options.batch_limit
    # how --batch-limit was applied: "batch_size" (the module's batch_size lowered before get_inputs()),
    # "cut" (leading dimension cut afterwards), both, "full_size" (every cut broke the original: run
    # uncut), or "not_needed"; None without --batch-limit
    data["batch_limit_method"] = batch_info.get("batch_limit_method")
    data["batch_size_override"] = batch_info.get("batch_size_override")
    data["batch_cuts"] = batch_info.get("batch_cuts", [])
    data["input_shapes"] = batch_info.get("input_shapes", {})


def _finish(result: VerificationResult, options: VerifyOptions, static_v: list[AntiCheatViolation],
            structural: list[AntiCheatViolation], runtime_v: list[AntiCheatViolation], wm: MapSummary,
            trials: list[Trial], randomized: Trial | None, data: dict[str, Any],
            probes: list[Trial] | None = None, in_model: list[Trial] | None = None) -> None:
    probes = probes or []
    in_model = in_model or []
    violations = static_v + structural + runtime_v
    result.violations = violations
    errors = [v for v in violations if v.severity == "error"]
    ac = data["anticheat"]
    if not options.skip_anticheat:
        ac["status"] = "FAIL" if errors else "PASS"
        ac["violations"] = [v.to_dict() for v in violations]
        ac["source_violations"] = [v.to_dict() for v in static_v]
        ac["parameter_violations"] = [
            {"parameter": v.details.get("tensor"), "reason": v.message, **v.to_dict()}
            for v in structural if v.rule == "HD301"]
        ac["structural"] = {"status": "FAIL" if any(v.severity == "error" for v in structural) else "PASS",
                            "violations": [v.to_dict() for v in structural]}
        ac["runtime"] = {"status": "FAIL" if runtime_v else "PASS", "violations": [v.to_dict() for v in runtime_v]}
        ac["counts"] = {"static": len(static_v), "structural": len(structural), "runtime": len(runtime_v)}

    # numerical comparison (original workspace's keys first)
    input_dtype = data.pop("_input_dtype", None)
    all_trials = trials + ([randomized] if randomized else []) + in_model
    # A trial whose output is all NaN on both sides (its draw left the function's domain) is inconclusive,
    # not failed, where another trial carries information and matches; alone, it fails the step.
    informative = [t for t in all_trials if t.comparison.match and not t.comparison.degenerate]
    inconclusive = [t for t in trials + ([randomized] if randomized else []) if t.comparison.inconclusive]
    if informative and inconclusive:
        result.warnings.append(
            f"trial(s) {', '.join(str(t.index) for t in inconclusive)}: the original's output is all NaN for "
            f"those inputs (a draw outside the function's domain), the refactored's too: inconclusive; the "
            f"verdict rests on the {len(informative)} informative trial(s)")
    else:
        inconclusive = []
    unproven = {id(t) for t in inconclusive}
    num_pass = all(t.comparison.match or id(t) in unproven for t in trials)
    randomized_pass = randomized is None or randomized.comparison.match or id(randomized) in unproven
    max_diff = max((t.comparison.max_diff for t in all_trials), default=None)
    # the tensor leaves' dtypes (a leaf that is a Python value, None in an output tuple, names its type)
    leaf_dtypes = [lf.dtype for t in trials for lf in t.comparison.leaves
                   if lf.dtype and isinstance(getattr(torch, lf.dtype, None), torch.dtype)]
    dtype = input_dtype or (leaf_dtypes[0] if leaf_dtypes else "float32")
    rtol, atol = tolerances_for(getattr(torch, str(dtype), torch.float32), options.rtol, options.atol)
    degenerate = [t for t in trials if t.comparison.degenerate]
    data["numerical_comparison"] = {
        "status": "PASS" if num_pass and randomized_pass else "FAIL",
        "rtol": rtol, "atol": atol, "input_dtype": f"torch.{dtype}",
        "num_trials": options.num_trials,
        "max_diff_across_trials": max_diff,
        "trials": [t.to_dict() for t in trials],
        "randomized_trial_pass": None if randomized is None else randomized.comparison.match,
    }
    kinds = sorted({lf.degenerate for t in trials for lf in t.comparison.leaves if lf.degenerate})
    # A probe counts only when its output carries information (all-NaN is inconclusive, not a failure).
    decisive = [p for p in probes if not p.comparison.degenerate]
    failed_probes = [p for p in decisive if not p.comparison.match]
    message = ""
    if degenerate:
        message = (f"the original's output is degenerate ({', '.join(kinds)}) for its inputs: a match proves "
                   "little")
        rnd_informative = randomized is not None and not randomized.comparison.degenerate
        others = [t for t in trials + in_model if not t.comparison.degenerate]
        if rnd_informative:
            message += "; the randomized-weights trial (informative output) and the op inventory carry the verdict"
        elif others:
            message += (f"; the other trials ({', '.join(str(t.index) for t in others)}) carry information and the "
                        "verdict")
        elif decisive:
            message += (f"; the randomized-weights trial is degenerate too; a probe with wider inputs "
                        f"({decisive[0].index}) gave an informative output and "
                        + ("matched" if decisive[0].comparison.match else "did NOT match"))
        else:
            message += ("; the randomized-weights trial and wider-input probes are degenerate too, so only the "
                        "op inventory discriminates")
        result.warnings.append(message)
    data["degenerate_output"] = {
        "detected": bool(degenerate),
        "trials": [t.index for t in degenerate],
        "kinds": kinds,
        "randomized_trial_degenerate": None if randomized is None else randomized.comparison.degenerate,
        "message": message,
        "probes": [{"trial": p.index, "seed": p.seed, "pass": p.comparison.match,
                    "max_diff": p.comparison.max_diff, "degenerate": p.comparison.degenerate,
                    "output_details": p.comparison.details()} for p in probes],
    }
    data["degenerate"] = bool(degenerate)
    if failed_probes:
        data["numerical_comparison"]["status"] = "FAIL"

    mutation = {"original": sorted({p for t in all_trials for p in t.mutated_original}),
                "refactored": sorted({p for t in all_trials for p in t.mutated_refactored})}
    data["input_mutation"] = mutation
    if mutation["original"]:
        result.warnings.append(f"the original modifies its input(s) in place: {', '.join(mutation['original'])} "
                               f"(each model got its own copy)")
    result.max_diff = max_diff

    reasons: list[str] = []
    if errors:
        reasons.append("anticheat_violation")
    if wm.status == "FAIL":
        reasons.append("weight_transfer")
    if not num_pass:
        reasons.append("numerical_mismatch")
    if not randomized_pass:
        reasons.append("randomized_trial_mismatch")
    if failed_probes:
        reasons.append("probe_mismatch")
    if any(not t.comparison.match for t in in_model):
        reasons.append("in_model_mismatch")
    if mutation["original"] != mutation["refactored"]:
        reasons.append("input_mutation")
    result.fail_reasons = reasons
    if reasons:
        result.status = "FAIL"
        data["fail_reason"] = reasons[0]
        data["fail_reasons"] = reasons
        data["fail_detail"] = _fail_detail(result, trials + [t for t in in_model if not t.comparison.match],
                                           randomized, wm, mutation, errors, failed_probes)
    else:
        result.status = "PASS"
    data["status"] = result.status


def _fail_detail(result: VerificationResult, trials: list[Trial], randomized: Trial | None, wm: MapSummary,
                 mutation: dict[str, list[str]], errors: list[AntiCheatViolation],
                 failed_probes: list[Trial]) -> str:
    if errors:
        v = errors[0]
        where = f"{v.file}:{v.line}: " if v.file and v.line else f"{v.file}: " if v.file else ""
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{where}{v.rule} {v.message}{more}"
    if wm.status == "FAIL":
        return "weight transfer: " + "; ".join(wm.problems)
    for t in trials:
        bad = t.comparison.first_failure()
        if bad is not None:
            return f"trial {t.index} (seed {t.seed}): {bad.reason}"
    if randomized is not None:
        bad = randomized.comparison.first_failure()
        if bad is not None:
            return (f"randomized-weights trial: {bad.reason} — the default initialisation hid a difference "
                    f"(a dropped or miswired branch)")
    for p in failed_probes:
        bad = p.comparison.first_failure()
        if bad is not None:
            return (f"probe trial with wider inputs ({p.index}): {bad.reason} — the degenerate output of the "
                    f"original's own inputs hid a difference")
    if mutation["original"] != mutation["refactored"]:
        return (f"in-place input modification differs: original modifies {mutation['original'] or 'nothing'}, "
                f"refactored {mutation['refactored'] or 'nothing'}")
    return ""
