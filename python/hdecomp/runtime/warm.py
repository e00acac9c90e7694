"""Warm workers: run standalone files (`python FILE`) without paying an interpreter start and a torch
import for each.

A worker is a server process (forkserver.py) that imports torch, and the third-party modules the files
import, once; each file then runs in a child forked for it alone, as `python FILE` in the file's folder
would run it (its own `__main__`, `sys.argv`, `sys.path[0]`, a session of its own; nothing it imports or
leaks outlives it). A pool of N workers runs N files at once. Where a worker cannot start (no `os.fork`:
Windows) or dies, the file runs in a fresh interpreter as before, so results never depend on the pool.

`HDECOMP_WARM=0` turns the pool off (every file in a fresh interpreter).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("forkserver.py")
_START_TIMEOUT = 120.0   # seconds for a worker to import torch and the preloaded modules
_IMPORT = re.compile(r"^(?:from|import)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def warm_enabled() -> bool:
    return hasattr(os, "fork") and os.environ.get("HDECOMP_WARM", "1") not in ("0", "false", "no")


def _sources(files: Iterable[Path]) -> Iterable[tuple[Path, str]]:
    """(folder, text) of each readable file."""
    for f in files:
        try:
            yield Path(f).parent, Path(f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


def _third_party(name: str, folder: Path) -> bool:
    """Whether top-level module `name` is neither torch nor a file of `folder` (a component's `children/`)."""
    return name not in ("__future__", "torch") and not (folder / f"{name}.py").exists() \
        and not (folder / name).is_dir()


def third_party_imports(files: Iterable[Path]) -> list[str]:
    """Top-level modules the files import at their top level that are not files of their own folder (a
    component's `children/`): what a worker can import once for all of them. Installed or not: a module
    that fails to import in the worker is left to the file to report."""
    return sorted({name for folder, text in _sources(files) for name in _IMPORT.findall(text)
                   if _third_party(name, folder)})


_MODULE_IMPORT = re.compile(r"^(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([A-Za-z_][\w.]*))",
                            re.MULTILINE)


def module_imports(files: Iterable[Path]) -> list[str]:
    """The modules the files import at their top level, by their full dotted names (`transformers.models.bert.
    modeling_bert`, which a package loads lazily, costs more than `transformers` itself), less those of the
    files' own folders: what a warm worker can import once for every process it forks."""
    return sorted({a or b for folder, text in _sources(files) for a, b in _MODULE_IMPORT.findall(text)
                   if _third_party((a or b).split(".")[0], folder)})


class WorkerDied(Exception):
    """The worker's server ended (or never answered): the file is run cold instead."""


@dataclass
class Outcome:
    returncode: int | None   # None: killed at the time-out
    output: str              # stdout and stderr together
    seconds: float


class _Worker:
    def __init__(self, python: str, env: dict[str, str], preload: list[str]) -> None:
        self.proc = subprocess.Popen([python, str(SERVER), *preload], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                     start_new_session=True)
        self._buf = b""
        self.child: int | None = None

    def _line(self, deadline: float | None) -> dict[str, Any] | None:
        """The next reply; None when the deadline passed first. WorkerDied on EOF."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise WorkerDied("the worker ended")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return dict(json.loads(line))

    def run(self, path: Path, argv: list[str], batch_limit: int | None, timeout: float | None) -> Outcome:
        fd, name = tempfile.mkstemp(prefix="hdecomp-run-", suffix=".log")
        os.close(fd)
        out_file = Path(name)
        t0 = time.perf_counter()
        try:
            req = {"path": path.name, "cwd": str(path.parent), "argv": argv, "output": str(out_file),
                   "batch_limit": batch_limit}
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write((json.dumps(req) + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                raise WorkerDied(str(exc)) from exc
            started = self._line(time.monotonic() + _START_TIMEOUT)
            if started is None:
                raise WorkerDied("the worker did not start the file")
            self.child = int(started["pid"])
            deadline = None if timeout is None else time.monotonic() + timeout
            done = self._line(deadline)
            rc: int | None
            if done is None:   # time-out: the child's whole session goes, the server reports it
                self.kill_child()
                self._line(time.monotonic() + 30)
                rc = None
            else:
                rc = int(done["returncode"])
            self.child = None
            output = out_file.read_text(encoding="utf-8", errors="replace")
            return Outcome(rc, output, time.perf_counter() - t0)
        finally:
            out_file.unlink(missing_ok=True)

    def kill_child(self) -> None:
        if self.child is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.child, signal.SIGKILL)

    def close(self) -> None:
        self.kill_child()
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class WarmPool:
    """Up to `jobs` warm workers, started on first use; thread-safe (`run` from a thread pool)."""

    def __init__(self, jobs: int = 1, *, python: str | None = None, env: dict[str, str] | None = None,
                 preload: Iterable[str] = ()) -> None:
        self.jobs = max(1, jobs)
        self.python = python or sys.executable
        self.env = dict(os.environ if env is None else env)
        self.preload = list(preload)
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._free = threading.Semaphore(self.jobs)
        self.enabled = warm_enabled()
        self.cold_runs = 0   # files run in a fresh interpreter (a worker that could not start or died)

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def prestart(self, n: int = 1) -> None:
        """Start `n` workers now (their imports then run while the caller works on), not on first use."""
        if not self.enabled:
            return
        with self._lock:
            missing = max(0, min(n, self.jobs) - len(self._all))
        for _ in range(missing):
            try:
                w = _Worker(self.python, self.env, self.preload)
            except OSError:
                return
            with self._lock:
                self._all.append(w)
                self._idle.append(w)

    def _take(self) -> _Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        w = _Worker(self.python, self.env, self.preload)
        with self._lock:
            self._all.append(w)
        return w

    def run(self, path: Path, *, argv: list[str] | None = None, batch_limit: int | None = None,
            timeout: float | None = None, cold_argv: list[str] | None = None) -> Outcome:
        """Run `path` as `python path.name` in its folder (with its `batch_size` lowered to `batch_limit`).
        `cold_argv`: the command for a fresh interpreter, should no worker serve."""
        path = Path(path)
        argv = argv or [path.name]
        with self._free:
            if self.enabled:
                worker = self._take()
                try:
                    outcome = worker.run(path, argv, batch_limit, timeout)
                except WorkerDied:
                    with self._lock:
                        self._all.remove(worker)
                    worker.close()
                else:
                    with self._lock:
                        self._idle.append(worker)
                    return outcome
            with self._lock:
                self.cold_runs += 1
            return run_cold(cold_argv or [self.python, path.name], path.parent, self.env, timeout)

    def close(self) -> None:
        with self._lock:
            workers, self._all, self._idle = self._all, [], []
        for w in workers:
            w.close()


def run_cold(argv: list[str], cwd: Path, env: dict[str, str], timeout: float | None) -> Outcome:
    """`argv` in a fresh interpreter in a session of its own (a time-out kills the whole group)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return Outcome(proc.returncode, out or "", time.perf_counter() - t0)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return Outcome(None, out or "", time.perf_counter() - t0)
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


__all__ = ["Outcome", "WarmPool", "run_cold", "third_party_imports", "warm_enabled"]
