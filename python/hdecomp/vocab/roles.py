"""Role names of fusions and layers: what a group of ops *is* (`conv_norm_act`, `attention_core`, `rope`,
`gated_mlp`), not which ops it holds. Torch-free: the decomposer names its groups with `role_of`, and the
quality lint (`hdecomp validate --quality`, rule Q2) accepts the names in `ROLES`.

`role_of(ops)` takes the op names of a group in graph order: torch/method names (`matmul`, `softmax`,
`add`), snake-cased module classes (`conv2d`, `batch_norm2d`, `llama_rms_norm`, `gelu_activation`) or aten
names (`aten.mm.default`). Ops fall into categories (contraction kinds, norm, activation, softmax, pool,
embedding, reduction, pointwise, constant-maker), and the categories decide the role, most specific first.
Every group gets a role: the last resort says what kind of kernel it is (`pointwise`, `reduction`,
`linear_epilogue`), as a kernel compiler would, and never lists ops.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hdecomp.vocab.ops import role_op_name

# ---- op categories ----------------------------------------------------------------------------------

CONV = "conv"
LINEAR = "linear"
MATMUL = "matmul"
SDPA = "sdpa"
NORM = "norm"
ACT = "act"
GATE = "gate"          # sigmoid-like: an activation that also gates (squeeze-excitation, GLU)
SOFTMAX = "softmax"
POOL = "pool"
EMBED = "embedding"
REDUCE = "reduce"
ADD = "add"
MUL = "mul"
TRIG = "trig"          # cos / sin: rotary embeddings
ROTATE = "rotate"      # neg / cat of halves: rotate_half
MASK = "mask"          # masked_fill / where / triu / tril
TOPK = "topk"
MAKE = "make"          # arange / ones / zeros / full: a tensor from sizes
OTHER = "other"        # any other pointwise op
NEUTRAL = "neutral"    # dropout, identity, casts: no compute of their own
RECURRENT = "recurrent"   # an RNN, GRU or LSTM layer or cell (a contraction over time steps)

CONTRACTION_KINDS = frozenset({CONV, LINEAR, MATMUL, SDPA})

_CONV = re.compile(r"^(conv(_transpose)?\d?d?|convolution|conv_tbc|.*conv\d?d?)$")
_NORM = re.compile(r"norm")
_GATE = re.compile(r"^(sigmoid|hardsigmoid|hard_sigmoid|log_sigmoid|logsigmoid|glu)")
_ACT = re.compile(r"(relu|gelu|silu|swish|mish|tanh|elu|selu|celu|softplus|softsign|hardswish|hard_swish|"
                  r"hardtanh|quick_gelu|activation|^act$|^act_|_act$)")
_POOL = re.compile(r"pool")
_SOFTMAX = re.compile(r"softmax|safe_softmax")
_EMBED = re.compile(r"embedding")
_RECURRENT = re.compile(r"^(rnn|gru|lstm)(_cell|_tanh|_relu)?(_cell)?$")
_SIMPLE = {
    "linear": LINEAR, "addmm": LINEAR, "bilinear": LINEAR, "lazy_linear": LINEAR,
    "matmul": MATMUL, "mm": MATMUL, "bmm": MATMUL, "baddbmm": MATMUL, "einsum": MATMUL, "addbmm": MATMUL,
    "mv": MATMUL, "addmv": MATMUL, "tensordot": MATMUL, "dot": MATMUL, "inner": MATMUL, "outer": MATMUL,
    "grouped_mm": MATMUL,
    "scaled_dot_product_attention": SDPA, "multihead_attention": SDPA, "flash_attention": SDPA,
    "sum": REDUCE, "mean": REDUCE, "amax": REDUCE, "amin": REDUCE, "max": REDUCE, "min": REDUCE, "var": REDUCE,
    "std": REDUCE, "logsumexp": REDUCE, "prod": REDUCE, "argmax": REDUCE, "argmin": REDUCE, "cumsum": REDUCE,
    "cumprod": REDUCE, "all": REDUCE, "any": REDUCE, "var_mean": REDUCE, "std_mean": REDUCE,
    "add": ADD, "iadd": ADD, "sub": ADD, "rsub": ADD, "isub": ADD,
    "mul": MUL, "imul": MUL, "div": MUL, "truediv": MUL, "true_divide": MUL, "itruediv": MUL,
    "cos": TRIG, "sin": TRIG,
    "neg": ROTATE, "cat": ROTATE, "concat": ROTATE, "stack": ROTATE, "roll": ROTATE,
    "masked_fill": MASK, "where": MASK, "triu": MASK, "tril": MASK, "masked_select": MASK,
    "topk": TOPK, "sort": TOPK, "argsort": TOPK,
    "arange": MAKE, "ones": MAKE, "zeros": MAKE, "full": MAKE, "empty": MAKE, "ones_like": MAKE,
    "zeros_like": MAKE, "full_like": MAKE, "empty_like": MAKE, "linspace": MAKE, "eye": MAKE, "tensor": MAKE,
    "dropout": NEUTRAL, "identity": NEUTRAL, "to": NEUTRAL, "float": NEUTRAL, "half": NEUTRAL,
    "type_as": NEUTRAL, "contiguous": NEUTRAL, "clone": NEUTRAL, "detach": NEUTRAL, "alias": NEUTRAL,
    "copy": NEUTRAL, "_to_copy": NEUTRAL, "feature_alpha_dropout": NEUTRAL, "alpha_dropout": NEUTRAL,
    "dropout1d": NEUTRAL, "dropout2d": NEUTRAL, "dropout3d": NEUTRAL, "drop_path": NEUTRAL,
    "stochastic_depth": NEUTRAL,
}


def category(op: str) -> str:
    """The category of one op name (see the module docstring)."""
    name = role_op_name(op)
    if name in _SIMPLE:
        return _SIMPLE[name]
    if "scaled_dot_product" in name or "flash_attention" in name or "efficient_attention" in name:
        return SDPA   # aten's `_scaled_dot_product_flash_attention_for_cpu` and friends
    if _SOFTMAX.search(name):
        return SOFTMAX
    if _RECURRENT.match(name):
        return RECURRENT
    if _NORM.search(name):
        return NORM
    if _CONV.match(name):
        return CONV
    if _EMBED.search(name):
        return EMBED
    if _POOL.search(name):
        return POOL
    if _GATE.search(name):
        return GATE
    if _ACT.search(name):
        return ACT
    if "dropout" in name or name in ("identity", "drop_path"):
        return NEUTRAL
    if "mask" in name:   # a function that builds a mask (transformers' `create_causal_mask`)
        return MASK
    if "linear" in name:
        return LINEAR
    return OTHER


# categories an op sequence keeps for `effective_contractions`
STRUCTURE_KINDS = CONTRACTION_KINDS | {SOFTMAX, POOL, GATE}


# ---- roles ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Role:
    name: str
    what: str


ROLE_LIST: tuple[Role, ...] = (
    Role("attention", "scaled-dot-product attention with its projections"),
    Role("attention_core", "QK^T, scale, mask, softmax, times V: the flash-attention candidate"),
    Role("attention_scores", "QK^T with its scale, mask and softmax"),
    Role("attention_context", "softmax probabilities times V"),
    Role("attention_probs", "the scale, mask and softmax of attention scores"),
    Role("rope", "rotary position embedding applied to q or k"),
    Role("rope_tables", "the cos/sin tables of rotary embeddings, or their inverse frequencies"),
    Role("sinusoidal_embedding", "sin and cos of positions or timesteps times frequencies, joined"),
    Role("qkv_proj", "the q/k/v projections of one input"),
    Role("projections", "several projections of their inputs"),
    Role("gated_mlp", "gate and up projections, activation times up, down projection (SwiGLU)"),
    Role("gated_act", "activation of the gate times the up projection"),
    Role("gate_up_proj", "a gated MLP's gate/up pair with its activation and product"),
    Role("mlp", "up projection, activation, down projection"),
    Role("linear_act", "a projection and its activation"),
    Role("linear_residual", "a projection added to the residual stream"),
    Role("linear_residual_norm", "a projection, the residual add and the norm after it"),
    Role("linear_norm", "a projection and the norm after it"),
    Role("norm_proj", "a norm and the projection after it"),
    Role("linear_epilogue", "a projection with its elementwise epilogue"),
    Role("matmul_epilogue", "a matmul with its elementwise epilogue"),
    Role("recurrent", "RNN, GRU or LSTM layers with what feeds them their sequences (packing, sorting)"),
    Role("moe_router", "router logits, softmax and top-k of a mixture of experts"),
    Role("moe_experts", "the experts of a mixture of experts"),
    Role("conv_norm_act", "convolution, norm and activation"),
    Role("conv_norm_act_pool", "convolution, norm, activation and the pooling after them (a stem)"),
    Role("conv_norm_residual", "convolution and norm added to the residual"),
    Role("conv_norm", "convolution and norm"),
    Role("conv_act", "convolution and activation"),
    Role("conv_residual", "convolution added to the residual"),
    Role("conv_epilogue", "a convolution with its elementwise epilogue"),
    Role("conv_pair", "two convolutions"),
    Role("conv_block", "convolutions with their norms and activations"),
    Role("residual_block", "convolutions with their norms and activations, and the residual add"),
    Role("squeeze_excitation", "pool, reduce and expand projections, a sigmoid gate times the input"),
    Role("patch_embed", "a patch projection and the embedding added to it"),
    Role("classifier_head", "pooling and the classifier projection"),
    Role("residual_norm", "the residual add and the norm after it"),
    Role("norm_act", "a norm and its activation"),
    Role("act_pool", "an activation and the pooling after it"),
    Role("embeddings", "embedding lookups and their sum"),
    Role("pooling", "pooling with its elementwise ops"),
    Role("causal_mask", "a mask built from sizes"),
    Role("attention_mask", "an attention or padding mask prepared from integer or bool tensors"),
    Role("position_ids", "positions counted from a mask or from sizes (integer work)"),
    Role("moe_dispatch", "the expert counts of a mixture of experts (integer routing)"),
    Role("mask", "a boolean mask compared out of integer or bool values"),
    Role("indices", "the indices a condition or an order selects (nonzero, where(cond), sort, unique)"),
    Role("index_math", "arithmetic on integer values (ids, offsets, counts)"),
    Role("constants", "tensors computed from sizes and literals"),
    Role("gating", "a sigmoid-like gate times a value"),
    Role("transformer_block", "attention and MLP with their norms"),
    Role("block", "a layer of several fusions"),
    Role("reduction", "a reduction with its elementwise prologue and epilogue"),
    Role("pointwise", "elementwise ops"),
)
ROLES: frozenset[str] = frozenset(r.name for r in ROLE_LIST)


# roles that only say what kind of kernel a group is (the last resort of role_of): where a role rule matches
# the same ops, such a name is a quality finding (hdecomp validate --quality, rule Q8)
FALLBACK_ROLES: frozenset[str] = frozenset({"pointwise", "reduction", "matmul_epilogue", "linear_epilogue",
                                            "conv_epilogue"})
# fusions the decomposer recognises by their dataflow (decompose/patterns.py: rope_runs, pair_rope_runs,
# rope_table_runs) and keeps whole, whatever their size: one kernel a library ships (Liger's RoPE, a
# flash-attention core); the quality lint (Q6) sizes them up to PATTERN_MAX_OPS
PATTERN_ROLES: frozenset[str] = frozenset({"rope", "rope_tables", "attention_core"})
PATTERN_MAX_OPS = 8
# ops of the MATMUL category that take no weights and reduce nothing: an outer product (`torch.outer(t, f)`,
# the positions times the inverse frequencies of rotary tables) is no matmul a name may be made of
_OUTER = frozenset({"outer", "ger"})
_FREQUENCY = frozenset({"pow", "exp", "reciprocal", "rsqrt", "log"})
_INDICES = frozenset({"nonzero", "argwhere", "where", "sort", "argsort", "unique", "unique_consecutive", "topk",
                      "one_hot", "searchsorted", "bucketize"})
_COMPARE = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "and",
                      "or", "xor", "invert", "bitwise_and", "bitwise_or", "bitwise_not", "all", "any", "sum"})


# what may stand beside a softmax in the attention probabilities: a scale, an additive or filled mask, a
# soft-capping tanh
_PROBS = frozenset({SOFTMAX, MUL, ADD, MASK, ACT})


def role_of(ops: list[str], *, integer: bool = False, float_out: bool = False) -> str:
    """The role of a group of ops (graph order); see the module docstring. `integer`: the group reads integer
    or bool tensors only (through casts and views), and no weights: mask, position and routing work
    (`attention_mask`, `position_ids`, `causal_mask`, `moe_dispatch`; a float mask made from an integer one,
    `(1 - mask.float()) * -1e4`, is an `attention_mask`). `float_out`: such a group makes a float tensor."""
    names = [role_op_name(o) for o in ops]
    cats = [c for c in (category(o) for o in ops) if c != NEUTRAL]
    n = Counter(cats)
    if integer and not any(c in CONTRACTION_KINDS for c in cats):
        return _integer_role(names, n, float_out)
    outer = sum(1 for o in names if o in _OUTER)
    if outer and not n[TRIG] and any(o in _FREQUENCY for o in names):
        return "rope_tables"     # inverse frequencies `1 / base ** (arange / dim)`, times the positions
    contractions = [c for c in cats if c in CONTRACTION_KINDS]
    k = len(contractions)
    matmuls = n[MATMUL]
    if n[TRIG] and k == matmuls <= 1 and not n[SOFTMAX]:
        # cos/sin of positions times frequencies (an outer product or one matmul of two vectors): the tables
        # of a rotary embedding, or a sinusoidal/timestep embedding where sin and cos are joined after
        trig = cats.index(TRIG)
        if n[ROTATE] and cats.index(ROTATE) > trig and not n[ADD]:
            return "sinusoidal_embedding"
        if not (n[ADD] and n[MUL] and k == 0):
            return "rope_tables"
    if n[SDPA]:
        return "attention" if n[LINEAR] else "attention_core"
    if matmuls >= 2 and n[SOFTMAX]:
        return "attention" if n[LINEAR] else "attention_core"
    if n[RECURRENT]:
        return "recurrent"
    if n[POOL] and k >= 2 and n[GATE] and n[MUL]:
        return "squeeze_excitation"
    if n[CONV]:
        return _conv_role(cats, n, k)
    if n[LINEAR] or matmuls:
        return _linear_role(cats, n, k)
    # no contraction
    if (n[TRIG] or n[ROTATE]) and n[MUL] and n[ADD]:
        return "rope"
    if n[SOFTMAX] and set(cats) <= _PROBS:
        # the scale, mask (or soft-capping) and softmax of scores: a box decoder's exp and clamp beside the
        # class scores' softmax (torchvision's postprocess_detections) hold no attention probabilities
        return "attention_probs"
    if n[EMBED]:
        return "embeddings"
    if n[NORM] and n[ADD] and cats.index(NORM) > cats.index(ADD):
        return "residual_norm"
    if n[NORM] and (n[ACT] or n[GATE]):
        return "norm_act"
    if n[POOL] and (n[ACT] or n[GATE]) and not n[NORM]:
        return "act_pool"
    if n[POOL]:
        return "pooling"
    if n[GATE] and n[MUL]:
        return "gating"
    if n[ACT] and n[MUL] and len(cats) <= 3:
        return "gated_act"
    if set(cats) <= {MAKE, MASK, ADD, MUL, OTHER} and n[MAKE]:
        return "causal_mask" if n[MASK] else "constants"
    if n[MASK] and set(cats) <= {MASK, OTHER} and any("mask" in o for o in names):
        # calls of functions that build masks (a source region calling transformers' mask helpers)
        return "causal_mask" if any("causal" in o for o in names) and not _other_masks(names) else "attention_mask"
    if n[REDUCE] or n[NORM] or n[TOPK]:
        return "reduction"
    return "pointwise"


def _other_masks(names: list[str]) -> bool:
    """A call that builds a mask other than a causal one beside it (transformers' `create_bidirectional_mask`,
    a padding mask): the group is no causal mask alone."""
    return any("bidirectional" in o or "padding" in o for o in names)


def _integer_role(names: list[str], n: Counter[str], float_out: bool) -> str:
    """The role of integer or bool work (no contraction): a mask built from sizes (`triu`), a mask-building
    function's, a float mask made from an integer one (`(1 - mask.float()) * -1e4`), the expert counts of a
    mixture of experts (and their offsets), positions counted from a mask, the indices a condition or an order
    selects, a boolean mask compared out of values, else arithmetic on integers."""
    if n[MASK] and any(o in ("triu", "tril") or ("mask" in o and "causal" in o) for o in names) and \
            not _other_masks(names):
        return "causal_mask"
    if any("mask" in o and o not in _SIMPLE for o in names) or float_out:
        return "attention_mask"
    if any(o in ("histc", "bincount") for o in names):
        return "moe_dispatch"   # (the tokens per expert, cumsummed into offsets or not)
    if any(o in ("cumsum", "cumprod") for o in names):
        return "position_ids"
    if any(o in _INDICES for o in names):
        return "indices"
    if n[MAKE] and not any(o in _COMPARE for o in names):
        return "position_ids" if "arange" in names else "constants"
    if any(o in _COMPARE for o in names):
        return "mask"
    return "index_math"


def _conv_role(cats: list[str], n: Counter[str], k: int) -> str:
    if n[CONV] >= 2 or k >= 2:
        if n[ADD]:
            return "residual_block"
        return "conv_block" if (n[NORM] or n[ACT] or n[GATE]) else "conv_pair"
    if n[LINEAR] or n[MATMUL]:
        return "block"
    if n[NORM] and n[ADD]:
        return "conv_norm_residual"
    if n[NORM] and (n[ACT] or n[GATE]):
        return "conv_norm_act_pool" if n[POOL] and cats.index(POOL) > cats.index(CONV) else "conv_norm_act"
    if n[NORM]:
        return "conv_norm"
    if n[ACT] or n[GATE]:
        return "conv_act"
    if n[ADD]:
        return "conv_residual"
    if n[EMBED] or (n[ADD] and n[MAKE]):
        return "patch_embed"
    return "conv_epilogue"


def _linear_role(cats: list[str], n: Counter[str], k: int) -> str:
    linears = n[LINEAR]
    acts = n[ACT] + n[GATE]
    if (linears and n[TOPK]) or (linears == 1 and n[SOFTMAX] and not n[MATMUL]):
        return "moe_router"
    if n[MATMUL] == 1 and n[SOFTMAX]:
        return "attention_scores" if cats.index(SOFTMAX) > cats.index(MATMUL) else "attention_context"
    if k >= 3 and acts and n[MUL]:
        return "gated_mlp"
    if k == 2 and acts and n[MUL]:
        return "gate_up_proj"
    if k >= 2 and acts:
        return "mlp"
    if k >= 2 and set(cats) <= {LINEAR, MATMUL, OTHER, ADD}:
        return "qkv_proj" if k == 3 and not n[ADD] else "projections"
    if k >= 2:
        return "block"
    first = cats.index(LINEAR) if linears else cats.index(MATMUL)
    if n[NORM] and cats.index(NORM) < first:
        return "norm_proj"
    if n[POOL] and cats.index(POOL) < first:
        return "classifier_head"
    if n[NORM] and linears:   # (a matmul of activations is no projection: named as one would be after a linear)
        return "linear_residual_norm" if n[ADD] else "linear_norm"
    if acts and linears:
        return "linear_act"
    if n[ADD] and linears and n[EMBED] == 0 and cats[-1] == ADD:
        return "linear_residual"
    if n[EMBED]:
        return "patch_embed" if n[ADD] else "embeddings"
    return "linear_epilogue" if linears else "matmul_epilogue"


def named_after_absent_op(role: str, ops: list[str]) -> str | None:
    """The op a role's name promises and `ops` lacks (`matmul_epilogue` of an outer product, `conv_act` without
    a convolution), else None: a fusion is never named after an op it does not contain."""
    names = [role_op_name(o) for o in ops]
    cats = [category(o) for o in ops]
    if role == "matmul_epilogue" and not any(c == MATMUL and o not in _OUTER for c, o in zip(cats, names, strict=True)):
        return "matmul"
    if role.startswith("linear_") and LINEAR not in cats:
        return "linear"
    if role.startswith("conv_") and CONV not in cats:
        return "convolution"
    return None


def effective_contractions(ops: list[str]) -> int:
    """How many contractions a run of ops holds, in execution order, counting the attention core (a
    contraction, a softmax, then a second contraction) as one: what rule Q1 counts where the operands are
    not known (a recorded op sequence). Contractions of one input (a gate/up pair) need the dataflow
    (plan.py merges those). Squeeze-excitation (a pool, two contractions, a sigmoid-like gate) is one."""
    kinds = [category(o) for o in ops]
    where = [i for i, k in enumerate(kinds) if k in CONTRACTION_KINDS]
    if len(where) == 2 and any(k == POOL or role_op_name(o) == "mean" for k, o in zip(kinds[:where[0]], ops, strict=False)) \
            and GATE in kinds[where[1] + 1:]:
        return 1
    count, open_core, softmax = 0, False, False
    for op in ops:
        kind = category(op)
        if kind == SOFTMAX:
            softmax = open_core
        elif kind in CONTRACTION_KINDS:
            if open_core and softmax and kind == MATMUL:
                open_core = softmax = False
                continue
            count += 1
            open_core, softmax = kind == MATMUL, False
    return count


__all__ = ["CONTRACTION_KINDS", "FALLBACK_ROLES", "PATTERN_MAX_OPS", "PATTERN_ROLES", "ROLES", "ROLE_LIST", "Role", "category",
           "effective_contractions", "named_after_absent_op", "role_of"]
