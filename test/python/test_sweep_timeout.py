"""bench/kernelbench_sweep/sweep.py: a worker that runs past the per-problem time-out is killed with every
process it started (the composition test's subprocess): nothing is left running, orphaned."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

SWEEP = Path(__file__).resolve().parents[2] / "bench" / "kernelbench_sweep" / "sweep.py"


def _sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hdecomp_bench_sweep", SWEEP)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_timed_out_worker_is_killed_with_its_children(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    # a "worker" that starts a long-running child (as compose starts composition_test.py), then hangs
    # both sleep far past the test's own time-out (pytest-timeout): only the sweep's kill ends them in time
    script = (f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)']); "
              f"open({str(pidfile)!r}, 'w').write(str(p.pid)); print('started', flush=True); time.sleep(3600)")
    code, out, _ = _sweep().run_worker([sys.executable, "-c", script], timeout=10)
    assert code is None   # timed out, and returned
    assert "started" in out
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 120   # a hang guard: the kernel reaps a killed process soon, not at once
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), f"the worker's child {child} outlived the time-out"


def test_a_finished_worker_returns_its_output() -> None:
    code, out, err = _sweep().run_worker([sys.executable, "-c", "import sys; print('SWEEP_RESULT {}'); sys.exit(3)"],
                                         timeout=30)
    assert (code, out.strip(), err) == (3, "SWEEP_RESULT {}", "")
