"""bench/zoo/sweep.py: results files are committed, so an entry names no folder of the machine that ran it."""

from __future__ import annotations

import importlib.util
import sysconfig
from pathlib import Path

ZOO_SWEEP = Path(__file__).resolve().parents[2] / "bench" / "zoo" / "sweep.py"


def test_an_entry_names_neither_the_output_folder_nor_the_installed_packages(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("hdecomp_bench_zoo_sweep", ZOO_SWEEP)
    assert spec is not None and spec.loader is not None
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    site = sysconfig.get_paths()["purelib"]
    out = tmp_path / "zoo" / "hf_blip"
    entry = {"output": str(out), "reason": f"composition ERROR: {site}/torch/nn/modules/linear.py:134: TypeError",
             "self_tests": {"failure": [f"{out}/level_0_kernel/add_fp32.py: FAIL"]}}
    portable = sweep._portable(entry)
    assert portable["output"] == "<out>/hf_blip"
    assert portable["reason"] == "composition ERROR: <site-packages>/torch/nn/modules/linear.py:134: TypeError"
    assert portable["self_tests"] == {"failure": ["<out>/hf_blip/level_0_kernel/add_fp32.py: FAIL"]}
