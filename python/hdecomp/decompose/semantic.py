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


# Other spellings of the same primitives: operator/torch aliases, and aten names as torch.export or an op
# recording writes them (`aten.div.Tensor`, `true_divide`, `_to_copy`, `amax`), so a run matches whichever
# way its graph was captured (fx: torch/method names; export/recording: aten-derived names).
ALIASES: dict[str, str] = {
    "truediv": "div", "true_divide": "div", "divide": "div", "multiply": "mul", "subtract": "sub",
    "rsub": "sub", "negative": "neg", "power": "pow", "float_power": "pow", "amax": "max", "_to_copy": "to",
    "special_erf": "erf", "mean_dim": "mean", "sum_dim_intlist": "sum", "var_correction": "var",
}


def canonical_op(name: str) -> str:
    """`aten.div.Tensor`, `div_`, `__truediv__`, `true_divide` -> `div`: one name per primitive."""
    name = name.strip()
    if name.startswith(("aten.", "torch.ops.aten.")):
        name = name.split("aten.", 1)[1].split(".", 1)[0]   # the packet name, without the overload
    name = name.strip("_") if name.startswith("__") else name
    if name.endswith("_") and not name.startswith("_"):     # in-place variants compute the same
        name = name[:-1]
    if name.startswith("r") and name[1:] in ("add", "mul", "sub", "truediv", "div", "pow"):
        name = name[1:]                                      # reflected dunders (__rmul__)
    return ALIASES.get(name, name)


def semantic_kernel(op_names: list[str]) -> str | None:
    """The one kernel the ops compute together (`rms_norm`, `layer_norm`, `softmax`, `gelu`), or None.
    Op names may be fx (torch/method) or aten spellings (`canonical_op`)."""
    if len(op_names) < 2:
        return None
    ops = {canonical_op(n) for n in op_names}
    for p in PATTERNS:
        if p.min_ops <= len(op_names) <= p.max_ops and ops <= p.allowed and all(ops & need for need in p.required):
            return p.name
    return None


VOCABULARY: frozenset[str] = frozenset().union(*(p.allowed for p in PATTERNS)) | frozenset(
    a for a, c in ALIASES.items() if any(c in p.allowed for p in PATTERNS))

__all__ = ["ALIASES", "PATTERNS", "VOCABULARY", "Pattern", "canonical_op", "semantic_kernel"]
