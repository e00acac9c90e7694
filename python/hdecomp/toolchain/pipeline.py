"""Re-verify every step of an existing decomposition in one process (torch imported once).

Each step folder (`steps/step_<N>_<name>/`) is verified with `hdecomp.verify.step.verify_step`, in process,
and gets a fresh verification_result.json and coverage_report.json; the run goes on past broken steps
and ends with verification/step_verification_summary.json. Decompositions written for the original
workspace work unchanged (copied, symlinked or missing original.py; children imported via sys.path).
"""

from __future__ import annotations

import argparse
import contextlib
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field, is_dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import Step, discover_steps
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError

SUMMARY_FILE = "step_verification_summary.json"
EXIT = {"PASS": 0, "NO_STEPS": 0, "FAIL": 1, "ERROR": 2}
# Why a tree without steps is complete: its root is itself a kernel (a one-op model).
KERNEL_ROOT_REASON = ("the tree's root is a kernel (the model is one kernel op): there is no step to verify; "
                      "the composition test checks the kernel file against the original model")


@dataclass
class StepOutcome:
    """One step's verdict, as the summary lists it."""

    step: Step
    status: str                                  # PASS | FAIL | ERROR
    max_diff: float | None = None
    fail_reason: str | None = None
    error: str | None = None
    violations: int = 0
    anticheat_status: str | None = None
    coverage_status: str | None = None
    coverage_pct: float | None = None
    coverage_error: str | None = None
    verify_seconds: float = 0.0
    coverage_seconds: float = 0.0
    forward_seconds: float = 0.0   # in the models' forwards (the verification's own clock, on either side)
    forward_calls: int = 0
    replaced_result: Path | None = None   # verified composed, with the tree's kernel replacements in place

    def to_dict(self, root: Path) -> dict[str, Any]:
        def rel(p: Path | None) -> str | None:
            if p is None:
                return None
            try:
                return str(p.resolve().relative_to(root.resolve()))
            except ValueError:
                return str(p)
        return {
            "step": self.step.dir.name, "step_number": self.step.number, "step_dir": rel(self.step.dir),
            # the original workspace's field names (tools written for it read these)
            "step_name": self.step.dir.name, "verification_status": self.status,
            "anticheat_status": self.anticheat_status or ("ERROR" if self.status == "ERROR" else "UNKNOWN"),
            "status": self.status, "passed": self.status == "PASS",
            "original_file": rel(self.step.original), "original_source": self.step.original_source,
            "refactored_file": rel(self.step.refactored), "result_file": rel(self.replaced_result or self.step.result_file),
            "with_replacements": self.replaced_result is not None,
            "max_diff": self.max_diff, "fail_reason": self.fail_reason, "error": self.error,
            "anticheat_violations": self.violations,
            "coverage_status": self.coverage_status, "coverage_pct": self.coverage_pct,
            "coverage_error": self.coverage_error,
            "coverage_file": rel(self.step.coverage_file) if self.coverage_status else None,
            "verify_seconds": round(self.verify_seconds, 3), "coverage_seconds": round(self.coverage_seconds, 3),
        }


@dataclass
class PipelineResult:
    root: Path
    steps: list[StepOutcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # decomposition-level problems (file: cause)
    seconds: float = 0.0
    forward_seconds: float = 0.0
    forward_calls: int = 0
    summary_file: Path | None = None
    kernel_root: bool = False      # the tree is one level-0 root node: no steps is complete, not an error

    @property
    def status(self) -> str:
        if not self.steps and self.kernel_root:
            return "NO_STEPS"
        if not self.steps or any(s.status == "ERROR" for s in self.steps):
            return "ERROR"
        return "FAIL" if any(s.status == "FAIL" for s in self.steps) else "PASS"

    @property
    def exit_code(self) -> int:
        return EXIT[self.status]

    def to_dict(self) -> dict[str, Any]:
        counts = {k: sum(1 for s in self.steps if s.status == k) for k in ("PASS", "FAIL", "ERROR")}
        verify = sum(s.verify_seconds for s in self.steps)
        cov = sum(s.coverage_seconds for s in self.steps)
        extra = {"reason": KERNEL_ROOT_REASON} if self.status == "NO_STEPS" else {}
        return {
            **extra,
            "timestamp": datetime.now().isoformat(),
            "decomposition_dir": str(self.root),
            "decomp_dir": str(self.root),  # the original workspace's name for it
            "total_steps": len(self.steps),
            "passed": counts["PASS"], "failed": counts["FAIL"], "skipped": 0, "errors": counts["ERROR"],
            "all_passed": bool(self.steps) and counts["PASS"] == len(self.steps),
            "status": self.status,
            "steps": [s.to_dict(self.root) for s in self.steps],
            "problems": self.problems,
            "timings": {"total_seconds": round(self.seconds, 3), "verify_seconds": round(verify, 3),
                        "coverage_seconds": round(cov, 3), "forward_seconds": round(self.forward_seconds, 3),
                        "forward_calls": self.forward_calls,
                        "other_seconds": round(max(self.seconds - self.forward_seconds, 0.0), 3)},
        }


def _error_result(step: Step, cause: str) -> dict[str, Any]:
    """A verification_result.json for a step that could not be verified at all (original format keys)."""
    return {"timestamp": datetime.now().isoformat(),
            "original_file": str(step.original or step.dir / "original.py"),
            "refactored_file": str(step.refactored), "status": "ERROR",
            # the checks never ran: their sections say so (the schema requires them)
            "anticheat": {"status": "UNKNOWN", "violations": [], "source_violations": [],
                          "parameter_violations": []},
            "weight_transfer": {"status": "UNKNOWN"}, "numerical_comparison": {"status": "UNKNOWN"},
            "error": cause}


def verify_one(step: Step, options: Any, *, coverage: bool = True) -> StepOutcome:
    """Verify one step in process and write its verification_result.json and coverage_report.json."""
    from hdecomp.verify.step import verify_step
    if step.problem or step.original is None:
        about = "refactored.py" if (step.problem or "").startswith("refactored.py") else "original.py"
        cause = f"{step.dir / about}: {step.problem or 'original.py is missing'}"
        write_json_atomic(step.result_file, _error_result(step, cause))
        return StepOutcome(step=step, status="ERROR", error=cause)
    t0 = time.perf_counter()
    try:
        wm = step.weight_map
        if wm is not None:
            options = _with(options, weight_map=str(wm))
        result = verify_step(step.original, step.refactored, options, output=step.result_file)
        traces = getattr(result, "traces", None)
        d = result.to_dict()
        # no trial ran (load error, violation found first): there is no max diff to show, not a 0
        compared = bool((d.get("numerical_comparison") or {}).get("trials"))
        out = StepOutcome(step=step, status=result.status, max_diff=_finite(result.max_diff) if compared else None,
                          error=_error_text(result.error), violations=len(result.violations or []))
        out.fail_reason = d.get("fail_reason")
        out.anticheat_status = (d.get("anticheat") or {}).get("status")
        timings = d.get("timings") or {}
        out.forward_seconds = float(timings.get("forward", 0.0)) + float(timings.get("forward_recorded", 0.0))
        out.forward_calls = int(timings.get("forward_calls", 0))
    except HdecompError as exc:
        write_json_atomic(step.result_file, _error_result(step, exc.headline))
        out = StepOutcome(step=step, status="ERROR", error=exc.headline)
        traces = None
    except Exception as exc:  # a bug anywhere must not stop the other steps; the cause is kept
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename}:{tb[-1].lineno}: " if tb else ""
        cause = f"{where}verification crashed: {type(exc).__name__}: {exc}"
        write_json_atomic(step.result_file, _error_result(step, cause))
        out = StepOutcome(step=step, status="ERROR", error=cause)
        traces = None
    out.verify_seconds = time.perf_counter() - t0
    if coverage and out.status != "ERROR":
        from hdecomp.toolchain.coverage import step_coverage, step_coverage_from_traces
        t1 = time.perf_counter()
        try:
            if traces is not None:  # the verifier recorded both models already: no extra forward pass
                rep = step_coverage_from_traces(step, traces[0], traces[1], output=step.coverage_file,
                                                timeout=getattr(options, "timeout", None))
            else:
                rep = step_coverage(step, output=step.coverage_file, device=getattr(options, "device", "cpu"),
                                    timeout=getattr(options, "timeout", None),
                                    batch_limit=getattr(options, "batch_limit", None))
            out.coverage_status = rep.get("status")
            out.coverage_pct = (rep.get("coverage") or {}).get("coverage_pct")
            out.coverage_error = rep.get("error")
        except Exception as exc:  # coverage is a report, never the verdict
            out.coverage_status = "ERROR"
            out.coverage_error = f"{type(exc).__name__}: {exc}"
        out.coverage_seconds = time.perf_counter() - t1
    return out


def _with(options: Any, **changes: Any) -> Any:
    if is_dataclass(options) and not isinstance(options, type):
        return replace(options, **changes)
    return options


def _finite(x: Any) -> float | None:
    try:
        return float(x) if x is not None else None
    except (TypeError, ValueError):
        return None


def _error_text(err: Any) -> str | None:
    if err is None:
        return None
    if isinstance(err, HdecompError):
        return err.headline
    if isinstance(err, dict):
        return str(err.get("message") or err.get("cause") or err)
    return str(err)


def load_tree_quietly(root: Path, problems: list[str]) -> DecompositionTree | None:
    """The tree if it reads; otherwise None and the problem noted (steps still run without it)."""
    if not (root / TREE_FILE).exists():
        problems.append(f"{root / TREE_FILE}: not found (steps are found from steps/ alone)")
        return None
    try:
        return DecompositionTree.load(root)
    except TreeFormatError as exc:
        problems.append(exc.headline)
        return None


def run_pipeline(root: str | Path, options: Any = None, *, coverage: bool = True, console: Any = None,
                 progress: bool = True, verbose: bool = False, write_summary: bool = True,
                 with_replacements: bool = False) -> PipelineResult:
    """Verify every step under `root`/steps in order; write the summary; never stop at a broken step.
    `with_replacements`: each step that holds a kernel with an active replacement (`hdecomp replace`) is
    verified composed, the replacement in every instance (verification/with_replacements/); the others as
    always."""
    from hdecomp.verify.result import VerifyOptions
    root = Path(root)
    if not root.is_dir():
        raise HdecompError("not a folder" if root.exists() else "decomposition folder not found", root)
    if not (root / TREE_FILE).exists() and not (root / "steps").is_dir():
        # a foreign or empty folder: say so before anything is written into it
        raise HdecompError("not a decomposition folder (no decomposition_tree.json, no steps/)", root)
    options = options or VerifyOptions()
    result = PipelineResult(root=root)
    tree = load_tree_quietly(root, result.problems)
    steps = discover_steps(root, tree)
    result.kernel_root = tree is not None and tree.root is not None and tree.root.level == 0
    if not steps and not result.kernel_root:
        result.problems.append(f"{root / 'steps'}: no step folders with a refactored.py")
    t0 = time.perf_counter()
    replaced_run = _replacements_run(root, options, result.problems) if with_replacements else None
    with _progress(console, progress, len(steps)) as advance:
        for step in steps:
            if replaced_run is not None and step.dir.resolve() in replaced_run.holding:
                outcome = _verify_replaced(root, step, options, replaced_run)
            else:
                outcome = verify_one(step, options, coverage=coverage)
            result.steps.append(outcome)
            advance(outcome)
            if verbose and console is not None:
                _print_outcome(console, outcome)
    result.seconds = time.perf_counter() - t0
    result.forward_seconds = sum(o.forward_seconds for o in result.steps)
    result.forward_calls = sum(o.forward_calls for o in result.steps)
    if write_summary:
        result.summary_file = write_json_atomic(root / "verification" / SUMMARY_FILE, result.to_dict())
    return result


@dataclass
class _WithReplacements:
    comp: Any                       # the tree's composition (toolchain.compose.Composition)
    holding: dict[Path, Path]       # step folder (resolved) -> its plan's folder, for the steps holding a replaced kernel
    replaced: dict[Path, Path]      # kernel file -> the file whose ModelNew replaces it
    tolerance: float | None


def _replacements_run(root: Path, options: Any, problems: list[str]) -> _WithReplacements | None:
    """What --with-replacements verifies differently; None without active replacements (noted) or when the
    steps cannot be composed (noted)."""
    from hdecomp.formats.replacements import replaced_files, replacement_tolerance
    from hdecomp.toolchain.replace.steps import prepare, steps_holding
    replaced = replaced_files(root)
    if not replaced:
        problems.append(f"{root / TREE_FILE}: no kernel replacement is active (--with-replacements)")
        return None
    try:
        comp = prepare(root, getattr(options, "timeout", None))
    except HdecompError as exc:
        problems.append(f"with replacements: {exc.headline}")
        return None
    holding = {d.resolve(): d for d in steps_holding(comp, set(replaced))}
    return _WithReplacements(comp, holding, replaced, replacement_tolerance(root))


def _verify_replaced(root: Path, step: Step, options: Any, run: _WithReplacements) -> StepOutcome:
    from hdecomp.toolchain.replace.steps import verify_composed_step
    t0 = time.perf_counter()
    try:
        record, res = verify_composed_step(root, run.comp, run.holding[step.dir.resolve()], run.replaced,
                                           root / "verification" / "with_replacements", options, run.tolerance)
        out = StepOutcome(step=step, status=res.status, max_diff=_finite(res.max_diff), error=_error_text(res.error),
                          fail_reason=res.data.get("fail_reason"))
        out.replaced_result = root / record["result_file"]
    except HdecompError as exc:
        out = StepOutcome(step=step, status="ERROR", error=exc.headline)
    out.verify_seconds = time.perf_counter() - t0
    return out


@contextlib.contextmanager
def _progress(console: Any, enabled: bool, total: int) -> Iterator[Any]:
    if not enabled or console is None or total == 0:
        yield lambda outcome: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    with Progress(TextColumn("[bold]verifying steps"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True) as bar:
        task = bar.add_task("", total=total)

        def advance(outcome: StepOutcome) -> None:
            bar.update(task, advance=1, description=f"{outcome.step.dir.name}: {outcome.status}")
        yield advance


STATUS_STYLE = {"PASS": "green", "FAIL": "red", "ERROR": "bold red"}


def _print_outcome(console: Any, o: StepOutcome) -> None:
    detail = ""
    if o.status == "ERROR":
        detail = o.error or ""
    elif o.status == "FAIL":
        detail = o.fail_reason or ""
    elif o.max_diff is not None:
        detail = f"max diff {o.max_diff:.3g}"
    cov = f" coverage {o.coverage_pct}%" if o.coverage_pct is not None else ""
    console.print(f"[{STATUS_STYLE[o.status]}]{o.status:5}[/] {o.step.dir.name}  {detail}{cov}", highlight=False)


def options_from_args(args: argparse.Namespace) -> Any:
    from hdecomp.verify.result import VerifyOptions
    return VerifyOptions(rtol=getattr(args, "rtol", None), atol=getattr(args, "atol", None),
                         num_trials=getattr(args, "num_trials", 3), device=getattr(args, "device", "cpu"),
                         batch_limit=getattr(args, "batch_limit", None), timeout=getattr(args, "timeout", None),
                         reference_cache=not getattr(args, "no_cache", False))


__all__ = ["PipelineResult", "StepOutcome", "run_pipeline", "verify_one"]
