"""The Ray executor (`pip install hdecomp[ray]`): one Ray task per model, each running scale/task.py's
`hdecomp decompose` on a worker; Ray schedules them (CPUs, `--gpus-per-task` GPUs), retries a task whose
worker dies once (`max_retries=1`), and shows them in its dashboard.

Where the files are:
- default: the models' folder travels to the workers as the job's `working_dir` (Ray's runtime
  environment; up to 100 MiB here, beyond that use a shared path), each tree is made in the worker's own
  temporary folder and comes back to the driver as a tar archive, then is installed under `-o`;
- `--shared-fs`: the models and `-o` are on a filesystem every node sees at the same path (NFS, a cluster
  volume): the workers read the models in place and write the trees to `-o`'s staging folder directly.
Workers need hdecomp installed (the same version as the driver).
"""

from __future__ import annotations

import contextlib
import io
import os
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from hdecomp.errors import HdecompError
from hdecomp.scale.task import TaskResult, TaskSpec, run_task

MAX_WORKING_DIR = 100 << 20
RETRIES = 1
T = TypeVar("T")
R = TypeVar("R")


def _folder_bytes(folder: Path) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        total += sum((Path(dirpath) / f).stat().st_size for f in filenames if not f.startswith("."))
    return total


def _pack(tree: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(tree, arcname=tree.name)
    return buf.getvalue()


def _unpack(blob: bytes, parent: Path) -> Path:
    parent.mkdir(parents=True, exist_ok=True)
    dest = Path(tempfile.mkdtemp(prefix=".unpack.", dir=parent))
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        tar.extractall(dest, filter="data")
    (only,) = list(dest.iterdir())
    return only


def ray_task(spec: dict[str, Any], shared_stage: str | None) -> tuple[dict[str, Any], bytes | None]:
    """On a worker: the decomposition, and its tree as a tar archive unless the stage is shared."""
    import shutil
    task = TaskSpec(**spec)
    if shared_stage is not None:
        return run_task(task, shared_stage).to_dict(), None
    task = replace(task, model_dir=str(Path.cwd() / task.model_dir))   # relative to the job's working_dir
    parent = tempfile.mkdtemp(prefix="hdecomp-")
    try:
        result = run_task(task, parent)
        blob = _pack(Path(result.tree)) if result.tree else None
        result.tree = result.stage = None
        return result.to_dict(), blob
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process (Linux /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            out.append((int(d.name), ppid, cmd))
    return out


@dataclass
class LocalCluster:
    address: str          # 127.0.0.1:PORT (the driver joins the cluster)
    client_address: str   # ray://127.0.0.1:PORT (Ray Client)


@contextlib.contextmanager
def local_cluster(num_cpus: int, *, object_store_bytes: int = 200_000_000) -> Iterator[LocalCluster]:
    """A Ray head on the loopback address with `num_cpus` CPUs (`ray start --head`), its addresses while
    the block runs; then exactly its processes (those of its session folder and their children) are
    stopped, never `ray stop`'s every cluster on the machine.

    Token authentication is off for it, stated in RAY_AUTH_MODE for the head and, while the block runs, for
    every driver this process starts: left implicit, Ray 2.60's head and drivers disagree once a
    ~/.ray/auth_token exists (a `ray.init()` of a local cluster writes one), and every connection is
    refused."""
    import shutil
    import signal
    import socket
    import subprocess
    import sys
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")   # short: Ray's socket paths must stay < 108 bytes
    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(int(s.getsockname()[1]))
    ray_cli = Path(sys.executable).with_name("ray")
    auth_before = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        subprocess.run([str(ray_cli), "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(ports[0]),
                        "--ray-client-server-port", str(ports[1]), "--num-cpus", str(num_cpus), "--temp-dir", temp,
                        "--include-dashboard", "false", "--disable-usage-stats", "--object-store-memory",
                        str(object_store_bytes)], check=True, capture_output=True, timeout=180)
        yield LocalCluster(f"127.0.0.1:{ports[0]}", f"ray://127.0.0.1:{ports[1]}")
    finally:
        procs = processes()
        family = {pid for pid, _, cmd in procs if temp in cmd}
        for _ in range(3):   # their children (the workers) too
            family |= {pid for pid, ppid, _ in procs if ppid in family}
        for pid in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
        if auth_before is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = auth_before


class RayExecutor:
    name = "ray"

    def __init__(self, stage: Path, *, address: str = "auto", workers: int | None = None,
                 gpus_per_task: float = 0, shared_fs: bool = False, model_root: Path | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise HdecompError("--executor ray needs Ray: pip install 'hdecomp[ray]'") from exc
        self.ray = ray
        self.stage = stage
        self.address = address
        self.shared_fs = shared_fs
        self.model_root = model_root
        self.gpus = gpus_per_task
        runtime_env: dict[str, Any] = {}
        if not shared_fs and model_root is not None:
            size = _folder_bytes(model_root)
            if size > MAX_WORKING_DIR:
                raise HdecompError(f"the models' folder is {size / 2**20:.0f} MiB, more than Ray's working_dir "
                                   f"takes here ({MAX_WORKING_DIR >> 20} MiB): put the models and -o on a shared "
                                   "filesystem and pass --shared-fs", model_root)
            runtime_env["working_dir"] = str(model_root)
            runtime_env["excludes"] = ["__pycache__", ".git", ".hdecomp_out", ".staging"]
        self.started = not ray.is_initialized()
        if self.started:
            try:
                ray.init(address=None if address == "local" else address, runtime_env=runtime_env or None,
                         log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise HdecompError(f"cannot connect to the Ray cluster at {address!r}: {exc}") from exc
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, workers or cpus)
        self.remote = ray.remote(ray_task).options(max_retries=RETRIES, num_cpus=1, num_gpus=gpus_per_task)

    def describe(self) -> dict[str, object]:
        return {"executor": self.name, "workers": self.workers, "address": self.address,
                "gpus_per_task": self.gpus, "shared_fs": self.shared_fs}

    def _spec_for_worker(self, spec: TaskSpec) -> dict[str, Any]:
        d = spec.__dict__.copy()
        if not self.shared_fs and self.model_root is not None:
            d["model_dir"] = os.path.relpath(Path(spec.model_dir).resolve(), self.model_root.resolve())
        return d

    def run(self, specs: list[TaskSpec]) -> Iterator[TaskResult]:
        self.stage.mkdir(parents=True, exist_ok=True)
        shared = str(self.stage) if self.shared_fs else None
        todo, attempts = list(specs), {s.name: 1 for s in specs}
        calls = [(s, (self._spec_for_worker(s), shared)) for s in todo]
        for spec, out, error in self._stream(self.remote, calls):
            attempt = attempts[spec.name]
            if out is None:   # the worker died again after Ray's retry, or Ray failed
                yield TaskResult(name=spec.name, status="LOST", attempts=attempt + RETRIES,
                                 reason=f"{spec.model_name}: {error}")
                continue
            data, blob = out
            result = TaskResult(**data)
            result.attempts = attempt
            if result.status == "LOST" and attempt <= RETRIES:   # its decompose process was killed
                attempts[spec.name] += 1
                calls.append((spec, (self._spec_for_worker(spec), shared)))
                continue
            if blob is not None:
                tree = _unpack(blob, self.stage)
                result.tree, result.stage = str(tree), str(tree.parent)
            yield result

    def map(self, fn: Callable[[T], R], items: list[T]) -> Iterator[tuple[T, R | None, str | None]]:
        """(item, fn(item), None) as each finishes on the cluster (at most `workers` at once; Ray retries a
        task whose worker dies once), or (item, None, the error)."""
        remote = self.ray.remote(fn).options(max_retries=RETRIES, num_cpus=1, num_gpus=self.gpus)
        return self._stream(remote, [(item, (item,)) for item in items])

    def _stream(self, remote: Any, calls: list[tuple[Any, tuple[Any, ...]]]) -> Iterator[tuple[Any, Any, str | None]]:
        """(key, result, None) or (key, None, the error) for each (key, arguments) of `calls` as its Ray task
        finishes, at most `workers` in flight; the caller may append to `calls` while it reads."""
        ray = self.ray
        running: dict[Any, Any] = {}
        while calls or running:
            while calls and len(running) < self.workers:
                key, args = calls.pop(0)
                running[remote.remote(*args)] = key
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                key = running.pop(ref)
                try:
                    yield key, ray.get(ref), None
                except ray.exceptions.RayError as exc:
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    yield key, None, f"the Ray task failed ({type(exc).__name__}: {first})"

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()


__all__ = ["LocalCluster", "RayExecutor", "local_cluster", "processes", "ray_task"]
