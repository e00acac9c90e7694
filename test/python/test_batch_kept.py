"""`--batch-limit` never breaks a valid model file (issue 31, class 1). A file's `batch_size` is lowered only
when the file works at the lower batch; a file written for its own batch (one padded sample, a condition
written for two samples, state for exactly two samples) keeps it, and its inputs are cut instead, or run
whole when no cut runs. The decomposer's copy says so on its `batch_size` line, and every tool that reads
the copy (verify-step, hdecomp test, the composition script) agrees."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest
import torch
from decompose_checks import assert_fully_verified
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.runtime.batch_limit import cut_for
from hdecomp.runtime.component import load_component
from hdecomp.runtime.settings import RunSettings
from hdecomp.toolchain.compose import fixed_part
from hdecomp.toolchain.selftest import run_self_test

FIX = Path(__file__).parent / "fixtures" / "batch_limit"
KEPT = {"padded_sample": "get_inputs raised IndexError", "paired_condition": "Model.forward raised RuntimeError",
        "paired_slots": "Model.forward raised RuntimeError"}


def test_a_file_that_works_lowered_is_lowered_and_one_that_does_not_keeps_its_batch() -> None:
    assert load_component(FIX / "batch_mlp.py").batch_size_kept(1) is None
    for name, why in KEPT.items():
        comp = load_component(FIX / f"{name}.py")
        assert comp.batch_size_kept(None) is None and comp.batch_size_kept(2) is None   # nothing to lower
        reason = comp.batch_size_kept(1)
        assert reason is not None and reason.startswith("at batch_size=1, ") and why in reason, reason
        args, kwargs = comp.make_inputs(seed=0, batch_limit=1)
        assert [int(a.shape[0]) for a in args] == [2] * len(args)   # built at the file's own size
        chosen = cut_for(comp, args, kwargs, RunSettings(batch_limit=1))
        if name == "paired_slots":   # no cut runs either: whole
            assert chosen.full_size and [int(a.shape[0]) for a in chosen.args] == [2]
        else:
            assert chosen.batch == 2 and [int(a.shape[0]) for a in chosen.args] == [1] * len(args)


def test_a_batch_size_line_that_says_so_is_never_lowered(tmp_path: Path) -> None:
    src = (FIX / "batch_mlp.py").read_text()
    assert "\nbatch_size = " in src
    marked = tmp_path / "marked.py"
    marked.write_text(src.replace("\nbatch_size = 8", "\nbatch_size = 8  # hdecomp: not lowered: mine"))
    assert "hdecomp: not lowered" in marked.read_text()
    comp = load_component(marked)
    assert comp.batch_size_kept(1) == "its `batch_size` line says 'hdecomp: not lowered'"
    assert comp.make_inputs(seed=0, batch_limit=1)[0][0].shape[0] == 8
    # the self-test runner reads the same line
    result = run_self_test(marked, tmp_path, batch_limit=1, timeout=120)
    assert result.batch_limit == {"limit": 1, "applied": False, "batch_size_from": 8, "batch_size_to": 8}
    # and so does the composition script's copy of the rule
    rule: dict[str, Any] = {"__name__": "composition_script_under_test"}
    exec(compile(fixed_part(), "composition_test.py", "exec"), rule)
    module = types.ModuleType("m")
    module.__file__ = str(marked)
    module.batch_size = 8
    module.get_inputs = lambda: [torch.zeros(module.batch_size, 3)]
    assert rule["batch_size_kept"](module, 1) and not rule["lower_batch_size"](module, 1) and module.batch_size == 8


@pytest.mark.parametrize("name", ["padded_sample", "paired_condition"])
def test_the_composition_scripts_rule_keeps_what_hdecomp_keeps(name: str) -> None:
    rule: dict[str, Any] = {"__name__": "composition_script_under_test", "ROOT": FIX}
    exec(compile(fixed_part(), "composition_test.py", "exec"), rule)
    module = rule["load_component"](f"{name}.py")
    # the script tells the get_inputs case by itself; the forward case by the copy's line (next test)
    assert rule["batch_size_kept"](module, 1) == (name == "padded_sample")
    assert module.batch_size == 2


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("kept")
    return {name: decompose(FIX / f"{name}.py", out, DecomposeOptions(batch_limit=1, self_tests=True),
                            progress=False) for name in KEPT}


@pytest.mark.parametrize("name", list(KEPT))
def test_a_file_written_for_its_own_batch_decomposes_under_a_batch_limit(trees: dict[str, Any], name: str) -> None:
    dec = trees[name]
    res = assert_fully_verified(dec)
    assert res["self_tests"]["status"] == "PASS", res["self_tests"]
    copy = (dec.root / "level_3_model" / f"{name}.py").read_text()
    line = next(ln for ln in copy.splitlines() if ln.startswith("batch_size"))
    assert line.startswith("batch_size = 2  # hdecomp: not lowered: at batch_size=1, ") and KEPT[name] in line
    log = json.loads((dec.root / "decomposition_log.json").read_text())["entries"]
    notes = [e for e in log if e.get("title") == "batch size not lowered"]
    assert len(notes) == 1
    whole = name == "paired_slots"
    assert ("they run whole" in json.dumps(notes[0])) == whole
    assert ("inputs cut from 2 to 1" in json.dumps(notes[0])) == (not whole)


def test_the_check_runs_on_the_cpu_whatever_device_the_caller_builds_on() -> None:
    # verify-step builds the refactored model on the meta device: the check must not run its real forward there
    comp = load_component(FIX / "rnn_plain_state.py")
    with torch.device("meta"):
        model = comp.build(batch_limit=1)
    assert comp.batch_size_kept(1) is None and tuple(model.hidden.shape) == (1, 10)
