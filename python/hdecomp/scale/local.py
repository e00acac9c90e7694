"""The local executor: up to N decompositions at once on this machine, each `hdecomp decompose` in a
process of its own (scale/task.py); a task whose process is killed (not by its --timeout) is run once
more, then reported with its reason."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TypeVar

from hdecomp.scale.task import TaskResult, TaskSpec, run_task

RETRIES = 1
T = TypeVar("T")
R = TypeVar("R")


def threads_per_task(workers: int) -> int:
    """Torch threads per task when N run side by side: the machine's cores shared out (at least 1)."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


class LocalExecutor:
    name = "local"

    def __init__(self, stage: Path, workers: int = 1) -> None:
        self.stage = stage
        self.workers = max(1, workers)

    def describe(self) -> dict[str, object]:
        return {"executor": self.name, "workers": self.workers}

    def run(self, specs: list[TaskSpec]) -> Iterator[TaskResult]:
        """Each task's result as it finishes (its tree still in the staging folder)."""
        self.stage.mkdir(parents=True, exist_ok=True)
        todo, attempts = list(specs), {s.name: 1 for s in specs}
        for spec, result, error in self._stream(lambda s: run_task(s, self.stage), todo):
            if result is None:   # (run_task reports a model's failures itself: this is ours)
                result = TaskResult(name=spec.name, status="ERROR", reason=f"{spec.model_name}: {error}")
            result.attempts = attempts[spec.name]
            if result.status == "LOST" and attempts[spec.name] <= RETRIES:
                attempts[spec.name] += 1
                todo.append(spec)   # run once more, right away
                continue
            yield result

    def map(self, fn: Callable[[T], R], items: list[T]) -> Iterator[tuple[T, R | None, str | None]]:
        """(item, fn(item), None) as each finishes, or (item, None, the error) where fn raised."""
        return self._stream(fn, list(items))

    def _stream(self, fn: Callable[[T], R], todo: list[T]) -> Iterator[tuple[T, R | None, str | None]]:
        """`map` over `todo`, which the caller may append to while it reads the results."""
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="hdecomp-task") as pool:
            running: dict[Future[R], T] = {}
            while todo or running:
                while todo:
                    item = todo.pop(0)
                    running[pool.submit(fn, item)] = item
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    item = running.pop(fut)
                    try:
                        yield item, fut.result(), None
                    except Exception as exc:   # the task's own failure: reported, the others go on
                        yield item, None, f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        pass


__all__ = ["LocalExecutor", "threads_per_task"]
