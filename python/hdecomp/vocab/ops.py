"""Torch-free facts about ops, by their canonical names (`nonzero`, `nms`: the names component headers and
the tree list under `Ops`)."""

from __future__ import annotations

import re

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


# Ops that write a fill value where a mask holds (`masked_fill(m, -inf)`), and ops that normalise a row by its
# own sum: a draw that masks a whole row (random inputs need not keep the relation the model's had: a
# threshold drawn apart from the logits it was the maximum of) makes that row NaN, where the model's never was.
MASK_FILL_OPS = frozenset({"masked_fill", "masked_fill_", "where"})
ROW_NORMALISING_OPS = frozenset({"softmax", "_softmax", "log_softmax", "_log_softmax", "softmin"})


def masks_then_normalises(ops: list[str] | tuple[str, ...] | frozenset[str] | set[str]) -> bool:
    """Whether `ops` both fill under a mask and normalise rows (MASK_FILL_OPS, ROW_NORMALISING_OPS)."""
    names = {op.split(".")[-1].lower() for op in ops}
    return bool(names & MASK_FILL_OPS) and bool(names & ROW_NORMALISING_OPS)


# An op with a neutral Python number computes nothing: `x + 0`, `0 + x`, `x * 1`, `1 * x` return their tensor's
# values (the `acc = 0; for ...: acc = acc + y` accumulator's first turn, `arange + past_length` with no
# past). They are data plumbing wherever they run: the recorder (hdecomp.runtime.ops), the static analysis of
# a parent's forward and the planner (hdecomp.decompose.plan) all read this one table, so that a parent the
# planner writes with `positions = arange + 0` is one its own verifier accepts. Commutative ops only: a
# reflected `0 - x` or `1 / x` computes.
NEUTRAL_OPERANDS: dict[str, int] = {"add": 0, "mul": 1}


def is_neutral_operand(op: str, value: object) -> bool:
    """Whether the Python number `value` leaves op `op` (canonical name) an identity (NEUTRAL_OPERANDS)."""
    neutral = NEUTRAL_OPERANDS.get(op)
    return neutral is not None and isinstance(value, (int, float)) and not isinstance(value, bool) \
        and value == neutral


def snake(name: str) -> str:
    """A class's or op's name as a canonical op name (and file name): `BatchNorm2d` -> `batchnorm2d`,
    `TransformerBlock` -> `transformer_block`, `MaxPool2d` -> `maxpool2d`."""
    s = re.sub(r"(?<=[a-z])(?=[A-Z][a-z])", "_", name)
    s = re.sub(r"[^0-9a-zA-Z]+", "_", s).strip("_").lower()
    s = s or "op"
    return ("_" + s) if s[0].isdigit() else s
