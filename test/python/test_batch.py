"""hdecomp batch: every decomposition under a root, pipeline verdict + self-tests + composition, a rich
summary table and JSON in the original batch_test.py shape (plus our fields)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.cli.batch import print_table
from hdecomp.formats.jsonio import read_json
from hdecomp.toolchain.batch import find_decompositions, run_batch
from rich.console import Console

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toolchain"


def test_find_decompositions_with_level_filter(tmp_path: Path) -> None:
    for rel in ("level2/a", "level3/b", "level3/c/steps/step_1_x", "misc/deep/er/d"):
        (tmp_path / rel).mkdir(parents=True)
    for rel in ("level2/a", "level3/b", "level3/c", "misc/deep/er/d", "level3/c/steps/step_1_x"):
        (tmp_path / rel / "decomposition_tree.json").write_text("{}")
    found = [p.relative_to(tmp_path).as_posix() for p in find_decompositions(tmp_path)]
    assert found == ["level2/a", "level3/b", "level3/c", "misc/deep/er/d"]  # not the step inside c
    assert [p.name for p in find_decompositions(tmp_path, "level3")] == ["b", "c"]
    assert find_decompositions(tmp_path / "level2" / "a") == [tmp_path / "level2" / "a"]


@pytest.fixture
def batch_root(tmp_path: Path) -> Path:
    root = tmp_path / "output"
    good = root / "level3" / "tiny_mlp"
    shutil.copytree(FIXTURES / "tiny_mlp", good)
    # keep the self-tests to the four kernel files (each is a torch subprocess)
    shutil.rmtree(good / "level_1_fusion")
    shutil.rmtree(good / "level_3_model")
    half = root / "level3" / "half_done"
    (half / "level_0_kernel").mkdir(parents=True)
    (half / "decomposition_tree.json").write_text('{"nodes": {}}')
    (half / "level_0_kernel" / "broken.py").write_text("raise ImportError('no such kernel library')\n")
    return root


def test_batch_verdicts_json_and_table(batch_root: Path) -> None:
    report = run_batch(batch_root, timeout=120, jobs=2)
    assert (report["total"], report["passed"], report["partial"], report["failed"]) == (2, 1, 0, 1)
    by = {r["model"]: r for r in report["results"]}
    good = by["tiny_mlp"]
    assert good["status"] == "PASSED" and good["level"] == "level3"
    assert (good["steps_passed"], good["steps_total"]) == (3, 3)
    assert (good["components_tested"], good["components_passed"], good["components_failed"]) == (4, 4, 0)
    assert good["composition_test"] == "PASS" and good["composition_max_diff"] is not None
    bad = by["half_done"]
    assert bad["status"] == "FAILED" and bad["pipeline_status"] == "NO_STEPS"
    assert any("broken.py" in e and "no such kernel library" in e for e in bad["errors"])
    assert any("no step folders" in e for e in bad["errors"])
    assert bad["composition_status"] == "NOT_RUN"
    console = Console(record=True, width=120)
    print_table(console, report)
    text = console.export_text()
    assert "level3/tiny_mlp" in text and "PASSED" in text and "FAILED" in text and "4/4" in text


def test_cli_writes_json_and_exit_code(tmp_path: Path) -> None:
    root = tmp_path / "out"
    (root / "level1" / "k" / "level_0_kernel").mkdir(parents=True)
    (root / "level1" / "k" / "decomposition_tree.json").write_text('{"nodes": {}}')
    (root / "level1" / "k" / "level_0_kernel" / "x.py").write_text("print('PASS')\n")
    assert main(["batch", str(root), "--output", str(tmp_path / "b.json")]) == 0  # PARTIAL is not a failure
    data = read_json(tmp_path / "b.json")
    assert data["total"] == 1 and data["partial"] == 1 and data["results"][0]["status"] == "PARTIAL"
    assert main(["batch", str(root), "--level", "level9"]) == 2
    assert main(["batch", str(tmp_path / "absent")]) == 2


def test_cli_json_is_one_document_and_empty_root_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json
    root = tmp_path / "out"
    (root / "k" / "level_0_kernel").mkdir(parents=True)
    (root / "k" / "decomposition_tree.json").write_text('{"nodes": {}}')
    (root / "k" / "level_0_kernel" / "x.py").write_text("print('PASS')\n")
    capsys.readouterr()
    assert main(["batch", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["total"] == 1  # progress lines must not break the JSON
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["batch", str(empty)]) == 2
    assert capsys.readouterr().err.startswith(f"ERROR: {empty}: no decompositions")
    assert list(empty.iterdir()) == []
