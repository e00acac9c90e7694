"""Op groups that are one logical kernel although written as several primitives (DESIGN.md: "RMSNorm is
one kernel even though it is pow/mean/rsqrt/mul inside").

`semantic_kernel(op_names)` names the kernel a short run of ops computes, from the op names alone, or
returns None. It is deliberately conservative: every op must belong to the pattern's vocabulary, the
pattern's defining ops must all be there, and the run must be short; anything else stays a run of
separate kernels. The driver uses it for a model whose whole forward is such a run (KernelBench's
`36_RMSNorm_`): the model is then one kernel, a level-0 root without a step.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    name: str                      # the kernel's op name (file names start with it)
    required: tuple[frozenset[str], ...]   # one op of each set must occur
    allowed: frozenset[str]        # every op must be one of these
    max_ops: int


_NORM_CORE = frozenset({"pow", "square", "mul", "mean", "add", "sqrt", "rsqrt", "div", "reciprocal", "float",
                        "type_as", "to"})
PATTERNS: tuple[Pattern, ...] = (
    # x / sqrt(mean(x^2) + eps) [* weight]: no centring (that would be LayerNorm)
    Pattern("rms_norm", (frozenset({"mean"}), frozenset({"sqrt", "rsqrt"}), frozenset({"div", "mul"}),
                         frozenset({"pow", "square", "mul"})), _NORM_CORE, 8),
    # (x - mean) / sqrt(var + eps) [* weight + bias]
    Pattern("layer_norm", (frozenset({"mean"}), frozenset({"sub"}), frozenset({"sqrt", "rsqrt"}),
                           frozenset({"div", "mul"})), _NORM_CORE | {"sub", "var"}, 12),
    # exp(x - max) / sum(exp(x - max))
    Pattern("softmax", (frozenset({"exp"}), frozenset({"sum"}), frozenset({"div"})),
            frozenset({"exp", "sum", "div", "sub", "max", "amax"}), 6),
)


def semantic_kernel(op_names: list[str]) -> str | None:
    """The one kernel the ops compute together (`rms_norm`, `layer_norm`, `softmax`), or None."""
    if len(op_names) < 2:
        return None
    ops = set(op_names)
    for p in PATTERNS:
        if len(op_names) <= p.max_ops and ops <= p.allowed and all(ops & need for need in p.required):
            return p.name
    return None


__all__ = ["PATTERNS", "Pattern", "semantic_kernel"]
