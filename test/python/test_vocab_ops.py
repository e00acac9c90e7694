"""The op vocabulary (hdecomp.vocab.ops): the four readings of an op's name on the examples their callers rely
on, and the plumbing lists: their members, and what must hold between them so that the planner, the source
regions, the recorder and the static anti-cheat analysis agree on what is plumbing."""

from __future__ import annotations

import pytest
from hdecomp.vocab.ops import (
    DUNDER_ALIASES,
    EINOPS_PLUMBING,
    FUNCTION_PLUMBING,
    INFERRED_SHAPE_OPS,
    OP_RENAMES,
    OPERATOR_PLUMBING,
    PARENT_METHODS,
    PRIMITIVE_ALIASES,
    RECORDED_PLUMBING_OPS,
    REGION_PLUMBING_CALLS,
    SHAPE_FREE_OPS,
    SHAPE_METHODS,
    SHAPE_QUERIES,
    SOURCE_PLUMBING_OPS,
    TENSOR_SCALAR_ATTRS,
    TENSOR_VIEW_ATTRS,
    canonical_op_name,
    is_compute_op,
    is_plumbing,
    primitive_op_name,
    role_op_name,
    source_op_name,
)


@pytest.mark.parametrize(("name", "canonical"), [
    ("aten::add_.Tensor", "add"), ("add.out", "add"), ("relu_", "relu"), ("torch.Tensor.add_", "add"),
    ("torch.Tensor.__iadd__", "add"), ("Tensor.__iadd__", "add"), ("torch.Tensor.__rmatmul__", "matmul"),
    ("__rmul__", "mul"), ("__truediv__", "div"), ("true_divide", "div"), ("torch.nn.functional.dropout", "dropout"),
    ("torch.Tensor.shape.__get__", "shape"), ("_to_copy", "_to_copy"), ("aten::_add_relu_.Tensor", "_add_relu"),
    ("concatenate", "cat"), ("__floordiv__", "floor_divide"),
])
def test_the_recorders_name_folds_spellings_variants_and_overloads(name: str, canonical: str) -> None:
    assert canonical_op_name(name) == canonical


@pytest.mark.parametrize(("name", "canonical"), [
    ("aten.mm.default", "mm"), ("torch.ops.aten.mm.default", "mm"), ("__truediv__", "truediv"), ("relu_", "relu"),
    ("F.gelu", "gelu"), ("torch.nn.functional.gelu", "gelu"), ("  Conv2d ", "conv2d"), ("__rmul__", "rmul"),
    ("_add_relu_", "_add_relu_"),
])
def test_the_roles_name_is_the_last_part_lower_cased(name: str, canonical: str) -> None:
    assert role_op_name(name) == canonical


@pytest.mark.parametrize(("name", "canonical"), [
    ("aten.div.Tensor", "div"), ("torch.ops.aten.div.Tensor", "div"), ("div_", "div"), ("__truediv__", "div"),
    ("__rtruediv__", "div"), ("true_divide", "div"), ("__rmul__", "mul"), ("rsub", "sub"), ("_to_copy", "to"),
    ("aten.amax.default", "max"), ("rsqrt", "rsqrt"), ("_add_relu_", "_add_relu_"),
])
def test_the_primitive_name_folds_reflections_and_aliases(name: str, canonical: str) -> None:
    assert primitive_op_name(name) == canonical


@pytest.mark.parametrize(("name", "canonical"), [
    ("__mul__", "mul"), ("__rmul__", "rmul"), ("squeeze_", "squeeze"), ("_to_copy", "to_copy"), ("relu", "relu"),
    ("__", ""), ("_", "_"),
])
def test_the_source_name_strips_the_underscores_at_both_ends(name: str, canonical: str) -> None:
    assert source_op_name(name) == canonical


def test_alias_tables_map_to_names_their_reading_keeps() -> None:
    assert all(canonical_op_name(v) == v for v in (*DUNDER_ALIASES.values(), *OP_RENAMES.values()))
    assert all(primitive_op_name(v) == v for v in PRIMITIVE_ALIASES.values())


def test_the_recorders_plumbing() -> None:
    for name in ("view", "reshape", "_unsafe_view", "expand", "t", "transpose", "cat", "stack",
                 "split_with_sizes", "clone", "copy_", "detach", "alias", "_to_copy", "empty_like",
                 "zeros", "slice", "select", "torch.Tensor.__getitem__", "torch.Tensor.shape.__get__",
                 "aten::view.default", "torch.concatenate", "torch._assert"):
        assert is_plumbing(name), name
    for name in ("add", "mul", "relu_", "addmm", "convolution", "_softmax", "gelu", "native_batch_norm",
                 "dropout", "torch.Tensor.__matmul__", "torch.Tensor.__lt__"):
        assert not is_plumbing(name), name
    # the lists hold canonical names; these six never come out of canonical_op_name (it folds them to
    # `cat` or drops the underscore), so they decide nothing
    assert {n for n in RECORDED_PLUMBING_OPS | FUNCTION_PLUMBING if canonical_op_name(n) != n} == {
        "concatenate", "concat", "bool_", "requires_grad_", "set_", "index_"}


def test_compute_ops_by_name() -> None:
    for name in ("view", "unsqueeze_", "__getitem__", "size", "identity", "Identity", "cat"):
        assert not is_compute_op(name), name
    for name in ("add", "scaled_dot_product_attention", "linear", "relu_", "__matmul__"):
        assert is_compute_op(name), name
    # source plumbing that is_compute_op, which strips the in-place underscore first, counts as compute: the
    # static analysis matches these as spelled; a new one is a disagreement to look at
    assert {n for n in SOURCE_PLUMBING_OPS if is_compute_op(n)} == {"copy_", "share_memory_", "requires_grad_",
                                                                     "zero_"}


def test_shape_queries() -> None:
    # every shape query keeps its name through both readings (is_compute_op reads it after source_op_name),
    # but `__len__`, which the static analysis matches as spelled (`x.__len__()`)
    assert {q for q in SHAPE_QUERIES if source_op_name(q) != q or canonical_op_name(q) != q} == {"__len__"}
    assert not any(is_compute_op(q) for q in SHAPE_QUERIES - {"__len__"})
    # the fx graph's shape queries give a Python int; `.item()` is a shape query to the static analysis (it
    # computes nothing) but its value is the tensor's, so arithmetic on it is compute: not a shape method
    assert SHAPE_METHODS == {"size", "dim", "numel", "nelement", "ndimension"}
    assert SHAPE_METHODS < SHAPE_QUERIES
    assert "item" in SHAPE_QUERIES - SHAPE_METHODS
    assert all(is_plumbing(q) for q in SHAPE_METHODS)


def test_what_the_planner_keeps_in_a_parent_is_plumbing_to_the_verifier() -> None:
    # a method the planner leaves in a parent that the static analysis or the recorder called compute would
    # make the decomposer write a parent its own verifier rejects
    assert PARENT_METHODS <= SOURCE_PLUMBING_OPS | SHAPE_QUERIES
    assert not [m for m in PARENT_METHODS if is_compute_op(m) or not is_plumbing(m)]
    assert INFERRED_SHAPE_OPS == {"view", "reshape"}
    assert INFERRED_SHAPE_OPS <= PARENT_METHODS


def test_a_source_regions_plumbing_calls_are_plumbing_to_the_static_analysis() -> None:
    python_calls = {"len", "enumerate", "zip", "tuple", "list", "append"}   # builtins and a list's method
    assert python_calls < REGION_PLUMBING_CALLS
    tensor_calls = REGION_PLUMBING_CALLS - python_calls
    assert not [c for c in tensor_calls if is_compute_op(c) and c not in TENSOR_SCALAR_ATTRS]
    assert not [c for c in tensor_calls if not is_plumbing(c)]


def test_tensor_attributes_einops_and_operator_plumbing() -> None:
    assert TENSOR_VIEW_ATTRS == {"T", "mT", "H", "mH", "data", "real", "imag", "grad"}
    assert {"shape", "ndim", "dtype", "device"} <= TENSOR_SCALAR_ATTRS
    assert not TENSOR_VIEW_ATTRS & TENSOR_SCALAR_ATTRS
    assert all(is_plumbing(a) for a in TENSOR_VIEW_ATTRS | TENSOR_SCALAR_ATTRS)
    assert EINOPS_PLUMBING == {"rearrange", "repeat", "pack", "unpack", "parse_shape"}
    assert OPERATOR_PLUMBING == {"getitem", "itemgetter", "attrgetter", "index", "concat", "contains", "is_",
                                 "is_not", "not_", "truth", "length_hint"}


def test_shape_free_ops_compute() -> None:
    # a kernel whose file name leaves out the shapes computes (elementwise); `identity` is there so that an
    # nn.Identity child's file name carries none either
    assert {o for o in SHAPE_FREE_OPS if not is_compute_op(o)} == {"identity"}
    assert not SHAPE_FREE_OPS & RECORDED_PLUMBING_OPS
    assert {"relu", "gelu", "add", "mul", "softmax", "relu_", "truediv"} <= SHAPE_FREE_OPS
