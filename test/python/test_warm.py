"""Warm workers (hdecomp.runtime.warm): a file run by a worker behaves as `python FILE` in its folder does,
alone in its own process, and the pool never changes a verdict (a worker that dies, or none at all, means
a fresh interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hdecomp.runtime.warm import SERVER, WarmPool, run_cold, third_party_imports
from hdecomp.toolchain.selftest import run_self_tests, self_test_env

PROBE = """\
import json, os, sys
import torch
batch_size = 8
import helper
helper.CALLS.append(1)
print(json.dumps({"name": __name__, "file": __file__, "argv": sys.argv, "path0": sys.path[0],
                  "cwd": os.getcwd(), "calls": len(helper.CALLS), "batch_size": batch_size,
                  "stdin": sys.stdin.read(), "torch": torch.__version__}))
"""


def _files(tmp_path: Path) -> Path:
    d = tmp_path / "comp"
    d.mkdir()
    (d / "probe.py").write_text(PROBE)
    (d / "helper.py").write_text("CALLS = []\n")   # module state a previous run could leak
    (d / "raises.py").write_text("def f():\n    raise ValueError('bad init')\n\nf()\n")
    (d / "exits.py").write_text("import sys\nprint('partial')\nsys.exit(3)\n")
    (d / "exits_msg.py").write_text("import sys\nsys.exit('stopped: reason')\n")
    return d


def _probe(outcome_output: str) -> dict:
    return json.loads(outcome_output.strip().splitlines()[-1])


def test_a_warm_run_is_the_files_own_python_run(tmp_path: Path) -> None:
    d = _files(tmp_path)
    cold = run_cold([sys.executable, "probe.py"], d, self_test_env(), 60)
    with WarmPool(1, env=self_test_env()) as pool:
        first = pool.run(d / "probe.py", timeout=60)
        second = pool.run(d / "probe.py", timeout=60)
        assert pool.cold_runs == 0
    assert cold.returncode == first.returncode == second.returncode == 0
    want = _probe(cold.output)
    assert _probe(first.output) == _probe(second.output) == want
    # the file is __main__ under its own name, in its folder, with an empty stdin; a module it imports
    # starts fresh on every run (the second run does not see the first one's state)
    assert want["name"] == "__main__" and want["file"] == str(d / "probe.py") and want["argv"] == ["probe.py"]
    assert Path(want["path0"]) == d and Path(want["cwd"]) == d and want["calls"] == 1 and want["stdin"] == ""


def test_exit_codes_and_tracebacks_as_python_gives_them(tmp_path: Path) -> None:
    d = _files(tmp_path)
    with WarmPool(1, env=self_test_env()) as pool:
        for name in ("raises.py", "exits.py", "exits_msg.py"):
            cold = run_cold([sys.executable, name], d, self_test_env(), 60)
            warm = pool.run(d / name, timeout=60)
            assert warm.returncode == cold.returncode != 0, name
            assert warm.output.strip().splitlines()[-1] == cold.output.strip().splitlines()[-1], name
        warm = pool.run(d / "raises.py", timeout=60)
    # the traceback starts at the file, as a fresh interpreter's does: no frame of the worker's own code
    assert f'File "{d / "raises.py"}", line 4, in <module>' in warm.output and "forkserver" not in warm.output


def test_batch_limit_lowers_the_files_batch_size(tmp_path: Path) -> None:
    d = _files(tmp_path)
    with WarmPool(1, env=self_test_env()) as pool:
        assert _probe(pool.run(d / "probe.py", batch_limit=2, timeout=60).output)["batch_size"] == 2
        assert _probe(pool.run(d / "probe.py", batch_limit=64, timeout=60).output)["batch_size"] == 8
    assert (d / "probe.py").read_text() == PROBE   # the file itself is untouched


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (not yet reaped by its parent) counts as gone
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(")")[-1].split()[0] != "Z"


def _gone(pid: int, within: float = 10.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


HANG = """\
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open("pids.txt", "w").write(f"{child.pid}\\n")
print("started", flush=True)
time.sleep(600)
"""


def test_a_time_out_kills_the_files_whole_process_group(tmp_path: Path) -> None:
    d = tmp_path / "h"
    d.mkdir()
    (d / "hang.py").write_text(HANG)
    with WarmPool(1, env=self_test_env()) as pool:
        out = pool.run(d / "hang.py", timeout=3)
        assert out.returncode is None and "started" in out.output
        grandchild = int((d / "pids.txt").read_text())
        assert _gone(grandchild)
        # the worker serves the next file as before
        (d / "ok.py").write_text("print('PASS')\n")
        assert pool.run(d / "ok.py", timeout=60).output.strip() == "PASS" and pool.cold_runs == 0


def test_a_worker_whose_client_goes_away_kills_the_running_file(tmp_path: Path) -> None:
    d = tmp_path / "h"
    d.mkdir()
    (d / "hang.py").write_text(HANG)
    server = subprocess.Popen([sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=self_test_env(), start_new_session=True)
    assert server.stdin is not None and server.stdout is not None
    req = {"path": "hang.py", "cwd": str(d), "argv": ["hang.py"], "output": str(d / "out.log"),
           "batch_limit": None}
    server.stdin.write((json.dumps(req) + "\n").encode())
    server.stdin.flush()
    pid = json.loads(server.stdout.readline())["pid"]
    end = time.monotonic() + 60
    while not (d / "pids.txt").exists() and time.monotonic() < end:
        time.sleep(0.05)
    grandchild = int((d / "pids.txt").read_text())
    server.stdin.close()   # the client is gone (killed at its own time-out, say)
    assert server.wait(timeout=30) == 0
    assert _gone(pid) and _gone(grandchild)


def test_a_dead_worker_means_a_fresh_interpreter_not_a_lost_result(tmp_path: Path) -> None:
    d = _files(tmp_path)
    with WarmPool(1, env=self_test_env()) as pool:
        assert pool.run(d / "probe.py", timeout=60).returncode == 0
        worker = pool._all[0]
        worker.proc.kill()
        worker.proc.wait()
        again = pool.run(d / "probe.py", timeout=60)
        assert again.returncode == 0 and _probe(again.output)["calls"] == 1
        assert pool.cold_runs == 1
        # and the pool starts a new worker for the file after that
        assert pool.run(d / "probe.py", timeout=60).returncode == 0 and pool.cold_runs == 1


def test_warm_off_runs_every_file_fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = _files(tmp_path)
    monkeypatch.setenv("HDECOMP_WARM", "0")
    with WarmPool(1, env=self_test_env()) as pool:
        assert pool.run(d / "probe.py", timeout=60).returncode == 0
        assert pool.cold_runs == 1 and pool._all == []


def test_preloaded_modules_are_third_party_imports_only(tmp_path: Path) -> None:
    d = tmp_path / "level_1_fusion"
    (d / "children").mkdir(parents=True)
    (d / "block.py").write_text(textwrap.dedent("""\
        from __future__ import annotations
        import torch
        import numpy as np
        from children.conv import Model as Conv
        import local_helper
        from transformers.models.llama import modeling_llama
        def f():
            import inside_a_function
        """))
    (d / "local_helper.py").write_text("")
    assert third_party_imports([d / "block.py"]) == ["numpy", "transformers"]


def test_self_tests_warm_and_cold_give_the_same_report(tmp_path: Path) -> None:
    root = tmp_path / "d"
    files = {"level_0_kernel/ok.py": "import torch\nbatch_size = 4\nassert batch_size == 2\nprint('PASS')\n",
             "level_0_kernel/fails.py": "import sys\nprint('shape mismatch (2, 3)')\nsys.exit(1)\n",
             "level_0_kernel/no_pass.py": "x = 1\n",
             "level_1_fusion/raises.py": "raise ValueError('bad init')\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    reports = [run_self_tests(root, timeout=60, jobs=2, batch_limit=2, warm=w, write=False) for w in (True, False)]
    summary = [[(r.file, r.status, r.returncode, r.cause, r.batch_limit) for r in rep.results] for rep in reports]
    assert summary[0] == summary[1]
    status = {f: s for f, s, *_ in summary[0]}
    assert status == {"level_0_kernel/ok.py": "PASS", "level_0_kernel/fails.py": "FAIL",
                      "level_0_kernel/no_pass.py": "FAIL", "level_1_fusion/raises.py": "FAIL"}
