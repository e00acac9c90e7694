"""hdecomp test: each component's self-test in its own subprocess with a timeout; test_results.json."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from hdecomp.cli import main
from hdecomp.results import read_json, write_json_atomic
from hdecomp.selftest import run_self_tests
from hdecomp.validate import schema_errors

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
