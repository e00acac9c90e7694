"""In-model trials (issue 31): a step is also verified on the inputs its component receives in the model
(hdecomp.verify.in_model), so that a refactoring that holds for random inputs only cannot pass its step and
then fail the composition; the decomposer records and writes those inputs for every step it writes."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import torch
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.verify.in_model import IN_MODEL_FILE, read_in_model_inputs, write_in_model_inputs
from hdecomp.verify.step import verify_step

FIX = Path(__file__).parent / "fixtures"

ORIGINAL = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.randn(8))

    def forward(self, x):
        return torch.where(x > 100, x * 2.0, x) + self.b


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''

CHILD = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.where(x > 100, x * {scale}, x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''

BIAS = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.randn(8))

    def forward(self, x):
        return x + self.b


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''

REFACTORED = '''
import torch
import torch.nn as nn

from children.bias import Model as Bias
from children.gate import Model as Gate


class RefactoredModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.bias = Bias()

    def forward(self, x):
        return self.bias(self.gate(x))


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''


def _step(tmp_path: Path, scale: str) -> Path:
    d = tmp_path / f"step_{scale.replace('.', '_')}"
    (d / "children").mkdir(parents=True)
    (d / "original.py").write_text(textwrap.dedent(ORIGINAL))
    (d / "refactored.py").write_text(textwrap.dedent(REFACTORED))
    (d / "children" / "gate.py").write_text(textwrap.dedent(CHILD).replace("{scale}", scale))
    (d / "children" / "bias.py").write_text(textwrap.dedent(BIAS))
    return d


def test_a_refactoring_right_for_random_inputs_only_fails_its_in_model_trial(tmp_path: Path) -> None:
    wrong = _step(tmp_path, "0.0")   # the same ops; wrong only where x > 100, which no random input reaches
    assert verify_step(wrong / "original.py", wrong / "refactored.py").status == "PASS"
    assert write_in_model_inputs(wrong, [([torch.full((4, 8), 1000.0)], {})]) is None
    res = verify_step(wrong / "original.py", wrong / "refactored.py")
    assert res.status == "FAIL" and res.data["fail_reasons"] == ["in_model_mismatch"], res.data.get("fail_reasons")
    assert [t["trial"] for t in res.data["in_model_trials"]] == ["in_model_0"]
    right = _step(tmp_path, "2.0")
    write_in_model_inputs(right, [([torch.full((4, 8), 1000.0)], {}), ([torch.randn(1, 8)], {})])
    ok = verify_step(right / "original.py", right / "refactored.py")
    assert ok.status == "PASS" and [t["pass"] for t in ok.data["in_model_trials"]] == [True, True]


def test_inputs_a_file_cannot_hold_are_not_written(tmp_path: Path) -> None:
    class Opaque:
        def __init__(self) -> None:
            self.cache = [torch.ones(2)]
    Opaque.__module__ = "children.c0_block"
    assert write_in_model_inputs(tmp_path, [([Opaque()], {})]) is not None
    assert not (tmp_path / IN_MODEL_FILE).exists() and read_in_model_inputs(tmp_path / "original.py") == []


def test_the_decomposer_records_what_each_child_receives_in_the_model(tmp_path: Path) -> None:
    dec = decompose(FIX / "reach" / "cache_decoder.py", tmp_path, DecomposeOptions(batch_limit=1, self_tests=False),
                    progress=False)
    steps = sorted(p for p in (dec.root / "steps").iterdir() if p.name != "step_1_cache_decoder")
    assert steps and all((s / IN_MODEL_FILE).is_file() for s in steps), [s.name for s in steps]
    for s in steps:
        result = json.loads((s / "verification_result.json").read_text())
        assert result["status"] == "PASS" and result["in_model_trials"], s.name
        calls = read_in_model_inputs(s / "original.py")
        assert calls and all(isinstance(a, torch.Tensor) and a.shape[0] == 1 for a in calls[0][0] if
                             isinstance(a, torch.Tensor))   # recorded at the step's batch
    assert not (dec.root / "steps" / "step_1_cache_decoder" / IN_MODEL_FILE).exists()   # the model's own inputs
