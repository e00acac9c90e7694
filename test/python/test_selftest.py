"""hdecomp test: each component's self-test in its own subprocess with a timeout; test_results.json."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from hdecomp.cli import main
from hdecomp.formats.jsonio import read_json, write_json_atomic
from hdecomp.toolchain.selftest import run_self_tests
from hdecomp.toolchain.validate import schema_errors

# plain-Python components: the runner only cares about `python file.py`'s exit code and output
FILES = {
    "level_0_kernel/ok.py": "print('PASS')\n",
    "level_0_kernel/fails.py": "import sys\nprint('shape mismatch (2, 3)')\nsys.exit(1)\n",
    "level_0_kernel/no_pass.py": "x = 1\n",
    "level_1_fusion/raises.py": "raise ValueError('bad init')\n",
    "level_1_fusion/hangs.py": "import time\nprint('starting', flush=True)\ntime.sleep(60)\n",
    "level_1_fusion/__init__.py": "",
}


def _make(root: Path) -> Path:
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


def test_statuses_causes_and_results_file(tmp_path: Path) -> None:
    root = _make(tmp_path / "d")
    write_json_atomic(root / "verification" / "test_results.json",
                      {"composition_test": "PASSED", "max_difference": 1e-7})
    report = run_self_tests(root, timeout=3.0, jobs=2)
    by = {r.file: r for r in report.results}
    assert set(by) == {f for f in FILES if not f.endswith("__init__.py")}
    assert by["level_0_kernel/ok.py"].status == "PASS"
    fails = by["level_0_kernel/fails.py"]
    assert fails.status == "FAIL" and fails.returncode == 1 and "shape mismatch" in fails.cause
    assert str(root / "level_0_kernel" / "fails.py") in fails.cause
    assert "never printed PASS" in by["level_0_kernel/no_pass.py"].cause
    assert "ValueError: bad init" in by["level_1_fusion/raises.py"].cause
    hung = by["level_1_fusion/hangs.py"]
    assert hung.status == "TIMEOUT" and "within 3 s" in hung.cause and "starting" in hung.output_tail
    assert report.status == "FAIL" and report.exit_code == 1
    data = read_json(root / "verification" / "test_results.json")
    assert schema_errors(data, "test_results") == []
    assert (data["total_components"], data["passed"], data["failed"], data["timeouts"]) == (5, 1, 4, 1)
    assert data["composition_test"] == "PASSED" and data["max_difference"] == 1e-7  # kept from compose
    # parents before children: level_1_fusion/ before level_0_kernel/
    assert data["component_results"][0]["file"].startswith("level_1_fusion/")


def test_cli(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "d"
    (root / "level_0_kernel").mkdir(parents=True)
    (root / "level_0_kernel" / "ok.py").write_text("print('PASS')\n")
    assert main(["test", str(root), "--timeout", "20"]) == 0
    assert "PASS: 1/1" in capsys.readouterr().out
    assert main(["test", str(root), "--timeout", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] == 1  # stdout is the JSON document alone
    (root / "level_0_kernel" / "bad.py").write_text("raise SystemExit(3)\n")
    assert main(["test", str(root), "--timeout", "20", "-j", "2"]) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["test", str(empty)]) == 2
    assert main(["test", str(tmp_path / "absent")]) == 2
    before = (root / "verification" / "test_results.json").read_text()
    capsys.readouterr()
    assert main(["test", str(root), "--timeout", "0"]) == 2
    assert capsys.readouterr().err.startswith("ERROR: --timeout must be more than 0")
    assert (root / "verification" / "test_results.json").read_text() == before


# A component whose self-test asserts the batch it saw (argv[1]: the batch it expects); plain Python, and
# a traceback line number proves the bootstrap keeps the file's own lines.
BATCH_FILE = """\
import sys

batch_size = 64
other = 64


def get_inputs():
    return [batch_size]


if __name__ == "__main__":
    assert __name__ == "__main__"
    assert get_inputs() == [EXPECTED], f"saw batch {get_inputs()}"
    assert other == 64
    print("PASS", batch_size)
"""


def _batch_root(root: Path, expected: int) -> Path:
    p = root / "level_0_kernel" / "k.py"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(BATCH_FILE.replace("EXPECTED", str(expected)))
    q = root / "level_0_kernel" / "no_batch.py"
    q.write_text("BATCH = 64\nif __name__ == '__main__':\n    assert BATCH == 64\n    print('PASS')\n")
    return root


def test_batch_limit_lowers_batch_size_in_the_runner_only(tmp_path: Path) -> None:
    root = _batch_root(tmp_path / "d", expected=2)
    before = (root / "level_0_kernel" / "k.py").read_text()
    report = run_self_tests(root, timeout=30.0, batch_limit=2)
    by = {r.file: r for r in report.results}
    k = by["level_0_kernel/k.py"]
    assert k.status == "PASS", k.output_tail
    assert "PASS 2" in k.output_tail
    assert k.batch_limit == {"limit": 2, "applied": True, "batch_size_from": 64, "batch_size_to": 2}
    nb = by["level_0_kernel/no_batch.py"]
    assert nb.status == "PASS" and nb.batch_limit == {"limit": 2, "applied": False}
    assert (root / "level_0_kernel" / "k.py").read_text() == before  # the file on disk is untouched
    data = read_json(root / "verification" / "test_results.json")
    assert data["batch_limit"] == 2
    assert {r["file"]: r["batch_limit"]["applied"] for r in data["component_results"]} == {
        "level_0_kernel/k.py": True, "level_0_kernel/no_batch.py": False}
    assert schema_errors(data, "test_results") == []


def test_batch_limit_above_batch_size_and_without_limit_run_unchanged(tmp_path: Path) -> None:
    root = _batch_root(tmp_path / "d", expected=64)
    full = run_self_tests(root, timeout=30.0)
    assert full.status == "PASS" and all(r.batch_limit is None for r in full.results)
    high = run_self_tests(root, timeout=30.0, batch_limit=100)
    k = next(r for r in high.results if r.file.endswith("k.py"))
    assert k.status == "PASS" and k.batch_limit == {"limit": 100, "applied": False, "batch_size_from": 64,
                                                    "batch_size_to": 64}


def test_batch_limit_failure_names_the_files_own_line(tmp_path: Path) -> None:
    root = _batch_root(tmp_path / "d", expected=3)   # lowered to 1: the assertion on line 13 fails
    report = run_self_tests(root, timeout=30.0, batch_limit=1)
    k = next(r for r in report.results if r.file.endswith("k.py"))
    assert k.status == "FAIL" and "saw batch [1]" in (k.cause or "")
    assert 'k.py", line 13' in k.output_tail


def test_cli_batch_limit(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _batch_root(tmp_path / "d", expected=1)
    assert main(["test", str(root), "--batch-limit", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["batch_limit"] == 1 and data["passed"] == 2
