"""`hdecomp decompose --batch-limit N`: the model is recorded and verified at a cut batch, yet every generated
file carries the ORIGINAL dimensions, its batch dimensions written with a module-level `batch_size` (so the one
batching rule lowers them again in verify-step, test, pipeline and compose); the tree and data flow hold the
full shapes. Models that size state by the batch in __init__ (RNN hidden state) are built at the cut batch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.outputs import result_dict
from hdecomp.runtime.component import load_component
from hdecomp.toolchain.compose import compose
from hdecomp.toolchain.pipeline import run_pipeline
from hdecomp.verify.result import VerifyOptions

FIXTURES = Path(__file__).parent / "fixtures" / "batch_limit"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("batch_limit")
    quick = {"self_tests": False}
    return {
        "mlp": decompose(FIXTURES / "batch_mlp.py", tmp / "cut", DecomposeOptions(batch_limit=1), progress=False),
        "mlp_full": decompose(FIXTURES / "batch_mlp.py", tmp / "full", DecomposeOptions(finish=False),
                              progress=False),
        "rnn_plain": decompose(FIXTURES / "rnn_plain_state.py", tmp / "cut",
                               DecomposeOptions(batch_limit=1, **quick), progress=False),
        "rnn_buffer": decompose(FIXTURES / "rnn_buffer_state.py", tmp / "cut",
                                DecomposeOptions(batch_limit=1, **quick), progress=False),
        "offset": decompose(FIXTURES / "batch_offset.py", tmp / "cut",
                            DecomposeOptions(batch_limit=1, finish=False), progress=False),
    }


def _tree(dec: Any) -> dict[str, Any]:
    return json.loads((dec.root / "decomposition_tree.json").read_text())


def _files(dec: Any) -> list[Path]:
    return sorted(p for p in dec.root.glob("level_*/*.py"))


def test_mlp_decomposes_fully_under_the_batch_limit(runs: dict[str, Any]) -> None:
    res = result_dict(runs["mlp"])
    assert res["status"] == "PASS", res
    assert all(s.status == "PASS" for s in runs["mlp"].steps)
    assert res["composition"]["status"] == "PASS"
    assert res["self_tests"]["status"] == "PASS"
    assert _tree(runs["mlp"])["metadata"]["batch_limit"] == 1


def test_child_files_build_the_original_batch(runs: dict[str, Any]) -> None:
    files = {p.name: p for p in _files(runs["mlp"])}
    lin = files["linear_16x32_fp32.py"]
    text = lin.read_text()
    assert re.search(r"^batch_size = 8\b", text, re.MULTILINE)
    assert "torch.randn(batch_size, 3, 16)" in text
    assert "Inputs: x: [8, 3, 16] float32" in text and "Outputs: [8, 3, 32] float32" in text
    assert "((batch_size, 3, 32), torch.float32, True)," in text   # EXPECTED_OUTPUTS, symbolic
    flat = files["linear_32x8_fp32.py"].read_text()
    assert "torch.rand(batch_size * 3, 32)" in flat and re.search(r"Inputs: \w+: \[24, 32\] float32", flat)
    for p in files.values():
        comp = load_component(p)
        args, _ = comp.make_inputs(seed=0)
        assert args[0].shape[0] in (8, 24), (p.name, args[0].shape)      # the original batch
        cut, _ = comp.make_inputs(seed=0, batch_limit=1)
        assert cut[0].shape[0] in (1, 3), (p.name, cut[0].shape)        # the one rule still lowers it
    for step in runs["mlp"].root.glob("steps/*/children/*.py"):
        assert "batch_size = 8" in step.read_text()
    ref = next(runs["mlp"].root.glob("steps/*/refactored.py")).read_text()
    assert "torch.randn(batch_size, 3, 16)" in ref and ref.endswith("\n") and not ref.endswith("\n\n\n")
    assert "def get_input_kwargs():\n    return {}\n" in ref


def test_tree_and_data_flow_hold_the_shapes_of_a_full_size_run(runs: dict[str, Any]) -> None:
    cut, full = _tree(runs["mlp"]), _tree(runs["mlp_full"])
    shapes = {k: (v["input_shapes"], v["output_shapes"]) for k, v in cut["nodes"].items()}
    assert shapes == {k: (v["input_shapes"], v["output_shapes"]) for k, v in full["nodes"].items()}
    assert shapes["batch_mlp"] == ({"input_0": [8, 3, 16]}, {"output": [24, 8]})
    assert [f["shape"] for f in cut["data_flow"]] == [f["shape"] for f in full["data_flow"]]
    # the generated files differ only where the batch is written symbolically
    for a, b in zip(_files(runs["mlp"]), _files(runs["mlp_full"]), strict=True):
        sym = re.sub(r"batch_size = 8 .*\n\n\n", "", a.read_text()).replace("batch_size * 3", "24")
        if "level_3_model" not in str(a):
            assert sym.replace("batch_size", "8") == b.read_text(), a.name


def test_tools_pass_afterwards_at_the_cut_batch(runs: dict[str, Any]) -> None:
    root = runs["mlp"].root
    pr = run_pipeline(root, VerifyOptions(batch_limit=1), progress=False)
    assert pr.status == "PASS" and pr.steps
    # the decomposer ran every self-test under its batch limit (hdecomp test --batch-limit 1)
    st = json.loads((root / "verification" / "test_results.json").read_text())
    assert st["status"] == "PASS" and st["batch_limit"] == 1, st
    results = st["component_results"]
    assert all(r["batch_limit"]["applied"] and r["batch_limit"]["batch_size_to"] == 1 for r in results)
    model_copy = next(r for r in results if r["file"].startswith("level_3_model/"))
    assert model_copy["status"] == "PASS"   # the KernelBench copy got a self-test appended
    text = (root / model_copy["file"]).read_text()
    assert text.startswith((Path(FIXTURES / "batch_mlp.py")).read_text().rstrip())
    assert "((batch_size * 3, 8), torch.float32, True)," in text
    res = compose(root, run=True, batch_limit=1)
    assert res.to_dict()["status"] == "PASS"


@pytest.mark.parametrize("name", ["rnn_plain", "rnn_buffer"])
def test_rnn_state_sized_by_the_batch_in_init(runs: dict[str, Any], name: str) -> None:
    res = result_dict(runs[name])
    assert res["status"] == "PASS", res
    assert res["composition"]["status"] == "PASS"
    kernels = "".join(p.read_text() for p in _files(runs[name]))
    if name == "rnn_plain":   # the plain `self.hidden` becomes a batch-sized state buffer of its kernel
        # (drawn with the sign its recorded values keep: codegen.float_draw)
        assert re.search(r"self\.register_buffer\('hidden', torch\.randn?\(\(batch_size, 10\)\), persistent=False\)",
                         kernels), kernels
    else:
        assert "self.register_buffer('h0', torch.randn((2, batch_size, 8)))" in kernels


def test_a_dimension_not_proportional_to_the_batch_is_a_logged_deviation(runs: dict[str, Any]) -> None:
    dec = runs["offset"]
    assert result_dict(dec)["status"] == "PASS"
    log = json.loads((dec.root / "decomposition_log.json").read_text())["entries"]
    devs = [e["description"] for e in log if e["type"] == "deviation" and "cut batch" in e["title"]]
    assert any("not proportional to the batch" in d and "[2, 4]" in d for d in devs), devs
    assert _tree(dec)["nodes"]["batch_offset"]["input_shapes"] == {"input_0": [6, 4]}


def test_a_model_that_fails_at_the_second_batch_keeps_its_recorded_sizes(tmp_path: Path) -> None:
    # The extra recording at batch 2 raises ((2, 8) * (2,) does not broadcast): not an error of the model,
    # so the decomposition goes on with the recorded (batch 1) sizes and says so.
    dec = decompose(FIXTURES / "batch_broadcast.py", tmp_path, DecomposeOptions(batch_limit=1, self_tests=False),
                    progress=False)
    assert result_dict(dec)["status"] == "PASS"
    log = json.loads((dec.root / "decomposition_log.json").read_text())["entries"]
    assert any(e["type"] == "deviation" and "does not run at batch 2" in e["description"] for e in log), log


def test_commands_without_the_batch_limit_say_the_tree_was_made_with_one(
        runs: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from hdecomp.cli import main
    from hdecomp.formats.layout import batch_limit_note
    cut, full = runs["mlp"].root, runs["mlp_full"].root
    assert batch_limit_note(full, None) is None            # made at full size: nothing to say
    assert batch_limit_note(cut, 1) is None                # the limit is given: nothing to say
    note = batch_limit_note(cut, None)
    assert note is not None and "--batch-limit 1" in note
    for argv in (["pipeline", str(cut), "--no-coverage"], ["compose", str(cut)]):
        assert main(argv) == 0                             # the small fixture runs at full size too
        assert "made with --batch-limit 1" in capsys.readouterr().err
        assert main([*argv, "--batch-limit", "1"]) == 0
        assert "made with --batch-limit" not in capsys.readouterr().err


DERIVED = '''
import torch
import torch.nn as nn

batch_size = 4
input_shape = (batch_size, 3, 8, 8)
flat = input_shape[0] * 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3)
        self.norm = nn.BatchNorm2d(6)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(input_shape)]


def get_init_inputs():
    return []
'''


def test_module_values_computed_from_batch_size_follow_the_lowered_batch(tmp_path: Path) -> None:
    """`input_shape = (batch_size, ...)` at the top of the file follows `--batch-limit`, as when the file runs
    with its `batch_size` line lowered (`hdecomp test --batch-limit`): the decomposer records at the cut
    batch and writes batch-relative shapes, so the model copy's own self-test passes under the limit."""
    path = tmp_path / "derived.py"
    path.write_text(DERIVED)
    comp = load_component(path)
    args, _ = comp.make_inputs(seed=0, batch_limit=1)
    assert list(args[0].shape) == [1, 3, 8, 8]
    assert comp.module.input_shape == (4, 3, 8, 8) and comp.module.flat == 12 and comp.module.batch_size == 4
    dec = decompose(path, tmp_path / "out", DecomposeOptions(batch_limit=1))
    res = result_dict(dec)
    assert res["status"] == "PASS", res
    assert dec.finals["self_tests"]["status"] == "PASS" and dec.finals["self_tests"]["failed"] == 0
    copy = (dec.root / "level_3_model" / "derived.py").read_text()
    assert "((batch_size, 6, 6, 6), torch.float32, True)" in copy
