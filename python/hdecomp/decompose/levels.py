"""The decomposer's level policy, in one place: the level a component of a given size belongs at, the
group sizes a step tries when it splits a parent, and the level each child gets under its parent.

Pure integers (the sizes are logical compute ops: plan.logical_ops); the size bands themselves are
vocab.levels'. test_levels_policy.py pins every rule."""

from __future__ import annotations

from hdecomp.vocab.levels import FUSION_OPS, KERNEL_MAX_OPS, LAYER_OPS

FUSION_MAX = FUSION_OPS[1]
LAYER_MAX = LAYER_OPS[1]
# the most ops one child group may hold under a parent of each level: a model's children are at most
# layers, a layer's at most fusions, a fusion's kernels
GROUP_CAP = {3: LAYER_MAX, 2: FUSION_MAX, 1: KERNEL_MAX_OPS}


def level_for_size(ops: int) -> int:
    """0 kernel, 1 fusion, 2 layer, 3 model, by logical compute ops alone."""
    if ops <= KERNEL_MAX_OPS:
        return 0
    if ops <= FUSION_MAX:
        return 1
    if ops <= LAYER_MAX:
        return 2
    return 3


def natural_level(ops: int, kernel: bool) -> int:
    """The level a component of `ops` logical compute ops belongs at, before its parent caps it: a kernel
    is level 0, anything else at least a fusion."""
    return 0 if kernel else max(1, level_for_size(ops))


def group_cap(parent_level: int, cap: int) -> int:
    """`cap` lowered to what the level below the parent allows."""
    return min(cap, GROUP_CAP.get(parent_level, cap))


def step_caps(parent_level: int, total_ops: int) -> list[int]:
    """The group caps a step tries in turn (a cap that gives one child equal to the parent is lowered):
    a fusion splits into kernels; a model-sized parent tries layers, then fusions, then kernels; a layer
    (even one of 5 ops or fewer, made a layer by its contractions) tries fusions, then kernels."""
    if parent_level == 1:
        return [KERNEL_MAX_OPS]
    if total_ops > LAYER_MAX:
        return [LAYER_MAX, FUSION_MAX, KERNEL_MAX_OPS]
    if total_ops > FUSION_MAX or (total_ops > KERNEL_MAX_OPS and parent_level == 2):
        return [FUSION_MAX, KERNEL_MAX_OPS]
    return [KERNEL_MAX_OPS]


def child_level(parent_level: int, size: int, kernel: bool, *, module: bool = False,
                contractions: int | None = None) -> int:
    """The level of a child of `size` logical ops under a parent at `parent_level`.

    Below the parent's level, at the child's natural level; a fusion's children are kernels. A module child
    of a layer that is layer-sized itself stays a layer (a block's attention is a layer below the block),
    and a child holding several contractions (a module, or a group of a model's ops) is a layer whatever
    its size (an MLP, an attention with its projections). Anything that is not a kernel is at least a
    fusion."""
    level = min(parent_level - 1, natural_level(size, kernel)) if parent_level > 1 else 0
    if parent_level == 2 and module and natural_level(size, kernel) >= 2:
        level = 2
    if parent_level >= 2 and not kernel and contractions is not None and contractions >= 2:
        level = 2
    if not kernel and level == 0:
        level = 1
    return level
