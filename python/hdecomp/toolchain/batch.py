"""Test many decompositions at once: for every folder under ROOT holding a decomposition_tree.json,
the step pipeline's verdict, every component's self-test and the composition test, then one summary
table (and JSON in the original batch_test.py format plus our fields)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.tree import TREE_FILE

RESULTS_FILE = "batch_results.json"
_SKIP_DIRS = {"steps", "verification", "children", "__pycache__", ".git", "node_modules", ".venv"}


def find_decompositions(root: str | Path, level: str | None = None, max_depth: int = 4) -> list[Path]:
    """Folders under `root` (itself included) with a decomposition_tree.json; `level` keeps only those
    with a path component of that name (`level3`)."""
    root = Path(root)
    found: list[Path] = []

    def walk(d: Path, depth: int) -> None:
        if (d / TREE_FILE).is_file():
            found.append(d)
            return  # a decomposition's own sub-folders are not decompositions
        if depth >= max_depth:
            return
        try:
            subs = sorted(p for p in d.iterdir() if p.is_dir() and p.name not in _SKIP_DIRS
                          and not p.name.startswith("."))
        except OSError:
            return
        for s in subs:
            walk(s, depth + 1)

    walk(root, 0)
    if level:
        found = [d for d in found if level in d.resolve().relative_to(root.resolve()).parts
                 or d.parent.name == level]
    return found


@dataclass
class DecompositionOutcome:
    path: Path
    root: Path
    pipeline: str = "NOT_RUN"                # PASS | FAIL | ERROR | NO_STEPS
    steps_total: int = 0
    steps_passed: int = 0
    components_tested: int = 0
    components_passed: int = 0
    composition: str = "NOT_RUN"             # PASS | FAIL | ERROR
    composition_max_diff: float | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kernel_root: bool = False                # the tree is one kernel (a one-op model): no steps by design

    @property
    def status(self) -> str:
        """PASSED: steps, self-tests and composition all pass; PARTIAL: nothing failed but something
        could not be checked; FAILED otherwise (the original script's three verdicts)."""
        failed = self.components_passed < self.components_tested or self.pipeline in ("FAIL", "ERROR") \
            or self.composition in ("FAIL", "ERROR")
        if failed:
            return "FAILED"
        steps_ok = self.pipeline == "PASS" or (self.pipeline == "NO_STEPS" and self.kernel_root)
        if steps_ok and self.composition == "PASS" and self.components_tested > 0:
            return "PASSED"
        return "PARTIAL"

    def to_dict(self) -> dict[str, Any]:
        try:
            rel = str(self.path.resolve().relative_to(self.root.resolve()))
        except ValueError:
            rel = str(self.path)
        comp = self.composition if self.composition in ("PASS", "NOT_RUN", "NOT_FOUND") else \
            f"{self.composition}: {next((e for e in self.errors if 'composition' in e), '')}".rstrip(": ")
        return {
            "model": self.path.name, "level": self.path.parent.name, "path": str(self.path),
            "relative_path": rel,
            "components_tested": self.components_tested, "components_passed": self.components_passed,
            "components_failed": self.components_tested - self.components_passed,
            "composition_test": comp, "status": self.status, "errors": self.errors,
            "pipeline_status": self.pipeline, "steps_total": self.steps_total,
            "steps_passed": self.steps_passed, "composition_status": self.composition,
            "composition_max_diff": self.composition_max_diff, "seconds": round(self.seconds, 3),
            "kernel_root": self.kernel_root,
        }


def test_decomposition(path: Path, root: Path, *, timeout: float = 300.0, options: Any = None,
                       console: Any = None, jobs: int = 1) -> DecompositionOutcome:
    """Pipeline verdict + self-tests + composition for one decomposition; problems become `errors`."""
    from hdecomp.toolchain.pipeline import run_pipeline
    out = DecompositionOutcome(path=path, root=root)
    t0 = time.perf_counter()
    try:
        pr = run_pipeline(path, options, console=console, progress=console is not None)
        out.pipeline = pr.status if pr.steps else "NO_STEPS"
        out.kernel_root = pr.kernel_root
        out.steps_total = len(pr.steps)
        out.steps_passed = sum(1 for s in pr.steps if s.status == "PASS")
        for s in pr.steps:
            if s.status != "PASS":
                out.errors.append(f"step {s.step.dir.name}: {s.status}: {s.error or s.fail_reason or ''}")
        if not pr.steps and not pr.kernel_root:
            out.errors.extend(pr.problems[-1:])
    except HdecompError as exc:
        out.pipeline = "ERROR"
        out.errors.append(f"pipeline: {exc.headline}")
    from hdecomp.formats.layout import component_files
    from hdecomp.runtime.warm import WarmPool, third_party_imports
    from hdecomp.toolchain.selftest import self_test_env
    try:
        preload = third_party_imports(component_files(path))
    except HdecompError:
        preload = []
    with WarmPool(jobs, env=self_test_env(), preload=preload) as pool:   # torch imported once for all files
        _tests_and_composition(out, path, timeout, options, jobs, pool)
    out.seconds = time.perf_counter() - t0
    return out


def _tests_and_composition(out: DecompositionOutcome, path: Path, timeout: float, options: Any, jobs: int,
                           pool: Any) -> None:
    from hdecomp.toolchain.final_checks import run_final_checks
    checks = run_final_checks(path, pool=pool, jobs=jobs, timeout=timeout,
                              batch_limit=getattr(options, "batch_limit", None),
                              device=getattr(options, "device", None) or "cpu",
                              # (nothing to compose without steps: the components alone are checked, PARTIAL at best)
                              composition=out.pipeline != "NO_STEPS" or out.kernel_root)
    if checks.self_tests is not None:
        st = checks.self_tests
        out.components_tested = len(st.results)
        out.components_passed = st.passed
        out.errors.extend(r.cause or f"{r.file}: {r.status}" for r in st.results if r.status != "PASS")
    elif checks.self_tests_error is not None:
        out.errors.append(f"self-tests: {_headline(checks.self_tests_error)}")
    if checks.composition is not None:
        cr = checks.composition
        out.composition = cr.status
        out.composition_max_diff = cr.max_diff if isinstance(cr.max_diff, (int, float)) else None
        if cr.status != "PASS":
            out.errors.append(f"composition: {cr.reason}")
    elif checks.composition_error is not None:
        out.composition = "ERROR"
        out.errors.append(f"composition: {_headline(checks.composition_error)}")


def _headline(exc: Exception) -> str:
    """A user-facing error's one line; any other exception is a bug of ours, named as such."""
    return exc.headline if isinstance(exc, HdecompError) else f"internal error: {type(exc).__name__}: {exc}"


def run_batch(root: str | Path, *, level: str | None = None, timeout: float = 300.0, options: Any = None,
              console: Any = None, on_result: Any = None, jobs: int = 1, executor: Any = None,
              tree_timeout: float | None = None) -> dict[str, Any]:
    """Every decomposition under `root` tested (see the module's doc); `on_result(status, path)` as each
    finishes. `executor` (hdecomp.scale: local processes or Ray): one task per tree, `hdecomp batch TREE` in
    a process of its own, `tree_timeout` seconds at most each (the trees on a filesystem the workers see)."""
    root = Path(root)
    if not root.is_dir():
        raise HdecompError("folder not found", root)
    rows: list[dict[str, Any]] = []
    found = find_decompositions(root, level)
    if executor is not None:
        from hdecomp.scale.task import BatchSpec, run_batch_task
        flags = ["--timeout", str(timeout), "-j", str(jobs)]
        specs = [BatchSpec(tree=str(d.resolve()), flags=flags, timeout=tree_timeout) for d in found]
        for spec, row, error in executor.map(run_batch_task, specs):
            if row is None:
                row = {"model": Path(spec.tree).name, "path": spec.tree, "status": "FAILED", "errors": [error]}
            try:
                row["relative_path"] = str(Path(spec.tree).relative_to(root.resolve()))
            except ValueError:
                row["relative_path"] = spec.tree
            rows.append(row)
            if on_result is not None:
                on_result(row["status"], Path(spec.tree))
        order = {str(d.resolve()): i for i, d in enumerate(found)}
        rows.sort(key=lambda r: order.get(str(r.get("path")), len(order)))
    else:
        for d in found:
            o = test_decomposition(d, root, timeout=timeout, options=options, console=console, jobs=jobs)
            rows.append(o.to_dict())
            if on_result is not None:
                on_result(o.status, o.path)
    counts = {k: sum(1 for r in rows if r["status"] == k) for k in ("PASSED", "PARTIAL", "FAILED")}
    return {"timestamp": datetime.now().isoformat(), "root": str(root), "total": len(rows),
            "passed": counts["PASSED"], "partial": counts["PARTIAL"], "failed": counts["FAILED"],
            "results": rows}


STATUS_STYLE = {"PASSED": "green", "PARTIAL": "yellow", "FAILED": "red", "PASS": "green", "FAIL": "red",
          "ERROR": "bold red", "NOT_RUN": "dim", "NO_STEPS": "dim"}


__all__ = ["DecompositionOutcome", "find_decompositions", "run_batch", "test_decomposition"]
