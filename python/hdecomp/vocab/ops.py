"""The op vocabulary, torch-free: how an op's name is written canonically, and other facts about ops by name.
The recorder, the planner and the static anti-cheat analysis all read it here, so that the planner never
writes a parent its own verifier reads differently (DESIGN.md: one vocabulary).

Op names come in several spellings: aten (`aten.add_.Tensor`, `aten::add_.Tensor`, `torch.ops.aten.mm.default`),
dotted Python paths (`torch.nn.functional.gelu`, `torch.Tensor.add_`), operator dunders (`__iadd__`,
`__rmul__`), in-place variants (`relu_`). The steps that fold them are shared (`_aten_packet`,
`_unwrap_dunder`, `_drop_inplace`, `_python_path_or_overload`); four readings use them, each for the callers
that rely on its exact output:
  * `canonical_op_name`: the name the op recorder gives an op (component headers, the tree's `Ops`, the
    runtime anti-cheat's op counts): aten and torch-function spellings of one op agree (`DUNDER_ALIASES`,
    `OP_RENAMES`);
  * `role_op_name`: the lower-cased name the roles of fusions and layers categorise (hdecomp.vocab.roles);
  * `primitive_op_name`: one name per primitive, for the semantic kernels (`rms_norm` written as pow, mean,
    rsqrt, mul): reflected dunders and `PRIMITIVE_ALIASES` folded (hdecomp.decompose.semantic);
  * `source_op_name`: a call's name as the static anti-cheat analysis reads it in source, the underscores
    at both ends stripped (`_to_copy` -> `to_copy`).
They differ on purpose where their callers' tables were written against them: a private in-place name
(`_add_relu_`) keeps its underscore for `role_op_name` and `primitive_op_name`, not for `canonical_op_name`;
only `role_op_name` takes the last part of a dotted Python path and only `canonical_op_name` takes an aten
overload written with `::`.
"""

from __future__ import annotations

# Operator dunders (the name between the underscores) as the aten op they run: `__iadd__`, `__radd__` -> `add`.
DUNDER_ALIASES: dict[str, str] = {
    "radd": "add", "iadd": "add", "rsub": "sub", "isub": "sub", "rmul": "mul", "imul": "mul", "truediv": "div",
    "rtruediv": "div", "itruediv": "div", "floordiv": "floor_divide", "rfloordiv": "floor_divide",
    "ifloordiv": "floor_divide", "rmatmul": "matmul", "imatmul": "matmul", "rpow": "pow", "ipow": "pow",
    "mod": "remainder", "rmod": "remainder", "imod": "remainder", "neg": "neg", "invert": "bitwise_not",
    "and": "bitwise_and", "rand": "bitwise_and", "iand": "bitwise_and", "or": "bitwise_or", "ror": "bitwise_or",
    "ior": "bitwise_or", "xor": "bitwise_xor", "rxor": "bitwise_xor", "ixor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift", "ilshift": "bitwise_left_shift",
    "irshift": "bitwise_right_shift", "rlshift": "bitwise_left_shift", "rrshift": "bitwise_right_shift",
    "abs": "abs", "pos": "positive", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne",
}
# Ops whose aten name changed or that are spelled differently at the two levels (torch function, aten).
OP_RENAMES: dict[str, str] = {
    "true_divide": "div", "subtract": "sub", "multiply": "mul", "divide": "div", "greater": "gt", "less": "lt",
    "greater_equal": "ge", "less_equal": "le", "not_equal": "ne", "absolute": "abs", "arccos": "acos",
    "arcsin": "asin", "arctan": "atan", "clip": "clamp", "negative": "neg", "concatenate": "cat", "concat": "cat",
    "rsub": "sub",
}
# Other spellings of the same primitives: operator/torch aliases, and aten names as torch.export or an op
# recording writes them (`aten.div.Tensor`, `true_divide`, `_to_copy`, `amax`), so a semantic kernel's run
# matches whichever way its graph was captured (fx: torch/method names; export/recording: aten-derived names).
PRIMITIVE_ALIASES: dict[str, str] = {
    "truediv": "div", "true_divide": "div", "divide": "div", "multiply": "mul", "subtract": "sub",
    "rsub": "sub", "negative": "neg", "power": "pow", "float_power": "pow", "amax": "max", "_to_copy": "to",
    "special_erf": "erf", "mean_dim": "mean", "sum_dim_intlist": "sum", "var_correction": "var",
}
# The ops whose reflected spelling (`rmul`, from `__rmul__`: `2 * x`) `primitive_op_name` reads as the op.
REFLECTED_PRIMITIVES = frozenset({"add", "mul", "sub", "truediv", "div", "pow"})
_ATEN_PREFIXES = ("aten.", "torch.ops.aten.")


def _aten_packet(name: str) -> str:
    """`aten.add_.Tensor`, `torch.ops.aten.mm.default` -> `add_`, `mm`: the packet after the first `aten.`,
    without its overload."""
    return name.split("aten.", 1)[1].split(".", 1)[0]


def _python_path_or_overload(name: str) -> str:
    """The op in a qualified name: the namespace goes (`aten::add_.Tensor` -> `add_.Tensor`); a Python dotted
    path (`torch.nn.functional.relu`, `Tensor.add_`, three parts or more) ends in the function's name, or in
    the property's before `__get__`/`__set__` (`torch.Tensor.shape.__get__` -> `shape`); an aten overload
    (`add.Tensor`, `add.out`) is its packet."""
    name = name.split("::")[-1]
    if "." in name:
        parts = name.split(".")
        if parts[0] in ("torch", "Tensor") or len(parts) > 2:
            name = parts[-2] if parts[-1] in ("__get__", "__set__") else parts[-1]
        else:
            name = parts[0]
    return name


def _unwrap_dunder(name: str) -> str:
    """`__truediv__` -> `truediv`: a name that starts with `__` loses the underscores at both its ends."""
    return name.strip("_") if name.startswith("__") else name


def _drop_inplace(name: str) -> str:
    """`relu_` -> `relu`: an in-place variant computes what its op computes. A private name (`_foo_`) is kept."""
    return name[:-1] if name.endswith("_") and not name.startswith("_") else name


def canonical_op_name(name: str) -> str:
    """The recorder's name of an op, one for all its spellings and variants: `aten::add_.Tensor`, `add.out`,
    `torch.Tensor.add_`, `Tensor.__iadd__` -> `add`; `torch.Tensor.__rmatmul__` -> `matmul`; `true_divide`
    -> `div`; `torch.Tensor.shape.__get__` -> `shape`; `_to_copy` stays. A dunder takes its operator's aten
    name (`DUNDER_ALIASES`); any other name ending in one `_` is an in-place variant, private ones too."""
    name = _python_path_or_overload(name)
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        inner = name[2:-2]
        name = DUNDER_ALIASES.get(inner, inner)
    elif name.endswith("_") and not name.endswith("__") and len(name) > 1:
        name = name[:-1]
    return OP_RENAMES.get(name, name)


def role_op_name(op: str) -> str:
    """The name the roles categorise (hdecomp.vocab.roles), lower-cased: `aten.mm.default` -> `mm`,
    `__truediv__` -> `truediv`, `relu_` -> `relu`, `F.gelu` -> `gelu`, `LlamaRMSNorm` -> `llamarmsnorm`. An
    aten name anywhere in it (`torch.ops.aten.mm.default`) is its packet; a dotted path its last part."""
    op = op.strip()
    if "aten." in op:
        op = _aten_packet(op)
    op = op.rsplit(".", 1)[-1]
    return _drop_inplace(_unwrap_dunder(op)).lower()


def primitive_op_name(name: str) -> str:
    """One name per primitive, for the semantic kernels (hdecomp.decompose.semantic): `aten.div.Tensor`,
    `div_`, `__truediv__`, `__rtruediv__`, `true_divide` -> `div`; `__rmul__` -> `mul`; `_to_copy` -> `to`.
    Only aten names lose their namespace (`aten.`, `torch.ops.aten.`): an fx graph's names are torch and
    method names already."""
    name = name.strip()
    if name.startswith(_ATEN_PREFIXES):
        name = _aten_packet(name)
    name = _drop_inplace(_unwrap_dunder(name))
    if name.startswith("r") and name[1:] in REFLECTED_PRIMITIVES:
        name = name[1:]
    return PRIMITIVE_ALIASES.get(name, name)


def source_op_name(name: str) -> str:
    """A call's name as the static anti-cheat analysis reads it in source: the underscores at both ends go
    (`__mul__` -> `mul`, `squeeze_` -> `squeeze`, `_to_copy` -> `to_copy`); a name of underscores only is
    kept, unless it is a dunder's (`__` -> ``)."""
    if name.startswith("__") and name.endswith("__"):
        return name.strip("_")
    return name.strip("_") or name


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
