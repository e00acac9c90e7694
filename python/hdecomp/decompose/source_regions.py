"""Regions: the runs of compute statements a source-level step moves into children, and the data flow
between them and the parent (see source_step.py)."""

from __future__ import annotations

import ast
import contextvars
import copy
from dataclasses import dataclass, field

import torch

from hdecomp.anticheat.static.values import dotted_name
from hdecomp.decompose.naming import safe_local
from hdecomp.decompose.source_forward import SourceStepError
from hdecomp.decompose.source_names import names_of, self_method_calls
from hdecomp.decompose.source_reading import AttrInfo, Span, has_call, line_span, overlaps_flagged
from hdecomp.decompose.source_rewrites import flags_only
from hdecomp.vocab.ops import PARENT_METHODS, RUN_MODES

# Statements a first plan made children that computed on numbers alone at every recorded call (`eq = total == n`
# of a `(a * b).sum() == n` split one op each; the check handed its answer): a plan made again keeps them in
# the parent (by their text), and writes the children's outputs they read claimed numbers (`total: int =
# self.sum(mul)`, name -> "int" or "bool"), as the static check reads a number claimed so and the run checks it.
HOST_STATEMENTS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("host_statements",
                                                                                  default=frozenset())
HOST_CLAIMS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("host_claims", default=None)


@dataclass
class Region:
    """Consecutive statements (or one expression) of the forward that become one child."""

    index: int
    stmts: list[ast.stmt] = field(default_factory=list)
    expr: ast.expr | None = None
    contexts: list[ast.withitem] = field(default_factory=list)   # autocast & co. pushed down into the child
    in_loop: bool = False
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attr: str = ""
    local_defs: list[ast.stmt] = field(default_factory=list)
    passed: dict[str, ast.expr] = field(default_factory=dict)   # input -> what the parent passes, if not its name
    hands: set[str] = field(default_factory=set)   # names the next region reads on its line (Splitter.one_op_each)
    first_line: str = ""   # its first line as the forward wrote it (before an element read became an input)
    # a loop body reading one entry of stacked tensors (`self.weight[i]`): the name of the index, the tensors,
    # and how many entries each holds (stacked_entries)
    entry: str = ""
    stacked: list[str] = field(default_factory=list)
    entries: int = 0

    @property
    def nodes(self) -> list[ast.AST]:
        return [self.expr] if self.expr is not None else list(self.stmts)

    def rewrite(self, t: ast.NodeTransformer) -> None:
        """Its code as `t` rewrites it (statements or expression, and the contexts it runs under), its first
        line kept as the forward wrote it (the file's docstring quotes it)."""
        self.first_line = self.first_line or ast.unparse(self.expr if self.expr is not None
                                                         else self.stmts[0]).split("\n")[0]
        self.stmts = [t.visit(st) for st in self.stmts]
        if self.expr is not None:
            self.expr = t.visit(self.expr)
        for it in self.contexts:
            it.context_expr = t.visit(it.context_expr)


def submodule_call_count(r: Region, attrs: dict[str, AttrInfo]) -> int:
    """How many calls of the module's submodules region `r` holds."""
    return sum(1 for _, a in self_method_calls(r.nodes) if a in attrs and attrs[a].kind in ("module", "container"))


def _rng_scope(s: ast.With) -> bool:
    """`with torch.random.fork_rng(...):` (or torch's other fork_rng): a scope of the random state."""
    return all(isinstance(it.context_expr, ast.Call) and (dotted_name(it.context_expr.func) or "").endswith("fork_rng")
               for it in s.items)


# run modes that leave the values alone (vocab.ops.RUN_MODES, autocast excepted: it changes the dtypes the calls
# inside compute in, so its children hold it)
_VALUE_NEUTRAL_MODES = RUN_MODES - {"autocast"}


def _mode_scope(s: ast.With) -> bool:
    """`with torch.no_grad():`, `with sdpa_kernel(SDPBackend.MATH):`: a mode of the run that computes the same
    values, which the parent keeps around the children of its body."""
    return all(isinstance(it.context_expr, ast.Call) and it.optional_vars is None and
               (dotted_name(it.context_expr.func) or "").split(".")[-1] in _VALUE_NEUTRAL_MODES for it in s.items)


class Splitter:
    """Walks the forward's blocks and cuts regions; `forced` statements (by position) are compute whatever
    the analysis says (they read the parent's tensors, call its methods, or share a submodule with a
    region)."""

    def __init__(self, flagged: list[Span], forced: set[tuple[int, int]], per_statement: bool = False) -> None:
        self.flagged = flagged
        self.forced = forced
        self.regions: list[Region] = []
        # one region per statement, not per run of them: under a pushed-down context (the context is the
        # whole forward: its statements are the children) and in a fusion (whose children are kernels)
        self.per_statement = per_statement
        self.local_modules: set[str] = set()   # local names the forward calls (modules from a container)
        self.containers: set[str] = set()      # container attributes (`self.experts[i](x)` calls an item)
        self.kept: set[int] = set()            # statements made here that the parent keeps
        self.flag_calls: set[str] = set()      # calls that answer from the configuration (config_flag_calls)
        self.hoist_count = 0
        self.names: set[str] = set()           # the forward's names (for the ones one_op_each makes)
        self.weights: set[str] = set()         # the tensor attributes (parameters, buffers) of the module
        self.host = HOST_STATEMENTS.get()      # statements kept in the parent, computing on numbers alone

    def compute(self, node: ast.AST, contexts: list[ast.withitem]) -> bool:
        if id(node) in self.kept:
            return False
        key = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        if key in self.forced or overlaps_flagged(node, self.flagged):
            return True
        return bool(contexts) and has_call(node)   # under a pushed-down context every call needs it

    def _module_call(self, f: ast.expr) -> bool:
        """A call of a module the parent holds through a local name (a module taken from a container in a
        loop: `for e, expert in enumerate(self.experts)`) or an item of a container (`self.experts[i]`,
        `self[f"expert_{i}"]` in a ModuleDict's own forward)."""
        if isinstance(f, ast.Name):
            return f.id in self.local_modules
        return (isinstance(f, ast.Subscript) and isinstance(f.value, ast.Attribute)
                and isinstance(f.value.value, ast.Name) and f.value.value.id == "self"
                and f.value.attr in self.containers and not has_call(f.slice))

    def hoist_local_calls(self, s: ast.stmt) -> list[ast.stmt]:
        """Calls of a module inside a compute statement (_module_call) move before it as
        `_child_out_N = expert(...)`, kept in the parent: a child must not be handed a module. Their
        arguments that are not plain data plumbing become expression regions."""
        hoisted: list[ast.stmt] = []
        splitter = self

        class Hoist(ast.NodeTransformer):
            def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
                return node   # a lambda's body runs later, inside whatever calls it

            def visit_Call(self, node: ast.Call) -> ast.AST:
                self.generic_visit(node)
                if not splitter._module_call(node.func):
                    return node
                node.args = [a if _plain_data(a) else splitter.expr_region(a, True, []) for a in node.args]
                name = f"_child_out_{splitter.hoist_count}"
                splitter.hoist_count += 1
                hoisted.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                                            value=node), s))
                splitter.kept.add(id(hoisted[-1]))
                return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)

        Hoist().visit(s)
        return hoisted

    def new_region(self, in_loop: bool, contexts: list[ast.withitem]) -> Region:
        r = Region(index=len(self.regions), in_loop=in_loop, contexts=list(contexts))
        self.regions.append(r)
        return r

    def expr_region(self, expr: ast.expr, in_loop: bool, contexts: list[ast.withitem]) -> ast.expr:
        r = self.new_region(in_loop, contexts)
        r.expr = expr
        return _placeholder_call(r)

    def value_regions(self, expr: ast.expr, in_loop: bool, contexts: list[ast.withitem]) -> ast.expr:
        """A returned value: a tuple/list/dict display keeps its structure in the parent and only the
        elements that compute become children (`return {"h": h, "pair": (h.sum(-1), self.out(h))}`)."""
        if isinstance(expr, (ast.Tuple, ast.List)):
            expr.elts = [self.value_regions(e, in_loop, contexts) if self.compute(e, contexts) else e
                         for e in expr.elts]
            return expr
        if isinstance(expr, ast.Dict) and all(k is not None and not self.compute(k, contexts) for k in expr.keys):
            expr.values = [self.value_regions(v, in_loop, contexts) if self.compute(v, contexts) else v
                           for v in expr.values]
            return expr
        # `h.norm() > 1.0 and steps < 10`: Python's `and`/`or`/`not` stay, each computing operand is a child
        if isinstance(expr, ast.BoolOp):
            expr.values = [self.value_regions(v, in_loop, contexts) if self.compute(v, contexts) else v
                           for v in expr.values]
            return expr
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            expr.operand = self.value_regions(expr.operand, in_loop, contexts)
            return expr
        return self.expr_region(expr, in_loop, contexts)

    def block(self, stmts: list[ast.stmt], in_loop: bool, contexts: list[ast.withitem],
              whole_forward: bool = False) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        run: Region | None = None
        compute_stmts = [s for s in stmts if self._any_compute(s, contexts) or
                         (isinstance(s, (ast.With, ast.AsyncWith)) and has_call(s))]
        # a packed weight's parts (`pre_b, post_b, comb_b = self.base.split([n, n, n * n])`) and the views of
        # them (`comb_b = comb_b.view(n, n)`) wait for the first compute that reads them, and join its region:
        # the region that uses a part owns the weight (one of its own a kernel of pure plumbing would slice)
        pending = _Pending()

        def flush() -> None:
            nonlocal run
            if not pending.stmts:
                return
            if run is None:
                run = self.new_region(in_loop, contexts)
                out.append(placeholder_stmt(run))
            run.stmts.extend(pending.stmts)
            pending.clear()

        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
                out.append(s)   # definitions: copied into the children that use them (see finish)
                continue
            defer = not contexts and not self.per_statement and isinstance(s, ast.Assign)
            if defer and self.compute(s, contexts) and self._weight_parts(s) and not pending.clashes(s):
                pending.add(s)
                continue
            if pending.stmts:
                reads, clash = pending.reads(s), pending.clashes(s)
                if defer and reads and not self.compute(s, contexts) and _local_views(s):   # (joins them)
                    pending.add(s)
                    continue
                if reads or clash or isinstance(s, ast.Return):
                    flush()
            if self.compute(s, contexts):
                s = _ternary_as_if(s)
            simple = not isinstance(s, (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                                        ast.Try, ast.Match))
            if isinstance(s, ast.Return):
                run = None
                if s.value is not None and self.compute(s.value, contexts):
                    s.value = self.value_regions(s.value, in_loop, contexts)
                out.append(s)
                continue
            if simple and _list_mutation(s) and self.compute(s, contexts):
                # `outs.append(<compute>)`: the list stays the parent's, its new item comes from a child
                run = None
                out.extend(self.hoist_local_calls(s))   # (`self.proj[i](f)` in it: the parent's call)
                call = s.value   # type: ignore[attr-defined]
                computing = [self.compute(a, contexts) for a in call.args]
                if not any(computing):
                    # (the statement is forced, none of its operands flagged: it reads what the parent may not,
                    # OneFormer's `levels.append(self.proj[i](f).flatten(2) + self.level_embed.weight[i][...])`)
                    computing = [not _plain_data(a) for a in call.args]
                call.args = [self.expr_region(a, in_loop, contexts) if c else a
                             for a, c in zip(call.args, computing, strict=True)]
                out.append(s)
                continue
            if simple and self.host and ast.unparse(s) in self.host:
                self.kept.add(id(s))   # (a statement on numbers alone: HOST_STATEMENTS)
            if simple and self.compute(s, contexts):
                hoisted = self.hoist_local_calls(s)
                if hoisted:   # `out.index_add_(0, tok, expert(x[tok]) * w)`: the expert's call is the parent's
                    run = None
                    out.extend(hoisted)
                if self.per_statement and not contexts:
                    for part in self.one_op_each(s):
                        if id(part) in self.kept or (self.host and ast.unparse(part) in self.host):
                            out.append(part)
                            continue
                        r = self.new_region(in_loop, contexts)
                        r.stmts.append(part)
                        r.hands.add(part.targets[0].id)  # type: ignore[attr-defined]
                        out.append(placeholder_stmt(r))
                    if self.host and ast.unparse(s) in self.host:
                        self.kept.add(id(s))   # (what is left of it, on numbers alone)
            if simple:
                if self.compute(s, contexts):
                    if run is None or contexts or self.per_statement:   # see __init__
                        run = self.new_region(in_loop, contexts)
                        out.append(placeholder_stmt(run))
                    run.stmts.append(s)
                else:
                    run = None
                    out.append(s)
                continue
            run = None
            if isinstance(s, ast.With) and (_rng_scope(s) or (_mode_scope(s) and
                                                              not any(self.compute(it.context_expr, contexts)
                                                                      for it in s.items))):
                # `with torch.random.fork_rng():` scopes the random state the body seeds and draws from: it
                # stays the parent's, around the children of its body (pushed down, the seed and the draws
                # would each get a scope of their own)
                s.body = self.block(s.body, in_loop, contexts, whole_forward=whole_forward)
                out.append(s)
                continue
            # a context (autocast) changes what the calls inside compute: children called inside hold it
            if isinstance(s, (ast.With, ast.AsyncWith)) and (self._any_compute(s, contexts) or has_call(s)):
                push = whole_forward and compute_stmts == [s]
                if not push:   # the region as one child that holds the context
                    r = self.new_region(in_loop, contexts)
                    r.stmts.append(s)
                    out.append(placeholder_stmt(r))
                    continue
                # the whole forward is this block: its children carry the context themselves
                s.body = self.block(s.body, in_loop, [*contexts, *s.items], whole_forward=True)
                if any(self.compute(it.context_expr, []) for it in s.items):
                    out.extend(s.body)   # a context the parent may not enter: only the children hold it
                else:
                    out.append(s)
                continue
            if isinstance(s, ast.If):
                # (a test on flags, `if self.has_mask():` whose call answers from the configuration, stays:
                # a child for it would hold the submodules it looks at, a second copy of their weights)
                if self.compute(s.test, contexts) and not (self.flag_calls and
                                                           flags_only(s.test, self.flag_calls)):
                    s.test = self.value_regions(s.test, in_loop, contexts)
                s.body = self.block(s.body, in_loop, contexts) or [ast.Pass()]
                s.orelse = self.block(s.orelse, in_loop, contexts)
            elif isinstance(s, ast.While):
                if self.compute(s.test, contexts):
                    s.test = self.value_regions(s.test, True, contexts)
                s.body = self.block(s.body, True, contexts) or [ast.Pass()]
                s.orelse = self.block(s.orelse, in_loop, contexts)
            elif isinstance(s, (ast.For, ast.AsyncFor)):
                if self.compute(s.iter, contexts):
                    s.iter = self.expr_region(s.iter, in_loop, contexts)
                s.body = self.block(s.body, True, contexts) or [ast.Pass()]
                s.orelse = self.block(s.orelse, in_loop, contexts)
            elif self._any_compute(s, contexts):   # try/match with compute inside: one child
                r = self.new_region(in_loop, contexts)
                r.stmts.append(s)
                out.append(placeholder_stmt(r))
                continue
            out.append(s)
        flush()
        return out

    def _weight_parts(self, s: ast.stmt) -> bool:
        """`s` only views or splits one of the module's weights (`self.base.split([n, n, n * n])`,
        `self.scale.unbind(0)`, `self.w[:, :k].t()`): no compute, no other call."""
        if not isinstance(s, ast.Assign):
            return False
        e = s.value
        while True:
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in PARENT_METHODS \
                    and not any(has_call(a) for a in [*e.args, *(k.value for k in e.keywords)]):
                e = e.func.value
            elif isinstance(e, ast.Subscript) and not has_call(e.slice):
                e = e.value
            else:
                break
        return e is not s.value and isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and \
            e.value.id == "self" and e.attr in self.weights and \
            names_of([s.value]).self_attrs == [e.attr]

    def one_op_each(self, s: ast.stmt) -> list[ast.stmt]:
        """In a fusion's step (whose children are kernels, one op each): the ops nested in another op's operands
        of statement `s`, each as a statement of its own before it, in the order Python evaluates them, `s`
        left with the outermost op (`inds = torch.where(scores > t)[0]` -> `gt = scores > t`, then
        `inds = torch.where(gt)[0]`). An op is a span the static reading flags. Nothing moves out of a lambda,
        a comprehension, a conditional expression or `and`/`or` (which may not evaluate it), nor out of a
        statement that calls what may have effects (a function or method of the module, a function it does
        not flag): ahead of its other operands, an op would then run before them."""
        value = s.value if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) else None
        if value is None:
            return []
        ops = {tuple(f) for f in self.flagged}

        def op(n: ast.AST) -> bool:
            return isinstance(n, ast.expr) and not isinstance(n, (ast.Name, ast.Constant)) and \
                (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) in ops

        for n in ast.walk(value):
            if isinstance(n, ast.Call) and not op(n) and not (
                    isinstance(n.func, ast.Attribute) and not (isinstance(n.func.value, ast.Name)
                                                               and n.func.value.id == "self")):
                return []   # (a call the reading does not flag, not a tensor method: effects unknown)
        hoisted: list[ast.stmt] = []
        splitter = self

        def visit(n: ast.expr, inside: bool) -> ast.expr:
            if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.IfExp,
                              ast.BoolOp, ast.NamedExpr, ast.Starred, ast.Await, ast.Yield, ast.YieldFrom)):
                return n
            here = op(n)
            for name, old in ast.iter_fields(n):
                if isinstance(old, ast.expr):
                    setattr(n, name, visit(old, inside or here))
                elif isinstance(old, list):
                    setattr(n, name, [visit(v, inside or here) if isinstance(v, ast.expr) else v for v in old])
            if isinstance(n, ast.Call):
                for kw in n.keywords:
                    kw.value = visit(kw.value, inside or here)
            joins = inside and not here and _listed_join(n)
            if not (here and inside) and not joins:
                return n
            temp = safe_local(_op_name(n), splitter.names)
            hoisted.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=n), s))
            if joins:
                # (a list of tensors joined into one, `torch.stack(values, -2)` in `torch.stack(values, -2) * w`:
                # plumbing the parent keeps, so that the op's kernel is handed a tensor, not the list)
                splitter.kept.add(id(hoisted[-1]))
            return ast.copy_location(ast.Name(id=temp, ctx=ast.Load()), n)

        new = visit(value, False)
        if not hoisted:
            return []
        s.value = new  # type: ignore[attr-defined]
        ast.fix_missing_locations(s)
        return hoisted

    def _any_compute(self, s: ast.stmt, contexts: list[ast.withitem]) -> bool:
        return any(self.compute(n, contexts) for n in ast.walk(s) if isinstance(n, (ast.stmt, ast.expr)))


class _Pending:
    """Statements held back from the parent until a region reads what they bind (Splitter.block)."""

    def __init__(self) -> None:
        self.stmts: list[ast.stmt] = []
        self.stores: set[str] = set()
        self.loads: set[str] = set()

    def add(self, s: ast.stmt) -> None:
        names = names_of([s])
        self.stmts.append(s)
        self.stores |= set(names.stores)
        self.loads |= set(names.loads)

    def clear(self) -> None:
        self.stmts.clear()
        self.stores.clear()
        self.loads.clear()

    def reads(self, s: ast.stmt) -> bool:
        """`s` reads a name the held statements bind."""
        return bool(set(names_of([s]).loads) & self.stores)

    def clashes(self, s: ast.stmt) -> bool:
        """`s` binds a name the held statements read or bind: they may not move past it."""
        return bool(set(names_of([s]).stores) & (self.stores | self.loads))


def _local_views(s: ast.stmt) -> bool:
    """`comb_b = comb_b.view(n, n)`: a view of locals, no attribute of the module, no other call."""
    if not isinstance(s, ast.Assign) or names_of([s]).self_attrs or \
            any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(s)):
        return False
    return all(isinstance(c.func, ast.Attribute) and c.func.attr in PARENT_METHODS
               for c in ast.walk(s.value) if isinstance(c, ast.Call))


# an operator's op, as a region's ops list it and a local holding its value is named
OPERATOR_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
                  ast.Pow: "pow", ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.BitAnd: "and_", ast.BitOr: "or_",
                  ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne",
                  ast.USub: "neg", ast.Invert: "not_"}


def _op_name(n: ast.expr) -> str:
    """A local's name for the value of op `n`: what it calls (`sigmoid`), its operator (`mul`, `gt`)."""
    if isinstance(n, ast.Call):
        f = n.func
        return f.attr if isinstance(f, ast.Attribute) else f.id.lstrip("_") if isinstance(f, ast.Name) else "op"
    if isinstance(n, (ast.BinOp, ast.UnaryOp)):
        return OPERATOR_NAMES.get(type(n.op), "op")
    if isinstance(n, ast.Compare):
        return OPERATOR_NAMES.get(type(n.ops[0]), "mask")
    return "op"


# torch's joins of a sequence of tensors into one
_JOINS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"})


def _listed_join(n: ast.expr) -> bool:
    """`torch.stack(values, -2)`, `torch.cat(parts)`: a join handed its tensors in a sequence it does not spell
    out (a name, a call, a comprehension; not `torch.cat([a, b])`, whose tensors an op's kernel takes one by
    one)."""
    if not (isinstance(n, ast.Call) and (dotted_name(n.func) or "").rsplit(".", 1)[-1] in _JOINS
            and (dotted_name(n.func) or "").startswith("torch.")):
        return False
    seq = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "tensors"), None)
    return seq is not None and not isinstance(seq, (ast.List, ast.Tuple, ast.Starred))


def _ternary_as_if(s: ast.stmt) -> ast.stmt:
    """`x = a if cond else b` as `if cond: x = a` / `else: x = b` (the same evaluation: the test once, one
    branch): a choice of which compute runs is control flow, whose branches are split like an `if`'s (the
    sLSTM's `m = i if t == 0 else torch.maximum(i, f + m)`: one file per branch, not one whose recorded
    call took the branch without compute)."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.value, ast.IfExp)):
        return s
    target, value = s.targets[0], s.value

    def assign(v: ast.expr) -> ast.Assign:
        return ast.copy_location(ast.Assign(targets=[copy.deepcopy(target)], value=v), s)

    return ast.copy_location(ast.If(test=value.test, body=[assign(value.body)], orelse=[assign(value.orelse)]), s)


def _plain_data(node: ast.expr) -> bool:
    """A name, a constant, or indexing / attributes of those: nothing a parent may not evaluate."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_data(node.value)
    if isinstance(node, ast.Subscript):
        return _plain_data(node.value) and _plain_data(node.slice)
    if isinstance(node, ast.Slice):
        return all(p is None or _plain_data(p) for p in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Tuple):
        return all(_plain_data(e) for e in node.elts)
    return False


def called_locals(fdef: ast.FunctionDef) -> set[str]:
    """Local names of the forward that it calls, other than functions it defines itself: modules taken
    from a container (`for blk in self.blocks: x = blk(x)`, `expert = self.experts[i]`). Not its parameters:
    an object handed in and called (torchvision's `levels = mapper(boxes)`, a LevelMapper) is compute of the
    region that calls it, as any call of a value the caller gave."""
    defs = set(local_definitions(fdef))
    local = set(names_of(fdef.body).stores)
    return {n.func.id for n in ast.walk(fdef) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in local and n.func.id not in defs}


def _list_mutation(s: ast.stmt) -> bool:
    """`name.append(...)`, `.extend(...)`, `.insert(...)` on a local list, as a statement."""
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        isinstance(s.value.func, ast.Attribute) and s.value.func.attr in ("append", "extend", "insert") and \
        isinstance(s.value.func.value, ast.Name) and s.value.func.value.id != "self" and not s.value.keywords


PLACEHOLDER = "__hdecomp_region__"


def _placeholder_call(r: Region) -> ast.Call:
    call = ast.Call(func=ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=PLACEHOLDER,
                                       ctx=ast.Load()), args=[ast.Constant(value=r.index)], keywords=[])
    return call


def placeholder_stmt(r: Region) -> ast.stmt:
    return ast.Expr(value=_placeholder_call(r))


class FillRegions(ast.NodeTransformer):
    """Replace the placeholders by the real child calls `a, b = self.<attr>(x, y)`."""

    def __init__(self, regions: list[Region]) -> None:
        self.regions = regions

    def _region(self, node: ast.AST) -> Region | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == PLACEHOLDER:
            arg = node.args[0]
            assert isinstance(arg, ast.Constant)
            return self.regions[int(arg.value)]  # type: ignore[arg-type]
        return None

    def _call(self, r: Region) -> ast.Call:
        func: ast.expr = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=r.attr, ctx=ast.Load())
        if r.entry:   # (one instance per entry of stacked tensors: stacked_entries)
            func = ast.Subscript(value=func, slice=ast.Name(id=r.entry, ctx=ast.Load()), ctx=ast.Load())
        return ast.Call(func=func, args=[r.passed.get(n) or ast.Name(id=n, ctx=ast.Load()) for n in r.inputs],
                        keywords=[])

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        r = self._region(node.value)
        if r is None:
            return self.generic_visit(node)
        call = self._call(r)
        if not r.outputs:
            return ast.Expr(value=call)
        claim = (HOST_CLAIMS.get() or {}).get(r.outputs[0]) if len(r.outputs) == 1 else None
        if claim is not None:   # (a number the parent computes on: `total: int = self.sum(mul)`)
            return ast.AnnAssign(target=ast.Name(id=r.outputs[0], ctx=ast.Store()),
                                 annotation=ast.Name(id=claim, ctx=ast.Load()), value=call, simple=1)
        target: ast.expr = ast.Name(id=r.outputs[0], ctx=ast.Store()) if len(r.outputs) == 1 else \
            ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store()) for n in r.outputs], ctx=ast.Store())
        return ast.Assign(targets=[target], value=call)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        r = self._region(node)
        if r is None:
            return self.generic_visit(node)
        return self._call(r)


def local_definitions(fdef: ast.FunctionDef) -> dict[str, ast.stmt]:
    """Functions defined inside forward (and names bound to lambdas): copied into the children using them."""
    defs: dict[str, ast.stmt] = {}
    for n in ast.walk(fdef):
        if n is fdef:
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[n.name] = n
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            defs[n.targets[0].id] = n
    return defs


def defs_needed(nodes: list[ast.AST], defs: dict[str, ast.stmt]) -> list[str]:
    need: list[str] = []
    todo = [n for n in names_of(nodes).loads if n in defs]
    while todo:
        name = todo.pop(0)
        if name in need:
            continue
        need.append(name)
        todo += [n for n in names_of([defs[name]]).loads if n in defs and n not in need]
    order = list(defs)
    return sorted(need, key=order.index)


def pass_elements(r: Region, local_names: set[str]) -> None:
    """A sequence the region only reads one element of (`sp = sp + spx[i]` in a loop over a split's parts) is
    passed as that element: the parent calls `self.add(sp, spx[i])` and the child takes a tensor, not the
    sequence and the index."""
    nodes = [*r.nodes, *(it.context_expr for it in r.contexts)]
    names = names_of([*r.local_defs, *nodes])
    stored = set(names.stores) | set(names.mutated)
    in_defs = set(names_of(r.local_defs).loads)
    for name in list(r.inputs):
        if name in stored or name in in_defs:
            continue
        uses = [n for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
        subs = [p for node in nodes for p in ast.walk(node) if isinstance(p, ast.Subscript)
                and isinstance(p.value, ast.Name) and p.value.id == name and isinstance(p.ctx, ast.Load)]
        if not subs or len(subs) != len(uses):
            continue
        index = subs[0].slice
        if not isinstance(index, (ast.Name, ast.Constant)) or any(ast.dump(p.slice) != ast.dump(index) for p in subs):
            continue
        if isinstance(index, ast.Name) and (index.id not in r.inputs or index.id in stored or index.id in in_defs):
            continue
        label = index.id if isinstance(index, ast.Name) else str(index.value)
        part = safe_local(f"{name}_{label}", local_names | set(r.inputs) | set(names.loads) | set(names.stores))
        r.rewrite(_ElementReads(name, ast.dump(index), part))
        r.passed[part] = ast.Subscript(value=ast.Name(id=name, ctx=ast.Load()), slice=index, ctx=ast.Load())
        r.inputs[r.inputs.index(name)] = part
        local_names.add(part)   # a parameter of the child
        nodes = [*r.nodes, *(it.context_expr for it in r.contexts)]
        if isinstance(index, ast.Name) and not any(isinstance(n, ast.Name) and n.id == index.id
                                                   for node in nodes for n in ast.walk(node)):
            r.inputs.remove(index.id)


def stacked_entries(r: Region, elsewhere: set[str], attrs: dict[str, AttrInfo], own: set[str]) -> None:
    """A loop body that reads one entry of a stacked tensor of the module by an index that changes per
    iteration (`F.linear(input_list[i], self.weight[i])`: a mixture of experts keeping every expert's weight
    in one (experts, out, in) parameter) is a child of which the parent holds one instance per entry, each
    owning its entry as an ordinary weight: `self.linear[i](input_list[i])`, as a ModuleList of experts is
    written. An expert draws one kernel per expert's weight, not one that holds them all and picks one (Q3);
    weight_map.json maps the stacked tensor to its entries (WeightSlice.entry).

    Only where nothing else reads those tensors (`elsewhere`: the attributes the parent's code, the other
    regions and the methods they call read), the region reads every one of them only through the one
    index, and holds no other tensor or stateful submodule (each instance would need a copy). `own`: the
    module's registered parameters and buffers."""
    from hdecomp.decompose.shapes import dims_source
    from hdecomp.verify.weights import transferred_keys
    if not r.in_loop:
        return
    nodes = [*r.local_defs, *r.nodes, *(it.context_expr for it in r.contexts)]
    names = names_of(nodes)
    picks: dict[int, str] = {}   # id of the `self.X` node read through one index -> the index's name
    for node in nodes:
        for p in ast.walk(node):
            if isinstance(p, ast.Subscript) and isinstance(p.ctx, ast.Load) and isinstance(p.slice, ast.Name) \
                    and _self_attribute(p.value):
                picks[id(p.value)] = p.slice.id
    stacked: list[str] = []
    index: set[str] = set()
    for node in nodes:
        for n in ast.walk(node):
            a = _self_attribute(n)
            info = attrs.get(a) if a else None
            if info is None or a is None:
                continue
            if info.kind == "method" or (info.kind in ("module", "container") and transferred_keys(info.value)):
                return   # (what it reads there, or a submodule's state, would be copied into every instance)
            if info.kind != "tensor":
                continue
            if id(n) not in picks or a not in own or a in elsewhere:
                return
            index.add(picks[id(n)])
            if a not in stacked:
                stacked.append(a)
    if not stacked or len(index) != 1:
        return
    v = index.pop()
    tensors = [attrs[a].value for a in stacked]
    if v not in r.inputs or v in names.stores or v in names.mutated or \
            any(t.dim() < 1 or not dims_source(t)[0].isdigit() for t in tensors) or \
            len({int(t.shape[0]) for t in tensors}) != 1 or int(tensors[0].shape[0]) < 2:
        return
    r.rewrite(_EntryReads(set(stacked), v))
    r.entry, r.stacked, r.entries = v, stacked, int(tensors[0].shape[0])
    if not any(isinstance(n, ast.Name) and n.id == v for node in [*r.local_defs, *r.nodes] for n in ast.walk(node)):
        r.inputs.remove(v)


def _self_attribute(n: ast.AST) -> str | None:
    """X for a `self.X` node, else None."""
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
        return n.attr
    return None


class _EntryReads(ast.NodeTransformer):
    """`self.X[v]` of a stacked tensor X -> `self.X`, the entry the child's instance holds."""

    def __init__(self, stacked: set[str], index: str) -> None:
        self.stacked, self.index = stacked, index

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if _self_attribute(node.value) in self.stacked and isinstance(node.slice, ast.Name) and \
                node.slice.id == self.index:
            return node.value
        return self.generic_visit(node)


class _ElementReads(ast.NodeTransformer):
    """`name[index]` read -> the name of the element passed in."""

    def __init__(self, name: str, index: str, part: str) -> None:
        self.name, self.index, self.part = name, index, part

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.ctx, ast.Load) \
                and ast.dump(node.slice) == self.index:
            return ast.copy_location(ast.Name(id=self.part, ctx=ast.Load()), node)
        return self.generic_visit(node)


def child_tensor_reads(node: ast.AST, attrs: dict[str, AttrInfo]) -> list[str]:
    """`self.<module>.<tensor>` read (not called) in `node`: a tensor inside a submodule."""
    calls = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    found: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and id(n) not in calls and isinstance(n.value, ast.Attribute) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id == "self":
            info = attrs.get(n.value.attr)
            if info is not None and info.kind in ("module", "container") and \
                    isinstance(getattr(info.value, n.attr, None), torch.Tensor):
                found.append(f"self.{n.value.attr}.{n.attr}")
    return found


def no_reads_into_children(forward: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> None:
    """The parent calls its module children and reads nothing inside them: a child's own tensor read by the
    parent (DBRX's experts: `self.mlp.v1.view(shape)[e]`, handed back to `self.mlp(...)`) is not there once
    the child is composed of its own children, so such a step would pass and its composition fail. (Such
    reads are moved into regions with the calls of that module, _statements_to_force: this is the check.)"""
    reads = child_tensor_reads(forward, attrs)
    if reads:
        raise SourceStepError(f"the parent reads {reads[0]}, a tensor inside a child it calls (gone once that "
                              "child is split)")


def reads_before_writes(r: Region) -> list[str]:
    """Names a region reads before it writes them (its inputs, before filtering to locals)."""
    reads: list[str] = []
    written: set[str] = set()

    def in_order(node: ast.AST) -> list[ast.AST]:
        # a `with` block runs its body in order, every time: a name its first statement writes is no input
        # of its second (`with torch.no_grad(): mask = one_hot(i); hit = mask.sum(...)`)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return [*(ast.Assign(targets=[it.optional_vars], value=it.context_expr, lineno=node.lineno)
                      if it.optional_vars is not None else it.context_expr for it in node.items),
                    *(x for b in node.body for x in in_order(b))]
        return [node]
    nodes: list[ast.AST] = [it.context_expr for it in r.contexts] + [x for n in r.nodes for x in in_order(n)]
    for node in nodes:
        v = names_of([node])
        for n in v.loads:
            if n not in written and n not in reads:
                reads.append(n)
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.If, ast.While, ast.For, ast.With, ast.Try)):
            written |= set(v.stores)
        elif isinstance(node, ast.stmt):
            # compound statements: a name written on one path only may still be read from outside
            written |= {n for n in v.stores if n not in v.loads}
    return reads


def reads_outside(original: ast.FunctionDef, r: Region) -> set[str]:
    """Names the forward reads outside region `r` (by line: the canonical source has one statement per
    line, and the region's nodes keep their lines)."""
    lines: set[int] = set()
    for node in r.nodes:
        a, b = line_span(node)
        lines |= set(range(a, b + 1))
    found: set[str] = set()
    for n in ast.walk(original):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno not in lines:
            found.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.lineno not in lines:
            found.add(n.target.id)
    return found
