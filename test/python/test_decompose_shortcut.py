"""`hdecomp decompose` on KernelBench level 3 #26's shape (ShuffleNet units): a block whose shortcut is an
`nn.Sequential` of conv + bn in the first unit (channels change) and an empty `nn.Sequential` in the
others, added as `out += self.shortcut(x)`. The conv + bn shortcut is a fusion decomposed by a step named
`sequential`; the empty one is a kernel file named `sequential_<shape>_fp32.py`. The composition must not
take that kernel for a copy of the `sequential` step (a name match): it would then build a conv + bn
shortcut where the original has none, and those composed tensors would stay unmapped."""

from __future__ import annotations

from pathlib import Path

import pytest
from decompose_checks import assert_fully_verified
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.toolchain.compose import build_composition, composed_weight_map

MODEL = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Unit(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, groups=cout, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv3 = nn.Conv2d(cout, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        if cin == cout:
            self.shortcut = nn.Sequential()
        else:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = F.relu(self.bn3(self.conv3(out)))
        out += self.shortcut(x)
        return out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage = nn.Sequential(Unit(4, 8), Unit(8, 8), Unit(8, 8))

    def forward(self, x):
        return self.stage(x)


def get_inputs():
    return [torch.rand(2, 4, 5, 5)]


def get_init_inputs():
    return []
'''


@pytest.fixture(scope="module")
def dec(tmp_path_factory: pytest.TempPathFactory) -> object:
    work = tmp_path_factory.mktemp("shortcut")
    model = work / "shortcut_units.py"
    model.write_text(MODEL)
    return decompose(model, work / "out", DecomposeOptions(self_tests=False), progress=False)


def _steps(dec: object) -> dict[str, Path]:
    return {p.name.split("_", 2)[2]: p for p in (dec.root / "steps").iterdir()}  # type: ignore[attr-defined]


def test_every_step_passes_and_composes(dec: object) -> None:
    assert_fully_verified(dec, pipeline=False)


def test_both_shortcuts_are_children(dec: object) -> None:
    steps = _steps(dec)
    # the conv + bn shortcut is a fusion with a step of its own, named after the attribute that holds the
    # nn.Sequential; the empty one is a kernel file
    assert "shortcut" in steps
    kernels = sorted(p.name for p in (dec.root / "level_0_kernel").glob("sequential_*.py"))  # type: ignore[attr-defined]
    assert kernels == ["sequential_2x8x5x5_fp32.py"], kernels
    refs = [(p / "refactored.py").read_text() for p in steps.values()]
    assert any("self.shortcut = Shortcut()" in r for r in refs)
    assert any("self.shortcut = Sequential2x8x5x5Fp32()" in r for r in refs)


def test_empty_shortcut_composes_as_its_kernel(dec: object) -> None:
    comp = build_composition(dec.root)  # type: ignore[attr-defined]
    shortcut_step = _steps(dec)["shortcut"].resolve()
    # only the unit with the conv + bn shortcut reaches the `shortcut` step
    users = [parent for (parent, child), sub in comp.sub_steps.items() if sub.resolve() == shortcut_step]
    assert len(users) == 1 and all(child.name == "shortcut.py"
                                   for (_, child), sub in comp.sub_steps.items() if sub.resolve() == shortcut_step)
    assert any(leaf.file.name == "sequential_2x8x5x5_fp32.py" and leaf.is_kernel for leaf in comp.leaves.values())
    script = (dec.root / "verification" / "composition_test.py").read_text()  # type: ignore[attr-defined]
    assert "self.shortcut = Sequential2x8x5x5Fp32()" in script


def test_composed_weight_map_covers_every_tensor(dec: object) -> None:
    import torch
    from hdecomp.runtime.component import load_component
    comp = build_composition(dec.root)  # type: ignore[attr-defined]
    wm = composed_weight_map(comp)
    original = load_component(comp.original).build()
    assert sorted(wm) == sorted(original.state_dict()), "every original tensor reaches a kernel"
    assert len(set(wm.values())) == len(wm)
    # the original's shortcut tensors exist only in the first unit, and map into its shortcut only
    shortcut = {k: v for k, v in wm.items() if ".shortcut." in k}
    assert shortcut and all(k.startswith("stage.0.shortcut.") for k in shortcut), shortcut
    assert all(v.startswith("stage_0.shortcut.") for v in shortcut.values()), shortcut
    assert not any(".shortcut." in v for k, v in wm.items() if not k.startswith("stage.0."))
    assert all(isinstance(t, torch.Tensor) for t in original.state_dict().values())
