"""The run settings (device, batch limit, time limit, trials, tolerances) are declared once
(hdecomp.runtime.settings.RunSettings) and passed whole: every command's options are RunSettings, none declares a
run setting of its own (ReplaceOptions only draws more trials by default), and a builder takes them whole or one by
one, never both."""

from __future__ import annotations

import ast
import inspect
from dataclasses import fields
from pathlib import Path

import pytest
from hdecomp.decompose.state import DecomposeOptions
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import load_component
from hdecomp.runtime.settings import RunSettings
from hdecomp.toolchain.replace.run import ReplaceOptions
from hdecomp.verify.result import VerifyOptions

RUN = {f.name for f in fields(RunSettings)}


@pytest.mark.parametrize("cls", [DecomposeOptions, VerifyOptions, ReplaceOptions])
def test_every_commands_options_are_run_settings_declared_once(cls: type) -> None:
    assert issubclass(cls, RunSettings)
    own = {n.target.id for n in ast.parse(inspect.getsource(cls)).body[0].body   # type: ignore[attr-defined]
           if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    assert own & RUN == ({"num_trials"} if cls is ReplaceOptions else set()), sorted(own & RUN)
    # a command's settings are handed to another whole
    opts = cls(batch_limit=1, device="cpu", timeout=30.0)
    assert opts.run == RunSettings(batch_limit=1, timeout=30.0, num_trials=opts.num_trials)
    assert VerifyOptions(**opts.run_fields()).run == opts.run


def test_a_builder_takes_the_settings_whole_or_one_by_one(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("import torch\nfrom torch import nn\nbatch_size = 4\n\n\nclass Model(nn.Module):\n"
                 "    def forward(self, x):\n        return x * 2\n\n\n"
                 "def get_inputs():\n    return [torch.randn(batch_size, 3)]\n\n\n"
                 "def get_init_inputs():\n    return []\n")
    comp = load_component(f)
    run = RunSettings(batch_limit=2)
    assert comp.make_inputs(seed=0, run=run)[0][0].shape[0] == 2
    assert limited_inputs(comp, run)[0][0].shape[0] == 2 and limited_inputs(comp, RunSettings())[0][0].shape[0] == 4
    with pytest.raises(TypeError, match="whole"):
        comp.build(device="cpu", run=run)
