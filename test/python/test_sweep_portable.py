"""bench/zoo/sweep.py: results files are committed, so an entry names no folder of the machine that ran it; `--only`
selects what it names."""

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


def test_only_a_files_own_name_selects_that_file_alone() -> None:
    """`--only hf_gemma` ran hf_gemma2_sliding and hf_gemma3_text too (a fresh set's sweep counted them): a name
    that is a file's stem is that file; another name is still a prefix."""
    spec = importlib.util.spec_from_file_location("hdecomp_bench_zoo_sweep", ZOO_SWEEP)
    assert spec is not None and spec.loader is not None
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    assert [f.stem for f in sweep.model_files(["hf_gemma", "hf_rt_detr"])] == ["hf_gemma", "hf_rt_detr"]
    prefixed = [f.stem for f in sweep.model_files(["tv_"])]
    assert len(prefixed) > 10 and all(s.startswith("tv_") for s in prefixed)
