"""Torch-free facts about ops, by their canonical names (`nonzero`, `nms`: the names component headers and
the tree list under `Ops`)."""

from __future__ import annotations

# Ops whose output size follows the input's values, not only its shape: the indices of a mask, the boxes
# that survive a suppression, the distinct values. A file holding one records the model's count, which its
# own random draw need not reproduce; its self-test checks such outputs' rank only (hdecomp.decompose.codegen).
VALUE_SIZED_OPS = frozenset({
    "nonzero", "argwhere", "nonzero_static", "masked_select", "unique", "unique_consecutive", "unique_dim",
    "_unique", "_unique2", "nms", "batched_nms", "bincount", "repeat_interleave",
})


def sizes_follow_values(ops: list[str] | tuple[str, ...] | frozenset[str] | set[str]) -> bool:
    """Whether one of `ops` sizes its output by the input's values (VALUE_SIZED_OPS)."""
    return any(op.split(".")[-1].lower() in VALUE_SIZED_OPS for op in ops)
