"""`hdecomp replace DIR KERNEL_FILE NEW.py`: prove a faster kernel (`class ModelNew`) against a kernel of the
tree, refuse the known reward hacks, put it in every instance, re-verify every step above it and the whole
composition, and time kernel and model before and after (docs/DESIGN.md, "Replacing a kernel").

Writes replacements/<kernel id>/: a copy of NEW.py (what was proved is what runs), replacement_result.json,
the proof's verification result and the composed steps' files and results; a PASS makes the replacement
active in decomposition_tree.json (`formats.replacements`).
"""

from __future__ import annotations

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
from hdecomp.runtime.settings import RunSettings
from hdecomp.toolchain.replace.hacks import Check, check_speed_of_light

# KernelBench's tolerance (rtol = atol) by the kernel's output dtype
TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-7, torch.float16: 1e-2, torch.bfloat16: 1e-2}
PROOF_RESULT = "proof_verification_result.json"
CHECK_ORDER = ("signature", "global_state", "introspection", "reference_call", "output_type", "side_work",
               "input_mutation", "output_alias", "stale_output", "input_dependence", "trials", "degenerate_reference",
               "speed_of_light", "steps", "composition")


@dataclass
class ReplaceOptions(RunSettings):
    """Knobs of replace: the run settings (more trials than a step's: a hand-written kernel is judged, not one
    the decomposer derived), the timing runs and the speed-of-light margin."""

    num_trials: int = 5
    runs: int = 10
    warmup: int = 3
    sol_margin: float = 0.5


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


def _recorder(checks: list[Check]) -> Callable[..., None]:
    """`record(check, stop_status="FAIL")`: appends the check; a FAIL stops the proof there (`_Stop`)."""
    def record(check: Check, stop_status: str = "FAIL") -> None:
        checks.append(check)
        if check.status == "FAIL":
            raise _Stop(stop_status, check.detail)
    return record


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


def judge_kernel(root: Path, tree: DecompositionTree, kernel_path: Path, copy: Path, options: ReplaceOptions,
                 device: torch.device, data: dict[str, Any], record: Callable[..., None],
                 say: Callable[[str], None]) -> Any:
    """The kernel-level verdict: every check from `signature` to `speed_of_light`, the kernel and ModelNew each
    in a process of their own (`replace.isolated`), each check `record`ed (a FAIL stops there); fills
    `data`'s tolerance, proof and timing. Returns the KernelProof."""
    from hdecomp.toolchain.profile import PRECISION
    from hdecomp.toolchain.replace.isolated import Refused, prove_kernel

    def tolerance(dtype: torch.dtype) -> tuple[float, float]:
        tol = TOLERANCE.get(dtype, 1e-4)
        rtol = options.rtol if options.rtol is not None else tol
        atol = options.atol if options.atol is not None else tol
        data["tolerance"] = {"dtype": str(dtype).removeprefix("torch."), "rtol": rtol, "atol": atol}
        return rtol, atol

    try:
        proof = prove_kernel(kernel_path, copy, root, _forbidden_files(root, tree) - {copy.resolve()},
                             run=options.run, tolerance=tolerance, warmup=options.warmup,
                             runs=options.runs, record=record, say=say)
    except Refused as refused:
        record(refused.check, stop_status="ERROR" if refused.error else "FAIL")
        raise   # (record raised already)
    data["proof"] = {"trials": proof.trials, "max_diff": proof.max_diff, "kernel_follows_inputs": proof.follows_inputs,
                     "isolation": "kernel and ModelNew each in a fresh process; outputs compared and time kept "
                                  "by hdecomp's own process, which imports neither"}

    # the timing, and the floor it cannot beat
    from hdecomp.toolchain.replace.timing import judged_floor
    t_kernel, t_new = proof.kernel_seconds, proof.replacement_seconds
    flops, nbytes = proof.flops, proof.nbytes
    floor, spec = judged_floor(flops, nbytes, PRECISION.get(proof.dtype, "fp32"), device, t_kernel, t_new,
                               options.sol_margin)
    data["timing"] = {"runs": options.runs, "warmup": options.warmup, "kernel_seconds": t_kernel,
                      "replacement_seconds": t_new, "speedup": t_kernel / t_new if t_new > 0 else None,
                      "flops": flops, "bytes": nbytes, "speed_of_light_seconds": floor, "speed_of_light_device": spec,
                      "clock": "hdecomp's process, around requests to each side (an empty request's round trip "
                               "taken off)",
                      "model_seconds_before": None, "model_seconds_after": None, "model_speedup": None}
    record(check_speed_of_light(t_new, floor, options.sol_margin, spec, flops, nbytes))

    return proof


def _prove(root: Path, tree: DecompositionTree, kid: str, kernel_path: Path, copy: Path, out_dir: Path,
           options: ReplaceOptions, device: torch.device, data: dict[str, Any], checks: list[Check],
           say: Callable[[str], None]) -> None:
    record = _recorder(checks)
    judge_kernel(root, tree, kernel_path, copy, options, device, data, record, say)
    write_json_atomic(out_dir / PROOF_RESULT, data["proof"])

    # every step above the kernel, then the whole model, with the replacement in every instance: in a process
    # of their own, the reference cache off (it never holds what ran beside a candidate)
    rtol, atol = data["tolerance"]["rtol"], data["tolerance"]["atol"]
    others = {k: e for k, e in active_replacements(root).items() if k != kid}
    replaced = {(root / e["kernel"]).resolve(): (root / e["replacement"]).resolve() for e in others.values()}
    replaced[kernel_path.resolve()] = copy.resolve()
    floor_tol = max(rtol, atol, *(float(e["tolerance"]) for e in others.values()
                                  if isinstance(e.get("tolerance"), (int, float))))
    from hdecomp.toolchain.replace.steps import after_the_kernel
    after = after_the_kernel(root, replaced, kernel_path, out_dir, options, floor_tol, say)
    records = after["steps"]
    data["steps"] = records
    bad = next((r for r in records if r["status"] != "PASS"), None)
    if bad is not None:
        data["first_failing_step"] = bad["step"]
        record(Check("steps", "FAIL", f"with ModelNew in place, {bad['step']} ({bad['node'] or 'step'}) does not "
                     f"verify: {bad['status']}: {bad['error'] or 'max diff ' + format(bad['max_diff'] or 0, '.2e')}"))
    record(Check("steps", "PASS", f"{len(records)} step(s) holding the kernel re-verified with it replaced: "
                 + ", ".join(r["step"].split("/")[-1] for r in records) if records else
                 "the model is this one kernel: no step above it (the composition checks it against the model)"))
    composed = after["composition"]
    data["composition"] = {k: composed[k] for k in ("status", "max_diff", "reason", "script")}
    record(Check("composition", "PASS" if composed["status"] == "PASS" else "FAIL",
                 f"the whole model rebuilt from kernel files with the replacement: {composed['status']}, max diff "
                 f"{composed['max_diff'] if composed['max_diff'] is not None else 'n/a'}"
                 + (f" ({composed['reason']})" if composed["reason"] else "")))
    before, after_s = after["model_seconds"]
    data["timing"].update({"model_seconds_before": before, "model_seconds_after": after_s,
                           "model_speedup": before / after_s if after_s > 0 else None})


def kernel_verdict(root: str | Path, kernel_file: str | Path, new_file: str | Path,
                   options: ReplaceOptions | None = None) -> ReplaceResult:
    """The kernel-level verdict alone (every check from `signature` to `speed_of_light`, as `replace_kernel`
    runs them), without the steps, the composition or the model timing: nothing is written and nothing
    activated. Its PASS means the kernel-level checks passed; the verdict on the candidate's cheats is
    decided there (the corpus in test/python/corpus_replace is judged with it)."""
    options = options or ReplaceOptions()
    root = Path(root)
    checks: list[Check] = []
    data: dict[str, Any] = {"tolerance": None}

    record = _recorder(checks)
    tmp: Path | None = None
    try:
        tree = load_decomposition(root)
        kid, kernel_path, _ = find_kernel(tree, root, kernel_file)
        new_path = Path(new_file)
        if not new_path.is_file():
            raise HdecompError("file not found", new_path)
        # judged where `hdecomp replace` puts it: a copy under replacements/<kernel id>/ (removed afterwards)
        (root / REPLACEMENTS_DIR).mkdir(exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{kid}_", dir=root / REPLACEMENTS_DIR))
        copy = write_text_atomic(tmp / new_path.name, new_path.read_text(encoding="utf-8"))
        judge_kernel(root, tree, kernel_path, copy, options, torch.device(options.device), data, record,
                     lambda _msg: None)
        status, reason = "PASS", None
    except _Stop as stop:
        status, reason = stop.status, stop.reason
    except HdecompError as exc:
        status, reason = "ERROR", exc.headline
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    data["checks"] = [c.to_dict() for c in checks]
    return ReplaceResult(status=status, reason=reason, data=data)


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


__all__ = ["CHECK_ORDER", "TOLERANCE", "ReplaceOptions", "ReplaceResult", "find_kernel", "judge_kernel",
           "kernel_verdict", "remove_replacement", "replace_kernel"]
