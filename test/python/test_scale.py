"""Many models, one command: `hdecomp decompose A.py B.py FOLDER/ -o OUT [--executor local|ray]`. The local
executor and a real Ray cluster started here (loopback, 2 CPUs; stopped by the processes it started, no
other) make the same trees; a task whose worker is killed is retried; a model that hangs is stopped by
--timeout with its process group and leaves no folder; a re-run skips what is done unless --force."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hdecomp.scale.identity import differences

MLP = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear({d}, {h})
        self.fc2 = nn.Linear({h}, 4)

    def forward(self, x):
        return self.fc2(torch.{act}(self.fc1(x)))


def get_inputs():
    return [torch.randn(4, {d})]


def get_init_inputs():
    return []
'''
MODELS = {"mlp_relu": dict(d=8, h=16, act="relu"), "mlp_tanh": dict(d=12, h=8, act="tanh"),
          "mlp_sigmoid": dict(d=6, h=10, act="sigmoid"), "mlp_gelu": dict(d=16, h=16, act="nn.functional.gelu")}
# waits at import until GO exists: a task to kill while it runs
SLOW = '''
import os
import time

import torch
import torch.nn as nn

while not os.path.exists({go!r}):
    time.sleep(0.05)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(2, 4)]


def get_init_inputs():
    return []
'''
HANG = SLOW.replace("while not os.path.exists({go!r}):\n    time.sleep(0.05)\n", "").replace(
    "return torch.relu(self.fc(x))", "time.sleep(3600)\n        return self.fc(x)")


def _hdecomp(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hdecomp", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HDECOMP_CACHE": "0"})


def _processes(*words: str) -> list[tuple[int, int]]:
    """(pid, parent pid) of the processes whose command line holds every word."""
    from hdecomp.scale.ray_cluster import processes
    return [(pid, ppid) for pid, ppid, cmd in processes() if all(w in cmd for w in words)]


def _wait_for(words: tuple[str, ...], seconds: float = 120) -> tuple[int, int]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = _processes(*words)
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no process with {words} within {seconds} s")


def _wait_gone(*words: str, hang_guard: float = 120) -> None:
    """Returns once no process's command line holds every word (a killed group is reaped by the kernel, not at
    once); raises only if one is still there after `hang_guard` seconds."""
    end = time.monotonic() + hang_guard
    while (left := _processes(*words)) and time.monotonic() < end:
        time.sleep(0.1)
    assert left == [], f"still running after {hang_guard} s: {left}"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("models")
    for name, kw in MODELS.items():
        (d / f"{name}.py").write_text(MLP.format(**kw))
    (d / "helpers.py").write_text("SCALE = 2\n")   # not a model: a folder argument leaves it out
    return d


@pytest.fixture(scope="module")
def local_trees(models: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "out"
    r = _hdecomp("decompose", str(models), "-o", str(out), "--workers", "2", "--json")
    assert r.returncode == 0, r.stderr
    return out


def test_a_folder_of_models_is_one_tree_each_with_an_index(local_trees: Path) -> None:
    index = json.loads((local_trees / "index.json").read_text())
    assert index["executor"] == "local" and index["workers"] == 2
    assert sorted(m["name"] for m in index["models"]) == sorted(MODELS)
    assert all(m["status"] == "PASS" and m["tree"] == m["name"] for m in index["models"])
    for name in MODELS:
        assert (local_trees / name / "decomposition_tree.json").is_file()
    assert not (local_trees / "helpers").exists() and not (local_trees / ".staging").exists()


def test_a_rerun_skips_what_is_done_unless_forced(local_trees: Path, models: Path) -> None:
    tree = local_trees / "mlp_relu" / "decomposition_tree.json"
    before = tree.stat().st_mtime_ns
    r = _hdecomp("decompose", str(models / "mlp_relu.py"), str(models / "mlp_tanh.py"), "-o", str(local_trees),
                 "--json")
    assert r.returncode == 0, r.stderr
    assert [m["status"] for m in json.loads(r.stdout)["models"]] == ["SKIPPED", "SKIPPED"]
    assert tree.stat().st_mtime_ns == before
    r = _hdecomp("decompose", str(models / "mlp_relu.py"), "-o", str(local_trees), "--force", "--json")
    assert [m["status"] for m in json.loads(r.stdout)["models"]] == ["PASS"]
    assert tree.stat().st_mtime_ns != before


def test_a_model_that_hangs_is_stopped_and_leaves_no_folder(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "hang_forever.py").write_text(HANG)
    out = tmp_path / "out"
    r = _hdecomp("decompose", str(tmp_path / "m" / "hang_forever.py"), "-o", str(out), "--executor", "local",
                 "--timeout", "8", "--json")
    assert r.returncode == 2
    (row,) = json.loads(r.stdout)["models"]
    assert row["status"] == "TIMEOUT" and "did not finish within 8 s" in row["reason"] and row["tree"] is None
    assert sorted(p.name for p in out.iterdir()) == ["index.json"]
    _wait_gone("hang_forever.py")   # its process group ended with it


def test_a_task_whose_process_is_killed_is_retried_once(tmp_path: Path) -> None:
    go = tmp_path / "go"
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "slow_local.py").write_text(SLOW.format(go=str(go)))
    out = tmp_path / "out"
    driver = subprocess.Popen([sys.executable, "-m", "hdecomp", "decompose", str(tmp_path / "m" / "slow_local.py"),
                               "-o", str(out), "--executor", "local", "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        pid, _ = _wait_for(("decompose", "slow_local.py", ".hdecomp_out"))
        os.kill(pid, signal.SIGKILL)
        go.write_text("")
        stdout, stderr = driver.communicate(timeout=300)
    finally:
        driver.kill()
    (row,) = json.loads(stdout)["models"]
    assert row["status"] == "PASS" and row["attempts"] == 2, stderr
    assert (out / "slow_local" / "decomposition_tree.json").is_file()


# ---- a real Ray cluster --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A real Ray cluster on the loopback address, 2 CPUs; stopped by exactly its own processes."""
    from hdecomp.scale.ray_cluster import local_cluster
    with local_cluster(2) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def ray_address(ray_cluster: Any) -> str:
    return str(ray_cluster.address)


def test_ray_trees_equal_the_local_executors(ray_address: str, models: Path, local_trees: Path,
                                             tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = _hdecomp("decompose", str(models), "-o", str(out), "--executor", "ray", "--address", ray_address, "--json")
    assert r.returncode == 0, r.stderr
    index = json.loads(r.stdout)
    assert index["executor"] == "ray" and index["workers"] == 2
    assert sorted(m["name"] for m in index["models"] if m["status"] == "PASS") == sorted(MODELS)
    for name in MODELS:
        assert differences(out / name, local_trees / name) == [], name


def test_ray_client_addresses_work_too(ray_cluster: Any, models: Path, local_trees: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = _hdecomp("decompose", str(models / "mlp_tanh.py"), "-o", str(out), "--executor", "ray", "--address",
                 ray_cluster.client_address, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["address"].startswith("ray://")
    assert differences(out / "mlp_tanh", local_trees / "mlp_tanh") == []


def test_ray_retries_a_task_whose_worker_is_killed(ray_address: str, tmp_path: Path) -> None:
    go = tmp_path / "go"
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "slow_ray.py").write_text(SLOW.format(go=str(go)))
    out = tmp_path / "out"
    driver = subprocess.Popen([sys.executable, "-m", "hdecomp", "decompose", str(tmp_path / "m" / "slow_ray.py"),
                               "-o", str(out), "--executor", "ray", "--address", ray_address, "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pid, worker = _wait_for(("decompose", "slow_ray.py", ".hdecomp_out"))
        os.kill(worker, signal.SIGKILL)        # the Ray worker running the task: Ray retries it
        go.write_text("")
        stdout, stderr = driver.communicate(timeout=300)
    finally:
        driver.kill()
    (row,) = json.loads(stdout)["models"]
    assert row["status"] == "PASS", stderr
    assert row["worker"] is not None and not row["worker"].endswith(f":{worker}")   # another worker made it
    assert pid not in {p for p, _ in _processes("slow_ray.py")}   # the killed attempt's decompose died with it
    assert (out / "slow_ray" / "decomposition_tree.json").is_file()


def test_ray_reports_a_model_that_hangs_and_leaves_no_folder(ray_address: str, tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "hang_on_ray.py").write_text(HANG)
    out = tmp_path / "out"
    r = _hdecomp("decompose", str(tmp_path / "m" / "hang_on_ray.py"), "-o", str(out), "--executor", "ray",
                 "--address", ray_address, "--timeout", "8", "--json")
    assert r.returncode == 2, r.stderr
    (row,) = json.loads(r.stdout)["models"]
    assert row["status"] == "TIMEOUT" and row["tree"] is None
    assert sorted(p.name for p in out.iterdir()) == ["index.json"]
    _wait_gone("hang_on_ray.py", "decompose")


_KEPT = ("model", "status", "steps_total", "steps_passed", "components_tested", "components_passed",
         "composition_status")


def _batch_rows(*args: str) -> list[dict]:
    r = _hdecomp("batch", *args, "--json")
    assert r.returncode == 0, r.stderr
    return [{k: row[k] for k in _KEPT} for row in json.loads(r.stdout)["results"]]


def test_batch_through_the_executors_gives_the_in_process_verdicts(ray_address: str, local_trees: Path) -> None:
    here = _batch_rows(str(local_trees))
    assert [r["model"] for r in here] == sorted(MODELS) and all(r["status"] == "PASSED" for r in here)
    assert _batch_rows(str(local_trees), "--executor", "local", "--workers", "2") == here
    assert _batch_rows(str(local_trees), "--executor", "ray", "--address", ray_address) == here


def test_bad_arguments_are_one_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    r = _hdecomp("decompose", str(empty), "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "no model files here" in r.stderr and str(empty) in r.stderr
    assert not (tmp_path / "out").exists()
    r = _hdecomp("decompose", str(tmp_path / "missing.py"), str(empty), "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "missing.py: file not found" in r.stderr
