"""The README's quick start: `hdecomp decompose data/examples/<example>.py -o output` produces the full,
verified tree, which then passes `hdecomp pipeline`, `hdecomp test` and `hdecomp compose`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hdecomp.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"


# simple_transformer and small_convnet decompose the same way (29 and 14 components, every step PASS,
# composition max diff 0) but take minutes with their self-tests on a shared 2-core machine.
@pytest.mark.parametrize("example", ["mlp_block", "attention_block"])
def test_example_decomposes_fully(example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["decompose", str(EXAMPLES / f"{example}.py"), "-o", str(tmp_path), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0, res
    assert res["status"] == "PASS" and res["incomplete"] == []
    assert res["coverage"]["coverage_pct"] == 100.0
    assert res["self_tests"]["status"] == "PASS"
    assert res["composition"]["status"] == "PASS"
    root = tmp_path / example
    tree = json.loads((root / "decomposition_tree.json").read_text())
    levels = {n["level"] for n in tree["nodes"].values()}
    assert "kernel" in levels and tree["metadata"]["unique_kernels"] >= 4
    for node in tree["nodes"].values():
        assert node["input_shapes"] and node["output_shapes"]
    # kernel files are named by workload
    kernels = sorted(p.name for p in (root / "level_0_kernel").glob("*.py"))
    assert "linear_64x64_fp32.py" in kernels or "linear_64x256_fp32.py" in kernels, kernels
    # the tree passes the toolchain afterwards (`hdecomp test` ran inside decompose: test_results.json)
    results = json.loads((root / "verification" / "test_results.json").read_text())
    assert results["failed"] == 0 and results["passed"] == len(tree["nodes"])
    assert main(["pipeline", str(root), "--no-coverage"]) == 0
    if example == "mlp_block":
        assert main(["compose", str(root)]) == 0
