"""The value lattice of the abstract interpretation: the kinds of value (`Val`) and how they merge, with
the small `ast` helpers every pass uses."""

from __future__ import annotations

import ast
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from typing import Any

from hdecomp.anticheat.rules import RelatedLocation, SourceRange
from hdecomp.anticheat.static.names import classify_ref
from hdecomp.vocab.dtypes import NUMBER_DTYPES

# Kinds of abstract value:
DATA = "data"            # a tensor, or a value of unknown origin (treated as a tensor)
SCALAR = "scalar"        # int/float/str/bool/None, shapes, sizes, config values
TCONST = "tconst"        # a tensor kept as state (module-level / class / self attribute): never a residual
SELF = "self"
CHILD = "child"          # a child module (instance of a class imported from children/)
CHILDREN = "children"    # ModuleList / ModuleDict / Sequential holding children
CHILD_ATTR = "child_attr"  # an attribute of a child (self.fc.weight, self.fc.method)
CHILD_CLASS = "child_class"
CHILD_MODULE = "child_module"  # a python module under children/ (or possibly so)
REF = "ref"              # a qualified name in an external namespace: torch..., math..., numpy..., third party
LOCAL_FN = "local_fn"    # a def / lambda / method of this file
LOCAL_CLASS = "local_class"
RAW_MODULE = "raw_module"  # instance of an nn module that is not a child
PLUMB_MODULE = "plumb_module"  # nn.Identity / nn.Flatten / nn.Unflatten instances
SEQ = "seq"              # list / tuple / dict / set (elts when the shape is known, else elem)
METHOD = "method"        # a bound method: recv + name
SUPER = "super"
AUTOGRAD_APPLY = "autograd_apply"
# a tensor forward() builds from plain data alone (sizes, numbers it is handed), and what is computed from such
# tensors alone: a constant of the shapes (`torch.ones(S, S).tril()`, `torch.div(64, 8)`), host code the parent
# may keep; the run judges the same (hdecomp.runtime.host_values)
HOST = "host"

TENSORISH = frozenset({DATA, TCONST, CHILD_ATTR})
SUSPECT = frozenset({REF, METHOD, CHILD_ATTR, LOCAL_FN, RAW_MODULE})  # kinds value_use() must look at


@dataclass(slots=True, eq=False)
class Val:
    """An abstract value: what an expression may evaluate to, and how it got there (for messages).
    Treated as immutable (copies via `replace`); not frozen because frozen dataclasses are slow to build
    and this runs on every keystroke."""

    kind: str
    qual: str = ""                    # REF: dotted name; METHOD: method name; LOCAL_FN/CLASS: name
    via: str = ""                     # "", "alias", "dynamic", "import", "star"
    origin: tuple[RelatedLocation, ...] = ()
    node: Any = None                  # LOCAL_FN: FunctionDef/Lambda; LOCAL_CLASS: ClassDef; RAW_MODULE: ctor
    elem: Val | None = None           # SEQ: merged element; METHOD: receiver
    elts: tuple[Val, ...] | None = None
    bound: bool = False               # LOCAL_FN: a bound method (self / cls is implicit)
    closure: Any = None               # LOCAL_FN: env captured by a lambda / nested def
    ctx: Any = None                   # LOCAL_FN: the class the method belongs to

    def with_origin(self, loc: RelatedLocation, via: str = "alias") -> Val:
        return replace(self, origin=(*self.origin, loc), via=via if self.via in ("", "import") else self.via)


V_DATA = Val(DATA)
V_PYDATA = Val(DATA, qual="python-number")  # x.item(), x.tolist(), float(x): tensor values as Python numbers
# A child's output (and plumbing of it): `ctx` is the loop path where the child was called (() outside any
# loop; see ExpressionEval.loop_path), so that a loop can tell a residual of this iteration's child output
# (`x = x + blk(x)`) from a reduction over something else (`total = total + x[:, t]`).
CHILD_OUT = "child-output"
V_CHILD_OUT = Val(DATA, qual=CHILD_OUT, ctx=())
V_EMPTY = Val(DATA, qual="empty")  # the element of an empty list: merges into whatever is appended
V_SCALAR = Val(SCALAR)
# the environment's key under which a name declared a number (`count: int` without a value, before a loop that
# binds it: `for count in counts:`) is held: every value bound to it reads as a number, which the run checks
DECLARED_NUMBER = "<declared number> "
V_HOST = Val(HOST)
V_SELF = Val(SELF)
V_CHILD = Val(CHILD)


def merge(a: Val | None, b: Val) -> Val:
    """Join of two abstract values (flow-insensitive): keep the more suspicious one."""
    if a is None or a == b or a is V_EMPTY:
        return b
    if b is V_EMPTY:
        return a
    if a.kind == DATA and b.kind == DATA and (a.qual == CHILD_OUT or b.qual == CHILD_OUT):
        # a plain tensor beats a child's output; of two child outputs, the one from the outer loop
        if a.qual != CHILD_OUT:
            return a
        if b.qual != CHILD_OUT:
            return b
        return a if len(a.ctx or ()) <= len(b.ctx or ()) else b
    rank = {REF: 9, LOCAL_FN: 8, RAW_MODULE: 8, METHOD: 7, AUTOGRAD_APPLY: 9, TCONST: 6, DATA: 5,
            CHILD_ATTR: 5, SEQ: 4, CHILD: 3, CHILDREN: 3, HOST: 2, SCALAR: 1}
    return a if rank.get(a.kind, 2) >= rank.get(b.kind, 2) else b


HELPER_PATH: tuple[Any, ...] = ("helper",)
# Builtins that are data types, fine as constructor arguments (a dtype-like `float`), and the factories whose
# result is a function (functools.partial(F.gelu, ...)).
DATA_BUILTINS = frozenset("int float bool str complex bytes None True False tuple list dict set frozenset range "
                           "slice".split())
CALLABLE_FACTORIES = frozenset({"functools.partial", "functools.partialmethod", "functools.wraps",
                                 "functools.lru_cache", "functools.cache", "functools.singledispatch",
                                 "operator.methodcaller", "operator.attrgetter", "operator.itemgetter",
                                 "types.MethodType", "types.FunctionType"})


def root_name(node: ast.expr) -> str | None:
    """`acc`, `acc[:, t]`, `acc.data[0]` -> "acc"; None for anything that is not a name read."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def key_kind(v: Val) -> str:
    """An argument's part of a helper-cache key: its kind, and for a child's output the loops it ran in
    (what the helper returns may be that output, fresh or not)."""
    return v.kind if v.qual != CHILD_OUT else f"{v.kind}:{CHILD_OUT}:{v.ctx}"


def read_out(e: ast.expr) -> bool:
    """`counts[i]`, or `0 if i == 0 else counts[i - 1]`: a value read out of another (a subscript), or a choice
    between such values and literals: what a number claim (`start: int = ...`) may annotate, the run checking it."""
    if isinstance(e, ast.IfExp):
        return any(isinstance(b, ast.Subscript) for b in (e.body, e.orelse)) and \
            all(isinstance(b, (ast.Subscript, ast.Constant)) for b in (e.body, e.orelse))
    return isinstance(e, ast.Subscript)


def is_child_out(v: Val) -> bool:
    return v.kind == DATA and v.qual == CHILD_OUT


def as_data(v: Val) -> Val:
    """An attribute of a tensor used as a value, not called (`out.values`, `res.indices`): data."""
    if v.kind == METHOD and v.elem is not None and v.elem.kind in TENSORISH:
        return V_DATA
    return v


def seq_val(elem: Val | None = None, elts: Iterable[Val] | None = None) -> Val:
    el = tuple(elts) if elts is not None else None
    merged = elem
    if el:
        for e in el:
            merged = merge(merged, e)
    return Val(SEQ, elem=merged or V_DATA, elts=el)


def camel_to_op(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.lower().replace("re_l_u", "relu")


def source_range(node: Any) -> SourceRange:
    line = getattr(node, "lineno", 1) or 1
    col = getattr(node, "col_offset", 0) or 0
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    if end_col is None:
        end_col = col + 1
    return SourceRange(line, col, end_line, end_col)


def dotted_name(node: ast.AST) -> str | None:
    """`torch.nn.functional.relu` -> that string; None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def spelled_of(an: Any, node: ast.AST) -> str:
    return str(an.snippet(node))


def const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def iter_elem(it: Val) -> Val:
    """What iterating over a value gives."""
    if it.kind == SEQ:
        return it.elem or V_DATA
    if it.kind == CHILDREN:
        return V_CHILD
    if it.kind == SCALAR:
        return V_SCALAR
    if it.kind == HOST:
        return V_HOST
    return V_DATA


def plain_data(v: Val, *, host: bool = False, depth: int = 0) -> bool:
    """A value of plain data: a number, string, bool or None, or a list/tuple/dict of them. With `host`, a
    host value, a dtype or other constant of torch, and the element of an empty tuple (`torch.zeros(())`) too:
    what an op may take and still make a host value."""
    if v.kind == SCALAR or (host and (v.kind == HOST or v is V_EMPTY or
                                      (v.kind == REF and classify_ref(v.qual).what == "const"))):
        return True
    if v.kind == SEQ and depth < 4:
        parts = [*(v.elts or ()), *([v.elem] if v.elem is not None else [])]
        return all(plain_data(p, host=host, depth=depth + 1) for p in parts)
    return False


def builds_host(vals: Iterable[Val]) -> bool:
    """An op on these values alone computes a host value: plain data and host values only, one at least a
    host value or all of them plain (a factory: `torch.div(64, 8)`)."""
    return all(plain_data(v, host=True) for v in vals)


def holds_a_number(call: ast.Call, qual: str) -> bool:
    """`torch.tensor(7)`, `torch.tensor(-1, dtype=torch.int32)`, `torch.tensor(True)`: a number kept in a 0-dim
    integer or bool tensor (EnCodec's kernel size and stride), as plain as the int itself: host data, which a
    module may keep (the run reads the same: hdecomp.runtime.host_values.is_number)."""
    if qual != "torch.tensor" or len(call.args) != 1:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
        arg = arg.operand
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, int)):   # (a bool is an int)
        return False
    for kw in call.keywords:
        dtype = kw.value
        if kw.arg != "dtype" or not (isinstance(dtype, ast.Attribute) and dtype.attr in NUMBER_DTYPES and
                                     isinstance(dtype.value, ast.Name) and dtype.value.id == "torch"):
            return False
    return True


def unpack(val: Val, i: int) -> Val:
    """The i-th part of a value unpacked into targets (`a, b = val`)."""
    if val.kind == SEQ:
        if val.elts is not None and i < len(val.elts):
            return val.elts[i]
        return val.elem or V_DATA
    if val.kind in (SCALAR, CHILDREN, HOST):
        return {SCALAR: V_SCALAR, CHILDREN: V_CHILD, HOST: V_HOST}[val.kind]
    if val.kind == DATA and val.qual == CHILD_OUT:
        return val  # `y, state = self.cell(x, state)`: still the child's output
    return V_DATA


def function_kind(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> str:
    """"function", "staticmethod", "classmethod" or "property", from a definition's decorators."""
    if isinstance(fn, ast.Lambda):
        return "function"
    for d in fn.decorator_list:
        name = dotted_name(d) or ""
        if name.endswith("staticmethod"):
            return "staticmethod"
        if name.endswith("classmethod"):
            return "classmethod"
        if name.endswith("property") or name.endswith("cached_property"):
            return "property"
    return "function"


def rooted_in(node: ast.expr, names: Container[str]) -> bool:
    """`a.b[0](x).c` -> whether `a` is one of `names`."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in names
