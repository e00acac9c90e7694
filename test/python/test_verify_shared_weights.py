"""verify-step holds the weights once (issue 13, big weights): the refactored model is built on the meta device
and given the original's tensors themselves; where that cannot be exact it falls back to copies and says so."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

ORIGINAL = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 8)
        {extra_init}

    def forward(self, x):
        {extra_forward}
        return self.fc2(torch.relu(self.fc1(x)))


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
'''

CHILD = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear({i}, {o})
        {extra_init}

    def forward(self, x):
        {extra_forward}
        return {expr}


def get_inputs():
    return [torch.randn(4, {i})]


def get_init_inputs():
    return []
'''

REFACTORED = '''
import torch.nn as nn

from children.first import Model as First
from children.second import Model as Second


class RefactoredModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = First()
        self.second = Second()

    def forward(self, x):
        return self.second(self.first(x))


def get_inputs():
    import torch
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
'''


def _step(tmp: Path, *, orig_init: str = "", orig_fwd: str = "", child_init: str = "", child_fwd: str = "") -> Path:
    (tmp / "children").mkdir(parents=True)
    (tmp / "original.py").write_text(textwrap.dedent(ORIGINAL.format(extra_init=orig_init or "pass",
                                                                     extra_forward=orig_fwd or "pass")))
    (tmp / "children" / "first.py").write_text(CHILD.format(i=64, o=64, expr="torch.relu(self.fc(x))",
                                                            extra_init=child_init or "pass",
                                                            extra_forward=child_fwd or "pass"))
    (tmp / "children" / "second.py").write_text(CHILD.format(i=64, o=8, expr="self.fc(x)", extra_init="pass",
                                                             extra_forward="pass"))
    (tmp / "refactored.py").write_text(REFACTORED)
    (tmp / "weight_map.json").write_text('{"fc1.weight": "first.fc.weight", "fc1.bias": "first.fc.bias", '
                                         '"fc2.weight": "second.fc.weight", "fc2.bias": "second.fc.bias"}')
    return tmp


def test_the_refactored_model_shares_the_original_tensors(tmp_path: Path) -> None:
    step = _step(tmp_path)
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=2))
    assert r.status == "PASS", (r.error, r.data.get("fail_reason"))
    assert r.data["weight_transfer"]["shared_storage"] is True
    # the re-randomised trial re-randomised the one storage, and both models still matched
    assert r.data["randomized_trial"]["pass"] is True


def test_copies_when_sharing_cannot_be_exact(tmp_path: Path) -> None:
    # the child has a buffer of its own the original does not have: built without its constructor's
    # values it would be lost, so the step is verified with a real build and copies
    step = _step(tmp_path, child_init="self.register_buffer('offset', torch.zeros(64))",
                 child_fwd="x = x + self.offset")
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=1))
    assert r.data["weight_transfer"]["shared_storage"] is False
    assert r.data["weight_transfer"]["unmapped_refactored"] == ["first.offset"]


def test_a_forward_that_writes_its_weights_is_verified_with_copies(tmp_path: Path) -> None:
    # a forward that writes a tensor it owns (a running counter): with one shared storage the refactored
    # model would see the original's write; the step is verified again with copies, and says so
    step = _step(tmp_path, orig_init="self.register_buffer('calls', torch.zeros(1))",
                 orig_fwd="self.calls.add_(1)",
                 child_init="self.register_buffer('calls', torch.zeros(1))", child_fwd="self.calls.add_(1)")
    wm = step / "weight_map.json"
    wm.write_text(wm.read_text().rstrip("}") + ', "calls": "first.calls"}')
    in_process = VerifyOptions(num_trials=2, skip_anticheat=True, isolate=False)
    r = verify_step(step / "original.py", step / "refactored.py", in_process)
    assert r.status == "PASS", (r.error, r.data.get("fail_reason"))
    assert r.data["weight_transfer"]["shared_storage"] is False
    assert any("writes its own parameters or buffers" in w for w in r.warnings), r.warnings
    # each side in a process of its own: the original's copy beside the refactored model never runs, so the
    # two writes stay apart with no second run
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=2, skip_anticheat=True))
    assert r.status == "PASS", (r.error, r.data.get("fail_reason"))
    assert not any("writes its own parameters or buffers" in w for w in r.warnings), r.warnings
