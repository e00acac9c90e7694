"""Op groups that are one logical kernel although written as several primitives (DESIGN.md: "RMSNorm is
one kernel even though it is pow/mean/rsqrt/mul inside").

`semantic_kernel(op_names)` names the kernel a short run of ops computes, from the op names alone, or
returns None. It is deliberately conservative: every op must belong to the pattern's vocabulary, the
pattern's defining ops must all be there, and the run must be short; anything else stays a run of
separate kernels. The planner (plan.py) makes every maximal such run inside a forward one kernel child
(`rms_norm_..._fp32.py`, `softmax_fp32.py`, `gelu_fp32.py`); the driver uses it for a model whose whole
forward is such a run (KernelBench's `36_RMSNorm_`): the model is then one kernel, a level-0 root without
a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdecomp.vocab.ops import PRIMITIVE_ALIASES, primitive_op_name


@dataclass(frozen=True)
class Pattern:
    name: str                      # the kernel's op name (file names start with it)
    required: tuple[frozenset[str], ...]   # one op of each set must occur
    allowed: frozenset[str]        # every op must be one of these
    max_ops: int
    min_ops: int = 2


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
    # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) or 0.5 * x * (1 + erf(x / sqrt(2))): the
    # constants are Python floats in the graph, so only the tensor ops count; a tanh or erf with a mul and
    # an add is not enough on its own (`tanh(x) * 2 + 1` is no GELU), hence min_ops.
    Pattern("gelu", (frozenset({"tanh", "erf"}), frozenset({"mul"}), frozenset({"add"})),
            frozenset({"mul", "add", "pow", "tanh", "erf", "div", "sqrt"}), 9, min_ops=5),
)


def semantic_kernel(op_names: list[str]) -> str | None:
    """The one kernel the ops compute together (`rms_norm`, `layer_norm`, `softmax`, `gelu`), or None.
    Op names may be fx (torch/method) or aten spellings (hdecomp.vocab.ops.primitive_op_name)."""
    if len(op_names) < 2:
        return None
    ops = {primitive_op_name(n) for n in op_names}
    for p in PATTERNS:
        if p.min_ops <= len(op_names) <= p.max_ops and ops <= p.allowed and all(ops & need for need in p.required):
            return p.name
    return None


VOCABULARY: frozenset[str] = frozenset().union(*(p.allowed for p in PATTERNS)) | frozenset(
    a for a, c in PRIMITIVE_ALIASES.items() if any(c in p.allowed for p in PATTERNS))

__all__ = ["PATTERNS", "VOCABULARY", "Pattern", "semantic_kernel"]
