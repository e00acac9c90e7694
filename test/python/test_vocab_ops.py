"""The op vocabulary (hdecomp.vocab.ops): the four readings of an op's name on the examples their callers rely
on."""

from __future__ import annotations

import pytest
from hdecomp.vocab.ops import (
    DUNDER_ALIASES,
    OP_RENAMES,
    PRIMITIVE_ALIASES,
    canonical_op_name,
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
