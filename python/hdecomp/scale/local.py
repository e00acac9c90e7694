"""The local executor: up to N decompositions at once on this machine, each `hdecomp decompose` in a
process of its own (scale/task.py); a task whose process is killed (not by its --timeout) is run once
more, then reported with its reason."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, as_completed, wait
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
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="hdecomp-task") as pool:
            running: dict[Future[TaskResult], tuple[TaskSpec, int]] = {
                pool.submit(run_task, s, self.stage): (s, 1) for s in specs}
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    spec, attempt = running.pop(fut)
                    result = fut.result()
                    result.attempts = attempt
                    if result.status == "LOST" and attempt <= RETRIES:
                        running[pool.submit(run_task, spec, self.stage)] = (spec, attempt + 1)
                        continue
                    yield result

    def map(self, fn: Callable[[T], R], items: list[T]) -> Iterator[tuple[T, R | None, str | None]]:
        """(item, fn(item), None) as each finishes, or (item, None, the error) where fn raised."""
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="hdecomp-task") as pool:
            futures = {pool.submit(fn, item): item for item in items}
            for fut in as_completed(futures):
                try:
                    yield futures[fut], fut.result(), None
                except Exception as exc:   # the task's own failure: reported, the others go on
                    yield futures[fut], None, f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        pass


__all__ = ["LocalExecutor", "threads_per_task"]
