"""HD214: what a child is constructed with (quiet mode: __init__, module level, helpers they call). A child
built with a function, callable or module as an argument runs an op its parent chose."""

from __future__ import annotations

import ast

from hdecomp.anticheat.static.expressions import ExpressionEval
from hdecomp.anticheat.static.names import classify_ref
from hdecomp.anticheat.static.values import (
    AUTOGRAD_APPLY,
    CALLABLE_FACTORIES,
    CHILD,
    CHILD_ATTR,
    CHILD_CLASS,
    CHILD_MODULE,
    CHILDREN,
    DATA_BUILTINS,
    LOCAL_CLASS,
    LOCAL_FN,
    METHOD,
    PLUMB_MODULE,
    RAW_MODULE,
    REF,
    SELF,
    SEQ,
    Val,
    camel_to_op,
)


def check_child_constructor(ev: ExpressionEval, call: ast.Call, f: ast.expr, fv: Val) -> None:
    """A child built with a function, callable or module as an argument runs whatever the parent chose
    (Pointwise(torch.sigmoid)): reported at the argument. Plain data (numbers, strings, bools, tuples of
    them, dtypes, shapes) is fine."""
    module = fv.qual.rsplit(".", 1)[0] if "." in fv.qual else fv.qual
    for node in [*call.args, *(kw.value for kw in call.keywords)]:
        found = _arg_suspect(ev, node, 0)
        if found is None:
            continue
        where, what, op = found
        origin = ev.ev(where).origin if isinstance(where, (ast.Name, ast.Attribute, ast.Subscript)) else ()
        ev.an.report(
            "HD214", where,
            f"passes {what} to the child `{ev.an.snippet(f)}`: the child runs an op chosen by the parent, so "
            f"`{module}` is not a standalone test of any kernel; move the op into the child", op=op,
            related=[*origin, ev.an.loc(call, f"the child `{ev.an.snippet(f)}` is constructed here")])


def _arg_suspect(ev: ExpressionEval, node: ast.expr, depth: int) -> tuple[ast.expr, str, str | None] | None:
    """(node, what it is, op) when a constructor argument is (or holds) a callable or a module."""
    t = type(node)
    if depth > 8 or t is ast.Constant or t is ast.JoinedStr or t is ast.Compare:
        return None
    snip = ev.an.snippet(node)
    if t is ast.Lambda:
        return node, f"the lambda `{snip}`", None
    parts: list[ast.expr] = []
    if t in (ast.Tuple, ast.List, ast.Set):
        parts = list(node.elts)  # type: ignore[attr-defined]
    elif t is ast.Dict:
        parts = [v for v in node.values]  # type: ignore[attr-defined]
    elif t is ast.Starred:
        parts = [node.value]  # type: ignore[attr-defined]
    elif t is ast.IfExp:
        parts = [node.body, node.orelse]  # type: ignore[attr-defined]
    elif t is ast.BinOp:
        parts = [node.left, node.right]  # type: ignore[attr-defined]
    elif t is ast.UnaryOp:
        parts = [node.operand]  # type: ignore[attr-defined]
    elif t is ast.BoolOp:
        parts = list(node.values)  # type: ignore[attr-defined]
    if parts or t in (ast.Tuple, ast.List, ast.Set, ast.Dict):
        for part in parts:
            found = _arg_suspect(ev, part, depth + 1)
            if found is not None:
                return found
        return None
    if t is ast.Call:
        call = node
        assert isinstance(call, ast.Call)
        fv = ev.ev(call.func)
        if fv.kind == CHILD_CLASS:
            return node, f"the child module `{snip}`", None
        if fv.kind == LOCAL_CLASS:
            info = ev.an.classes.get(fv.qual)
            if info is not None and (info.is_module or ev.an.find_method(info, "__call__")[0] is not None):
                return node, f"`{snip}`, a callable `{fv.qual}` defined in this file", camel_to_op(fv.qual)
        if fv.kind == REF:
            rc = classify_ref(fv.qual)
            if rc.what in ("nn_class", "container", "plumb_module"):
                return node, f"the module `{snip}`", camel_to_op(rc.op)
            if fv.qual in CALLABLE_FACTORIES:
                inner = next((x for x in (_arg_suspect(ev, a, depth + 1) for a in call.args) if x), None)
                return node, f"the function `{snip}`", inner[2] if inner else None
        found = _value_suspect(node, snip, ev.ev(node), depth)  # getattr(torch, "tanh"), a helper
        if found is not None:
            return found
        for a in [*call.args, *(kw.value for kw in call.keywords)]:
            found = _arg_suspect(ev, a, depth + 1)
            if found is not None:
                return found
        return None
    return _value_suspect(node, snip, ev.ev(node), depth)


def _value_suspect(node: ast.expr, snip: str, val: Val, depth: int) -> tuple[ast.expr, str, str | None] | None:
    k = val.kind
    if k == REF:
        qual = val.qual
        if qual.startswith("builtins."):
            name = qual[len("builtins."):]
            return None if name in DATA_BUILTINS else (node, f"the builtin `{name}`", None)
        rc = classify_ref(qual)
        named = f"`{snip}`" + (f" (`{qual}`)" if snip != qual else "")
        if rc.what in ("const", "neutral"):
            return None
        if rc.what in ("compute", "plumb", "shape"):
            return node, f"the torch function {named}", rc.op
        if rc.what in ("math", "operator"):
            return node, f"the function {named}", rc.op
        if rc.what in ("nn_class", "container", "plumb_module", "parameter"):
            return node, f"the module class {named}", camel_to_op(rc.op)
        if rc.what == "namespace":
            return node, f"the namespace {named} (the child can look any op up in it)", None
        return node, f"{named}, code from outside children/", None
    if k == LOCAL_FN:
        return node, (f"the lambda `{snip}`" if isinstance(val.node, ast.Lambda) else f"the function `{snip}`"), None
    if k == LOCAL_CLASS:
        return node, f"the class `{val.qual}` defined in this file", camel_to_op(val.qual)
    if k in (RAW_MODULE, PLUMB_MODULE):
        return node, f"the module `{snip}`", camel_to_op(val.qual) if val.qual else None
    if k in (CHILD, CHILDREN):
        return node, f"the child module `{snip}`", None
    if k in (CHILD_CLASS, CHILD_MODULE):
        return node, f"`{snip}` from `{val.qual}`", None
    if k in (METHOD, AUTOGRAD_APPLY):
        return node, f"the method `{snip}`", None
    if k == SELF:
        return node, "`self` (the parent itself)", None
    if k == CHILD_ATTR:
        return node, f"`{snip}`, a part of another child", None
    if k == SEQ and depth < 8:
        for e in (val.elts if val.elts is not None else (val.elem,)):
            if e is None:
                continue
            found = _value_suspect(node, snip, e, depth + 1)
            if found is not None:
                return node, f"`{snip}`, which holds {found[1]}", found[2]
    return None
