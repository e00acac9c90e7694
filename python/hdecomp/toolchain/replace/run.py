"""`hdecomp replace DIR KERNEL_FILE NEW.py`: prove a faster kernel (`class ModelNew`) against a kernel of the
tree, refuse the known reward hacks, put it in every instance, re-verify every step above it and the whole
composition, and time kernel and model before and after (docs/DESIGN.md, "Replacing a kernel").

Writes replacements/<kernel id>/: a copy of NEW.py (what was proved is what runs), replacement_result.json,
the proof's verification result and the composed steps' files and results; a PASS makes the replacement
active in decomposition_tree.json (`formats.replacements`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic, write_text_atomic
from hdecomp.formats.layout import source_key
from hdecomp.formats.replacements import REPLACEMENTS_DIR, RESULT_FILE, active_replacements, set_replacement
from hdecomp.formats.tree import DecompositionTree, load_decomposition
from hdecomp.toolchain.replace import hacks
from hdecomp.toolchain.replace.hacks import Check

# KernelBench's tolerance (rtol = atol) by the kernel's output dtype
TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-7, torch.float16: 1e-2, torch.bfloat16: 1e-2}
PROOF_RESULT = "proof_verification_result.json"
CHECK_ORDER = ("signature", "reference_call", "input_mutation", "output_alias", "stale_output", "side_work",
               "trials", "degenerate_reference", "speed_of_light", "steps", "composition")


@dataclass
class ReplaceOptions:
    device: str = "cpu"
    batch_limit: int | None = None
    num_trials: int = 5
    rtol: float | None = None
    atol: float | None = None
    runs: int = 10
    warmup: int = 3
    sol_margin: float = 0.5
    timeout: float | None = None
    reference_cache: bool = True


@dataclass
class ReplaceResult:
    status: str                               # PASS | FAIL | ERROR
    reason: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    result_file: Path | None = None

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "FAIL": 1}.get(self.status, 2)


class _Stop(Exception):
    """A check decided the verdict (FAIL or ERROR): the rest does not run."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def find_kernel(tree: DecompositionTree, root: Path, kernel_file: str | Path) -> tuple[str, Path, int]:
    """(node id, its level_0_kernel file, instances) of the kernel `kernel_file` names: the file itself or
    any copy of it (a step's children/ file, by content)."""
    path = Path(kernel_file)
    if not path.is_file():
        raise HdecompError("file not found", path)
    resolved, key = path.resolve(), source_key(path)
    match = None
    for nid, n in tree.nodes.items():
        p = tree.abs_path(n)
        if p is not None and p.is_file() and (p.resolve() == resolved or (key is not None and source_key(p) == key)):
            if n.level == 0:
                return nid, p, int(n.instance_count or 1)
            match = match or (nid, n.level_name)
    if match is not None:
        raise HdecompError(f"is the {match[1]} {match[0]}, not a kernel: `hdecomp replace` replaces a kernel "
                           "(level 0) file", path)
    raise HdecompError(f"is not a kernel of the decomposition in {root}", path)


def _forbidden_files(root: Path, tree: DecompositionTree) -> set[Path]:
    """The decomposition's own code: every node's file, every step's files, the original model file."""
    from hdecomp.toolchain.compose.plan import original_model_file
    out = {p.resolve() for n in tree.nodes.values() if (p := tree.abs_path(n)) is not None and p.is_file()}
    out |= {p.resolve() for p in (root / "steps").rglob("*.py")} if (root / "steps").is_dir() else set()
    try:
        out.add(original_model_file(root, tree))
    except HdecompError:
        pass
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replace_kernel(root: str | Path, kernel_file: str | Path, new_file: str | Path,
                   options: ReplaceOptions | None = None,
                   progress: Callable[[str], None] | None = None) -> ReplaceResult:
    """See the module's doc. Never raises for bad input: an unusable DIR, kernel or NEW file is an ERROR
    result (nothing written when DIR or the kernel is unusable)."""
    options = options or ReplaceOptions()
    root = Path(root)
    say = progress or (lambda _msg: None)
    try:
        tree = load_decomposition(root)
        kid, kernel_path, instances = find_kernel(tree, root, kernel_file)
        new_path = Path(new_file)
        if not new_path.is_file():
            raise HdecompError("file not found", new_path)
        for flag, value in (("--num-trials", options.num_trials), ("--runs", options.runs)):
            if value < 1:
                raise HdecompError(f"{flag} must be at least 1 (got {value})")
        if not 0 < options.sol_margin <= 1:
            raise HdecompError(f"--sol-margin must be in (0, 1] (got {options.sol_margin})")
        device = torch.device(options.device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise HdecompError(f"--device {options.device}: CUDA is not available in this torch build")
    except (HdecompError, RuntimeError) as exc:
        reason = exc.headline if isinstance(exc, HdecompError) else f"invalid --device {options.device!r}: {exc}"
        return ReplaceResult(status="ERROR", reason=reason)

    out_dir = root / REPLACEMENTS_DIR / kid
    out_dir.mkdir(parents=True, exist_ok=True)
    copy = out_dir / new_path.name
    if copy.resolve() != new_path.resolve():
        write_text_atomic(copy, new_path.read_text(encoding="utf-8"))
    t_start = time.perf_counter()
    data: dict[str, Any] = {
        "schema_version": 1, "status": "ERROR", "reason": None, "decomposition": str(root),
        "kernel": {"id": kid, "path": kernel_path.relative_to(root.resolve()).as_posix()
                   if kernel_path.is_relative_to(root.resolve()) else str(kernel_path), "instances": instances},
        "replacement": {"path": copy.relative_to(root).as_posix(), "source": str(new_path), "sha256": _sha256(copy)},
        "device": str(device), "batch_limit": options.batch_limit, "tolerance": None, "checks": [], "steps": [],
        "first_failing_step": None, "composition": None, "timing": None, "active": False,
        "timestamp": datetime.now(timezone.utc).isoformat(),
    }
    checks: list[Check] = []
    try:
        _prove(root, tree, kid, kernel_path, copy, out_dir, options, device, data, checks, say)
        data["status"] = "PASS"
    except _Stop as stop:
        data["status"], data["reason"] = stop.status, stop.reason
    except HdecompError as exc:
        data["status"], data["reason"] = "ERROR", exc.headline
    if data["reason"] and copy.resolve() != new_path.resolve():   # the file the user edits, not our copy
        for shown in (str(copy), str(copy.resolve())):
            data["reason"] = data["reason"].replace(shown, str(new_path))
    done = {c.name for c in checks}
    data["checks"] = [c.to_dict() for c in checks] + [
        Check(n, "SKIPPED", "not run: an earlier check decided the verdict").to_dict()
        for n in CHECK_ORDER if n not in done]
    data["seconds"] = round(time.perf_counter() - t_start, 3)
    if data["status"] == "PASS":
        timing = data["timing"] or {}
        set_replacement(root, kid, {"kernel": data["kernel"]["path"], "replacement": data["replacement"]["path"],
                                    "result": (out_dir / RESULT_FILE).relative_to(root).as_posix(),
                                    "speedup": timing.get("speedup"), "model_speedup": timing.get("model_speedup"),
                                    "tolerance": (data["tolerance"] or {}).get("atol")})
        data["active"] = True
    else:
        data["was_active"] = set_replacement(root, kid, None)
    result_file = write_json_atomic(out_dir / RESULT_FILE, data)
    return ReplaceResult(status=data["status"], reason=data["reason"], data=data, result_file=result_file)


def _prove(root: Path, tree: DecompositionTree, kid: str, kernel_path: Path, copy: Path, out_dir: Path,
           options: ReplaceOptions, device: torch.device, data: dict[str, Any], checks: list[Check],
           say: Callable[[str], None]) -> None:
    from hdecomp.runtime.batch_limit import limited_inputs
    from hdecomp.runtime.component import clone_nested, load_component, run_user_code, seed_everything
    from hdecomp.toolchain.profile import PRECISION, bytes_moved, count_flops
    from hdecomp.verify.compare import first_float_dtype

    def record(check: Check, stop_status: str = "FAIL") -> None:
        checks.append(check)
        if check.status == "FAIL":
            raise _Stop(stop_status, check.detail)

    limit, timeout = options.batch_limit, options.timeout
    say(f"loading {kernel_path.name} and {copy.name}")
    comp_k = load_component(kernel_path, timeout=timeout)
    seed_everything(0)
    kernel = comp_k.build(device, timeout, batch_limit=limit)
    inputs = [limited_inputs(comp_k, limit, seed=42 + i, device=device, timeout=timeout, model=kernel)
              for i in range(max(5, options.num_trials))]
    args0, kwargs0 = inputs[0]
    kernel_outs = [hacks.call(kernel, clone_nested(a), clone_nested(k), kernel_path, timeout) for a, k in inputs]

    # (the kernel's own files are read before ModelNew's code runs: the watch below names any read after)
    comp_k.batch_size_kept(limit, timeout)
    init = comp_k.init_inputs(timeout, batch_limit=limit)
    watch = hacks.FileWatch(_forbidden_files(root, tree) - {copy.resolve()})
    with watch:
        comp_n = load_component(copy, class_name="ModelNew", require_inputs=False, timeout=timeout)
        seed_everything(0)
        with comp_n.batch_lowered_like(comp_k, limit, timeout):   # (its `batch_size`, as the kernel's)
            new = run_user_code(lambda: comp_n.model_class(*init), what="ModelNew(*get_init_inputs())", path=copy,
                                timeout=timeout)
        new = new.to(device)
        new.eval()
        record(hacks.check_signature(kernel, new, args0, kwargs0), stop_status="ERROR")
        new.load_state_dict(kernel.state_dict())
        kernel_ops = hacks.op_trace(kernel, args0, kwargs0, kernel_path, timeout)
        new_ops = hacks.op_trace(new, args0, kwargs0, copy, timeout)
        # one call on fresh copies: what it did to its inputs, what it returned, what it left running
        given_k = clone_nested([args0, kwargs0])
        out_k = hacks.call(kernel, given_k[0], given_k[1], kernel_path, timeout)
        given_n = clone_nested([args0, kwargs0])
        with hacks.watching_threads() as threads_left:
            out_n = hacks.call(new, given_n[0], given_n[1], copy, timeout)
            at_return = clone_nested(out_n)
            hacks.settle(device)
        changed_after = not hacks.same_values(at_return, out_n)
        event_s = wall_s = None
        if device.type == "cuda":
            from hdecomp.toolchain.profile import time_forward
            event_s = time_forward(new, args0, kwargs0, device, warmup=1, runs=5)
            wall_s = _synchronised_seconds(new, args0, kwargs0, device, runs=5)
        settled = clone_nested(out_n)
        args1, kwargs1 = inputs[1]
        out_n1 = hacks.call(new, clone_nested(args1), clone_nested(kwargs1), copy, timeout)
    record(hacks.check_reference_call(watch, kernel_ops, new_ops, root))
    record(hacks.check_mutation([args0, kwargs0], given_n, given_k))
    record(hacks.check_alias(out_n, given_n, new, out_k, given_k, kernel))
    record(hacks.check_stale(out_n, settled, out_n1, kernel_outs[0], kernel_outs[1]))
    record(hacks.check_side_work(threads_left, changed_after, device, event_s, wall_s))

    # the proof: verify-step's seeded trials and re-randomised weights, ModelNew against Model
    dtype = first_float_dtype(kernel_outs[0]) or first_float_dtype(args0) or torch.float32
    tol = TOLERANCE.get(dtype, 1e-4)
    rtol = options.rtol if options.rtol is not None else tol
    atol = options.atol if options.atol is not None else tol
    data["tolerance"] = {"dtype": str(dtype).removeprefix("torch."), "rtol": rtol, "atol": atol}
    say(f"proving ModelNew against {kernel_path.name}: {options.num_trials} seeded trials + re-randomised weights")
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step
    vopts = VerifyOptions(rtol=rtol, atol=atol, num_trials=options.num_trials, skip_anticheat=True,
                          device=options.device, batch_limit=limit, timeout=timeout,
                          weight_map={k: k for k in kernel.state_dict()}, refactored_class=("ModelNew",),
                          init_from_original=True, reference_cache=options.reference_cache)
    proof = verify_step(kernel_path, copy, vopts, output=out_dir / PROOF_RESULT)
    trials = proof.data.get("numerical_comparison", {}).get("num_trials", options.num_trials)
    if proof.status == "ERROR":
        checks.append(Check("trials", "FAIL", f"could not run: {proof.error}"))
        raise _Stop("ERROR", f"the proof against the kernel could not run: {proof.error}")
    diff = f"max diff {proof.max_diff:.2e}" if isinstance(proof.max_diff, float) else "no comparison"
    record(Check("trials", "PASS" if proof.status == "PASS" else "FAIL",
                 f"{trials} seeded trials + re-randomised weights, {diff} (rtol {rtol:g}, atol {atol:g})"
                 if proof.status == "PASS" else
                 f"ModelNew differs from the kernel {kernel_path.name}: "
                 f"{proof.data.get('fail_detail') or (proof.fail_reasons or [diff])[0]}"))
    record(hacks.check_degenerate(kernel_outs))

    # the timing, and the floor it cannot beat
    say("timing the kernel and ModelNew")
    from hdecomp.toolchain.replace.timing import floor_seconds, time_pair
    flops, _ = count_flops(kernel, args0, kwargs0)
    nbytes = bytes_moved(kernel, args0, kwargs0, kernel_outs[0])
    t_kernel, t_new = time_pair(kernel, new, args0, kwargs0, device, warmup=options.warmup, runs=options.runs)
    floor, spec = floor_seconds(flops, nbytes, PRECISION.get(dtype, "fp32"), device, reference_seconds=t_kernel)
    data["timing"] = {"runs": options.runs, "warmup": options.warmup, "kernel_seconds": t_kernel,
                      "replacement_seconds": t_new, "speedup": t_kernel / t_new if t_new > 0 else None,
                      "flops": flops, "bytes": nbytes, "speed_of_light_seconds": floor, "speed_of_light_device": spec,
                      "model_seconds_before": None, "model_seconds_after": None, "model_speedup": None}
    record(Check("speed_of_light", "FAIL" if t_new < options.sol_margin * floor else "PASS",
                 f"ModelNew's median time {t_new * 1e6:.2f} µs is below {options.sol_margin:g} x the speed-of-light "
                 f"floor {floor * 1e6:.2f} µs of the kernel's work on {spec} ({flops} FLOPs, {nbytes} bytes): no "
                 "honest implementation is that fast (work skipped, cached across calls, or done outside the call)"
                 if t_new < options.sol_margin * floor else
                 f"{t_new * 1e6:.2f} µs against a floor of {floor * 1e6:.2f} µs on {spec}"))
    del kernel, new, kernel_outs, inputs

    # every step above the kernel, then the whole model, with the replacement in every instance
    others = {k: e for k, e in active_replacements(root).items() if k != kid}
    replaced = {(root / e["kernel"]).resolve(): (root / e["replacement"]).resolve() for e in others.values()}
    replaced[kernel_path.resolve()] = copy.resolve()
    floor_tol = max(rtol, atol, *(float(e["tolerance"]) for e in others.values()
                                  if isinstance(e.get("tolerance"), (int, float))))
    from hdecomp.toolchain.compose import compose
    from hdecomp.toolchain.replace.steps import prepare, verify_with_replacements
    comp = prepare(root, timeout)
    step_opts = dataclasses.replace(vopts, rtol=None, atol=None, weight_map=None, num_trials=min(options.num_trials, 3),
                                    refactored_class=("RefactoredModel", "Model"), init_from_original=False)
    records = verify_with_replacements(root, replaced, out_dir / "steps", step_opts, kernels={kernel_path.resolve()},
                                       tolerance=floor_tol, comp=comp, progress=say)
    data["steps"] = records
    bad = next((r for r in records if r["status"] != "PASS"), None)
    if bad is not None:
        data["first_failing_step"] = bad["step"]
        record(Check("steps", "FAIL", f"with ModelNew in place, {bad['step']} ({bad['node'] or 'step'}) does not "
                     f"verify: {bad['status']}: {bad['error'] or 'max diff ' + format(bad['max_diff'] or 0, '.2e')}"))
    record(Check("steps", "PASS", f"{len(records)} step(s) holding the kernel re-verified with it replaced: "
                 + ", ".join(r["step"].split("/")[-1] for r in records) if records else
                 "the model is this one kernel: no step above it (the composition checks it against the model)"))
    say("composition test with the replacements in place")
    composed = compose(root, batch_limit=limit, device=options.device, timeout=timeout, with_replacements=True,
                       replaced=replaced, tolerance=floor_tol)
    data["composition"] = {"status": composed.status, "max_diff": composed.max_diff, "reason": composed.reason,
                           "script": composed.script.relative_to(root).as_posix() if composed.script else None}
    record(Check("composition", "PASS" if composed.status == "PASS" else "FAIL",
                 f"the whole model rebuilt from kernel files with the replacement: {composed.status}, max diff "
                 f"{composed.max_diff if composed.max_diff is not None else 'n/a'}"
                 + (f" ({composed.reason})" if composed.reason else "")))
    say("timing the whole model without and with the replacements")
    before, after = _model_times(root, comp, replaced, options, device)
    data["timing"].update({"model_seconds_before": before, "model_seconds_after": after,
                           "model_speedup": before / after if after > 0 else None})


def _synchronised_seconds(model: Any, args: list[Any], kwargs: dict[str, Any], device: torch.device,
                          runs: int) -> float:
    import statistics
    times = []
    with torch.no_grad():
        for _ in range(runs):
            hacks.synchronize(device)
            t0 = time.perf_counter()
            model(*args, **kwargs)
            hacks.synchronize(device)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _model_times(root: Path, comp: Any, replaced: dict[Path, Path], options: ReplaceOptions,
                 device: torch.device) -> tuple[float, float]:
    """The whole composed model without and with the replacements, the same weights, interleaved."""
    from hdecomp.runtime.batch_limit import limited_inputs
    from hdecomp.runtime.component import load_component, seed_everything
    from hdecomp.toolchain.compose.script import generate_script
    from hdecomp.toolchain.replace.timing import import_script, time_pair
    tmp = Path(tempfile.mkdtemp(prefix=".timing_", dir=root / REPLACEMENTS_DIR))
    try:
        models = []
        original = load_component(comp.original, timeout=options.timeout)
        init = original.init_inputs(options.timeout, batch_limit=options.batch_limit)
        for name, rep in (("before", {}), ("after", replaced)):
            path = write_text_atomic(tmp / f"model_{name}.py", generate_script(
                comp, batch_limit=options.batch_limit, device=options.device, replaced=rep, script_dir=tmp))
            module = import_script(path)
            seed_everything(0)
            model = module.ComposedModel(*init).to(device)
            model.eval()
            models.append(model)
        models[1].load_state_dict(models[0].state_dict())
        args, kwargs = limited_inputs(original, options.batch_limit, device=device, timeout=options.timeout)
        return time_pair(models[0], models[1], args, kwargs, device, warmup=options.warmup, runs=options.runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def remove_replacement(root: str | Path, kernel_file: str | Path) -> ReplaceResult:
    """Deactivate the kernel's replacement (its files stay under replacements/)."""
    root = Path(root)
    try:
        tree = load_decomposition(root)
        kid, _, _ = find_kernel(tree, root, kernel_file)
    except HdecompError as exc:
        return ReplaceResult(status="ERROR", reason=exc.headline)
    changed = set_replacement(root, kid, None)
    return ReplaceResult(status="PASS", reason=None if changed else f"{kid} had no active replacement",
                         data={"kernel": kid, "removed": changed})


__all__ = ["CHECK_ORDER", "TOLERANCE", "ReplaceOptions", "ReplaceResult", "find_kernel", "remove_replacement",
           "replace_kernel"]
