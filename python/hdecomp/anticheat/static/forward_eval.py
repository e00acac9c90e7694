"""Forward evaluation: the statements of forward() (and of the helpers it calls) run over the values of its
file's scan; the evaluator of expressions and calls it extends is in expressions.py and calls.py."""

from __future__ import annotations

import ast
from typing import Any

from hdecomp.anticheat.static.calls import CallEval
from hdecomp.anticheat.static.values import (
    DECLARED_NUMBER,
    LOCAL_FN,
    METHOD,
    RAW_MODULE,
    REF,
    SCALAR,
    SEQ,
    SUSPECT,
    TCONST,
    TENSORISH,
    V_DATA,
    V_SCALAR,
    Val,
    dotted_name,
    is_child_out,
    iter_elem,
    merge,
    read_out,
    root_name,
    seq_val,
)

_NUMBER_TYPES = frozenset({"int", "float", "bool"})


def numbers_annotation(node: ast.expr | None, depth: int = 0) -> Val | None:
    """What an annotation of Python numbers or of sequences of them claims (`int`: a number; `tuple[int,
    int]`, `Tuple[int, ...]`, `list[int]`: a sequence of numbers; `list[tuple[int, int]]`: a sequence of
    them, torchvision's `image_shapes`), None for any other annotation. The claim is checked where it
    matters: a tensor passed as one would run its ops outside every child, which the runtime check (HD401)
    reports."""
    if node is None:
        return None
    if depth and dotted_name(node) in _NUMBER_TYPES:
        return V_SCALAR
    if not isinstance(node, ast.Subscript) or depth > 2 or (dotted_name(node.value) or "").rsplit(".", 1)[-1] not in (
            "tuple", "Tuple", "list", "List", "Sequence"):
        return None
    elts = [e for e in (node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice])
            if not (isinstance(e, ast.Constant) and e.value is Ellipsis)]
    parts = [numbers_annotation(e, depth + 1) for e in elts]
    if not parts or any(p is None for p in parts) or any(p is V_SCALAR for p in parts) != all(
            p is V_SCALAR for p in parts):
        return None   # (numbers and sequences mixed: no claim read)
    return seq_val(parts[0])


class ForwardEval(CallEval):
    """Runs statements of forward() (and of helpers it reaches) over abstract values, reporting compute into
    `sink`. In quiet mode (module level, __init__) it only infers kinds."""

    def bind_params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, args: list[Val],
                    kwargs: dict[str, Val], self_val: Val | None, kind: str) -> None:
        a = fn.args
        positional = a.posonlyargs + a.args
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        given = list(args)
        if self_val is not None and positional and kind != "staticmethod":
            self.env[positional[0].arg] = self_val
            positional, defaults = positional[1:], defaults[1:]
        for i, p in enumerate(positional):
            if i < len(given):
                self.env[p.arg] = given[i]
            elif p.arg in kwargs:
                self.env[p.arg] = kwargs[p.arg]
            else:
                self.env[p.arg] = self.param_default(p, defaults[i])
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False):
            self.env[p.arg] = kwargs.get(p.arg) or self.param_default(p, d)
        if a.vararg is not None:
            self.env[a.vararg.arg] = seq_val(V_DATA)
        if a.kwarg is not None:
            self.env[a.kwarg.arg] = seq_val(V_DATA)

    def param_default(self, p: ast.arg, default: ast.expr | None) -> Val:
        ann = dotted_name(p.annotation) if p.annotation is not None else None
        if ann in ("int", "float", "bool", "str"):
            return V_SCALAR
        claimed = numbers_annotation(p.annotation)
        if claimed is not None:   # `size: tuple[int, int]`: sizes handed in
            return claimed
        if default is None:
            return V_DATA
        if isinstance(default, ast.Constant):
            return V_SCALAR if default.value is not None else V_DATA
        val = self.an.eval_quiet(default, self.an.globals)
        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, METHOD):
            return val.with_origin(self.an.loc(default, f"default argument `{p.arg}={self.an.snippet(default)}`"))
        return val

    def run_body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, s: ast.stmt) -> None:
        handler = _STMT_DISPATCH.get(type(s))
        if handler is not None:
            handler(self, s)
        # Pass / Break / Continue / Global / Nonlocal / Raise / Delete: nothing to check

    def st_assign(self, s: ast.Assign) -> None:
        if self.pass_bound and len(s.targets) == 1 and type(s.value) is ast.BinOp and \
                type(s.value.op) is ast.Add and not self.quiet:
            val = self.accumulation(s, s.targets[0], s.value, None)
        else:
            val = self.ev(s.value)
        for target in s.targets:
            self.bind(target, val, s.value)

    def st_return(self, s: ast.Return) -> None:
        if s.value is not None:
            val = self.ev(s.value)
            if val.kind in SUSPECT:
                self.value_use(s.value, val)
            self.ret = merge(self.ret, val)
        else:
            self.ret = merge(self.ret, V_SCALAR)

    def st_expr(self, s: ast.Expr) -> None:
        self.ev(s.value)

    def st_augassign(self, s: ast.AugAssign) -> None:
        if self.pass_bound and type(s.op) is ast.Add and not self.quiet:
            res = self.accumulation(s, s.target, s.value, s)
        else:
            cur = self.ev(s.target)
            val = self.ev(s.value)
            res = self.binop(s, s.op, cur, val, s.target, s.value)
        self.bind(s.target, res, s.value)

    # -- loop-carried accumulation: a reduction written as additions -------------------------------------

    def add_terms(self, node: ast.expr, leaves: list[tuple[ast.expr, Val]]) -> Val:
        """Evaluate a chain of `+` exactly as ev_binop does, collecting its operands (the leaves)."""
        if type(node) is ast.BinOp and type(node.op) is ast.Add:
            left = self.add_terms(node.left, leaves)
            right = self.add_terms(node.right, leaves)
            if left.kind is SCALAR and right.kind is SCALAR:
                return V_SCALAR
            return self.binop(node, node.op, left, right, node.left, node.right)
        v = self.ev(node)
        leaves.append((node, v))
        return v

    def accumulation(self, s: ast.Assign | ast.AugAssign, target: ast.expr, value: ast.expr,
                     aug: ast.AugAssign | None) -> Val:
        """`t = t + e` / `t += e` inside a loop, where `t` carries over from the previous iteration: a
        residual when every added `e` is the output of a child called in this iteration (`x = x + blk(x)`),
        otherwise a reduction (`total = total + x[:, t]`), reported as HD116."""
        leaves: list[tuple[ast.expr, Val]] = []
        if aug is not None:
            cur = self.ev(target)
            leaves.append((target, cur))
            val = self.add_terms(value, leaves)
            res = self.binop(aug, aug.op, cur, val, target, value)
        else:
            res = self.add_terms(value, leaves)
        root = root_name(target)
        if root is None or res.kind not in TENSORISH or root in self.pass_bound[-1]:
            return res  # not a tensor, or `t` was set earlier in this iteration: nothing carried over
        carried = [n for n, _v in leaves if root_name(n) == root]
        others = [(n, v) for n, v in leaves if root_name(n) != root]
        if not carried or not others or any(v.kind not in TENSORISH or v.kind == TCONST for _n, v in others):
            return res  # constants and state are reported by binop already
        stale = [(n, v) for n, v in others if not self.fresh(v)]
        if not stale:
            return self.child_out()  # x = x + blk(x): the new stream state is as fresh as the child's output
        node, _v = stale[0]
        where = "while" if self.loop_kind and self.loop_kind[-1] == "while" else "for"
        self.report("HD116", s if aug is not None else value,
                    f"`{self.an.snippet(s if aug is not None else value)}` adds `{self.an.snippet(node)}` into "
                    f"`{self.an.snippet(target)}`, which carries over from one `{where}` iteration to the next: "
                    f"a reduction (`sum`), not a residual (the added value is not the output of a child called "
                    f"in this iteration)", op="sum")
        return V_DATA

    def st_annassign(self, s: ast.AnnAssign) -> None:
        if s.value is None and isinstance(s.target, ast.Name) and dotted_name(s.annotation) in ("int", "bool"):
            # a name declared a number before the loop that binds it (`count: int`, then `for count in
            # counts:`): what it is bound to is a number read out of an integer tensor, as `h: int = out[1]`
            self.env[DECLARED_NUMBER + s.target.id] = V_SCALAR
        if s.value is not None:
            val = self.ev(s.value)
            ann = dotted_name(s.annotation) if s.annotation is not None else None
            # a number read out of a child's output (`h: int = out[1]`), or one a child returns (`total: int =
            # self.sum(x)`): the claim is checked at run time, where arithmetic on a tensor so named runs its ops
            # outside every child (HD401)
            if ann in ("int", "float", "bool", "str") and (val.kind not in TENSORISH or read_out(s.value) or
                                                          is_child_out(val)):
                val = V_SCALAR
            elif isinstance(s.value, ast.Subscript) and (claimed := numbers_annotation(s.annotation)) is not None:
                val = claimed
            self.bind(s.target, val, s.value)

    def st_if(self, s: ast.If | ast.While) -> None:
        self.ev(s.test)
        self.run_body(s.body)
        self.run_body(s.orelse)

    def st_for(self, s: ast.For | ast.AsyncFor) -> None:
        it = self.ev(s.iter)
        self.run_loop(s, lambda: self.bind(s.target, iter_elem(it), s.iter), "for")

    def st_while(self, s: ast.While) -> None:
        self.run_loop(s, lambda: self.ev(s.test), "while")

    def run_loop(self, s: ast.For | ast.AsyncFor | ast.While, head: Any, kind: str) -> None:
        self.loop_depth += 1
        saved_path = self.loop_path
        self.loop_path = (*saved_path, (s.lineno, s.col_offset))
        self.loop_kind.append(kind)
        try:
            for _pass in range(2 if self.loop_depth <= 2 else 1):
                # loop-carried values: a second pass sees what the first bound (e.g. a list appended to);
                # only for shallow nests, so that deeply nested loops stay linear
                self.pass_bound.append(set())
                try:
                    head()  # the loop variable (or the while test) belongs to the pass
                    self.run_body(s.body)
                finally:
                    self.pass_bound.pop()
        finally:
            self.loop_depth -= 1
            self.loop_path = saved_path
            self.loop_kind.pop()
        self.run_body(s.orelse)

    def st_with(self, s: ast.With | ast.AsyncWith) -> None:
        for item in s.items:
            v = self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, v, item.context_expr)
        self.run_body(s.body)

    def st_try(self, s: ast.Try) -> None:
        self.run_body(s.body)
        for h in s.handlers:
            if h.name:
                self.env[h.name] = V_SCALAR
            self.run_body(h.body)
        self.run_body(s.orelse)
        self.run_body(s.finalbody)

    def st_def(self, s: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.env[s.name] = Val(LOCAL_FN, qual=s.name, node=s, closure=dict(self.env))

    def st_assert(self, s: ast.Assert) -> None:
        self.ev(s.test)

    def st_import(self, s: ast.Import | ast.ImportFrom) -> None:
        self.an.mutations += 1  # star imports change analyzer state; child lookup reads the disk
        self.an.bind_import(s, self.env)
        self.an.check_import(s)

    def st_class(self, s: ast.ClassDef) -> None:
        self.an.mutations += 1
        self.an.bind_class(s)
        self.env[s.name] = self.an.globals[s.name]
        self.an.check_class(s)

    def st_match(self, s: ast.Match) -> None:
        self.ev(s.subject)
        for case in s.cases:
            self.run_body(case.body)


_STMT_DISPATCH: dict[type, Any] = {
    ast.Assign: ForwardEval.st_assign, ast.Return: ForwardEval.st_return, ast.Expr: ForwardEval.st_expr,
    ast.AugAssign: ForwardEval.st_augassign, ast.AnnAssign: ForwardEval.st_annassign,
    ast.If: ForwardEval.st_if, ast.While: ForwardEval.st_while, ast.For: ForwardEval.st_for,
    ast.AsyncFor: ForwardEval.st_for, ast.With: ForwardEval.st_with, ast.AsyncWith: ForwardEval.st_with,
    ast.Try: ForwardEval.st_try, ast.FunctionDef: ForwardEval.st_def, ast.AsyncFunctionDef: ForwardEval.st_def,
    ast.Assert: ForwardEval.st_assert, ast.Import: ForwardEval.st_import,
    ast.ImportFrom: ForwardEval.st_import, ast.ClassDef: ForwardEval.st_class, ast.Match: ForwardEval.st_match,
}
if hasattr(ast, "TryStar"):  # Python 3.11+: try/except*
    _STMT_DISPATCH[ast.TryStar] = ForwardEval.st_try
