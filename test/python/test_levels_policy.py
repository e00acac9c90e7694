"""The level policy (decompose/levels.py, on the size bands of vocab/levels.py) pinned rule by rule: what
a component of N logical ops is, which group sizes a step tries, and where each child lands."""

from __future__ import annotations

import pytest
from hdecomp.decompose.levels import (
    GROUP_CAP,
    child_level,
    group_cap,
    level_for_size,
    natural_level,
    step_caps,
)
from hdecomp.vocab.levels import FUSION_OPS, LAYER_OPS, LEVEL_NAMES, parse_level


def test_size_bands() -> None:
    assert FUSION_OPS == (2, 5) and LAYER_OPS == (6, 15)
    assert [LEVEL_NAMES[level_for_size(n)] for n in (0, 1, 2, 5, 6, 15, 16, 400)] == \
        ["kernel", "kernel", "fusion", "fusion", "layer", "layer", "model", "model"]


def test_natural_level_never_calls_a_non_kernel_a_kernel() -> None:
    assert natural_level(1, kernel=False) == 1 and natural_level(1, kernel=True) == 0
    assert natural_level(9, kernel=True) == 0          # an RMSNorm of six primitives is one kernel
    assert natural_level(9, kernel=False) == 2


@pytest.mark.parametrize(("level", "total", "caps"), [
    (1, 4, [1]),                 # a fusion splits into kernels
    (3, 40, [15, 5, 1]),         # a model-sized parent: layers, else fusions, else kernels
    (2, 9, [5, 1]),              # a layer: fusions, else kernels
    (2, 3, [5, 1]),              # a small layer (a layer by its contractions) still splits into fusions
    (3, 4, [1]),                 # a model of 4 ops: kernels
    (2, 1, [1]),
])
def test_step_caps(level: int, total: int, caps: list[int]) -> None:
    assert step_caps(level, total) == caps


def test_group_cap_is_the_level_below() -> None:
    assert GROUP_CAP == {3: 15, 2: 5, 1: 1}
    assert group_cap(2, 15) == 5 and group_cap(3, 5) == 5 and group_cap(1, 5) == 1 and group_cap(0, 7) == 7


@pytest.mark.parametrize(("parent", "size", "kernel", "module", "contractions", "level"), [
    (3, 10, False, False, None, 2),    # a layer-sized group under a model
    (3, 40, False, True, None, 2),     # capped at the level below the parent
    (3, 3, False, False, None, 1),
    (3, 1, True, False, None, 0),
    (2, 8, False, True, None, 2),      # a layer-sized module under a layer stays a layer (a block's attention)
    (2, 8, False, False, None, 1),     # ... a group of ops does not
    (2, 3, False, True, 2, 2),         # two contractions make a layer, whatever the size (an MLP)
    (2, 3, False, True, 1, 1),
    (3, 3, False, False, 2, 2),        # ... a group of a model's ops too (attention then its projection)
    (1, 3, False, False, None, 1),     # never a non-kernel at level 0
    (1, 1, True, False, None, 0),
])
def test_child_level(parent: int, size: int, kernel: bool, module: bool, contractions: int | None,
                     level: int) -> None:
    assert child_level(parent, size, kernel, module=module, contractions=contractions) == level


@pytest.mark.parametrize(("text", "strict", "level"), [
    ("kernel", True, 0), ("level_2_layer", True, 2), ("3", True, 3), (1, True, 1), ("L1", True, None),
    ("L1", False, 1), ("level 2", False, 2), ("level_2_anything", False, 2), (True, False, None),
    ("7", False, None), ("bogus", False, None),
])
def test_parse_level(text: object, strict: bool, level: int | None) -> None:
    assert parse_level(text, strict=strict) == level
