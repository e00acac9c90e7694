"""Forward evaluation: every expression of forward() (and of the helpers it calls) evaluated over the
module scan's values; calls, operators and method calls judged by what they resolve to."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hdecomp.anticheat.rules import AntiCheatViolation, RelatedLocation
from hdecomp.anticheat.static.external import is_namedtuple_class, is_output_dataclass
from hdecomp.anticheat.static.names import classify_method, classify_ref
from hdecomp.anticheat.static.values import (
    AUTOGRAD_APPLY,
    CALLABLE_FACTORIES,
    CHILD,
    CHILD_ATTR,
    CHILD_CLASS,
    CHILD_MODULE,
    CHILD_OUT,
    CHILDREN,
    DATA,
    DATA_BUILTINS,
    HELPER_PATH,
    LOCAL_CLASS,
    LOCAL_FN,
    METHOD,
    PLUMB_MODULE,
    RAW_MODULE,
    REF,
    SCALAR,
    SELF,
    SEQ,
    SUPER,
    SUSPECT,
    TCONST,
    TENSORISH,
    V_CHILD,
    V_CHILD_OUT,
    V_DATA,
    V_EMPTY,
    V_PYDATA,
    V_SCALAR,
    V_SELF,
    Val,
    as_data,
    camel_to_op,
    const_str,
    dotted_name,
    is_child_out,
    merge,
    root_name,
    seq_val,
    source_range,
    spelled_of,
)
from hdecomp.anticheat.static.vocab import (
    BUILTIN_DYNAMIC,
    BUILTIN_MATH,
    BUILTIN_NEUTRAL,
    DUNDER_BINOPS,
    OP_NAMES_BINOP,
    OP_SYMBOLS,
    OPERATOR_BINOPS,
    PATCH_ATTRS,
    SELF_MODULE_METHODS,
    TENSOR_METHODS,
)
from hdecomp.vocab.ops import (
    SHAPE_QUERIES,
    SOURCE_PLUMBING_OPS,
    TENSOR_SCALAR_ATTRS,
    TENSOR_VIEW_ATTRS,
    is_neutral_operand,
)

if TYPE_CHECKING:
    from hdecomp.anticheat.static.module_scan import ModuleScan


_NUMBER_TYPES = frozenset({"int", "float", "bool"})


def _numbers_annotation(node: ast.expr | None) -> bool:
    """`tuple[int, int]`, `Tuple[int, ...]`, `list[int]`: an annotation of a sequence of Python numbers.
    The claim is checked where it matters: a tensor passed as one would run its ops outside every child,
    which the runtime check (HD401) reports."""
    if not isinstance(node, ast.Subscript) or (dotted_name(node.value) or "").rsplit(".", 1)[-1] not in (
            "tuple", "Tuple", "list", "List", "Sequence"):
        return False
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return bool(elts) and all(dotted_name(e) in _NUMBER_TYPES or (isinstance(e, ast.Constant) and e.value is Ellipsis)
                              for e in elts)


def _plain_data(v: Val, depth: int = 0) -> bool:
    """A value of plain data: a number, string, bool or None, or a list/tuple/dict of them."""
    if v.kind == SCALAR:
        return True
    if v.kind == SEQ and depth < 4:
        parts = [*(v.elts or ()), *([v.elem] if v.elem is not None else [])]
        return all(_plain_data(p, depth + 1) for p in parts)
    return False


class ForwardEval:
    """Evaluates statements and expressions of forward() (and of helpers it reaches) over abstract values,
    reporting compute into `sink`. In quiet mode (module level, __init__) it only infers kinds."""

    def __init__(self, an: ModuleScan, env: dict[str, Val], sink: list[AntiCheatViolation],
                 quiet: bool) -> None:
        self.an = an
        self.env = env
        self.sink = sink
        self.quiet = quiet
        self.ret: Val | None = None
        self.loop_depth = 0
        # the loops being run, outermost first (their positions); a helper's start with HELPER_PATH
        self.loop_path: tuple[Any, ...] = ()
        # per loop being run: the names bound so far in the current pass over its body
        self.pass_bound: list[set[str]] = []
        self.loop_kind: list[str] = []

    # -- reporting ------------------------------------------------------------------------------------

    def report(self, rule: str, node: Any, message: str, op: str | None = None,
               related: Iterable[RelatedLocation] = (), details: dict[str, Any] | None = None) -> None:
        if self.quiet:
            return
        self.an.report(rule, node, message, op=op, related=related, details=details,
                       sink=None if self.sink is self.an.out else self.sink)

    # -- statements -------------------------------------------------------------------------------------

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
        if _numbers_annotation(p.annotation):   # `size: tuple[int, int]`: sizes handed in
            return seq_val(V_SCALAR)
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

    def child_out(self) -> Val:
        return V_CHILD_OUT if not self.loop_path else Val(DATA, qual=CHILD_OUT, ctx=self.loop_path)

    def fresh(self, v: Val) -> bool:
        """v is the output of a child called in the current iteration of the innermost loop."""
        if v.kind != DATA or v.qual != CHILD_OUT or not self.loop_path:
            return False
        n = len(self.loop_path)
        return v.ctx is not None and len(v.ctx) >= n and v.ctx[:n] == self.loop_path

    def st_annassign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            val = self.ev(s.value)
            ann = dotted_name(s.annotation) if s.annotation is not None else None
            # a number read out of a child's output (`h: int = out[1]`): the claim is checked at run time,
            # where arithmetic on a tensor so named runs its ops outside every child (HD401)
            if ann in ("int", "float", "bool", "str") and (val.kind not in TENSORISH or isinstance(s.value, ast.Subscript)):
                val = V_SCALAR
            elif _numbers_annotation(s.annotation) and isinstance(s.value, ast.Subscript):
                val = seq_val(V_SCALAR)
            self.bind(s.target, val, s.value)

    def st_if(self, s: ast.If | ast.While) -> None:
        self.ev(s.test)
        self.run_body(s.body)
        self.run_body(s.orelse)

    def st_for(self, s: ast.For | ast.AsyncFor) -> None:
        it = self.ev(s.iter)
        self.run_loop(s, lambda: self.bind(s.target, self.an.iter_elem(it), s.iter), "for")

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

    def bind(self, target: ast.expr, val: Val, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            for bound in self.pass_bound:
                bound.add(target.id)
            if val.kind in (REF, LOCAL_FN, RAW_MODULE, METHOD) and not self.quiet:
                val = val.with_origin(self.an.loc(value, f"`{target.id}` bound to `{self.an.snippet(value)}` "
                                                         f"here"), via="alias")
            self.env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = None
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Starred):
                    starred = i
                    self.bind(t.value, seq_val(self.an.unpack(val, i)), value)
                else:
                    self.bind(t, self.an.unpack(val, i if starred is None else -1), value)
        elif isinstance(target, ast.Attribute):
            base = self.ev(target.value)
            self.check_patch(target, base)
            if base.kind == SELF and not self.quiet and target.attr not in self.an.self_attrs:
                self.an.mutations += 1
                self.an.self_attrs[target.attr] = val
        elif isinstance(target, ast.Subscript):
            # writing into a slice of a buffer (out[:, :c] = y) is plumbing, like cat
            base = self.ev(target.value)
            self.ev(target.slice)
            if base.kind == SEQ and base.elem is not None:
                self.env_update_seq(target.value, val)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, seq_val(val), value)

    def env_update_seq(self, node: ast.expr, val: Val) -> None:
        if isinstance(node, ast.Name) and node.id in self.env:
            cur = self.env[node.id]
            if cur.kind == SEQ:
                self.env[node.id] = replace(cur, elem=merge(cur.elem, val), elts=None)

    def check_patch(self, target: ast.Attribute, base: Val) -> None:
        if base.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or target.attr in PATCH_ATTRS:
            self.report("HD207", target, f"rebinds `{self.an.snippet(target)}` (monkeypatching)")

    # -- expressions ------------------------------------------------------------------------------------

    def ev(self, node: ast.expr) -> Val:
        t = type(node)
        if t is ast.Name:  # the hot cases inline: this runs for every node of forward()
            ident = node.id  # type: ignore[attr-defined]
            v = self.env.get(ident) or self.an.globals.get(ident)
            return v if v is not None else self.name(node)  # type: ignore[arg-type]
        if t is ast.Constant:
            return V_SCALAR
        handler = _EV_DISPATCH.get(t)
        return handler(self, node) if handler is not None else V_DATA

    def ev_attribute(self, node: ast.Attribute) -> Val:
        return self.attribute(node, self.ev(node.value), node.attr, via="")

    def ev_constant(self, node: ast.Constant) -> Val:
        return V_SCALAR

    def ev_binop(self, node: ast.BinOp) -> Val:
        left, right = self.ev(node.left), self.ev(node.right)
        if left.kind is SCALAR and right.kind is SCALAR:
            return V_SCALAR  # shape arithmetic, the common case
        return self.binop(node, node.op, left, right, node.left, node.right)

    def ev_sequence(self, node: ast.Tuple | ast.List | ast.Set) -> Val:
        vals = []
        has_star = False
        for e in node.elts:
            v = self.ev(e)
            if v.kind in SUSPECT:
                self.value_use(e, v)
            if type(e) is ast.Starred:
                has_star = True
                v = self.an.iter_elem(v)
            vals.append(v)
        if not vals:
            return seq_val(V_EMPTY, elts=())
        return seq_val(elts=None if has_star else vals, elem=None)

    def ev_dict(self, node: ast.Dict) -> Val:
        merged: Val | None = None
        for k, v in zip(node.keys, node.values, strict=False):
            if k is not None:
                self.ev(k)
            vv = self.ev(v)
            if vv.kind in SUSPECT:
                self.value_use(v, vv)
            merged = merge(merged, vv if k is not None else (vv.elem or V_DATA))
        return Val(SEQ, elem=merged or V_DATA, qual="dict")

    def ev_unary(self, node: ast.UnaryOp) -> Val:
        v = as_data(self.ev(node.operand))
        if isinstance(node.op, ast.Not):
            return V_SCALAR
        if isinstance(node.op, ast.UAdd):
            return v
        if v.kind in TENSORISH:
            op = OP_NAMES_BINOP[type(node.op)]
            self.report("HD106", node, f"unary `{OP_SYMBOLS[type(node.op)]}` on a tensor is compute "
                                       f"(`{op}`)", op=op)
            return V_DATA
        return V_SCALAR if v.kind == SCALAR else v

    def ev_boolop(self, node: ast.BoolOp) -> Val:
        res: Val | None = None
        for v in node.values:
            res = merge(res, self.ev(v))
        return res or V_SCALAR

    def ev_ifexp(self, node: ast.IfExp) -> Val:
        self.ev(node.test)
        return merge(self.ev(node.body), self.ev(node.orelse))

    def ev_joinedstr(self, node: ast.JoinedStr) -> Val:
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                self.ev(v.value)
        return V_SCALAR

    def ev_formatted(self, node: ast.FormattedValue) -> Val:
        self.ev(node.value)
        return V_SCALAR

    def ev_lambda(self, node: ast.Lambda) -> Val:
        return Val(LOCAL_FN, qual="<lambda>", node=node, closure=dict(self.env) if not self.quiet else None)

    def ev_comp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Val:
        saved = dict(self.env)
        self.comprehension(node.generators)
        elt = self.ev(node.elt)
        self.value_use(node.elt, elt)
        self.env = saved
        return seq_val(elt)

    def ev_dictcomp(self, node: ast.DictComp) -> Val:
        saved = dict(self.env)
        self.comprehension(node.generators)
        self.ev(node.key)
        elt = self.ev(node.value)
        self.value_use(node.value, elt)
        self.env = saved
        return Val(SEQ, elem=elt, qual="dict")

    def ev_starred(self, node: ast.Starred) -> Val:
        return self.ev(node.value)

    def ev_namedexpr(self, node: ast.NamedExpr) -> Val:
        v = self.ev(node.value)
        self.bind(node.target, v, node.value)
        return v

    def ev_slice(self, node: ast.Slice) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part)
        return V_SCALAR

    def ev_await(self, node: ast.Await | ast.Yield | ast.YieldFrom) -> Val:
        return self.ev(node.value) if node.value is not None else V_SCALAR

    def comprehension(self, gens: list[ast.comprehension]) -> None:
        for g in gens:
            it = self.ev(g.iter)
            self.bind(g.target, self.an.iter_elem(it), g.iter)
            for cond in g.ifs:
                self.ev(cond)

    def name(self, node: ast.Name) -> Val:
        ident = node.id
        v = self.env.get(ident)
        if v is not None:
            return v
        v = self.an.globals.get(ident)
        if v is not None:
            return v
        if ident in BUILTIN_NEUTRAL or ident in BUILTIN_MATH or ident in BUILTIN_DYNAMIC or ident in (
                "getattr", "setattr", "delattr", "vars", "globals", "locals", "open", "True", "False", "None"):
            return Val(REF, qual=f"builtins.{ident}")
        if self.an.star_roots:
            root = self.an.star_roots[-1]
            return Val(REF, qual=f"{root}.{ident}", via="star",
                       origin=(RelatedLocation(f"`{ident}` comes from `from {root} import *`",
                                               source_range(node), self.an.path),))
        return V_DATA

    def attribute(self, node: ast.expr, base: Val, attr: str, via: str) -> Val:
        k = base.kind
        if k == REF:
            if attr == "__dict__":
                return Val(REF, qual=f"{base.qual}.__dict__", origin=base.origin, via="dynamic")
            return Val(REF, qual=f"{base.qual}.{attr}", origin=base.origin, via=via or base.via)
        if k == SELF:
            return self.self_attr(node, attr)
        if k == CHILD:
            if attr in ("forward", "__call__"):
                return V_CHILD
            return Val(CHILD_ATTR, qual=attr)
        if k == CHILDREN:
            return Val(METHOD, qual=attr, elem=base)
        if k == CHILD_ATTR and attr not in TENSOR_METHODS and attr not in SOURCE_PLUMBING_OPS and \
                attr not in SHAPE_QUERIES and attr not in TENSOR_SCALAR_ATTRS and attr not in DUNDER_BINOPS:
            return Val(CHILD_ATTR, qual=attr)  # self.fc.linear.weight: still something of a child
        if k in TENSORISH:
            if attr == "__class__":
                return Val(REF, qual="torch.Tensor")
            if attr in TENSOR_SCALAR_ATTRS:
                return V_SCALAR
            if attr in TENSOR_VIEW_ATTRS:
                return base
            return Val(METHOD, qual=attr, elem=base, via=via)
        if k == SCALAR:
            return V_SCALAR  # cfg.n_head, "sep".join, ...: calling a scalar gives a scalar
        if k == SEQ:
            return Val(METHOD, qual=attr, elem=base)
        if k == LOCAL_CLASS:
            info = self.an.classes.get(base.qual)
            if info is None:
                return V_DATA
            if attr == "apply" and info.is_autograd:
                return Val(AUTOGRAD_APPLY, qual=base.qual, node=info.node)
            m, _owner = self.an.find_method(info, attr)
            if m is not None:
                kind = self.an._fn_kind(m)
                return Val(LOCAL_FN, qual=f"{base.qual}.{attr}", node=m, bound=kind == "classmethod",
                           ctx=base.qual)
            cv = self.an.find_class_attr(info, attr)
            return cv if cv is not None else V_DATA
        if k == CHILD_MODULE:
            return Val(CHILD_CLASS if attr[:1].isupper() else CHILD_MODULE, qual=f"{base.qual}.{attr}")
        if k == SUPER:
            if self.an.target is not None:
                for b in self.an.target.bases:
                    m, _ = self.an.find_method(b, attr)
                    if m is not None:
                        return Val(LOCAL_FN, qual=attr, node=m, bound=True, ctx=b.node.name)
            return Val(REF, qual=f"torch.nn.Module.{attr}")
        if k == METHOD:
            data = as_data(base)
            return self.attribute(node, data, attr, via) if data is not base else V_DATA
        return V_DATA

    def self_attr(self, node: ast.expr, attr: str) -> Val:
        an = self.an
        v = an.self_attrs.get(attr)
        if v is not None:
            return v
        info = an.target
        if info is not None:
            m, owner = an.find_method(info, attr)
            if m is not None:
                kind = an._fn_kind(m)
                fn = Val(LOCAL_FN, qual=attr, node=m, bound=kind != "staticmethod",
                         ctx=owner.node.name if owner else "")
                if kind == "property":
                    return self.call_helper(node, fn, [], {}, what="property")
                return fn
            cv = an.find_class_attr(info, attr)
            if cv is not None:
                return cv
        if attr in ("training",):
            return V_SCALAR
        if attr in SELF_MODULE_METHODS or attr in ("apply", "register_buffer", "register_parameter",
                                                   "add_module"):
            return Val(METHOD, qual=attr, elem=V_SELF)
        if attr == "forward":
            return Val(METHOD, qual=attr, elem=V_SELF)
        if an.dynamic_self_attr is not None:
            return an.dynamic_self_attr
        return V_DATA

    def subscript(self, node: ast.Subscript) -> Val:
        base = self.ev(node.value)
        idx = self.ev(node.slice)
        if base.kind == REF:
            key = const_str(node.slice)
            if base.qual.endswith(".__dict__"):
                root = base.qual[: -len(".__dict__")]
                return Val(REF, qual=f"{root}.{key or '<name>'}", via="dynamic", origin=base.origin)
            if base.qual == "builtins.<globals>":
                if key is not None:
                    got = self.an.globals.get(key) or Val(REF, qual=key)
                    return replace(got, via="dynamic") if got.kind == REF else got
                return Val(REF, qual="<globals>.<name>", via="dynamic")
            if base.qual == "sys.modules":  # sys.modules["torch"].relu
                return Val(REF, qual=key or "<module>", via="dynamic", origin=base.origin)
            return Val(REF, qual=f"{base.qual}[]", via=base.via, origin=base.origin)
        if base.kind == SEQ:
            if base.elts is not None and isinstance(node.slice, ast.Constant) and \
                    isinstance(node.slice.value, int) and -len(base.elts) <= node.slice.value < len(base.elts):
                return base.elts[node.slice.value]
            if isinstance(node.slice, ast.Slice):
                return base
            el = base.elem or V_DATA
            if el.kind in (REF, LOCAL_FN, RAW_MODULE) and base.origin:
                el = replace(el, origin=(*el.origin, *base.origin), via="alias" if el.via != "dynamic" else el.via)
            return el
        if base.kind == CHILDREN:
            return base if isinstance(node.slice, ast.Slice) else V_CHILD  # self.layers[1:] is a container
        if base.kind == SCALAR:
            return V_SCALAR
        if base.kind in (TCONST, CHILD_ATTR) or (base.kind == DATA and base.qual == CHILD_OUT):
            return base
        del idx
        return V_DATA

    # -- operators ------------------------------------------------------------------------------------

    def binop(self, node: ast.AST, op: ast.operator, left: Val, right: Val, lnode: ast.expr,
              rnode: ast.expr) -> Val:
        left, right = as_data(left), as_data(right)
        lt, rt = left.kind in TENSORISH, right.kind in TENSORISH
        sym = OP_SYMBOLS.get(type(op), "?")
        opname = OP_NAMES_BINOP.get(type(op), "op")
        if not lt and not rt:
            if left.kind == SEQ or right.kind == SEQ:
                return left if left.kind == SEQ else right
            for side, snode in ((left, lnode), (right, rnode)):
                self.value_use(snode, side)
            return V_SCALAR
        if isinstance(op, ast.Add) and lt and rt and left.kind != TCONST and right.kind != TCONST:
            return V_DATA  # residual: tensor + tensor
        if lt != rt and isinstance(op, (ast.Add, ast.Mult)):
            number = rnode if lt else lnode
            if isinstance(number, ast.Constant) and is_neutral_operand(opname, number.value):
                return left if lt else right   # `x + 0`, `1 * x`: no compute (hdecomp.vocab.ops)
        if isinstance(op, ast.Add):
            other = right if lt else left
            what = "a tensor kept as state" if TCONST in (left.kind, right.kind) else (
                f"a {'number' if other.kind == SCALAR else 'non-tensor value'}")
            related = [*left.origin, *right.origin] if TCONST in (left.kind, right.kind) else []
            self.report("HD106", node, f"`+` with {what} is compute (`add`); only `tensor + tensor` is a "
                                       f"residual", op="add", related=related)
            return V_DATA
        self.report("HD106", node, f"`{sym}` on a tensor is compute (`{opname}`)", op=opname,
                    related=[*left.origin, *right.origin])
        return V_DATA

    def compare(self, node: ast.Compare) -> Val:
        operands = [node.left, *node.comparators]
        vals = [as_data(self.ev(o)) for o in operands]
        for i, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                continue
            if any(isinstance(o, ast.Constant) and isinstance(o.value, (str, bytes)) for o in operands[i:i + 2]):
                # a tensor compared with a string (a cache slot holding a marker: Wan's `feat_cache[idx] != "Rep"`):
                # torch answers NotImplemented and Python compares identities; no op runs
                continue
            a, b = vals[i], vals[i + 1]
            if a.kind in TENSORISH or b.kind in TENSORISH:
                opname = OP_NAMES_BINOP[type(op)]
                self.report("HD106", node, f"comparison `{OP_SYMBOLS[type(op)]}` on a tensor computes a mask "
                                           f"(`{opname}`)", op=opname)
                return V_DATA
        return V_SCALAR

    # -- calls ----------------------------------------------------------------------------------------

    def eval_args(self, call: ast.Call) -> tuple[list[Val], dict[str, Val]]:
        args: list[Val] = []
        for a in call.args:
            v = self.ev(a)
            if v.kind in SUSPECT:
                self.value_use(a, v)
            if type(a) is ast.Starred:
                args.append(self.an.iter_elem(v))
            else:
                args.append(v)
        kwargs: dict[str, Val] = {}
        for kw in call.keywords:
            v = self.ev(kw.value)
            if v.kind in SUSPECT:
                self.value_use(kw.value, v)
            if kw.arg is not None:
                kwargs[kw.arg] = v
        return args, kwargs

    def value_use(self, node: ast.expr, val: Val) -> None:
        """A value flows somewhere (argument, return, container): a compute function must not."""
        if self.quiet:
            return
        k = val.kind
        if k == REF:
            rc = classify_ref(val.qual)
            if rc.what in ("compute", "math", "operator") and not val.qual.startswith("builtins."):
                if rc.what == "operator" and OPERATOR_BINOPS.get(rc.op) is ast.Add:
                    return
                self.report("HD113", node, f"passes the compute function `{self.an.snippet(node)}` "
                                           f"(`{val.qual}`) as a value", op=rc.op,
                            related=val.origin)
            elif rc.what == "namespace" and val.qual in ("torch", "torch.nn.functional", "torch.special",
                                                         "torch.linalg", "torch.fft", "math", "numpy"):
                self.report("HD113", node, f"passes the compute namespace `{self.an.snippet(node)}` as a value",
                            related=val.origin)
        elif k == METHOD and val.elem is not None and val.elem.kind in TENSORISH:
            rc = classify_method(val.qual)
            if rc.what == "compute":
                self.report("HD113", node, f"passes the tensor method `{val.qual}` as a value", op=rc.op)
        elif k == CHILD_ATTR:
            self.report("HD114", node, f"reads `{self.an.snippet(node)}`, a child's own tensor, in forward()")
        elif k == LOCAL_FN and val.node is not None:
            res = self.an.analyse_helper(val, [V_DATA] * 4, {})
            if res.violations:
                self.summarise_helper(node, val, res.violations, what="passed as a value")
        elif k == RAW_MODULE:
            self.report("HD109", node, f"passes `{self.an.snippet(node)}`, a module that is not a child",
                        related=val.origin)

    def call(self, call: ast.Call) -> Val:
        f = call.func
        # getattr(obj, "name") is judged like obj.name, but marked as a dynamic lookup
        if isinstance(f, ast.Name) and f.id == "getattr" and "getattr" not in self.env and \
                "getattr" not in self.an.globals and len(call.args) >= 2:
            base = self.ev(call.args[0])
            key = const_str(call.args[1])
            for extra in call.args[1:]:
                self.ev(extra)
            if key is not None:
                return self.attribute(call, base, key, via="dynamic")
            if base.kind == REF:
                return Val(REF, qual=f"{base.qual}.<name>", via="dynamic", origin=base.origin)
            if base.kind == SELF:
                return self.an.dynamic_self_attr or self.dynamic_self_lookup()
            if base.kind in TENSORISH:
                return Val(METHOD, qual="<name>", elem=base, via="dynamic")
            return V_DATA
        fv = self.ev(f)
        args, kwargs = self.eval_args(call)
        return self.apply(call, f, fv, args, kwargs)

    def check_module_arguments(self, call: ast.Call, f: ast.expr, args: list[Val], kwargs: dict[str, Val]) -> None:
        """A child handed another module can run it inside its own forward: the parent's wiring, and the
        compute attributed to each child, are then not what the step shows."""
        nodes: list[tuple[ast.expr, Val]] = list(zip(call.args, args, strict=False))
        nodes += [(kw.value, kwargs[kw.arg]) for kw in call.keywords if kw.arg is not None and kw.arg in kwargs]
        for node, val in nodes:
            if val.kind in (CHILD, CHILDREN, RAW_MODULE):
                self.report("HD115", node, f"passes the module `{self.an.snippet(node)}` to "
                                           f"`{self.an.snippet(f)}`, which can run it inside its own forward")

    # -- HD214: what a child is constructed with (quiet mode: __init__, module level, helpers they call) -----

    def check_child_constructor(self, call: ast.Call, f: ast.expr, fv: Val) -> None:
        """A child built with a function, callable or module as an argument runs whatever the parent chose
        (Pointwise(torch.sigmoid)): reported at the argument. Plain data (numbers, strings, bools, tuples of
        them, dtypes, shapes) is fine."""
        module = fv.qual.rsplit(".", 1)[0] if "." in fv.qual else fv.qual
        for node in [*call.args, *(kw.value for kw in call.keywords)]:
            found = self.ctor_arg_suspect(node, 0)
            if found is None:
                continue
            where, what, op = found
            origin = self.ev(where).origin if isinstance(where, (ast.Name, ast.Attribute, ast.Subscript)) else ()
            self.an.report(
                "HD214", where,
                f"passes {what} to the child `{self.an.snippet(f)}`: the child runs an op chosen by the parent, so "
                f"`{module}` is not a standalone test of any kernel; move the op into the child", op=op,
                related=[*origin, self.an.loc(call, f"the child `{self.an.snippet(f)}` is constructed here")])

    def ctor_arg_suspect(self, node: ast.expr, depth: int) -> tuple[ast.expr, str, str | None] | None:
        """(node, what it is, op) when a constructor argument is (or holds) a callable or a module."""
        t = type(node)
        if depth > 8 or t is ast.Constant or t is ast.JoinedStr or t is ast.Compare:
            return None
        snip = self.an.snippet(node)
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
                found = self.ctor_arg_suspect(part, depth + 1)
                if found is not None:
                    return found
            return None
        if t is ast.Call:
            call = node
            assert isinstance(call, ast.Call)
            fv = self.ev(call.func)
            if fv.kind == CHILD_CLASS:
                return node, f"the child module `{snip}`", None
            if fv.kind == LOCAL_CLASS:
                info = self.an.classes.get(fv.qual)
                if info is not None and (info.is_module or self.an.find_method(info, "__call__")[0] is not None):
                    return node, f"`{snip}`, a callable `{fv.qual}` defined in this file", camel_to_op(fv.qual)
            if fv.kind == REF:
                rc = classify_ref(fv.qual)
                if rc.what in ("nn_class", "container", "plumb_module"):
                    return node, f"the module `{snip}`", camel_to_op(rc.op)
                if fv.qual in CALLABLE_FACTORIES:
                    inner = next((x for x in (self.ctor_arg_suspect(a, depth + 1) for a in call.args) if x), None)
                    return node, f"the function `{snip}`", inner[2] if inner else None
            found = self.ctor_val_suspect(node, snip, self.ev(node), depth)  # getattr(torch, "tanh"), a helper
            if found is not None:
                return found
            for a in [*call.args, *(kw.value for kw in call.keywords)]:
                found = self.ctor_arg_suspect(a, depth + 1)
                if found is not None:
                    return found
            return None
        return self.ctor_val_suspect(node, snip, self.ev(node), depth)

    def ctor_val_suspect(self, node: ast.expr, snip: str, val: Val, depth: int) -> tuple[ast.expr, str, str | None] | None:
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
                found = self.ctor_val_suspect(node, snip, e, depth + 1)
                if found is not None:
                    return node, f"`{snip}`, which holds {found[1]}", found[2]
        return None

    def dynamic_self_lookup(self) -> Val:
        """getattr(self, name) with a computed name: any attribute could come back; the worst one counts."""
        worst: Val | None = None
        for v in self.an.self_attrs.values():
            worst = merge(worst, v)
        return worst or V_CHILD

    def apply(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        k = fv.kind
        if k == CHILD or k == CHILDREN:  # CHILDREN: an nn.Sequential of children
            self.check_module_arguments(call, f, args, kwargs)
            return V_DATA if self.quiet else self.child_out()
        if k == PLUMB_MODULE:
            return V_DATA
        if k == REF:
            return self.call_ref(call, f, fv, args, kwargs)
        if k == METHOD:
            return self.call_method(call, fv, args, kwargs)
        if k == LOCAL_FN:
            return self.call_helper(call, fv, args, kwargs, what="helper")
        if k == LOCAL_CLASS:
            info = self.an.classes.get(fv.qual)
            if info is not None and info.is_module and not self.quiet:
                self.report("HD201", call, f"constructs the module `{fv.qual}` inside forward()",
                            op=camel_to_op(fv.qual))
                return Val(RAW_MODULE, qual=fv.qual, node=call)
            if info is not None and info.is_module:
                return Val(RAW_MODULE, qual=fv.qual, node=call,
                           origin=(self.an.loc(call, f"`{fv.qual}` (defined in this file) built here"),))
            return V_SCALAR
        if k == CHILD_CLASS:
            if not self.quiet:
                self.report("HD201", call, f"constructs the child `{self.an.snippet(f)}` inside forward() "
                                           "(fresh weights on every call)", op=camel_to_op(fv.qual.split('.')[-1]))
            else:
                self.check_child_constructor(call, f, fv)
            return V_CHILD
        if k == CHILD_MODULE:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}`, a function imported from "
                                       f"`{fv.qual.rsplit('.', 1)[0]}`, not a child module: only a child "
                                       f"module's forward is verified", op=fv.qual.split(".")[-1])
            return V_DATA
        if k == RAW_MODULE:
            op = camel_to_op(fv.qual) if fv.qual else "module"
            self.report("HD109", call, f"calls `{self.an.snippet(f)}`, a `{fv.qual or 'module'}` that is not "
                                       f"a child component", op=op, related=fv.origin)
            return V_DATA
        if k == AUTOGRAD_APPLY:
            self.report("HD110", call, f"runs the autograd.Function `{fv.qual}`", op=camel_to_op(fv.qual),
                        related=[self.an.loc(fv.node, f"`{fv.qual}` defined here")] if fv.node else [])
            return V_DATA
        if k == SUPER:
            return V_DATA
        if k == SCALAR:
            if any(a.kind in TENSORISH for a in args) and not (
                    isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant)):  # "{}".format(x) is fine
                self.report("HD112", call, f"calls `{self.an.snippet(f)}` on a tensor; it is not a child module",
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if k == SEQ:
            self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                        related=fv.origin)
            return V_DATA
        if k == CHILD_ATTR:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}` on a child instead of the child itself",
                        op=fv.qual)
            return V_DATA
        # DATA / TCONST called: a value of unknown origin
        self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                    related=fv.origin)
        return V_DATA

    def call_ref(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        qual = fv.qual
        if qual.startswith("builtins."):
            name = qual[len("builtins."):]
            if "." in name:
                if name.rsplit(".", 1)[1].startswith("__"):  # object.__getattribute__(x, "relu") & co
                    self.report("HD103", call, f"`{spelled_of(self.an, f)}` reaches attributes by name at run time")
                    return V_DATA
                return V_SCALAR
            return self.call_builtin(call, name, args, kwargs)
        if qual in ("functools.reduce", "_functools.reduce") and len(args) >= 2 and args[1].kind == SEQ and \
                self.is_addition(call.args[0], args[0]):
            self.check_sum_of_sequence(call, call.args[1], args[1], f"`{self.an.snippet(f)}` with an addition")
            return V_DATA
        if not qual.startswith(("torch", "<")) and (is_namedtuple_class(qual) or is_output_dataclass(qual)):
            return seq_val(elts=[*args, *kwargs.values()])   # packs its arguments, as a tuple or dict literal
        rc = classify_ref(qual)
        w = rc.what

        def spelled() -> str:  # only built when a violation is reported: it is the costly part
            return self.an.snippet(f)

        any_tensor = any(a.kind in TENSORISH for a in args) or any(
            v.kind in TENSORISH for v in kwargs.values()) if w in ("neutral", "const", "namespace", "math") else False
        if self.quiet and w in ("compute", "plumb") and qual.startswith("torch"):
            return Val(TCONST, qual=rc.op)
        if w == "compute":
            if fv.via == "dynamic":
                self.report("HD103", call, f"`{spelled()}` looks up `{qual}` by name at run time: compute "
                                           f"(`{rc.op}`)", op=rc.op, related=fv.origin)
            elif fv.via == "alias" or (fv.origin and fv.via not in ("import", "star")):
                self.report("HD102", call, f"`{spelled()}` is an alias of `{qual}`: compute (`{rc.op}`)",
                            op=rc.op, related=fv.origin)
            else:
                what = f"`{spelled()}`" + (f" (`{qual}`)" if spelled() != qual else "")
                self.report("HD101", call, f"{what} is compute (`{rc.op}`)", op=rc.op, related=fv.origin)
            return V_DATA
        if w == "plumb":
            if rc.op in ("split", "chunk", "unbind", "tensor_split", "split_with_sizes", "hsplit",
                         "vsplit", "dsplit", "unsafe_chunk", "unsafe_split", "broadcast_tensors", "unpack"):
                return seq_val(V_DATA)
            first = args[0] if args else V_DATA
            if first.kind == SEQ:  # torch.cat([a, b]): a child's output if every part is
                first = first.elem or V_DATA
            return first if is_child_out(first) else V_DATA
        if w == "shape":
            return V_SCALAR
        if w in ("neutral", "const", "namespace"):
            if rc.op in ("no_grad", "enable_grad", "inference_mode", "autocast"):
                return V_SCALAR
            return V_SCALAR if not any_tensor else V_DATA
        if w in ("nn_class", "container", "parameter", "plumb_module"):
            if self.quiet:
                if w == "container":
                    return Val(CHILDREN)
                if w == "plumb_module":
                    return Val(PLUMB_MODULE, qual=rc.op)
                if w == "parameter":
                    return Val(TCONST, qual=rc.op)
                return Val(RAW_MODULE, qual=rc.op, node=call)
            self.report("HD201", call, f"constructs `{spelled()}` inside forward()", op=camel_to_op(rc.op))
            return Val(RAW_MODULE, qual=rc.op, node=call)
        if w == "autograd":
            return V_DATA
        if w == "copy":  # copy.deepcopy(self.block) is another instance of the same child
            return args[0] if args else V_DATA
        if w == "math":
            if any_tensor:
                self.report("HD107", call, f"`{spelled()}` applied to a tensor is compute (`{rc.op}`)", op=rc.op,
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if w == "operator":
            opcls = OPERATOR_BINOPS[rc.op]
            if len(args) >= 2:
                return self.binop(call, opcls(), args[0], args[1], call.args[0], call.args[1])
            return V_DATA
        if w == "dynamic":
            if qual == "operator.methodcaller":
                self.report("HD103", call, f"`{spelled()}` calls a method chosen by name at run time")
                return V_SCALAR
            if qual.endswith("import_module") and call.args:
                mod = const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        # external (third party / helper file) code
        if self.quiet:
            # built in __init__ from plain data only (`FastSpeech2ConformerConfig(hidden_size=128, ...)`): a
            # configuration object, whose attributes are plain values, as a local class's instance is; a tensor
            # handed to it, or an op of it with a tensor, is still compute (apply and binop on SCALAR report it)
            if all(_plain_data(v) for v in [*args, *kwargs.values()]):
                return V_SCALAR
            return V_DATA
        where = "a helper file outside children/" if qual.startswith("<helper:") else "outside torch"
        self.report("HD112", call, f"calls `{spelled()}` ({where}): it cannot be proven to be plumbing",
                    op=rc.op, related=fv.origin)
        return V_DATA

    def call_builtin(self, call: ast.Call, name: str, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if name in BUILTIN_DYNAMIC:
            self.report("HD209", call, f"`{name}` runs code that static analysis cannot see", op=name)
            if name == "__import__" and call.args:
                mod = const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        if name in ("globals", "locals", "vars"):
            if name == "vars" and args and args[0].kind == REF:
                return Val(REF, qual=f"{args[0].qual}.__dict__", via="dynamic")
            return Val(REF, qual="builtins.<globals>", via="dynamic")
        if name in ("setattr", "delattr"):
            if call.args:
                tv = args[0] if args else V_DATA
                attr = const_str(call.args[1]) if len(call.args) > 1 else None
                if tv.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or attr in PATCH_ATTRS:
                    self.report("HD207", call, f"`{name}` rebinds an attribute of "
                                               f"`{self.an.snippet(call.args[0])}` (monkeypatching)")
            return V_SCALAR
        if name in BUILTIN_MATH:
            op = BUILTIN_MATH[name]
            if name == "sum" and args and args[0].kind == SEQ and (args[0].elem or V_DATA).qual != "python-number":
                # sum of a list of tensors: a chain of residual adds, when the list is written out or holds
                # children's outputs; over slices of a tensor (a generator, unbind, a list filled in a
                # loop) it is a reduction
                elem = args[0].elem or V_DATA
                if elem.kind not in TENSORISH:
                    return V_SCALAR
                self.check_sum_of_sequence(call, call.args[0], args[0], "builtin `sum`")
                return elem if elem.kind == TCONST else V_DATA
            if any(a.kind in TENSORISH for a in args) or (args and args[0].kind == SEQ and args[0].elem is not None
                                                           and args[0].elem.kind in TENSORISH):
                self.report("HD107", call, f"builtin `{name}` applied to a tensor is compute (`{op}`)", op=op)
                return V_DATA
            return V_SCALAR
        if name in ("map", "filter") and args:
            rest = args[1] if len(args) > 1 else V_DATA
            return seq_val(V_DATA if name == "map" else self.an.iter_elem(rest))
        if name == "len":
            return V_SCALAR
        if name == "range":
            return seq_val(V_SCALAR)
        if name == "enumerate":
            return seq_val(Val(SEQ, elts=(V_SCALAR, self.an.iter_elem(args[0] if args else V_DATA)),
                            elem=V_DATA))
        if name == "zip":
            return seq_val(seq_val(elts=[self.an.iter_elem(a) for a in args]))
        if name in ("list", "tuple", "sorted", "reversed", "set", "frozenset", "iter"):
            if not args:
                return seq_val(V_EMPTY, elts=())
            a = args[0]
            if a.kind == SEQ:
                return a
            return seq_val(self.an.iter_elem(a))
        if name == "dict":
            return Val(SEQ, elem=merge(None, args[0].elem or V_DATA) if args and args[0].kind == SEQ else V_DATA,
                       qual="dict")
        if name == "next":
            return self.an.iter_elem(args[0]) if args else V_DATA
        if name == "super":
            return Val(SUPER)
        if name in ("int", "float", "bool", "complex"):
            return V_PYDATA if args and args[0].kind in TENSORISH else V_SCALAR
        if name == "str":
            return V_SCALAR
        if name == "type" and len(args) == 1 and args[0].kind in TENSORISH:
            return Val(REF, qual="torch.Tensor")  # type(x).relu(x) is torch.Tensor.relu(x)
        return V_SCALAR

    @staticmethod
    def is_addition(node: ast.expr, fn: Val) -> bool:
        """operator.add / operator.iadd / `lambda a, b: a + b`: a reduce() with it is a sum."""
        if fn.kind == REF and fn.qual in ("operator.add", "operator.iadd", "operator.__add__", "_operator.add"):
            return True
        fnode = fn.node if fn.kind == LOCAL_FN else node
        if isinstance(fnode, ast.Lambda):
            return type(fnode.body) is ast.BinOp and type(fnode.body.op) is ast.Add
        return False

    def check_sum_of_sequence(self, call: ast.Call, seq_node: ast.expr, seq: Val, what: str) -> None:
        """HD116 for a sum over a sequence of tensors that are not all children's outputs (unless the
        sequence is written out, `sum([a, b])`, which is `a + b`)."""
        elem = seq.elem or V_DATA
        if seq.elts is not None or elem.kind == TCONST or is_child_out(elem) or elem is V_EMPTY:
            return
        self.report("HD116", call, f"{what} over `{self.an.snippet(seq_node)}` adds up slices or values that are "
                                   f"not children's outputs: a reduction (`sum`), not a residual", op="sum")

    def call_method(self, call: ast.Call, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        recv = fv.elem or V_DATA
        name = fv.qual
        rk = recv.kind
        if rk in TENSORISH:
            if name == "<name>":
                self.report("HD103", call, "calls a tensor method chosen by name at run time", op=None)
                return V_DATA
            rc = classify_method(name)
            if rc.what == "binop":
                other = args[0] if args else V_DATA
                return self.binop(call, DUNDER_BINOPS[name](), recv, other, call, call)
            if name in ("item", "tolist"):
                # the tensor's values as Python numbers: arithmetic on them is still compute
                return seq_val(V_PYDATA) if name == "tolist" else V_PYDATA
            if rc.what == "shape":
                return V_SCALAR
            if rc.what == "plumb":
                if name in ("split", "chunk", "unbind", "tensor_split", "split_with_sizes", "hsplit",
                            "vsplit", "dsplit", "unsafe_chunk", "unsafe_split"):
                    return seq_val(V_DATA)
                return recv if rk == TCONST or recv.qual == CHILD_OUT else V_DATA
            if rc.what == "compute":
                spelled = self.an.snippet(call.func)
                if fv.via == "dynamic":
                    self.report("HD103", call, f"`{spelled}` looks up the tensor method `{name}` by name: "
                                               f"compute (`{rc.op}`)", op=rc.op)
                elif name.endswith("_") and not name.endswith("__"):
                    self.report("HD105", call, f"`.{name}()` modifies a tensor in place with compute "
                                               f"(`{rc.op}`)", op=rc.op)
                else:
                    self.report("HD104", call, f"`.{name}()` is a tensor compute method (`{rc.op}`)", op=rc.op)
                return V_DATA
            if rk == CHILD_ATTR:
                return V_DATA
            return V_DATA
        if rk == CHILDREN:
            if name in ("items", "named_children"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("values", "children", "modules", "__iter__"):
                return seq_val(V_CHILD)
            if name in ("keys",):
                return seq_val(V_SCALAR)
            if name in ("get", "__getitem__", "pop"):
                return V_CHILD
            if name in ("__len__",):
                return V_SCALAR
            self.report("HD111", call, f"calls `.{name}()` on a container of children", op=name)
            return V_DATA
        if rk == SELF:
            if name in ("children", "modules"):
                return seq_val(V_CHILD)
            if name in ("named_children", "named_modules"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("parameters", "buffers"):
                return seq_val(Val(CHILD_ATTR, qual="parameter"))
            if name in ("named_parameters", "named_buffers", "state_dict"):
                return seq_val(Val(SEQ, elts=(V_SCALAR, Val(CHILD_ATTR)), elem=V_DATA))
            if name == "forward":
                return V_DATA
            if name in ("register_buffer", "register_parameter"):
                self.report("HD204", call, f"`self.{name}` inside forward() gives the model its own state")
                return V_SCALAR
            if name == "apply":
                self.report("HD112", call, "`self.apply(fn)` runs a function over modules from forward()")
                return V_DATA
            return V_SCALAR
        if rk == SEQ:
            if name in ("append", "insert", "add") and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, args[-1])
                return V_SCALAR
            if name == "extend" and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, self.an.iter_elem(args[0]))
                return V_SCALAR
            if name in ("items",):
                return seq_val(Val(SEQ, elts=(V_SCALAR, recv.elem or V_DATA), elem=recv.elem))
            if name in ("values",):
                return seq_val(recv.elem or V_DATA)
            if name in ("keys", "index", "count"):
                return seq_val(V_SCALAR) if name == "keys" else V_SCALAR
            if name in ("get", "pop", "setdefault"):
                return recv.elem or V_DATA
            if name == "copy":
                return recv
            return V_SCALAR
        if rk == SCALAR:
            return V_SCALAR
        return V_DATA

    def call_helper(self, node: ast.AST, fn: Val, args: list[Val], kwargs: dict[str, Val], what: str) -> Val:
        if self.quiet:
            # module level / __init__: only what the helper returns matters (a container of children, an
            # alias of a compute function, a raw module...); what it does is judged where it is used
            return self.an.analyse_helper(fn, args, kwargs, quiet=True).ret
        res = self.an.analyse_helper(fn, args, kwargs)
        if res.violations:
            self.summarise_helper(node, fn, res.violations, what=what)
        ret = res.ret
        if ret.kind == DATA and ret.qual == CHILD_OUT and ret.ctx and ret.ctx[0] == HELPER_PATH[0]:
            return self.child_out()  # a child called inside the helper, during this call
        return ret

    def summarise_helper(self, node: ast.AST, fn: Val, inner: list[AntiCheatViolation], what: str) -> None:
        first = inner[0]
        name = fn.qual or "<lambda>"
        label = "lambda" if isinstance(fn.node, ast.Lambda) else {
            "property": "property", "staticmethod": "staticmethod", "classmethod": "classmethod",
        }.get(self.an._fn_kind(fn.node), what if what != "passed as a value" else "helper")
        ops = sorted({v.op for v in inner if v.op})
        where = self.an.header_range(fn.node) if isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else source_range(fn.node)
        related = [*fn.origin, RelatedLocation(f"{label} `{name}` defined here", where, self.an.path)]
        for v in inner[:5]:
            if v.range is not None:
                related.append(RelatedLocation(f"{v.rule}: {v.message}", v.range, self.an.path))
            related.extend(v.related[:2])
        msg = (f"{label} `{name}`{' (passed as a value)' if what == 'passed as a value' else ''} does "
               f"compute: {first.message}")
        self.report("HD108", node, msg, op=first.op, related=related,
                    details={"inner_rules": sorted({v.rule for v in inner}), "ops": ops})


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

_EV_DISPATCH: dict[type, Any] = {
    ast.Name: ForwardEval.name, ast.Call: ForwardEval.call, ast.Attribute: ForwardEval.ev_attribute,
    ast.Constant: ForwardEval.ev_constant, ast.BinOp: ForwardEval.ev_binop,
    ast.Subscript: ForwardEval.subscript, ast.Tuple: ForwardEval.ev_sequence,
    ast.List: ForwardEval.ev_sequence, ast.Set: ForwardEval.ev_sequence, ast.Dict: ForwardEval.ev_dict,
    ast.Compare: ForwardEval.compare, ast.UnaryOp: ForwardEval.ev_unary, ast.BoolOp: ForwardEval.ev_boolop,
    ast.IfExp: ForwardEval.ev_ifexp, ast.JoinedStr: ForwardEval.ev_joinedstr,
    ast.FormattedValue: ForwardEval.ev_formatted, ast.Lambda: ForwardEval.ev_lambda,
    ast.ListComp: ForwardEval.ev_comp, ast.SetComp: ForwardEval.ev_comp, ast.GeneratorExp: ForwardEval.ev_comp,
    ast.DictComp: ForwardEval.ev_dictcomp, ast.Starred: ForwardEval.ev_starred,
    ast.NamedExpr: ForwardEval.ev_namedexpr, ast.Slice: ForwardEval.ev_slice, ast.Await: ForwardEval.ev_await,
    ast.Yield: ForwardEval.ev_await, ast.YieldFrom: ForwardEval.ev_await,
}
