"""Run every component file's self-test (`python file.py` must exit 0 and print PASS), each in its own
subprocess with a timeout, and write verification/test_results.json (the original workspace's format
plus per-file cause, exit code, duration and output tail).

`--batch-limit N` is applied by the runner, never by the file: a file with KernelBench's module-level int
`batch_size` runs through a small bootstrap that executes it as `__main__` with that one top-level
assignment lowered to min(value, N) (an AST rewrite in memory; the file on disk is untouched, line numbers
are kept). Component files written by `hdecomp decompose` carry the original shapes with their batch
dimensions written as `batch_size`, so their self-tests follow. Files without one run unchanged.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import component_files, read_test_results
from hdecomp.runtime.forkserver import BATCH_LINE, NOT_LOWERED_TAG
from hdecomp.runtime.warm import Outcome, WarmPool, run_cold, third_party_imports, warm_enabled

RESULTS_FILE = "test_results.json"
_TAIL = 2000

# Runs argv[1] as __main__ with its top-level int `batch_size = K` (K > argv[2]) assigned argv[2] instead.
# (A line edit, not an AST rewrite: lines stay where they are, and no AST of a big generated file is built.)
_BOOTSTRAP = """\
import os, re, sys, types
path, limit = sys.argv[1], int(sys.argv[2])
with open(path, encoding="utf-8") as f:
    source = f.read()
pattern = re.compile(r"^batch_size[ \\t]*=[ \\t]*([0-9]+)[ \\t]*(#.*)?$", re.MULTILINE)
source = pattern.sub(lambda m: m.group(0) if "hdecomp: not lowered" in (m.group(2) or "") else f"batch_size = {min(int(m.group(1)), limit)}" + (f"  {m.group(2)}" if m.group(2) else ""), source)
code = compile(source, path, "exec")
sys.argv = [path]
sys.path[0] = os.path.dirname(os.path.abspath(path))
main = types.ModuleType("__main__")
main.__file__ = path
main.__builtins__ = __builtins__
sys.modules["__main__"] = main
exec(code, main.__dict__)
"""



def module_batch_size(source: str) -> int | None:
    """The value of a top-level `batch_size = <int literal>` (the last one), else None."""
    found = BATCH_LINE.findall(source)
    return int(found[-1][0]) if found else None


def batch_size_kept(source: str) -> bool:
    """Whether the file's `batch_size` line says `# hdecomp: not lowered` (the decomposer writes it on its copy
    of a model whose batch cannot be lowered: hdecomp.runtime.component.Component.batch_size_kept)."""
    found = BATCH_LINE.findall(source)
    return bool(found) and NOT_LOWERED_TAG in (found[-1][1] or "")


@dataclass
class SelfTestResult:
    file: str                    # relative to the decomposition folder
    status: str                  # PASS | FAIL | ERROR | TIMEOUT
    returncode: int | None = None
    cause: str | None = None
    seconds: float = 0.0
    output_tail: str = ""
    # --batch-limit as applied to this file: {"limit", "batch_size_from", "batch_size_to"} when the runner
    # lowered the file's batch_size, {"limit", "applied": false} when the file has none (ran unchanged)
    batch_limit: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "status": self.status, "returncode": self.returncode, "cause": self.cause,
                "seconds": round(self.seconds, 3), "output_tail": self.output_tail,
                "batch_limit": self.batch_limit}


@dataclass
class SelfTestReport:
    root: Path
    results: list[SelfTestResult] = field(default_factory=list)
    seconds: float = 0.0
    batch_limit: int | None = None

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.status == "PASS")

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    @property
    def status(self) -> str:
        if not self.results:
            return "ERROR"
        return "PASS" if self.failed == 0 else "FAIL"

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "FAIL": 1, "ERROR": 2}[self.status]

    def to_dict(self, previous: dict[str, Any] | None = None) -> dict[str, Any]:
        prev = previous or {}
        return {
            "timestamp": datetime.now().isoformat(),
            "total_components": len(self.results), "passed": self.passed, "failed": self.failed,
            # composition results belong to `hdecomp compose`; keep what it wrote last
            "composition_test": prev.get("composition_test", "NOT_RUN"),
            "max_difference": prev.get("max_difference"),
            "component_results": [r.to_dict() for r in self.results],
            "status": self.status,
            "timeouts": sum(1 for r in self.results if r.status == "TIMEOUT"),
            "seconds": round(self.seconds, 3),
            "batch_limit": self.batch_limit,
        }


def _tail(text: str) -> str:
    return text[-_TAIL:] if len(text) > _TAIL else text


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def run_self_test(path: Path, root: Path, *, timeout: float = 300.0, python: str | None = None,
                  batch_limit: int | None = None, pool: WarmPool | None = None) -> SelfTestResult:
    """`python file.py` in the file's folder, in a new process group (a hung test is killed whole); with
    `batch_limit`, a file with a module-level int `batch_size` runs with it lowered. With `pool`, the file
    runs in a warm worker (torch already imported; the file still alone in a fresh child process)."""
    try:
        rel = str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        rel = str(path)
    argv = [python or sys.executable, path.name]
    applied: dict[str, Any] | None = None
    if batch_limit is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        value, kept = module_batch_size(text), batch_size_kept(text)
        applied = {"limit": batch_limit, "applied": value is not None and value > batch_limit and not kept}
        if value is not None:
            applied.update({"batch_size_from": value, "batch_size_to": value if kept else min(value, batch_limit)})
        if applied["applied"]:
            argv = [python or sys.executable, "-c", _BOOTSTRAP, path.name, str(batch_limit)]
    lowered = batch_limit if applied and applied["applied"] else None
    try:
        if pool is not None and python in (None, pool.python):
            outcome = pool.run(path, batch_limit=lowered, timeout=timeout, cold_argv=argv)
        else:
            outcome = run_cold(argv, path.parent, self_test_env(), timeout)
    except OSError as exc:
        return SelfTestResult(rel, "ERROR", cause=f"{path}: cannot start python: {exc}", batch_limit=applied)
    result = _verdict(outcome, path, rel, timeout)
    result.batch_limit = applied
    return result


def self_test_env() -> dict[str, str]:
    """The environment files run in: one OpenMP thread unless the caller says otherwise, no bytecode
    written next to the component files."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _verdict(outcome: Outcome, path: Path, rel: str, timeout: float) -> SelfTestResult:
    out, secs = outcome.output, outcome.seconds
    if outcome.returncode is None:
        return SelfTestResult(rel, "TIMEOUT", returncode=None, seconds=secs,
                              cause=f"{path}: self-test did not finish within {timeout:g} s (killed)",
                              output_tail=_tail(out))
    if outcome.returncode == 0 and "PASS" in out:
        return SelfTestResult(rel, "PASS", 0, seconds=secs, output_tail=_tail(out))
    if outcome.returncode == 0:
        cause = f"{path}: exited 0 but never printed PASS (no self-test under `if __name__ == \"__main__\":`?)"
    else:
        cause = f"{path}: exit code {outcome.returncode}: {_last_line(out) or '(no output)'}"
    return SelfTestResult(rel, "FAIL", outcome.returncode, cause=cause, seconds=secs, output_tail=_tail(out))


def run_self_tests(root: str | Path, *, timeout: float = 300.0, jobs: int = 1, files: list[Path] | None = None,
                   write: bool = True, on_result: Any = None, batch_limit: int | None = None,
                   warm: bool = True, pool: WarmPool | None = None) -> SelfTestReport:
    """Self-test every component file of the decomposition (level_*/ folders), under `batch_limit`, `jobs`
    at a time; in warm workers (`pool`, or a pool of its own unless `warm` is false or HDECOMP_WARM=0)."""
    if batch_limit is not None and batch_limit < 1:
        raise HdecompError(f"--batch-limit must be at least 1 (got {batch_limit})")
    root = Path(root)
    if not root.is_dir():
        raise HdecompError("decomposition folder not found", root)
    targets = files if files is not None else component_files(root)
    report = SelfTestReport(root=root, batch_limit=batch_limit)
    t0 = time.perf_counter()

    def one(p: Path, pool: WarmPool | None) -> SelfTestResult:
        r = run_self_test(p, root, timeout=timeout, batch_limit=batch_limit, pool=pool)
        if on_result is not None:
            on_result(r)
        return r

    workers = min(max(1, jobs), max(1, len(targets)))
    with contextlib.ExitStack() as stack:
        if pool is None and warm and warm_enabled():
            pool = stack.enter_context(WarmPool(workers, env=self_test_env(), preload=third_party_imports(targets)))
        if workers > 1:
            with ThreadPoolExecutor(max_workers=workers) as threads:
                report.results = list(threads.map(lambda p: one(p, pool), targets))
        else:
            report.results = [one(p, pool) for p in targets]
    report.seconds = time.perf_counter() - t0
    if write:
        out = root / "verification" / RESULTS_FILE
        write_json_atomic(out, report.to_dict(read_test_results(root)))
    return report


STATUS_STYLE = {"PASS": "green", "FAIL": "red", "ERROR": "bold red", "TIMEOUT": "magenta"}


__all__ = ["SelfTestReport", "SelfTestResult", "module_batch_size", "run_self_test", "run_self_tests"]
