"""The op vocabulary, torch-free: how an op's name is written canonically, which ops only move data or ask
about shapes (plumbing), and other facts about ops by name. The recorder, the planner, the source regions,
the quality lint and the static anti-cheat analysis all read it here, so that the planner never writes a
parent its own verifier reads differently (DESIGN.md: one vocabulary).

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

import re

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


# What counts as plumbing (no compute: views, copies, casts, creation, assembly, queries) is read two ways,
# with two lists: the recorder reads the ops a run executes by their canonical names (`canonical_op_name`:
# `squeeze_` is `squeeze`), the static analysis reads calls as the source spells them (`x.squeeze_()`,
# `torch.cat`). They are kept in step (test_anticheat_static: every source plumbing op is plumbing to the
# recorder), so that the editor and `verify-step` agree.

# Canonical (folded) names that only move, view, cast, create or assemble data. Everything else is compute
# to the recorder (hdecomp.runtime.ops).
RECORDED_PLUMBING_OPS: frozenset[str] = frozenset({
    # views and reshapes
    "view", "_unsafe_view", "view_as", "reshape", "reshape_as", "_reshape_alias", "flatten", "unflatten",
    "squeeze", "unsqueeze", "permute", "transpose", "swapaxes", "swapdims", "t", "mT", "mH", "T", "H",
    "movedim", "moveaxis", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "as_strided",
    "contiguous", "alias", "detach", "lift", "lift_fresh", "lift_fresh_copy", "unfold", "view_as_real",
    "view_as_complex", "_conj", "resolve_conj", "resolve_neg", "conj", "diagonal", "atleast_1d",
    "atleast_2d", "atleast_3d", "ravel", "squeeze_copy", "unsqueeze_copy", "view_copy", "permute_copy",
    "transpose_copy", "expand_copy", "t_copy", "alias_copy", "detach_copy", "as_strided_copy",
    "_unsafe_index", "_reshape_copy", "_unsafe_view_copy",
    # copies and casts
    "clone", "copy", "_to_copy", "to", "type", "type_as", "float", "double", "half", "bfloat16", "int",
    "long", "short", "bool", "byte", "char", "cpu", "cuda", "_copy_from", "_copy_from_and_resize",
    "contiguous_format", "_has_compatible_shallow_copy_type", "set", "resize", "resize_as",
    "requires_grad", "retain_grad", "pin_memory", "record_stream",
    # tensor creation
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "scalar_tensor",
    "tensor", "as_tensor", "from_numpy", "arange", "range", "linspace", "zero", "fill", "empty_permuted",
    # assembly and selection
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "split", "split_with_sizes",
    "tensor_split", "chunk", "unbind", "slice", "select", "narrow", "index", "index_select",
    "slice_scatter", "select_scatter", "index_put", "_index_put_impl", "getitem", "setitem",
    "repeat", "tile", "flip", "roll",
    # queries that read but do not compute
    "size", "sym_size", "stride", "sym_stride", "dim", "numel", "sym_numel", "storage_offset",
    "sym_storage_offset", "is_contiguous", "is_floating_point", "is_complex", "element_size", "item",
    "_local_scalar_dense", "tolist", "numpy", "data_ptr", "is_nonzero", "is_same_size", "shape", "dtype",
    "device", "ndim", "ndimension", "nelement", "get_device", "is_cuda", "is_leaf", "data", "grad",
    "requires_grad_", "len", "iter", "format", "repr", "hash", "bool_", "index_", "reversed", "array",
    "get", "set_", "dir", "setstate", "reduce_ex", "deepcopy", "names", "layout", "is_sparse",
    "is_quantized", "is_meta", "is_nested", "untyped_storage", "storage", "_is_view", "_base", "output_nr", "_version",
    "is_inference", "has_names", "_values", "_indices", "name", "grad_fn", "is_shared", "is_pinned",
    "itemsize", "nbytes", "real", "imag", "is_mps", "is_xpu", "dlpack", "dlpack_device", "cfloat", "cdouble",
    "meshgrid", "new_tensor", "narrow_copy", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes",
    "column_stack", "row_stack", "split_copy", "split_with_sizes_copy", "unbind_copy", "select_copy",
    "slice_copy", "_unsafe_index_put", "unflatten_copy", "diagonal_copy", "values", "indices", "dim_order",
})
# Python protocol / property names (and mode switches) seen only at the torch-function level.
FUNCTION_PLUMBING: frozenset[str] = frozenset({
    "get", "getitem", "setitem", "len", "iter", "format", "repr", "hash", "bool", "index", "contains",
    "reversed", "array", "deepcopy", "reduce_ex", "setstate", "dir", "float", "int", "complex",
    # grad / autocast mode switches (`with torch.no_grad():` inside a forward): state, not compute
    "_set_grad_enabled", "set_grad_enabled", "is_grad_enabled", "_set_fwd_grad_enabled",
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "_enter_autocast", "_exit_autocast", "is_inference_mode_enabled", "_is_autocast_cache_enabled",
    # `torch._assert(H % window == 0, msg)`, `torch._check_with(ValueError, cond, msg)`: checks of the forward's
    # sizes and numbers, no compute (what a condition computes is judged where it is computed)
    "_assert", "_check", "_check_with", "_check_tensor_all", "_check_tensor_all_with", "_check_is_size",
    "_check_value", "_check_index", "_check_type", "_check_not_implemented",
    # `module.to(dtype)` parses its arguments with torch._C._nn._parse_to; the casts show at aten (_to_copy)
    "_parse_to",
})


def is_plumbing(name: str) -> bool:
    """True if the (raw or canonical) op name only moves, views, casts, creates or assembles data."""
    canon = canonical_op_name(name)
    return canon in RECORDED_PLUMBING_OPS or canon in FUNCTION_PLUMBING


# The static analysis's plumbing (hdecomp.anticheat.static): torch functions and tensor methods, as spelled.
SOURCE_PLUMBING_OPS = frozenset("""
cat concat concatenate stack hstack vstack dstack column_stack row_stack split tensor_split split_with_sizes
chunk unbind hsplit vsplit dsplit unsafe_chunk unsafe_split unsafe_split_with_sizes
reshape view view_as reshape_as permute transpose swapaxes swapdims movedim moveaxis t adjoint flatten
unflatten ravel squeeze unsqueeze contiguous expand expand_as broadcast_to broadcast_tensors repeat tile
repeat_interleave narrow select unfold as_strided diagonal flip fliplr flipud roll rot90 atleast_1d atleast_2d
atleast_3d squeeze_ unsqueeze_ t_ transpose_ swapaxes_ swapdims_ as_strided_
clone detach detach_ to type type_as float double half bfloat16 int long short bool byte char cpu cuda
cfloat cdouble chalf requires_grad_ pin_memory share_memory_ resolve_conj resolve_neg copy_ numpy tolist
zeros ones empty full zeros_like ones_like empty_like full_like arange new_zeros new_ones new_empty new_full
new_tensor tensor as_tensor empty_strided new_empty_strided from_numpy
index_select index_put index_put_ slice_scatter select_scatter linspace meshgrid scalar_tensor narrow_copy
view_as_real view_as_complex fill_ zero_ split_with_sizes_copy unbind_copy conj resize resize_ resize_as
resize_as_ fill range real imag complex empty_permuted alias_copy as_strided_copy detach_copy diagonal_copy
expand_copy permute_copy select_copy slice_copy split_copy squeeze_copy t_copy transpose_copy unsqueeze_copy
view_copy is_inference
""".split())
# Calls that ask about a tensor (its sizes, its layout, its values as Python numbers) and compute nothing.
SHAPE_QUERIES = frozenset("""
size dim ndimension numel nelement stride element_size storage_offset is_contiguous is_floating_point
is_complex get_device item is_same_size data_ptr is_signed is_tensor is_nonzero __len__ dim_order
""".split())


def is_compute_op(name: str) -> bool:
    """Whether an op, by name (aten, torch, F or method spelling: `unsqueeze_`, `__getitem__`,
    `scaled_dot_product_attention`), computes: it is no data plumbing, no shape query, no indexing and no
    `nn.Identity` (an eval-mode drop_path). The one rule of what counts as a compute op, for the
    decomposer's levels and the quality lint's sizes."""
    op = source_op_name(name.lower())
    return op not in SOURCE_PLUMBING_OPS and op not in SHAPE_QUERIES and op not in RUN_MODES and \
        op not in ("getitem", "setitem", "size", "identity")


# associative ops a chain of which is one n-ary op (`e + h1 + ... + h6`: one sum of seven)
NARY_OPS = frozenset({"add", "mul", "maximum", "minimum", "logical_and", "logical_or", "bitwise_and", "bitwise_or"})


def nary_ops(ops: list[str]) -> list[str]:
    """`ops` with each run of one associative op counted once (BLT's and TAPAS's embeddings: an embedding and the
    six or eight embeddings added to it are an embedding and one sum)."""
    out: list[str] = []
    for o in ops:
        norm = o.lower().strip("_")
        if not (out and norm == out[-1].lower().strip("_") and norm in NARY_OPS):
            out.append(o)
    return out


def fusion_size(ops: list[str]) -> int:
    """The compute ops a fusion of `ops` holds, as rule Q6 counts them: its compute ops, a chain of one associative
    op once."""
    return len(nary_ops([o for o in ops if is_compute_op(o)]))


# Context managers that set how a run goes (grad mode, autocast, the SDPA backend chosen), not what it computes:
# `with torch.no_grad():` or `with sdpa_kernel(SDPBackend.MATH):` around a call adds no op of its own
RUN_MODES = frozenset({"no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "autocast", "sdpa_kernel"})


# Tensor attributes (not calls): shape-like ones give ints, view-like ones give tensors.
TENSOR_SCALAR_ATTRS = frozenset("""
shape ndim dtype device is_cuda is_sparse is_quantized is_meta layout requires_grad is_leaf names grad_fn
itemsize nbytes
""".split())
TENSOR_VIEW_ATTRS = frozenset("T mT H mH data real imag grad".split())
# Functions of einops, and of the `operator` module, that only move data or index (`rearrange`,
# `operator.getitem`).
EINOPS_PLUMBING = frozenset({"rearrange", "repeat", "pack", "unpack", "parse_shape"})
OPERATOR_PLUMBING = frozenset({"getitem", "itemgetter", "attrgetter", "index", "concat", "contains",
                               "is_", "is_not", "not_", "truth", "length_hint"})


# The decomposer's plumbing, for fx graphs and source regions: narrower than the static analysis's, since
# what the planner keeps in a parent must be plumbing to the verifier, not the other way round
# (test_vocab_ops pins that each tensor op in them is plumbing or a shape query to SOURCE_PLUMBING_OPS,
# SHAPE_QUERIES and the recorder).

# Tensor methods a refactored forward may keep (DESIGN.md § Verification 1: views, indexing, assembly, casts,
# queries): an fx graph's `call_method` node with one of these names stays in the parent (hdecomp.decompose
# .plan). Tensors made from sizes (`new_zeros`) and copies (`x.clone().detach()`) move no compute either.
PARENT_METHODS = frozenset({
    "view", "reshape", "permute", "transpose", "flatten", "squeeze", "unsqueeze", "contiguous", "split", "chunk",
    "size", "dim", "to", "float", "half", "double", "bfloat16", "type", "view_as", "reshape_as", "unbind",
    "unflatten", "movedim", "moveaxis", "swapaxes", "swapdims", "t", "split_with_sizes", "tensor_split",
    "narrow", "expand", "expand_as", "broadcast_to",
    # dtype casts, as `to` and `float` ("int", "long", ...: a mask's `.ne(pad).int()`)
    "int", "long", "short", "bool", "byte", "char", "type_as",
    # device moves, as `to` (pack_padded_sequence's `lengths.cpu()`)
    "cpu", "cuda",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "clone", "detach",
})
# Shape queries among an fx graph's methods: their result is a Python int (or a torch.Size), never a tensor
# (hdecomp.decompose.capture.common.is_shape_int). A tensor's `.item()` is not one, unlike in SHAPE_QUERIES:
# arithmetic on its values is compute, as the anti-cheat check holds.
SHAPE_METHODS = frozenset({"size", "dim", "numel", "nelement", "ndimension"})

# ops that draw random numbers, by name (torch's functions, the Tensor methods, aten's overload packets): a
# draw is no constant of the shapes (runtime.host_values, the static check's HOST values, node_kinds.mark_host_values)
RANDOM_OPS = frozenset("""
rand rand_like randn randn_like randint randint_like randperm normal normal_ uniform_ bernoulli bernoulli_
multinomial poisson random_ exponential_ geometric_ cauchy_ log_normal_ native_dropout dropout
""".split())
# Calls a source region's op list leaves out (hdecomp.decompose.source_children): tensor plumbing and the
# Python builtins a forward calls around it, so a child is named after what it computes.
REGION_PLUMBING_CALLS = frozenset({
    "view", "reshape", "permute", "transpose", "contiguous", "size", "unsqueeze", "squeeze", "flatten", "chunk",
    "split", "to", "float", "half", "range", "len", "enumerate", "zip", "append", "tuple", "list", "int", "float_",
    "expand", "shape", "dim",
})
# Ops whose int arguments are a shape: one batch-scaled entry may become the inferred dimension -1
# (hdecomp.decompose.batch_relative).
INFERRED_SHAPE_OPS = frozenset({"view", "reshape"})
# Ops whose work does not depend on the shape beyond the element count: a kernel file's name carries no
# shapes (hdecomp.decompose.naming, stepfiles, graph_children).
SHAPE_FREE_OPS = frozenset({
    "relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "elu", "selu", "celu", "leaky_relu", "hardtanh",
    "hardswish", "hardsigmoid", "mish", "softplus", "softsign", "tanhshrink", "threshold", "prelu",
    "add", "sub", "mul", "div", "truediv", "pow", "neg", "exp", "log", "sqrt", "rsqrt", "abs", "clamp",
    "clip", "floor", "ceil", "round", "sign", "sin", "cos", "erf", "reciprocal", "square", "maximum",
    "minimum", "where", "masked_fill", "dropout", "identity", "softmax", "log_softmax", "eq", "ne", "lt",
    "gt", "le", "ge", "logical_not", "logical_and", "logical_or", "floordiv", "mod", "remainder",
    "sigmoid_", "relu_", "add_", "mul_", "hardshrink", "softshrink", "logsigmoid", "glu", "swish",
})


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
