"""Expression evaluation for the forward evaluator: every expression of forward() (and of the helpers it
calls) evaluated over the values of its file's scan; operators judged, values that flow somewhere checked, and
helpers run. Calls are judged by the subclass (calls.py), statements by ForwardEval (forward_eval.py)."""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from hdecomp.anticheat.rules import AntiCheatViolation, RelatedLocation
from hdecomp.anticheat.static.names import classify_method, classify_ref
from hdecomp.anticheat.static.scan_context import ScanContext
from hdecomp.anticheat.static.values import (
    AUTOGRAD_APPLY,
    CHILD,
    CHILD_ATTR,
    CHILD_CLASS,
    CHILD_MODULE,
    CHILD_OUT,
    CHILDREN,
    DATA,
    DECLARED_NUMBER,
    HELPER_PATH,
    HOST,
    LOCAL_CLASS,
    LOCAL_FN,
    METHOD,
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
    V_HOST,
    V_SCALAR,
    V_SELF,
    Val,
    as_data,
    builds_host,
    const_str,
    function_kind,
    iter_elem,
    merge,
    plain_data,
    root_name,
    seq_val,
    source_range,
    unpack,
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


class ExpressionEval(ABC):
    """Evaluates expressions over abstract values, reporting compute into `sink`. In quiet mode (module
    level, __init__) it only infers kinds. A call is judged by `call`, which the subclass provides."""

    def __init__(self, an: ScanContext, env: dict[str, Val], sink: list[AntiCheatViolation],
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

    def child_out(self) -> Val:
        return V_CHILD_OUT if not self.loop_path else Val(DATA, qual=CHILD_OUT, ctx=self.loop_path)

    def fresh(self, v: Val) -> bool:
        """v is the output of a child called in the current iteration of the innermost loop."""
        if v.kind != DATA or v.qual != CHILD_OUT or not self.loop_path:
            return False
        n = len(self.loop_path)
        return v.ctx is not None and len(v.ctx) >= n and v.ctx[:n] == self.loop_path

    def bind(self, target: ast.expr, val: Val, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            for bound in self.pass_bound:
                bound.add(target.id)
            if DECLARED_NUMBER + target.id in self.env:
                val = V_SCALAR
            if val.kind in (REF, LOCAL_FN, RAW_MODULE, METHOD) and not self.quiet:
                val = val.with_origin(self.an.loc(value, f"`{target.id}` bound to `{self.an.snippet(value)}` "
                                                         f"here"), via="alias")
            self.env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = None
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Starred):
                    starred = i
                    self.bind(t.value, seq_val(unpack(val, i)), value)
                else:
                    self.bind(t, unpack(val, i if starred is None else -1), value)
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
            name = root_name(target.value)
            if base.kind == HOST and not plain_data(val, host=True) and name is not None and name in self.env:
                self.env[name] = V_DATA   # a host value with a model's tensor written into it holds data
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
        if t is ast.Call:
            return self.call(node)  # type: ignore[arg-type]
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
                v = iter_elem(v)
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
            self.bind(g.target, iter_elem(it), g.iter)
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
        if k in TENSORISH or k == HOST:
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
                kind = function_kind(m)
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
                kind = function_kind(m)
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
        if base.kind == HOST:
            return base if plain_data(idx, host=True) else V_DATA
        if base.kind in (TCONST, CHILD_ATTR) or (base.kind == DATA and base.qual == CHILD_OUT):
            return base
        del idx
        return V_DATA

    @abstractmethod
    def call(self, call: ast.Call) -> Val:
        """A call, judged by what it resolves to (CallEval)."""

    # -- operators ------------------------------------------------------------------------------------

    def binop(self, node: ast.AST, op: ast.operator, left: Val, right: Val, lnode: ast.expr,
              rnode: ast.expr) -> Val:
        left, right = as_data(left), as_data(right)
        if HOST in (left.kind, right.kind):
            if builds_host([left, right]):
                return V_HOST   # arithmetic on constants of the shapes: host code
            if isinstance(op, ast.Add) and {left.kind, right.kind} <= {*TENSORISH, HOST} and TCONST not in (
                    left.kind, right.kind):
                return V_DATA   # residual: tensor + tensor
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
        if any(v.kind == HOST for v in vals) and builds_host(vals):
            return V_HOST   # a mask of constants of the shapes
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

    # -- values that flow somewhere, and helpers ------------------------------------------------------

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
        }.get(function_kind(fn.node), what if what != "passed as a value" else "helper")
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


# ast.Call is not here: `ev` hands a call to `call`, which the subclass provides
_EV_DISPATCH: dict[type, Any] = {
    ast.Name: ExpressionEval.name, ast.Attribute: ExpressionEval.ev_attribute,
    ast.Constant: ExpressionEval.ev_constant, ast.BinOp: ExpressionEval.ev_binop,
    ast.Subscript: ExpressionEval.subscript, ast.Tuple: ExpressionEval.ev_sequence,
    ast.List: ExpressionEval.ev_sequence, ast.Set: ExpressionEval.ev_sequence,
    ast.Dict: ExpressionEval.ev_dict, ast.Compare: ExpressionEval.compare,
    ast.UnaryOp: ExpressionEval.ev_unary, ast.BoolOp: ExpressionEval.ev_boolop,
    ast.IfExp: ExpressionEval.ev_ifexp, ast.JoinedStr: ExpressionEval.ev_joinedstr,
    ast.FormattedValue: ExpressionEval.ev_formatted, ast.Lambda: ExpressionEval.ev_lambda,
    ast.ListComp: ExpressionEval.ev_comp, ast.SetComp: ExpressionEval.ev_comp,
    ast.GeneratorExp: ExpressionEval.ev_comp, ast.DictComp: ExpressionEval.ev_dictcomp,
    ast.Starred: ExpressionEval.ev_starred, ast.NamedExpr: ExpressionEval.ev_namedexpr,
    ast.Slice: ExpressionEval.ev_slice, ast.Await: ExpressionEval.ev_await,
    ast.Yield: ExpressionEval.ev_await, ast.YieldFrom: ExpressionEval.ev_await,
}
