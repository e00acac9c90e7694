"""Many models decomposed by one command, through an executor (local processes, or Ray): one task per
model, results as they finish, then a summary and `index.json` of every tree under `-o`.

A tree is made in a staging folder (`-o/.staging/`, or a worker's own temporary folder) and moved into
place, `-o/<name>/`, only when its decomposition has finished: a folder under `-o` named after a model is
always a complete tree (a hung, killed or crashed task leaves none). A model whose folder exists is done:
the same command run again skips it, unless `force`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.tree import TREE_FILE
from hdecomp.scale.task import TaskResult, TaskSpec

INDEX_FILE = "index.json"
STAGE_DIR = ".staging"
EXIT = {"PASS": 0, "SKIPPED": 0, "PARTIAL": 1, "ERROR": 2, "TIMEOUT": 2, "LOST": 2}
_CLASS = re.compile(r"^class[ \t]+Model\b", re.MULTILINE)
_INPUTS = re.compile(r"^def[ \t]+get_inputs\b", re.MULTILINE)


class Executor(Protocol):
    name: str

    def run(self, specs: list[TaskSpec]) -> Iterable[TaskResult]: ...

    def map(self, fn: Callable[[Any], Any], items: list[Any]) -> Iterable[tuple[Any, Any, str | None]]: ...

    def describe(self) -> dict[str, object]: ...

    def close(self) -> None: ...


def is_model_file(path: Path) -> bool:
    """A KernelBench-convention model file: `class Model` and `get_inputs()` at the top level."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(_CLASS.search(text) and _INPUTS.search(text))


def expand(models: list[str | Path]) -> list[Path]:
    """The model files the arguments name: files as given, folders' model files (sorted, not recursive)."""
    out: list[Path] = []
    for m in models:
        p = Path(m)
        if p.is_dir():
            found = sorted(f for f in p.glob("*.py") if not f.name.startswith(("_", ".")) and is_model_file(f))
            if not found:
                raise HdecompError("no model files here (a .py file with class Model and get_inputs())", p)
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise HdecompError("file not found", p)
    return out


@dataclass
class ManyResult:
    out: Path
    executor: dict[str, object]
    results: list[TaskResult] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)     # tree name -> model file
    seconds: float = 0.0
    index_file: Path | None = None

    @property
    def exit_code(self) -> int:
        return max((EXIT.get(r.status, 2) for r in self.results), default=0)

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for r in self.results:
            counts[r.status] = counts.get(r.status, 0) + 1
        rows = []
        for r in sorted(self.results, key=lambda r: r.name):
            s = r.summary or {}
            rows.append({"name": r.name, "model": self.models.get(r.name), "status": r.status, "reason": r.reason,
                         "tree": r.name if (self.out / r.name / TREE_FILE).is_file() else None,
                         "seconds": round(r.seconds, 3), "attempts": r.attempts, "worker": r.worker,
                         "steps": s.get("steps"), "steps_passed": s.get("steps_passed"),
                         "unique_kernels": s.get("unique_kernels"), "kernel_instances": s.get("kernel_instances")})
        return {"timestamp": datetime.now(timezone.utc).isoformat(), "output": str(self.out), **self.executor,
                "seconds": round(self.seconds, 3), "counts": counts, "models": rows}


def _install(result: TaskResult, target: Path, stage: Path) -> None:
    """Move a finished tree into place (an existing one, with --force, is replaced in one rename)."""
    assert result.tree is not None
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".old.{target.name}.", dir=stage))
        os.replace(target, old / target.name)
    os.replace(result.tree, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def decompose_many(models: list[str | Path], out: str | Path, executor: Executor, *, flags: list[str] | None = None,
                   timeout: float | None = None, force: bool = False, threads: int | None = None,
                   on_result: Callable[[TaskResult, int, int], None] | None = None) -> ManyResult:
    """Decompose every model (see the module's doc). `flags`: decompose's own flags for every task."""
    out = Path(out)
    files = expand(models)
    names: dict[str, Path] = {}
    for f in files:
        if f.stem in names and names[f.stem].resolve() != f.resolve():
            raise HdecompError(f"two models would both go to {out / f.stem}: {names[f.stem]} and {f}; decompose "
                               "them into different -o folders", f)
        names[f.stem] = f
    out.mkdir(parents=True, exist_ok=True)
    stage = out / STAGE_DIR
    result = ManyResult(out=out, executor=executor.describe(), models={n: str(f) for n, f in names.items()})
    t0 = time.perf_counter()
    specs: list[TaskSpec] = []
    for name, f in names.items():
        if not force and (out / name / TREE_FILE).is_file():
            result.results.append(TaskResult(name=name, status="SKIPPED", attempts=0,
                                             reason=f"already decomposed: {out / name} (--force to redo)"))
            continue
        specs.append(TaskSpec(model_dir=str(f.parent.resolve()), model_name=f.name, name=name, flags=list(flags or []),
                              timeout=timeout, threads=threads))
    total, done = len(names), len(result.results)
    for r in result.results:
        if on_result is not None:
            on_result(r, done, total)
    try:
        for r in executor.run(specs):
            if r.tree is not None:
                _install(r, out / r.name, stage)
                r.tree = str(out / r.name)
            if r.stage:
                shutil.rmtree(r.stage, ignore_errors=True)
            result.results.append(r)
            done += 1
            result.seconds = time.perf_counter() - t0
            write_json_atomic(out / INDEX_FILE, result.to_dict())   # what is done so far, after each model
            if on_result is not None:
                on_result(r, done, total)
    finally:   # (the executor is the caller's: it may run more after this)
        if stage.is_dir() and not any(stage.iterdir()):
            stage.rmdir()
    result.seconds = time.perf_counter() - t0
    result.index_file = write_json_atomic(out / INDEX_FILE, result.to_dict())
    return result


__all__ = ["INDEX_FILE", "STAGE_DIR", "Executor", "ManyResult", "decompose_many", "expand", "is_model_file"]
