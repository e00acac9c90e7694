"""One model's decomposition as a task any executor runs: `hdecomp decompose` itself, in a process (and
process group) of its own, in a private staging folder, with a wall-clock limit.

The staging folder holds a link to every entry of the model's folder (so the model imports its neighbours
as it would at home) and the output, `.hdecomp_out/<stem>/`. The command runs there with the model's bare
file name, so every path the tree records is the same wherever the task runs (this machine, a Ray worker,
another node): trees made by different executors are byte-identical up to timestamps and durations.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

OUT_NAME = ".hdecomp_out"
# exit codes of `hdecomp decompose` -> the task's status
_STATUS = {0: "PASS", 1: "PARTIAL", 2: "ERROR"}


@dataclass
class TaskSpec:
    model_dir: str              # the folder the model file is in (linked into the staging folder)
    model_name: str             # the model's file name
    name: str                   # the tree's name (the output folder under -o)
    flags: list[str] = field(default_factory=list)   # the decompose flags (--batch-limit, --device, ...)
    timeout: float | None = None                     # wall-clock seconds for the whole decomposition
    threads: int | None = None                       # OMP/MKL threads of the task (None: as inherited)


@dataclass
class TaskResult:
    name: str
    status: str                 # PASS | PARTIAL | ERROR | TIMEOUT | LOST (the process was killed)
    reason: str | None = None
    seconds: float = 0.0
    summary: dict[str, Any] | None = None             # decompose --json's result
    tree: str | None = None                           # the finished tree's folder (staging), if any
    stage: str | None = None                          # the staging folder (removed by whoever installs)
    worker: str | None = None                         # where it ran (host:pid)
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _die_with_parent() -> None:
    """The decompose process dies with the task's process (a killed worker leaves nothing running)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG


def run_group(argv: list[str], timeout: float | None, cwd: str | Path | None = None,
              env: dict[str, str] | None = None) -> tuple[int | None, bytes, bytes]:
    """`argv` in a session (process group) of its own that dies with this process: (exit code, or None when
    `timeout` ran out, stdout, stderr). Its whole group is stopped afterwards, so nothing it started (the
    workers a decomposition forks) outlives it."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_die_with_parent)
    try:
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    return code, out, err


def stage_folder(spec: TaskSpec, parent: str | Path) -> Path:
    """A fresh staging folder under `parent` linking every entry of the model's folder."""
    stage = Path(tempfile.mkdtemp(prefix=f".{spec.name}.", dir=parent))
    src = Path(spec.model_dir).resolve()
    for entry in sorted(src.iterdir()):
        if entry.name in (OUT_NAME, "__pycache__") or entry.name.startswith(".hdecomp"):
            continue
        (stage / entry.name).symlink_to(entry)
    return stage


def run_task(spec: TaskSpec, stage_parent: str | Path) -> TaskResult:
    """Decompose one model (see the module's doc); never raises for a model that fails, hangs or dies."""
    import socket
    t0 = time.perf_counter()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    stage = stage_folder(spec, stage_parent)
    argv = [sys.executable, "-m", "hdecomp", "decompose", spec.model_name, "-o", OUT_NAME, "--name", spec.name,
            "--json", *spec.flags]
    env = dict(os.environ)
    if spec.threads is not None:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, str(spec.threads))
    code, out, err = run_group(argv, spec.timeout, cwd=stage, env=env)
    seconds = time.perf_counter() - t0
    if code is None:
        return TaskResult(name=spec.name, status="TIMEOUT", seconds=seconds, stage=str(stage),
                          reason=f"{spec.model_name}: did not finish within {spec.timeout:g} s (--timeout); "
                                 "its process group was stopped", worker=worker)
    if code < 0:
        return TaskResult(name=spec.name, status="LOST", seconds=seconds, stage=str(stage), worker=worker,
                          reason=f"{spec.model_name}: the decomposition was killed by signal {-code}")
    summary = None
    with contextlib.suppress(ValueError):
        summary = json.loads(out.decode(errors="replace"))
    status = _STATUS.get(code, "ERROR")
    reason = None
    if status != "PASS":
        lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("ERROR")]
        reason = (errors[0] if errors else (lines[-1] if lines else f"exit code {code}")).strip()
        if isinstance(summary, dict) and summary.get("incomplete"):
            # the component that stopped it (one whose own step failed, not one left whole because of it)
            reasons = summary.get("reasons") or {}
            first = next((n for n in summary["incomplete"] if "the step of its parent" not in reasons.get(n, "")),
                         summary["incomplete"][0])
            reason = f"incomplete: {first}: {reasons.get(first, '')}".strip()
    tree = stage / OUT_NAME / spec.name
    return TaskResult(name=spec.name, status=status, reason=reason, seconds=seconds, summary=summary,
                      tree=str(tree) if (tree / "decomposition_tree.json").is_file() else None, stage=str(stage),
                      worker=worker)


@dataclass
class BatchSpec:
    tree: str                   # a decomposition folder, re-verified in place
    flags: list[str] = field(default_factory=list)   # `hdecomp batch` flags (--timeout per self-test, -j)
    timeout: float | None = None                     # wall-clock seconds for the whole tree


def run_batch_task(spec: BatchSpec) -> dict[str, Any]:
    """`hdecomp batch TREE` in a process (group) of its own: the tree's result row (batch_results.json's
    format); a tree that cannot be tested, hangs or dies gets a FAILED row that says why."""
    tree = Path(spec.tree)
    with tempfile.TemporaryDirectory(prefix="hdecomp-batch-") as tmp:
        report = Path(tmp) / "batch.json"
        argv = [sys.executable, "-m", "hdecomp", "batch", str(tree), "--output", str(report), *spec.flags]
        code, _, err = run_group(argv, spec.timeout)
        cause = None if code is not None else \
            f"{tree}: did not finish within {spec.timeout:g} s; its process group was stopped"
        if cause is None and report.is_file():
            rows = json.loads(report.read_text()).get("results") or []
            if rows:
                return dict(rows[0])
        if cause is None:
            lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.strip()]
            cause = lines[0] if lines else f"{tree}: hdecomp batch exited {code}"
    return {"model": tree.name, "level": tree.parent.name, "path": str(tree), "status": "FAILED",
            "errors": [cause], "components_tested": 0, "components_passed": 0, "components_failed": 0,
            "composition_test": "NOT_RUN", "pipeline_status": "ERROR", "steps_total": 0, "steps_passed": 0}


__all__ = ["OUT_NAME", "BatchSpec", "TaskResult", "TaskSpec", "run_batch_task", "run_group", "run_task", "stage_folder"]
