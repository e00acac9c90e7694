"""Classification of qualified names (`torch.nn.functional.relu`, a Tensor method): compute, plumbing,
a shape query, or neutral."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

from hdecomp.anticheat.static.vocab import (
    COMPUTE_NAMESPACES,
    DUNDER_BINOPS,
    DUNDER_COMPUTE,
    DYNAMIC_MODULES,
    KNOWN_THIRD_PARTY_PLUMBING,
    MATH_MODULES,
    NEUTRAL_TORCH_NAMESPACES,
    NN_CONTAINERS,
    NN_PARAMETERS,
    OPERATOR_BINOPS,
    TENSOR_METHODS,
    TORCH_DTYPES_CONSTS,
    TORCH_NAMESPACES,
    TORCH_NEUTRAL,
)
from hdecomp.vocab.ops import (
    EINOPS_PLUMBING,
    OPERATOR_PLUMBING,
    SHAPE_QUERIES,
    SOURCE_PLUMBING_OPS,
    source_op_name,
)


@dataclass(frozen=True)
class RefClass:
    """What calling a qualified name does: compute / plumb / shape / neutral / nn_class / container /
    plumb_module / parameter / autograd / math / operator / external / const, and the op name."""

    what: str
    op: str = ""


@functools.lru_cache(maxsize=256)
def _torch_namedtuple(qual: str) -> bool:
    """Whether `qual` names a namedtuple class of torch's (`torch.nn.utils.rnn.PackedSequence`), looked up
    in the torch already imported (nothing is imported for it)."""
    obj = sys.modules.get("torch")
    for part in qual.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


@functools.lru_cache(maxsize=4096)
def classify_method(name: str) -> RefClass:
    """A method called on a tensor."""
    if name in DUNDER_BINOPS:
        return RefClass("binop", name)
    if name in SHAPE_QUERIES or name in ("tolist",):
        return RefClass("shape", name)
    if name in SOURCE_PLUMBING_OPS:
        return RefClass("plumb", name)
    if name in DUNDER_COMPUTE:
        return RefClass("compute", source_op_name(name))
    if name in TENSOR_METHODS:
        return RefClass("compute", source_op_name(name))
    return RefClass("other", name)


@functools.lru_cache(maxsize=4096)
def classify_ref(qual: str) -> RefClass:
    parts = qual.split(".")
    root, last = parts[0], parts[-1]
    if root == "torch":
        if qual in TORCH_NAMESPACES:
            return RefClass("namespace", last)
        if len(parts) >= 2 and parts[1] == "ops":
            if len(parts) < 4:
                return RefClass("namespace", last)
            op = parts[3]
            return RefClass("plumb" if op in SOURCE_PLUMBING_OPS else "compute", source_op_name(op))
        if len(parts) >= 3 and parts[1] == "Tensor":
            rc = classify_method(parts[2])
            return rc if rc.what != "other" else RefClass("neutral", parts[2])
        if parts[1:2] == ["autograd"] and last == "Function":
            return RefClass("autograd", last)
        for ns in COMPUTE_NAMESPACES:
            if qual.startswith(ns + "."):
                return RefClass("compute", source_op_name(parts[len(ns.split("."))]))
        if last[:1].isupper() and _torch_namedtuple(qual):
            return RefClass("plumb", source_op_name(last))   # torch's PackedSequence: it packs its fields
        if len(parts) >= 2 and parts[1] == "nn":
            if parts[2:3] == ["attention"] and (last in ("sdpa_kernel", "SDPBackend") or "SDPBackend" in parts):
                return RefClass("neutral", last)   # the SDPA backend a call runs on (`with sdpa_kernel(...)`)
            if last in NN_PARAMETERS:
                return RefClass("parameter", last)
            if last in NN_CONTAINERS:
                return RefClass("container", last)
            if last == "Module":
                return RefClass("neutral", last)
            if last[:1].isupper():
                return RefClass("nn_class", last)
            if parts[-2:-1] == ["functional"]:
                return RefClass("compute", source_op_name(last))
            return RefClass("compute", source_op_name(last))
        if len(parts) == 2:
            if last in TORCH_DTYPES_CONSTS:
                return RefClass("const", last)
            if last in TORCH_NEUTRAL:
                return RefClass("neutral", last)
            if last in SHAPE_QUERIES:
                return RefClass("shape", last)
            if last in SOURCE_PLUMBING_OPS:
                return RefClass("plumb", last)
            if last[:1].isupper():
                return RefClass("neutral", last)
            return RefClass("compute", source_op_name(last))
        if parts[1] in NEUTRAL_TORCH_NAMESPACES:
            return RefClass("neutral", last)
        return RefClass("compute", source_op_name(last))
    if root in MATH_MODULES:
        if len(parts) == 1:
            return RefClass("namespace", last)
        if last in ("pi", "e", "inf", "nan", "tau", "newaxis") or last[:1].isupper() or last in (
                "float32", "float64", "float16", "int32", "int64", "int8", "uint8", "bool_", "ndarray"):
            return RefClass("const", last)
        return RefClass("math", source_op_name(last))
    if "[]" in qual:
        return RefClass("external", last)  # something fetched out of a module by subscript: unknown
    if qual in ("copy.copy", "copy.deepcopy"):
        return RefClass("copy", last)
    if root == "operator":
        if last == "methodcaller":
            return RefClass("dynamic", last)
        if last in OPERATOR_BINOPS:
            return RefClass("operator", last)
        if last in OPERATOR_PLUMBING or len(parts) == 1:
            return RefClass("neutral", last)
        return RefClass("math", source_op_name(last))
    if root == "einops":
        if len(parts) == 1:
            return RefClass("namespace", last)
        return RefClass("plumb" if last in EINOPS_PLUMBING else "compute", last)
    if root in DYNAMIC_MODULES and len(parts) >= 2:
        return RefClass("dynamic", last)
    if root in sys.stdlib_module_names or root in KNOWN_THIRD_PARTY_PLUMBING:
        return RefClass("neutral", last)
    return RefClass("external", source_op_name(last))
