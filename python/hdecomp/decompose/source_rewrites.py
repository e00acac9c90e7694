"""Rewrites of a forward before it is split: branches the recorded runs never take, conditionals the module's
constants fix, comprehensions that stand for loops, attribute stores (see source_step.py)."""

from __future__ import annotations

import ast
import copy
import inspect
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.naming import safe_attr
from hdecomp.decompose.source_forward import ForwardSource
from hdecomp.decompose.source_names import arg_names
from hdecomp.decompose.source_reading import AttrInfo, Span, has_call, overlaps_flagged, submodule_numbers


def _raise_not_taken(where: ast.If) -> ast.stmt:
    stmt = ast.parse('raise NotImplementedError("hdecomp: this branch does not run for the recorded inputs, '
                     'so it was not decomposed")').body[0]
    # placed on the `if` keyword, which no flagged range covers
    for n in ast.walk(stmt):
        n.lineno, n.col_offset = where.lineno, where.col_offset     # type: ignore[attr-defined]
        n.end_lineno, n.end_col_offset = where.lineno, where.col_offset + 2   # type: ignore[attr-defined]
    return stmt


def config_flag_calls(model: nn.Module, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo], fs: ForwardSource) -> set[str]:
    """The calls with no arguments a forward's tests make that answer from configuration alone: a method of the
    module (torchvision's RoIHeads `self.has_mask()`: whether the mask head exists) or a plain function of the
    forward's globals (`torchvision._is_tracing()`), called once here, run no torch op and return a bool, an
    int or None. Returned as their source (`self.has_mask`)."""
    found: set[str] = set()
    tested = [n for t in ast.walk(fdef) if isinstance(t, (ast.If, ast.While, ast.IfExp)) for n in ast.walk(t.test)]
    for n in tested:
        if not (isinstance(n, ast.Call) and not n.args and not n.keywords):
            continue
        text = ast.unparse(n.func)
        f = n.func
        fn: Any = None
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            info = attrs.get(f.attr)
            fn = info.value if info is not None and info.kind == "method" else None
        else:
            fn = global_callee(f, fs)
        if text in found or not (inspect.ismethod(fn) or isinstance(fn, types.FunctionType)):
            continue
        value, events = _answer(model, fn)
        if value is not _RAISED and isinstance(value, (bool, int, type(None))) and not any(e.compute for e in events):
            found.add(text)
    return found


_RAISED = object()   # (what _answer gives for a call that raised)


def _answer(model: nn.Module, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
    """`fn(*args, **kwargs)` called once under a recording of `model`, without gradients: (its value, the ops it
    ran); (_RAISED, []) where it raises."""
    from hdecomp.runtime.ops import recording
    try:
        with torch.no_grad(), recording(model) as trace:
            value = fn(*args, **kwargs)
    except Exception:
        return _RAISED, []
    return value, list(trace.events)


def fold_environment_queries(model: nn.Module, fdef: ast.FunctionDef, fs: ForwardSource,
                             folded: list[tuple[int, int, int, int]] | None = None) -> list[str]:
    """A library function the forward hands the module itself and constants only, which runs no torch op and
    answers a bool or None (transformers' layer-drop guard `synced_gpus = is_deepspeed_zero3_enabled() or
    is_fsdp_managed_module(self)`: whether the module runs sharded), is its answer here: a question about the
    process the model runs in, not about its data, which no parent may hand its module to (the static check
    cannot tell such a library call from one that computes) and no child should hold as a kernel. Folded in
    place (`False`); returns notes, and adds where each folded call stood to `folded` (the static reading's
    flags on them are gone with them)."""
    notes: list[str] = []

    def handed(a: ast.expr) -> bool:
        return (isinstance(a, ast.Name) and a.id == "self") or isinstance(a, ast.Constant)

    class Fold(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            args = [*node.args, *(k.value for k in node.keywords)]
            if not any(isinstance(a, ast.Name) and a.id == "self" for a in args) or not all(map(handed, args)) or \
                    any(k.arg is None for k in node.keywords):
                return node
            fn = global_callee(node.func, fs)
            if not isinstance(fn, types.FunctionType):
                return node
            def value_of(a: ast.expr) -> Any:
                return a.value if isinstance(a, ast.Constant) else model
            value, events = _answer(model, fn, *map(value_of, node.args),
                                    **{str(k.arg): value_of(k.value) for k in node.keywords})
            if not isinstance(value, (bool, type(None))) or events:   # (_RAISED is neither)
                return node
            notes.append(f"`{ast.unparse(node)}` asks the process the model runs in: {value!r} here, written so")
            if folded is not None:
                folded.append((node.lineno, node.col_offset, node.end_lineno or node.lineno,
                               node.end_col_offset if node.end_col_offset is not None else 10**6))
            return ast.copy_location(ast.Constant(value=value), node)

    Fold().visit(fdef)
    return notes


def flags_only(test: ast.expr, flag_calls: set[str]) -> bool:
    """Whether an `if` test reads flags only: the module's attributes, names, constants, `is None` checks,
    `and`/`or`/`not`, and its flag calls (config_flag_calls)."""
    for n in ast.walk(test):
        if isinstance(n, ast.Call):
            if n.args or n.keywords or ast.unparse(n.func) not in flag_calls:
                return False
        elif isinstance(n, ast.Compare):
            if not all(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
                return False
        elif not isinstance(n, (ast.BoolOp, ast.UnaryOp, ast.Attribute, ast.Name, ast.Constant, ast.Load,
                                ast.And, ast.Or, ast.Not, ast.Is, ast.IsNot)):
            return False
    return True


def drop_branches_not_taken(fdef: ast.FunctionDef, fs: ForwardSource, executed: set[int],
                             flagged: list[Span], flag_calls: set[str] | None = None,
                             every_test: bool = False) -> list[str]:
    """An `if` whose test computes nothing (`if use_cache and past is not None:`, on flags and None checks,
    or a call answering from the configuration, `if self.has_mask():`: no trial can flip it) and one of
    whose branches never ran and holds compute or a call (BLIP's text encoder: `if self.gradient_checkpointing
    and self.training: logger.warning(...)`): that branch becomes a `raise`, instead of a child that is never
    called and cannot be recorded. With `every_test` (`executed` covers every input the verification draws),
    any `if` whose branch never ran (FastSpeech2's `if duration_labels.sum() == 0:`). Returns notes."""
    notes: list[str] = []
    flag_calls = flag_calls or set()

    def fixed(test: ast.expr) -> bool:
        return every_test or not overlaps_flagged(test, flagged) or (bool(flag_calls) and flags_only(test, flag_calls))

    def ran(stmts: list[ast.stmt]) -> bool:
        return any(fs.file_line.get(st.lineno) in executed for st in stmts)

    def tested(node: ast.If) -> bool:
        # (a test written over several lines, `if (\n self.a is not None\n and ...\n):`, reports the lines of
        # its parts, not the `if`'s: any file line from the `if` to its body's first statement)
        start = fs.file_line.get(node.lineno)
        if start is None:
            return False
        end = fs.file_line.get(node.body[0].lineno, start) if node.body else start
        return any(line in executed for line in range(start, max(end, start + 1)))

    for node in ast.walk(fdef):
        if not isinstance(node, ast.If) or not fixed(node.test) or not tested(node):
            continue
        for field_name in ("body", "orelse"):
            stmts = getattr(node, field_name)
            # (compute, or any call: a never-run `logger.warning(...)` is one the verifier cannot prove harmless)
            if stmts and not ran(stmts) and any(overlaps_flagged(st, flagged) or has_call(st) for st in stmts):
                setattr(node, field_name, [_raise_not_taken(node)])
                where = f"{Path(fs.code.co_filename).name}:{fs.file_line.get(node.lineno, node.lineno)}"
                notes.append(f"{where} (`if {ast.unparse(node.test)}`): the "
                             f"{'if' if field_name == 'body' else 'else'} branch never runs for "
                             f"{'any input the verification draws' if every_test else 'the recorded inputs'}; "
                             "the parent raises there instead of calling a child no trial can reach")
    # `x = (a if test else b)` with each part on lines of its own (BigBird-Pegasus's decoder chooses the kind of
    # cache it makes so): the executed lines tell which value ran, as for an `if`; the statement becomes the `if`
    # it stands for, with the value that never ran a `raise`
    for node in ast.walk(fdef):
        for field_name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field_name, None)
            if isinstance(stmts, list):
                for j, st in enumerate(stmts):
                    chosen = _value_not_taken(st, fs, executed, flagged, fixed)
                    if chosen is not None:
                        stmts[j], note = chosen
                        notes.append(note)
    # the statements after such an `if` whose branch returns (`if interleave: return a, b` then `return c, d`)
    for node in ast.walk(fdef):
        for field_name in ("body", "orelse"):
            stmts = getattr(node, field_name, None)
            if not isinstance(stmts, list):
                continue
            for j, st in enumerate(stmts[:-1]):
                rest = stmts[j + 1:]
                if isinstance(st, ast.If) and fixed(st.test) and tested(st) and not ran(rest) and \
                        any(overlaps_flagged(r, flagged) for r in rest):
                    stmts[j + 1:] = [_raise_not_taken(st)]
                    where = f"{Path(fs.code.co_filename).name}:{fs.file_line.get(st.lineno, st.lineno)}"
                    notes.append(f"{where}: what follows `if {ast.unparse(st.test)}` never runs for the recorded "
                                 "inputs; the parent raises there instead of calling a child no trial can reach")
                    break
    return notes


def _value_not_taken(st: ast.stmt, fs: ForwardSource, executed: set[int], flagged: list[Span],
                     fixed: Callable[[ast.expr], bool]) -> tuple[ast.stmt, str] | None:
    """`x = a if test else b` (or `return a if test else b`) whose test `fixed` accepts, whose parts are written
    on lines of their own and one of whose values never ran and holds compute or a call: the `if` statement it
    stands for, with a `raise` for that value, and a note. None otherwise."""
    value = st.value if isinstance(st, (ast.Assign, ast.Return)) else None
    if not isinstance(value, ast.IfExp) or (isinstance(st, ast.Assign) and len(st.targets) != 1):
        return None
    where = fs.branch_lines.get((value.lineno, value.col_offset))
    if where is None or where.test != ast.unparse(value.test) or not where.apart() or \
            not where.test_lines & executed or not fixed(value.test):
        return None
    body_ran, orelse_ran = bool(where.body_lines & executed), bool(where.orelse_lines & executed)
    if body_ran == orelse_ran:
        return None
    taken, untaken = (value.body, value.orelse) if body_ran else (value.orelse, value.body)
    if not (overlaps_flagged(untaken, flagged) or has_call(untaken)):
        return None
    kept = copy.copy(st)
    kept.value = taken   # type: ignore[attr-defined]
    test = ast.If(test=value.test, body=[kept], orelse=[])
    ast.copy_location(test, st)
    raised = [_raise_not_taken(test)]
    test.body, test.orelse = ([kept], raised) if body_ran else (raised, [kept])
    line = fs.file_line.get(st.lineno, st.lineno)
    where_text = f"{Path(fs.code.co_filename).name}:{line}" if fs.code is not None else f"line {line}"
    return test, (f"{where_text} (`... if {ast.unparse(value.test)} else ...`): the "
                  f"{'else' if body_ran else 'if'} value never runs for the recorded inputs; the parent raises "
                  "there instead of calling a child no trial can reach")


_FIXED_VALUES = (type(None), bool, int, float, str)


def _reads_only(node: ast.expr) -> bool:
    """An expression that reads values and calls nothing but queries of no arguments (`torch.is_grad_enabled()`):
    leaving it unevaluated changes nothing."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and (n.args or n.keywords):
            return False
        if not isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Call,
                              ast.Load, ast.cmpop, ast.boolop, ast.unaryop)):
            return False
    return True


def _fixed_value(test: ast.expr, attrs: dict[str, AttrInfo], assigned: set[str]) -> Any:
    """The value of `test` where it reads only literals and plain constants of the module (`self.clip`,
    `self.steps is not None`, `not self.training`): fixed by the construction, which every trial's build
    repeats (an attribute the function itself assigns is not). Raises LookupError where it reads anything
    else."""
    if isinstance(test, ast.Constant) and isinstance(test.value, _FIXED_VALUES):
        return test.value
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
        info = attrs.get(test.attr)
        if info is not None and info.kind == "const" and isinstance(info.value, _FIXED_VALUES) and \
                test.attr not in assigned:
            return info.value
        raise LookupError(test.attr)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return not _fixed_value(test.operand, attrs, assigned)
    if isinstance(test, ast.BoolOp):
        # (one fixed operand decides it whatever the others read: `torch.is_grad_enabled() and
        # self.gradient_checkpointing` with the flag False, Z-Image's checkpointed layers)
        decisive = isinstance(test.op, ast.Or)
        values: list[bool | None] = []
        for v in test.values:
            try:
                values.append(bool(_fixed_value(v, attrs, assigned)))
            except LookupError:
                values.append(None)
        # (the operands it would no longer evaluate only read: names, attributes, comparisons, queries of no
        # arguments)
        if decisive in values and all(_reads_only(v) for v, known in zip(test.values, values, strict=True)
                                      if known is None):
            return decisive
        if None in values:
            raise LookupError(ast.unparse(test))
        return all(values) if isinstance(test.op, ast.And) else any(values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        a = _fixed_value(test.left, attrs, assigned)
        b = _fixed_value(test.comparators[0], attrs, assigned)
        op = test.ops[0]
        return (a is b) if isinstance(op, ast.Is) else (a is not b) if isinstance(op, ast.IsNot) else \
            (a == b) if isinstance(op, ast.Eq) else (a != b)
    raise LookupError(ast.unparse(test))


def fold_fixed_conditionals(fdef: ast.FunctionDef, fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[str]:
    """A conditional expression on the module's plain constants (torchvision's DefaultBoxGenerator:
    `self._wh_pairs[k].clamp(min=0, max=1) if self.clip else self._wh_pairs[k]`) is its taken branch: the
    other can run under no trial (the same construction), and a line tells not which of the two ran, so the
    branch dropping by executed lines cannot remove it. Returns notes."""
    assigned = {n.attr for n in ast.walk(fdef) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name) and n.value.id == "self"}
    notes: list[str] = []

    class Fold(ast.NodeTransformer):
        def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
            self.generic_visit(node)
            try:
                taken = bool(_fixed_value(node.test, attrs, assigned))
            except (LookupError, TypeError):
                return node
            where = f"{Path(fs.code.co_filename).name}:{fs.file_line.get(node.lineno, node.lineno)}" \
                if fs.code is not None else f"line {node.lineno}"
            notes.append(f"{where} (`... if {ast.unparse(node.test)} else ...`): the module's constants fix the "
                         f"test ({taken}); the {'if' if taken else 'else'} value alone is kept")
            return ast.copy_location(node.body if taken else node.orelse, node)

    Fold().visit(fdef)
    ast.fix_missing_locations(fdef)
    return notes


def fold_submodule_numbers(fdef: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> list[str]:
    """A plain number or string a submodule holds, read by the forward (`height // self.embeddings.patch_size`,
    Step-3.7-Flash's vision model), is written out: a constant of its construction, which the parent keeps
    where it computes with it (the static reading reads it so too, source_reading._probe_source). Left as a
    read, the statement would go with the submodule's call (a child may not call a sibling's submodule), and
    the only child would be the parent in disguise. Returns notes."""
    found = submodule_numbers(fdef, attrs)
    notes = [f"self.{n.value.attr}.{n.attr}: a constant of the submodule, written out ({v!r})"  # type: ignore[attr-defined]
             for n, v in found.items()]

    class Fold(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if node in found:
                return ast.copy_location(ast.Constant(value=found[node]), node)
            self.generic_visit(node)
            return node

    Fold().visit(fdef)
    ast.fix_missing_locations(fdef)
    return list(dict.fromkeys(notes))


def _blocks(stmts: list[ast.stmt]) -> list[list[ast.stmt]]:
    """Every statement list nested in `stmts` (bodies, `else` branches, `finally` blocks), inner ones first, then
    `stmts` itself: the lists a rewrite may insert statements into."""
    out: list[list[ast.stmt]] = []
    for st in stmts:
        for field_name in ("body", "orelse", "finalbody"):
            inner = getattr(st, field_name, None)
            if isinstance(inner, list):
                out += _blocks(inner)
    return [*out, stmts]


def _per_item_call(elt: ast.expr, fs: ForwardSource, attrs: dict[str, AttrInfo]) -> bool:
    """`elt` is one call of a plain Python function or of the module's own submodule or method (a helper
    run per item: torchvision's `paste_mask_in_image(m[0], b, im_h, im_w)`), not a tensor op."""
    if not isinstance(elt, ast.Call):
        return False
    f = elt.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
        info = attrs.get(f.attr)
        return info is not None and info.kind in ("module", "method")
    target = global_callee(f, fs)
    mod = getattr(target, "__module__", "") or ""
    return isinstance(target, types.FunctionType) and not (mod == "torch" or mod.startswith("torch."))


def comprehensions_as_loops(fdef: ast.FunctionDef, fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[str]:
    """`name = [helper(a, b) for a, b in zip(xs, ys)]`, a list built by calling a helper per item, is the loop
    it stands for (`name = []`, then `name.append(helper(a, b))` per item): the loop stays in the parent, the
    helper's call is a child called once per iteration (a graph of the whole list would hold one count of
    items, and sizes that follow each item's values). Only where the loop's names are used nowhere else in
    the function (a comprehension's names are its own). Returns notes."""
    notes: list[str] = []
    elsewhere: dict[str, int] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name):
            elsewhere[n.id] = elsewhere.get(n.id, 0) + 1

    fresh = max((getattr(n, "end_lineno", 0) or 0) for n in ast.walk(fdef)) + 2000
    for stmts in _blocks(fdef.body):
        for st in list(stmts):
            if not isinstance(st, ast.Assign) or len(st.targets) != 1:
                continue
            comp, target = st.value, st.targets[0]
            if not (isinstance(comp, ast.ListComp) and isinstance(target, ast.Name)
                    and not any(g.is_async for g in comp.generators) and _per_item_call(comp.elt, fs, attrs)):
                continue
            own = [n.id for g in comp.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)]
            inside: dict[str, int] = {}
            for n in ast.walk(comp):
                if isinstance(n, ast.Name):
                    inside[n.id] = inside.get(n.id, 0) + 1
            if any(elsewhere.get(v, 0) != inside.get(v, 0) for v in own):
                continue
            name = target.id
            body: list[ast.stmt] = [ast.Expr(value=ast.Call(
                func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
                args=[comp.elt], keywords=[]))]
            for g in reversed(comp.generators):
                for cond in reversed(g.ifs):
                    body = [ast.If(test=cond, body=body, orelse=[])]
                body = [ast.For(target=g.target, iter=g.iter, body=body, orelse=[])]
            start = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.List(elts=[], ctx=ast.Load()))
            loop = [start, *body]
            # the comprehension's own parts keep where they are written (the items' `zip(masks, boxes)` is no
            # part of the call the static reading flags); what the loop adds takes the statement's place, and
            # the empty list a line of its own (no reading of the statement's line, where the call computes,
            # makes it compute: it is the parent's)
            written = {id(n) for part in [comp.elt, *(x for g in comp.generators for x in (g.target, g.iter, *g.ifs))]
                       for n in ast.walk(part)}
            for new in body:
                for n in ast.walk(new):
                    if id(n) not in written:
                        ast.copy_location(n, st)
            fresh = _on_fresh_line(start, fresh)
            j = stmts.index(st)
            stmts[j:j + 1] = loop
            where = f"{Path(fs.code.co_filename).name}:{fs.file_line.get(st.lineno, st.lineno)}" \
                if fs.code is not None else f"line {st.lineno}"
            notes.append(f"{where} (`{name} = [{ast.unparse(comp.elt)} for ...]`): the list built by a call per "
                         "item is the loop it stands for; the call is a child called once per item")

    return notes


def _self_store(target: ast.expr) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def _on_fresh_line(stmt: ast.stmt, last: int) -> int:
    """Puts a statement a rewrite made for the parent on a line of its own past the forward's (the split tells
    a region's outputs by the lines that read them, and no static or run-time reading of the original's lines
    makes it compute). Returns the line taken."""
    for n in ast.walk(stmt):
        n.lineno = n.end_lineno = last + 1   # type: ignore[attr-defined]
        n.col_offset, n.end_col_offset = 0, 1   # type: ignore[attr-defined]
    return last + 1


def attribute_stores_kept(fdef: ast.FunctionDef) -> tuple[list[str], set[int]]:
    """`self.scales, self.map_levels = _setup_scales(...)` (torchvision's MultiScaleRoIAlign sets its state on
    the first forward): the compute goes to a child, which returns the values, and the parent keeps the
    stores, `self.scales, self.map_levels = scales, map_levels` (a child would set them on itself, where the
    parent's later reads never see them). Returns notes and the stores the parent keeps (by id)."""
    taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | arg_names(fdef.args)
    notes: list[str] = []
    kept: set[int] = set()
    fresh = max((getattr(n, "end_lineno", 0) or 0) for n in ast.walk(fdef)) + 1000

    for stmts in _blocks(fdef.body):
        for st in list(stmts):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and has_call(st.value)):
                continue
            target = st.targets[0]
            parts = target.elts if isinstance(target, ast.Tuple) else [target]
            if not any(_self_store(t) for t in parts) or \
                    not all(_self_store(t) or isinstance(t, ast.Name) for t in parts):
                continue
            locals_: list[ast.expr] = []
            stores: list[ast.expr] = []
            values: list[ast.expr] = []
            for t in parts:
                if isinstance(t, ast.Attribute):
                    name = safe_attr(t.attr, taken)
                    locals_.append(ast.Name(id=name, ctx=ast.Store()))
                    stores.append(t)
                    values.append(ast.Name(id=name, ctx=ast.Load()))
                else:
                    locals_.append(t)
            first = ast.Assign(targets=[ast.Tuple(elts=locals_, ctx=ast.Store()) if isinstance(target, ast.Tuple)
                                        else locals_[0]], value=st.value)
            keep = ast.Assign(targets=[ast.Tuple(elts=stores, ctx=ast.Store()) if len(stores) > 1 else stores[0]],
                              value=ast.Tuple(elts=values, ctx=ast.Load()) if len(values) > 1 else values[0])
            for n in ast.walk(first):
                ast.copy_location(n, st)
            fresh = _on_fresh_line(keep, fresh)
            j = stmts.index(st)
            stmts[j:j + 1] = [first, keep]
            kept.add(id(keep))
            notes.append(f"`{ast.unparse(target)} = ...`: the child computes the values, the parent keeps the "
                         "stores to its own attributes")

    # the compute that reads such an attribute reads the parent's: `scales = self.scales` is kept in the parent,
    # and the statement reads `scales` (a child's own `self.scales` is the constant it was written with)
    assigned = {t.attr for n in ast.walk(fdef) if isinstance(n, ast.Assign) for p in n.targets
                for t in (p.elts if isinstance(p, ast.Tuple) else [p]) if isinstance(t, ast.Attribute) and _self_store(t)}

    for stmts in _blocks(fdef.body):
        for st in list(stmts):
            if id(st) in kept or not isinstance(st, (ast.Assign, ast.Expr, ast.Return, ast.AugAssign)) or \
                    not has_call(st):
                continue
            read = [n for n in ast.walk(st) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
                    and _self_store(n) and n.attr in assigned]
            if not read:
                continue
            local: dict[str, str] = {}
            hoisted: list[ast.stmt] = []
            for a in dict.fromkeys(n.attr for n in read):
                local[a] = safe_attr(a, taken)
                h = ast.Assign(targets=[ast.Name(id=local[a], ctx=ast.Store())],
                               value=ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=a, ctx=ast.Load()))
                fresh = _on_fresh_line(h, fresh)
                hoisted.append(h)
                kept.add(id(h))
            _AttributeReads(local).visit(st)
            j = stmts.index(st)
            stmts[j:j] = hoisted

    return notes, kept


class _AttributeReads(ast.NodeTransformer):
    """`self.<attr>` read -> the local name the parent read it into (`local`: attr -> name)."""

    def __init__(self, local: dict[str, str]) -> None:
        self.local = local

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and _self_store(node) and node.attr in self.local:
            return ast.copy_location(ast.Name(id=self.local[node.attr], ctx=ast.Load()), node)
        return self.generic_visit(node)


def global_callee(func: ast.expr, fs: ForwardSource) -> Any:
    """What a call's `name` or `module.name` is in the forward's globals; None where it is neither."""
    if isinstance(func, ast.Name):
        return fs.globals.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return getattr(fs.globals.get(func.value.id), func.attr, None)
    return None
