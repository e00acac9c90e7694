"""Source-level steps: a component split at the level of its forward's own Python statements.

A graph capture (capture.py) holds one recorded path through a forward. Where the forward's Python decides
what runs (`if x.mean() > 0:`, `while h.norm() > t:`, a routing loop that skips experts without tokens),
where it loops over time steps or chunks (a selective scan would unroll into thousands of kernels), or where
a region runs under autocast (which no capture records), the forward itself is kept and only its compute is
moved out:

  * every statement (and every `if`/`while`/`for` header, and a returned expression) the static anti-cheat
    analysis flags as compute in a parent goes into a child, consecutive ones together (a *region*);
  * the control flow stays in the refactored parent, which may branch on a child's output: each branch gets
    its own children, and the step is verified on inputs and weights that take different branches;
  * a loop's body becomes a child called once per iteration, so identical iterations share one kernel file;
  * a `with torch.autocast(...)` block is one child holding the context; when it is the whole forward, the
    context is pushed down into each child of its body;
  * submodules the parent still calls become module children, as in a graph step; those only a region uses
    move into it, with the parameters, buffers and plain attributes it reads.

Plan (`plan_source_step`) and generated text are pure; the driver writes the files, records every child's
first call in the running refactored model (the children's example inputs), and verifies the step.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import contextvars
import copy
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.anticheat.static import is_compute_op
from hdecomp.anticheat.static.values import dotted_name
from hdecomp.decompose.naming import FILE_NAMES, module_base_name, safe_attr, safe_local
from hdecomp.decompose.source import (
    NotRepresentable,
    SourceContext,
    hook_registrations,
    import_home,
    literal,
    module_expr,
)
from hdecomp.decompose.stepfiles import check_expr
from hdecomp.formats.keys import access_path
from hdecomp.vocab.ops import snake
from hdecomp.vocab.roles import role_of
from hdecomp.vocab.workload import strip_docstrings

_MODULE_LEVEL_ONLY = frozenset({"batch_size", "get_inputs", "get_input_kwargs", "get_init_inputs", "EXPECTED_OUTPUTS"})


class SourceStepError(Exception):
    """The forward cannot be split at its source level (the message says why)."""


# ---- the forward's source ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BranchLines:
    """Where a conditional expression's parts are written in its file (see ForwardSource.branch_lines)."""

    test: str
    test_lines: frozenset[int]
    body_lines: frozenset[int]
    orelse_lines: frozenset[int]

    def apart(self) -> bool:
        """Each part on lines of its own: a run's executed lines tell which value it took."""
        return not (self.test_lines & self.body_lines or self.test_lines & self.orelse_lines or
                    self.body_lines & self.orelse_lines)


def _file_lines(orig: ast.FunctionDef, canon: ast.FunctionDef,
                first: int) -> tuple[dict[int, int], dict[tuple[int, int], BranchLines]]:
    """The file lines of `canon` (ast.unparse of `orig`, read from a file whose line `first` is orig's first):
    statement by statement (unparse keeps the structure, so the two walks pair up), and the parts of each
    conditional expression, which unparse writes on one line."""
    file_line = {c.lineno: first + o.lineno - 1
                 for o, c in zip([n for n in ast.walk(orig) if isinstance(n, ast.stmt)],
                                 [n for n in ast.walk(canon) if isinstance(n, ast.stmt)], strict=False)}

    def lines(n: ast.expr) -> frozenset[int]:
        start, end = getattr(n, "lineno", None), getattr(n, "end_lineno", None)
        return frozenset() if start is None or end is None else frozenset(range(first + start - 1, first + end))

    branch_lines = {(c.lineno, c.col_offset): BranchLines(ast.unparse(c.test), lines(o.test), lines(o.body),
                                                          lines(o.orelse))
                    for o, c in zip([n for n in ast.walk(orig) if isinstance(n, ast.IfExp)],
                                    [n for n in ast.walk(canon) if isinstance(n, ast.IfExp)], strict=False)
                    if ast.unparse(o.test) == ast.unparse(c.test)}
    return file_line, branch_lines


@dataclass
class ForwardSource:
    """A module's forward as canonical source (ast.unparse of it: one statement per line)."""

    fdef: ast.FunctionDef
    text: str
    globals: dict[str, Any]
    module_name: str               # the module the forward is defined in (its globals' home)
    user_code: bool                # defined in a component file (carried over) or in an installed package
    owner: type
    code: Any = None               # the forward's code object (whose lines a run executes)
    file_line: dict[int, int] = field(default_factory=dict)   # canonical statement line -> line in its file
    # a conditional expression's parts (canonical line and column of the `... if ... else ...`) -> the source
    # of its test and the file lines its test, its `if` value and its `else` value are written on
    branch_lines: dict[tuple[int, int], BranchLines] = field(default_factory=dict)
    # its decorators from a model library (transformers' `@merge_with_config_defaults`, which fills `use_cache`
    # from the config, `@deprecate_kwarg`, `@capture_outputs`): the refactored forward keeps them, as written
    decorators: list[ast.expr] = field(default_factory=list)


def forward_source(model: nn.Module) -> ForwardSource:
    cls = type(model)
    owner = next((c for c in cls.__mro__ if "forward" in vars(c)), None)
    if owner is None or owner is nn.Module:
        raise SourceStepError("the module has no forward of its own")
    fn = inspect.unwrap(vars(owner)["forward"])
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise SourceStepError(f"the source of {owner.__name__}.forward is not available") from exc
    try:
        tree = ast.parse(src)
    except SyntaxError as exc:
        raise SourceStepError(f"the source of {owner.__name__}.forward does not parse alone") from exc
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef):
        raise SourceStepError(f"{owner.__name__}.forward is not a plain function")
    decorators = [d for d in fdef.decorator_list if library_decorator(d, fn.__globals__)]
    fdef.decorator_list = []
    _drop_signature_annotations(fdef)
    strip_docstrings(fdef, nested=False)
    if base_forward(model) is not None:
        _SuperForward().visit(fdef)   # `super().forward(x)`: the base class's forward, as a method of the parent
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and n.id in ("super", "__class__"):
            raise SourceStepError(f"{owner.__name__}.forward uses super()")
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            raise SourceStepError(f"{owner.__name__}.forward uses {type(n).__name__.lower()}")
        if isinstance(n, ast.AnnAssign) and n.value is None:
            raise SourceStepError(f"{owner.__name__}.forward declares a name without a value")
    _strip_annotations(fdef)
    if _reads_self_items(model):
        _SelfItems().visit(fdef)
    text = ast.unparse(fdef)
    canon = ast.parse(text).body[0]
    assert isinstance(canon, ast.FunctionDef)
    mod = getattr(fn, "__module__", "") or ""
    user = mod.startswith("_hdecomp_component_") or mod == "__main__"
    file_line, branch_lines = _file_lines(fdef, canon, fn.__code__.co_firstlineno)
    return ForwardSource(fdef=canon, text=text, globals=fn.__globals__, module_name=mod, user_code=user,
                         owner=owner, code=fn.__code__, file_line=file_line, branch_lines=branch_lines,
                         decorators=decorators)


def _decorator_state(model: nn.Module, fs: ForwardSource, consts: dict[str, Any], ctx: SourceContext,
                     taken: set[str]) -> dict[str, Any]:
    """The plain attributes of the module that its forward's library decorators read (`self.config`, which
    transformers' `@merge_with_config_defaults` reads `use_cache` from; read off the decorators' own source),
    carried as the constants the body reads are: each one a file can write whose name no child has (`taken`)."""
    out: dict[str, Any] = {}
    for a in sorted(_decorator_reads(fs)):
        if a.startswith("_") or a == "training" or a in consts or a in taken or a not in vars(model):
            continue
        info = attr_info(model, a)
        if info.kind != "const":
            continue
        try:
            literal(info.value, ctx)
        except NotRepresentable:
            continue
        out[a] = info.value
    return out


def _decorator_reads(fs: ForwardSource) -> set[str]:
    """The attributes of `self` the forward's library decorators read (`self.config`, `getattr(self, "x")`),
    from their source."""
    reads: set[str] = set()
    for d in fs.decorators:
        root = _root(d.func if isinstance(d, ast.Call) else d)
        fn = fs.globals.get(root) if root is not None else None
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(fn))))   # type: ignore[arg-type]
        except (OSError, TypeError, SyntaxError):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                reads.add(n.attr)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") \
                    and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == "self" and \
                    isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                reads.add(n.args[1].value)
    return reads


def library_decorator(d: ast.expr, namespace: dict[str, Any]) -> bool:
    """A decorator (`@name`, `@name(...)` with constant arguments, `@module.name`) bound, where the forward is
    defined, to a function of a model library (anticheat.static.vocab.MODEL_LIBRARIES), in the form the static
    analysis reads as plumbing (module_scan.constant_arguments): it maps the forward's arguments and outputs
    (a config default, a renamed keyword, outputs collected by hooks), which the static analysis reads as
    plumbing, and it runs with the parent's forward as it does with the original's."""
    from hdecomp.anticheat.static.module_scan import constant_arguments
    from hdecomp.anticheat.static.vocab import MODEL_LIBRARIES
    root = _root(d.func if isinstance(d, ast.Call) else d)
    if root is None or root not in namespace or not constant_arguments(d):
        return False
    value = namespace[root]
    home = value.__name__ if isinstance(value, type(sys)) else getattr(value, "__module__", None)
    return isinstance(home, str) and home.split(".")[0] in MODEL_LIBRARIES


# `super().forward(...)` in a subclass of a torch layer (diffusers' WanCausalConv3d pads from a cache and calls
# nn.Conv3d's forward) is read as a call of this method of the module: the base class's forward, bound to it
BASE_FORWARD = "_base_forward"


def base_forward(model: nn.Module) -> Any:
    """The forward `super().forward` reaches from the module's own forward (bound to it), where that is a torch
    layer's (a class of torch.nn) and the module has no attribute of the method's name; else None."""
    mro = type(model).__mro__
    owner = next((i for i, c in enumerate(mro) if "forward" in vars(c)), None)
    if owner is None:
        return None
    base = next((c for c in mro[owner + 1:] if "forward" in vars(c)), None)
    if base is None or base is nn.Module or not base.__module__.startswith("torch.nn.") or \
            inspect.getattr_static(model, BASE_FORWARD, None) is not None:
        return None
    return types.MethodType(vars(base)["forward"], model)


class _SuperForward(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "forward" and isinstance(f.value, ast.Call) and \
                isinstance(f.value.func, ast.Name) and f.value.func.id == "super" and not f.value.args:
            node.func = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=BASE_FORWARD, ctx=ast.Load())
        return node


# A container with a forward of its own (`class Experts(nn.ModuleDict)` whose forward calls
# `self[f"expert_{i}"](x)`, a Sequential subclass looping `for m in self`) reads its items through `self`.
# The forward is read as if they were a container attribute of that name; the refactored parent holds them
# there, and the weight map takes the name off the original's keys (strip_self_items).
SELF_ITEMS = "self_items"
_CONTAINER_TYPES = (nn.ModuleDict, nn.ModuleList, nn.Sequential)
_ITEM_METHODS = {"items", "values", "keys"}


class _SelfItems(ast.NodeTransformer):
    """`self[k]`, `for m in self`, `len(self)`, `self.items()` -> the same of `self.<SELF_ITEMS>`."""

    @staticmethod
    def _items(node: ast.expr) -> ast.expr:
        return ast.copy_location(ast.Attribute(value=node, attr=SELF_ITEMS, ctx=ast.Load()), node)

    @staticmethod
    def _is_self(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "self"

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if self._is_self(node.value):
            node.value = self._items(node.value)
        return node

    def visit_For(self, node: ast.For | ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        if self._is_self(node.iter):
            node.iter = self._items(node.iter)
        return node

    visit_comprehension = visit_For  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("len", "enumerate", "list", "tuple", "reversed", "zip"):
            node.args = [self._items(a) if self._is_self(a) else a for a in node.args]
        elif isinstance(f, ast.Attribute) and f.attr in _ITEM_METHODS and self._is_self(f.value):
            f.value = self._items(f.value)
        return node


def _reads_self_items(model: nn.Module) -> bool:
    return isinstance(model, _CONTAINER_TYPES) and SELF_ITEMS not in vars(model)


def strip_self_items(model: nn.Module, key: str) -> str:
    """An original state key as the container `model` itself names it (`self_items.expert_0.wi.weight` ->
    `expert_0.wi.weight`); any other module's keys as they are."""
    if _reads_self_items(model) and key.startswith(SELF_ITEMS + "."):
        return key[len(SELF_ITEMS) + 1:]
    return key


def function_source(fn: Any, method: bool = False) -> ForwardSource:
    """A plain Python function as a forward (`self` put first; a `method` of the module has its own), for
    splitting its body at the source level in the place of a call of it (see function_plan)."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError) as exc:
        raise SourceStepError(f"the source of {getattr(fn, '__name__', fn)} is not available") from exc
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef):
        raise SourceStepError(f"{fn.__name__} is not a plain function")
    fdef.decorator_list = []
    _drop_signature_annotations(fdef)
    strip_docstrings(fdef, nested=False)
    for n in ast.walk(fdef):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            raise SourceStepError(f"{fn.__name__} uses {type(n).__name__.lower()}")
        if isinstance(n, ast.Name) and n.id in ("super", "__class__", *(() if method else ("self",))):
            raise SourceStepError(f"{fn.__name__} uses `{n.id}`")
    _strip_annotations(fdef)
    if not method:
        fdef.args.posonlyargs, fdef.args.args = [], [ast.arg("self"), *fdef.args.posonlyargs, *fdef.args.args]
    fdef.name = "forward"   # (read as a forward is: the static analysis judges a forward's own code)
    text = ast.unparse(fdef)
    canon = ast.parse(text).body[0]
    assert isinstance(canon, ast.FunctionDef)
    mod = getattr(fn, "__module__", "") or ""
    file_line, branch_lines = _file_lines(fdef, canon, fn.__code__.co_firstlineno)
    return ForwardSource(fdef=canon, text=text, globals=fn.__globals__, module_name=mod,
                         user_code=mod.startswith("_hdecomp_component_") or mod == "__main__", owner=type(fn),
                         code=fn.__code__, file_line=file_line, branch_lines=branch_lines)


def executed_lines(model: nn.Module, args: list[Any], kwargs: dict[str, Any],
                   of: Any = None) -> set[int] | None:
    """The lines of `model`'s own forward (of its submodule `of`'s, or of the function `of`) one run of `model`
    executes (a trace of that code object only), or None where it cannot be told (no source, the run raises).
    A probe: attributes the run sets lazily (MultiScaleRoIAlign's `scales`) are put back as they were."""
    from hdecomp.decompose.capture.common import plain_attributes, restore_plain_attributes
    from hdecomp.runtime.component import clone_nested
    if isinstance(of, (types.FunctionType, types.MethodType)):
        # (only the code object is traced: a method's body, reading `self`, is no plain function's source)
        code = inspect.unwrap(getattr(of, "__func__", of)).__code__
    else:
        try:
            code = forward_source(of if of is not None else model).code
        except SourceStepError:
            return None
    lines: set[int] = set()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code is code else None

    old = sys.gettrace()
    before = plain_attributes(model)
    try:
        sys.settrace(calls)
        with torch.no_grad():
            model(*clone_nested(args), **clone_nested(kwargs))
    except Exception:
        return None
    finally:
        sys.settrace(old)
        restore_plain_attributes(model, before)
    return lines


def _raise_not_taken(where: ast.If) -> ast.stmt:
    stmt = ast.parse('raise NotImplementedError("hdecomp: this branch does not run for the recorded inputs, '
                     'so it was not decomposed")').body[0]
    # placed on the `if` keyword, which no flagged range covers
    for n in ast.walk(stmt):
        n.lineno, n.col_offset = where.lineno, where.col_offset     # type: ignore[attr-defined]
        n.end_lineno, n.end_col_offset = where.lineno, where.col_offset + 2   # type: ignore[attr-defined]
    return stmt


def _flag_calls(model: nn.Module, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo], fs: ForwardSource) -> set[str]:
    """The calls with no arguments a forward's tests make that answer from configuration alone: a method of the
    module (torchvision's RoIHeads `self.has_mask()`: whether the mask head exists) or a plain function of the
    forward's globals (`torchvision._is_tracing()`), called once here, run no torch op and return a bool, an
    int or None. Returned as their source (`self.has_mask`)."""
    from hdecomp.runtime.ops import recording
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
            fn = _global_callee(f, fs)
        if text in found or not (inspect.ismethod(fn) or isinstance(fn, types.FunctionType)):
            continue
        try:
            with torch.no_grad(), recording(model) as trace:
                value = fn()
        except Exception:
            continue
        if isinstance(value, (bool, int, type(None))) and not any(e.compute for e in trace.events):
            found.add(text)
    return found


def _flags_only(test: ast.expr, flag_calls: set[str]) -> bool:
    """Whether an `if` test reads flags only: the module's attributes, names, constants, `is None` checks,
    `and`/`or`/`not`, and its flag calls (_flag_calls)."""
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


def _drop_branches_not_taken(fdef: ast.FunctionDef, fs: ForwardSource, executed: set[int],
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
        return every_test or not _flag(test, flagged) or (bool(flag_calls) and _flags_only(test, flag_calls))

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
            if stmts and not ran(stmts) and any(_flag(st, flagged) or _has_call(st) for st in stmts):
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
                        any(_flag(r, flagged) for r in rest):
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
    if not (_flag(untaken, flagged) or _has_call(untaken)):
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
        values = [_fixed_value(v, attrs, assigned) for v in test.values]
        return all(values) if isinstance(test.op, ast.And) else any(values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        a = _fixed_value(test.left, attrs, assigned)
        b = _fixed_value(test.comparators[0], attrs, assigned)
        op = test.ops[0]
        return (a is b) if isinstance(op, ast.Is) else (a is not b) if isinstance(op, ast.IsNot) else \
            (a == b) if isinstance(op, ast.Eq) else (a != b)
    raise LookupError(ast.unparse(test))


def _fold_fixed_conditionals(fdef: ast.FunctionDef, fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[str]:
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
    target = _global_callee(f, fs)
    mod = getattr(target, "__module__", "") or ""
    return isinstance(target, types.FunctionType) and not (mod == "torch" or mod.startswith("torch."))


def _comprehensions_as_loops(fdef: ast.FunctionDef, fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[str]:
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
            loop = [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                               value=ast.List(elts=[], ctx=ast.Load())), *body]
            for new in loop:
                for n in ast.walk(new):
                    ast.copy_location(n, st)
            j = stmts.index(st)
            stmts[j:j + 1] = loop
            where = f"{Path(fs.code.co_filename).name}:{fs.file_line.get(st.lineno, st.lineno)}" \
                if fs.code is not None else f"line {st.lineno}"
            notes.append(f"{where} (`{name} = [{ast.unparse(comp.elt)} for ...]`): the list built by a call per "
                         "item is the loop it stands for; the call is a child called once per item")

    return notes


def _self_store(target: ast.expr) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def _self_calls(nodes: Iterable[ast.AST]) -> list[tuple[ast.Call, str]]:
    """Every call `self.<attr>(...)` in `nodes` (in ast.walk order), with its attribute's name."""
    return [(n, n.func.attr) for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"]


def _on_fresh_line(stmt: ast.stmt, last: int) -> int:
    """Puts a statement a rewrite made for the parent on a line of its own past the forward's (the split tells
    a region's outputs by the lines that read them, and no static or run-time reading of the original's lines
    makes it compute). Returns the line taken."""
    for n in ast.walk(stmt):
        n.lineno = n.end_lineno = last + 1   # type: ignore[attr-defined]
        n.col_offset, n.end_col_offset = 0, 1   # type: ignore[attr-defined]
    return last + 1


def _attribute_stores_kept(fdef: ast.FunctionDef) -> tuple[list[str], set[int]]:
    """`self.scales, self.map_levels = _setup_scales(...)` (torchvision's MultiScaleRoIAlign sets its state on
    the first forward): the compute goes to a child, which returns the values, and the parent keeps the
    stores, `self.scales, self.map_levels = scales, map_levels` (a child would set them on itself, where the
    parent's later reads never see them). Returns notes and the stores the parent keeps (by id)."""
    taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | _arg_names(fdef.args)
    notes: list[str] = []
    kept: set[int] = set()
    fresh = max((getattr(n, "end_lineno", 0) or 0) for n in ast.walk(fdef)) + 1000

    for stmts in _blocks(fdef.body):
        for st in list(stmts):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and _has_call(st.value)):
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
                    not _has_call(st):
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


def _drop_signature_annotations(fdef: ast.FunctionDef) -> None:
    """No annotations on the parameters and the return: they name types of the function's own module (`Union`,
    `ImageList`), which a file the code is carried into may not import."""
    fdef.returns = None
    for a in [*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs]:
        a.annotation = None
    for extra in (fdef.args.vararg, fdef.args.kwarg):
        if extra is not None:
            extra.annotation = None


def _strip_annotations(fdef: ast.FunctionDef) -> None:
    """`x: torch.Tensor = f(y)` -> `x = f(y)` (annotations only name types)."""
    for node in ast.walk(fdef):
        for field_name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field_name, None)
            if not isinstance(stmts, list):
                continue
            for i, s in enumerate(stmts):
                if isinstance(s, ast.AnnAssign) and s.value is not None:
                    stmts[i] = ast.copy_location(ast.Assign(targets=[s.target], value=s.value), s)


# ---- names ---------------------------------------------------------------------------------------------


class _Names(ast.NodeVisitor):
    """Names read (in order, first reads only) and written by some code, scope-aware: names bound inside
    lambdas, comprehensions and nested functions are theirs; `self.<attr>` reads are collected apart."""

    def __init__(self) -> None:
        self.loads: list[str] = []
        self.stores: list[str] = []
        self.self_attrs: list[str] = []
        self.mutated: list[str] = []
        self._bound: list[set[str]] = []

    def _load(self, name: str) -> None:
        if any(name in b for b in self._bound):
            return
        if name not in self.loads:
            self.loads.append(name)

    def _store(self, name: str) -> None:
        if any(name in b for b in self._bound):
            return
        if name not in self.stores:
            self.stores.append(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._load(node.id)
        else:
            self._store(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr not in self.self_attrs:
            self.self_attrs.append(node.attr)
        if not isinstance(node.ctx, ast.Load):
            root = _root(node.value)
            if root is not None and root != "self":
                self._mut(root)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            root = _root(node.value)
            if root is not None:
                self._mut(root)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute):
            root = _root(f.value)
            if root is not None and (_inplace_method(f.attr) or f.attr in _MUTATING_METHODS):
                self._mut(root)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self._load(node.target.id)
            self._store(node.target.id)
        else:
            self.visit(node.target)
        self.visit(node.value)

    def _mut(self, name: str) -> None:
        if any(name in b for b in self._bound):
            return
        if name not in self.mutated:
            self.mutated.append(name)
        self._load(name)

    def _scoped(self, bound: set[str], nodes: list[ast.AST]) -> None:
        self._bound.append(bound)
        try:
            for n in nodes:
                self.visit(n)
        finally:
            self._bound.pop()

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scoped(_arg_names(node.args), [*node.args.defaults, node.body])

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:   # (read where the function is defined)
            self.visit(d)
        self._store(node.name)
        local = _arg_names(node.args) | {n.id for s in node.body for n in ast.walk(s)
                                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self._scoped(local, [*node.args.defaults, *node.body])

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _comp(self, node: ast.AST, elts: list[ast.AST]) -> None:
        gens: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        bound = {n.id for g in gens for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.visit(gens[0].iter)
        self._scoped(bound, [*(g.target for g in gens), *(i for g in gens for i in g.ifs),
                             *(g.iter for g in gens[1:]), *elts])

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comp(node, [node.elt])

    visit_SetComp = visit_ListComp  # type: ignore[assignment]
    visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comp(node, [node.key, node.value])


_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                     "add", "discard", "sort", "reverse"}


def _inplace_method(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _arg_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    for a in (args.vararg, args.kwarg):
        if a is not None:
            names.add(a.arg)
    return names


def names_of(nodes: Sequence[ast.AST]) -> _Names:
    v = _Names()
    for n in nodes:
        v.visit(n)
    return v


# ---- what the static analysis calls compute --------------------------------------------------------------


@dataclass
class AttrInfo:
    """One `self.<name>` the forward reads, by what it holds."""

    name: str
    kind: str              # "module" | "container" | "tensor" | "method" | "const" | "absent"
    value: Any = None


def attr_info(model: nn.Module, name: str) -> AttrInfo:
    if name == SELF_ITEMS and _reads_self_items(model):
        view: nn.Module = (nn.ModuleDict(dict(model.named_children())) if isinstance(model, nn.ModuleDict)
                           else nn.ModuleList(list(model.children())))
        return AttrInfo(name, "container", view)
    try:
        static = inspect.getattr_static(model, name)
    except AttributeError:
        static = None
    if static is None and name == BASE_FORWARD and base_forward(model) is not None:
        return AttrInfo(name, "method", base_forward(model))
    if isinstance(static, (staticmethod, classmethod)) or inspect.isfunction(static):
        return AttrInfo(name, "method", getattr(model, name))
    try:
        value = getattr(model, name)
    except AttributeError:
        if static is None:
            # an attribute the constructor made only for other configurations (FastSpeech2's
            # `self.speaker_id_embedding`, built for multi-speaker models): the lines that read it never run
            # here (the module itself would raise); the refactored parent does not have it either
            return AttrInfo(name, "absent")
        raise SourceStepError(f"self.{name} cannot be read") from None
    except Exception as exc:
        raise SourceStepError(f"self.{name} cannot be read ({type(exc).__name__}: {exc})") from exc
    if isinstance(value, nn.Module):
        kind = "container" if type(value).forward is nn.Module.forward else "module"
        return AttrInfo(name, kind, value)
    if isinstance(value, torch.Tensor):
        # (a plain tensor attribute, `self.table = sinusoid(...)`, goes to its child as a non-persistent
        # buffer whose values the weight map transfers, as a registered one does)
        return AttrInfo(name, "tensor", value)
    if inspect.ismethod(value) or inspect.isfunction(value):
        return AttrInfo(name, "method", value)
    return AttrInfo(name, "const", value)


def _probe_source(fs: ForwardSource, attrs: dict[str, AttrInfo],
                  methods: dict[str, str] | None = None) -> tuple[str, int, dict[str, tuple[int, int]]]:
    """A refactored file whose forward is the original's, every submodule a child, and `methods` (name ->
    source) the module's own methods it calls, carried as the parent would carry them: what the static
    anti-cheat says about each of its lines is what a parent may keep. Returns (text, line offset of the
    forward, each method's first and last line in the text)."""
    head = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    # the imports the refactored parent will have (`import torchvision`: a call of torchvision.ops.nms is then
    # compute the parent may not run, as the verifier reads it), not the model file's own definitions
    ctx = SourceContext(user_file=None)
    params = _arg_names(fs.fdef.args)
    local_names = (params | set(names_of(fs.fdef.body).stores)) - {"self"}
    imported = [n for n in names_of([fs.fdef]).loads
                if n not in local_names and n in fs.globals and _imported(fs.globals[n])]
    with contextlib.suppress(SourceStepError):
        _bind_globals(imported, local_names, ForwardSource(fs.fdef, fs.text, fs.globals, fs.module_name, False,
                                                           fs.owner), ctx, where="the probe")
    head += [ln for ln in ctx.import_lines() if ln not in head]
    init = ["class RefactoredModel(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    for a in attrs.values():
        if a.kind == "module":
            head.append(f"from children.c_{a.name} import Model as C_{a.name}")
            init.append(f"        self.{a.name} = C_{a.name}()")
        elif a.kind == "container":
            head.append(f"from children.c_{a.name} import Model as C_{a.name}")
            if isinstance(a.value, nn.ModuleDict):
                items = ", ".join(f"{k!r}: C_{a.name}()" for k in a.value)
                init.append(f"        self.{a.name} = nn.ModuleDict({{{items}}})")
            else:
                init.append(f"        self.{a.name} = nn.ModuleList([C_{a.name}() for _ in range({len(a.value)})])")
        elif a.kind == "const":
            init.append(f"        self.{a.name} = {_probe_literal(a.value)}")
    lines = [*head, "", "", *init]
    offset = len(lines)
    lines += ["    " + line if line else line for line in fs.text.split("\n")]
    spans: dict[str, tuple[int, int]] = {}
    for name, src in (methods or {}).items():
        lines.append("")
        first = len(lines) + 1
        lines += ["    " + line if line else line for line in src.split("\n")]
        spans[name] = (first, len(lines))
    return "\n".join(lines) + "\n", offset, spans


_CARRIED_LIMIT = 16   # methods read for one probe (those the forward calls, and those they call)


def _carried_methods(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> tuple[dict[str, AttrInfo], dict[str, str]]:
    """The module's own plain methods the forward calls, and those they call in turn (name -> source, as the
    parent would carry them), with the attributes they read added to `attrs` (a copy): the probe reads them
    as the verifier reads a parent that carries them. A method whose source cannot be carried is left out
    (its calls stay compute)."""
    attrs = dict(attrs)
    methods: dict[str, str] = {}
    todo = [a for a, i in attrs.items() if i.kind == "method"]
    while todo and len(methods) < _CARRIED_LIMIT:
        name = todo.pop(0)
        info = attrs[name]
        if name in methods or name == fs.fdef.name or \
                not isinstance(getattr(info.value, "__func__", None), types.FunctionType):
            continue
        model = info.value.__self__
        try:
            src = _method_source(info.value, name)
        except SourceStepError:
            continue
        methods[name] = src
        for sub in names_of([ast.parse(src)]).self_attrs:
            if sub not in attrs:
                try:
                    attrs[sub] = attr_info(model, sub)
                except SourceStepError:
                    continue
                if attrs[sub].kind == "method":
                    todo.append(sub)
    return attrs, methods


def _probe_literal(value: Any) -> str:
    ctx = SourceContext(user_file=None)
    try:
        text = literal(value, ctx)
    except NotRepresentable:
        return "None"
    return text if not ctx.imports and not ctx.user_names else "None"


Span = tuple[int, int, int, int]   # (line, col, end line, end col) in the canonical forward (line 1: `def`)


def flagged_lines(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[Span]:
    """Where the canonical forward holds code a parent may not run itself: the exact ranges the static
    anti-cheat reports (a key of a returned dict is not compute when a value on its line is)."""
    return static_reading(fs, attrs)[0]


def static_reading(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> tuple[list[Span], set[str]]:
    """(flagged_lines, the module's own methods the forward calls that the analysis finds only plumbing in:
    the parent keeps their calls and carries them)."""
    from hdecomp.anticheat.static import analyze_source
    probe_attrs, methods = _carried_methods(fs, attrs)
    text, offset, spans = _probe_source(fs, probe_attrs, methods)
    found: list[Span] = []
    n_lines = fs.text.count("\n") + 1
    computing = {a for a, i in attrs.items() if i.kind == "method"} - set(methods)
    violations = [v for v in analyze_source(text, None) if v.range is not None and v.severity == "error"]
    for v in violations:
        assert v.range is not None
        computing |= {m for m, (a, b) in spans.items() if a <= v.range.line <= b}
    # a call of a method the analysis finds compute in (or cannot read) is compute where the forward calls it;
    # one it finds only plumbing in (`self.clear_cache()`: the feature caches reset) the parent keeps, carried
    self_calls = _self_calls([fs.fdef])
    for node, name in self_calls:
        if name in computing:
            found.append((node.lineno, node.col_offset, node.end_lineno or node.lineno,
                          node.end_col_offset if node.end_col_offset is not None else 10**6))
    for v in violations:
        assert v.range is not None
        line, end_line = v.range.line - offset, (v.range.end_line or v.range.line) - offset
        if not (1 <= line <= n_lines):
            continue
        # the probe indents the forward by 4 columns
        col = max(0, (v.range.col or 0) - 4)
        end_col = max(0, (v.range.end_col or 0) - 4) if v.range.end_col else 10**6
        found.append((line, col, min(end_line, n_lines), end_col))
    # (the analysis reports a method's compute where the forward calls it: a method is plumbing where none of
    # its calls is flagged)
    computing |= {name for node, name in self_calls if name in methods and _flag(node, found)}
    return found, set(methods) - computing


def loops_over_compute(model: nn.Module) -> bool:
    """Whether a `for`/`while` loop of the forward's own source, or of a method of the module it calls
    (torchvision's RPN: `boxes, scores = self.filter_proposals(...)`, which loops over the images), runs
    compute the parent may not keep (its body or header flagged by the static analysis); not for loops that
    only call submodules."""
    try:
        fs = forward_source(model)
        attrs = {a: attr_info(model, a) for a in names_of([fs.fdef]).self_attrs}
    except SourceStepError:
        return False
    sources = [fs]
    for info in attrs.values():
        if info.kind == "method" and isinstance(getattr(info.value, "__func__", None), types.FunctionType):
            with contextlib.suppress(SourceStepError):
                sources.append(function_source(info.value, method=True))
    return any(_loops_over_compute_in(model, f) for f in sources)


_RANDOM_STATE_CALLS = frozenset({"manual_seed", "fork_rng", "set_rng_state", "seed"})


def seeds_random_state(model: nn.Module) -> bool:
    """Whether the forward's own source seeds or scopes the random state (`torch.manual_seed(...)`,
    `with torch.random.fork_rng():`): a graph capture holds neither, only the draws."""
    try:
        fs = forward_source(model)
    except SourceStepError:
        return False
    names = [dotted_name(n.func) or "" for n in ast.walk(fs.fdef) if isinstance(n, ast.Call)]
    return any(name.startswith("torch.") and name.rsplit(".", 1)[-1] in _RANDOM_STATE_CALLS for name in names)


def _loops_over_compute_in(model: nn.Module, fs: ForwardSource) -> bool:
    try:
        loops = [n for n in ast.walk(fs.fdef) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))]
        if not loops:
            return False
        attrs = {a: attr_info(model, a) for a in names_of([fs.fdef]).self_attrs}
        flagged = flagged_lines(fs, attrs)
    except SourceStepError:
        return False
    def computes(loop: ast.AST) -> bool:
        nodes = [*loop.body, *([loop.test] if isinstance(loop, ast.While) else [loop.iter])]  # type: ignore[attr-defined]
        if not _loop_over_submodules(loop, attrs):
            return any(_flag(n, flagged) for n in nodes)
        # a loop over submodules computes where it does more than call them (an MoE's routing per expert)
        bound = {t.id for t in ast.walk(loop.target) if isinstance(t, ast.Name)}  # type: ignore[attr-defined]
        calls = [c for n in nodes for c in ast.walk(n) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id in bound]
        return any(_flag(n, flagged) for stmt in nodes for n in ast.walk(stmt)
                   if isinstance(n, ast.expr) and _flag(n, flagged) and not any(n is c for c in calls)
                   and not any(_inside(n, c) for c in calls) and not isinstance(n, (ast.Name, ast.Constant)))
    return any(computes(loop) for loop in loops)


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


_MODULE_ITERATORS = frozenset({"items", "values", "children", "named_children", "modules", "named_modules"})


def _loop_over_submodules(loop: ast.AST, attrs: dict[str, AttrInfo]) -> bool:
    """A `for` over the module's own submodules (`for name, module in self.items(): x = module(x)`,
    torchvision's IntermediateLayerGetter; `for blk in self.blocks:`): its calls of the loop's variables are
    calls of submodules, which a graph capture unrolls into children, not compute a parent keeps."""
    if not isinstance(loop, ast.For):
        return False
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("enumerate", "reversed") \
            and it.args:
        it = it.args[0]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
        owner = it.func.value
        over = (isinstance(owner, ast.Name) and owner.id == "self" and it.func.attr in _MODULE_ITERATORS) or \
            (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"
             and it.func.attr in _MODULE_ITERATORS and owner.attr in attrs and attrs[owner.attr].kind == "container")
    else:
        over = isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and it.value.id == "self" and \
            it.attr in attrs and attrs[it.attr].kind == "container"
    return over


# ---- regions -----------------------------------------------------------------------------------------------


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
    first_line: str = ""   # its first line as the forward wrote it (before an element read became an input)

    @property
    def nodes(self) -> list[ast.AST]:
        return [self.expr] if self.expr is not None else list(self.stmts)


def _module_calls(r: Region, attrs: dict[str, AttrInfo]) -> int:
    """How many calls of the module's submodules region `r` holds."""
    return sum(1 for _, a in _self_calls(r.nodes) if a in attrs and attrs[a].kind in ("module", "container"))


def _span(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]


def _flag(node: ast.AST | None, flagged: list[Span]) -> bool:
    """Whether a flagged range overlaps `node`'s source range."""
    if node is None or not hasattr(node, "lineno"):
        return False
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno or node.lineno, node.end_col_offset if node.end_col_offset is not None else 10**6)  # type: ignore[attr-defined]
    return any((fl, fc) < end and start < (el, ec) for fl, fc, el, ec in flagged)


def _rng_scope(s: ast.With) -> bool:
    """`with torch.random.fork_rng(...):` (or torch's other fork_rng): a scope of the random state."""
    return all(isinstance(it.context_expr, ast.Call) and (dotted_name(it.context_expr.func) or "").endswith("fork_rng")
               for it in s.items)


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


class _Splitter:
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
        self.flag_calls: set[str] = set()      # calls that answer from the configuration (_flag_calls)
        self.hoist_count = 0

    def compute(self, node: ast.AST, contexts: list[ast.withitem]) -> bool:
        if id(node) in self.kept:
            return False
        key = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        if key in self.forced or _flag(node, self.flagged):
            return True
        return bool(contexts) and _has_call(node)   # under a pushed-down context every call needs it

    def _module_call(self, f: ast.expr) -> bool:
        """A call of a module the parent holds through a local name (a module taken from a container in a
        loop: `for e, expert in enumerate(self.experts)`) or an item of a container (`self.experts[i]`,
        `self[f"expert_{i}"]` in a ModuleDict's own forward)."""
        if isinstance(f, ast.Name):
            return f.id in self.local_modules
        return (isinstance(f, ast.Subscript) and isinstance(f.value, ast.Attribute)
                and isinstance(f.value.value, ast.Name) and f.value.value.id == "self"
                and f.value.attr in self.containers and not _has_call(f.slice))

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
                         (isinstance(s, (ast.With, ast.AsyncWith)) and _has_call(s))]
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
                out.append(s)   # definitions: copied into the children that use them (see finish)
                continue
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
                call = s.value   # type: ignore[attr-defined]
                call.args = [self.expr_region(a, in_loop, contexts) if self.compute(a, contexts) else a
                             for a in call.args]
                out.append(s)
                continue
            if simple and self.compute(s, contexts):
                hoisted = self.hoist_local_calls(s)
                if hoisted:   # `out.index_add_(0, tok, expert(x[tok]) * w)`: the expert's call is the parent's
                    run = None
                    out.extend(hoisted)
            if simple:
                if self.compute(s, contexts):
                    if run is None or contexts or self.per_statement:   # see __init__
                        run = self.new_region(in_loop, contexts)
                        out.append(_placeholder_stmt(run))
                    run.stmts.append(s)
                else:
                    run = None
                    out.append(s)
                continue
            run = None
            if isinstance(s, ast.With) and _rng_scope(s):
                # `with torch.random.fork_rng():` scopes the random state the body seeds and draws from: it
                # stays the parent's, around the children of its body (pushed down, the seed and the draws
                # would each get a scope of their own)
                s.body = self.block(s.body, in_loop, contexts, whole_forward=whole_forward)
                out.append(s)
                continue
            # a context (autocast) changes what the calls inside compute: children called inside hold it
            if isinstance(s, (ast.With, ast.AsyncWith)) and (self._any_compute(s, contexts) or _has_call(s)):
                push = whole_forward and compute_stmts == [s]
                if not push:   # the region as one child that holds the context
                    r = self.new_region(in_loop, contexts)
                    r.stmts.append(s)
                    out.append(_placeholder_stmt(r))
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
                                                           _flags_only(s.test, self.flag_calls)):
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
                out.append(_placeholder_stmt(r))
                continue
            out.append(s)
        return out

    def _any_compute(self, s: ast.stmt, contexts: list[ast.withitem]) -> bool:
        return any(self.compute(n, contexts) for n in ast.walk(s) if isinstance(n, (ast.stmt, ast.expr)))


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


def _called_locals(fdef: ast.FunctionDef) -> set[str]:
    """Local names of the forward that it calls, other than functions it defines itself: modules taken
    from a container (`for blk in self.blocks: x = blk(x)`, `expert = self.experts[i]`). Not its parameters:
    an object handed in and called (torchvision's `levels = mapper(boxes)`, a LevelMapper) is compute of the
    region that calls it, as any call of a value the caller gave."""
    defs = set(_local_definitions(fdef))
    local = set(names_of(fdef.body).stores)
    return {n.func.id for n in ast.walk(fdef) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in local and n.func.id not in defs}


def _list_mutation(s: ast.stmt) -> bool:
    """`name.append(...)`, `.extend(...)`, `.insert(...)` on a local list, as a statement."""
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        isinstance(s.value.func, ast.Attribute) and s.value.func.attr in ("append", "extend", "insert") and \
        isinstance(s.value.func.value, ast.Name) and s.value.func.value.id != "self" and not s.value.keywords


_PLACEHOLDER = "__hdecomp_region__"


def _placeholder_call(r: Region) -> ast.Call:
    call = ast.Call(func=ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=_PLACEHOLDER,
                                       ctx=ast.Load()), args=[ast.Constant(value=r.index)], keywords=[])
    return call


def _placeholder_stmt(r: Region) -> ast.stmt:
    return ast.Expr(value=_placeholder_call(r))


class _FillRegions(ast.NodeTransformer):
    """Replace the placeholders by the real child calls `a, b = self.<attr>(x, y)`."""

    def __init__(self, regions: list[Region]) -> None:
        self.regions = regions

    def _region(self, node: ast.AST) -> Region | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == _PLACEHOLDER:
            arg = node.args[0]
            assert isinstance(arg, ast.Constant)
            return self.regions[int(arg.value)]  # type: ignore[arg-type]
        return None

    def _call(self, r: Region) -> ast.Call:
        return ast.Call(func=ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=r.attr, ctx=ast.Load()),
                        args=[r.passed.get(n) or ast.Name(id=n, ctx=ast.Load()) for n in r.inputs], keywords=[])

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        r = self._region(node.value)
        if r is None:
            return self.generic_visit(node)
        call = self._call(r)
        if not r.outputs:
            return ast.Expr(value=call)
        target: ast.expr = ast.Name(id=r.outputs[0], ctx=ast.Store()) if len(r.outputs) == 1 else \
            ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store()) for n in r.outputs], ctx=ast.Store())
        return ast.Assign(targets=[target], value=call)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        r = self._region(node)
        if r is None:
            return self.generic_visit(node)
        return self._call(r)


# ---- the plan ----------------------------------------------------------------------------------------------


@dataclass
class SourceChild:
    """One child of a source-level step."""

    attr: str                      # the refactored parent's attribute (a container's: `experts.0`)
    kind: str                      # "region" | "module"
    class_src: str                 # `class Model(...)`, without imports
    ctx: SourceContext
    base: str                      # file name base (before workload naming / dedup)
    weight_map: dict[str, str]     # original key -> key inside the child
    ops: list[str]
    module: nn.Module | None = None     # a module child: the submodule it rebuilds
    region: Region | None = None
    region_modules: list[nn.Module] = field(default_factory=list)   # a region child: the submodules it holds
    call_args: list[ast.expr] = field(default_factory=list)   # a module child: its first call's arguments


@dataclass
class SourcePlan:
    fs: ForwardSource
    regions: list[Region]
    children: list[SourceChild]
    forward: ast.FunctionDef                  # the parent's forward (regions replaced by child calls)
    consts: dict[str, Any]                    # plain attributes the parent reads
    containers: dict[str, list[str]]          # container attribute -> its items' child attrs
    container_types: dict[str, type]
    ties: list[tuple[str, str]]               # (copy, first): a submodule several regions read
    ctx: SourceContext                        # the parent's imports / carried definitions
    notes: list[str] = field(default_factory=list)
    # a wrapper's step (see_through): the wrapped module's forward, split, as a method of the parent, and
    # the prefix of the original keys the children's weight maps are relative to (`model.`)
    methods: list[ast.FunctionDef] = field(default_factory=list)
    key_prefix: str = ""

    def parent_source(self, stems: dict[str, str], doc: str) -> str:
        """refactored.py (without its inputs block); `stems`: child attr -> child file stem."""
        from hdecomp.decompose.naming import class_alias
        from hdecomp.decompose.source import carried_names
        taken: set[str] = set(self.ctx.imports) | carried_names(self.ctx)
        aliases: dict[str, str] = {}
        imports: list[str] = []
        for c in self.children:
            stem = stems[c.attr]
            if stem not in aliases:
                alias = class_alias(stem, taken)
                taken.add(alias)
                aliases[stem] = alias
                imports.append(f"from children.{stem} import Model as {alias}")
        init = []
        in_container = {a for items in self.containers.values() for a in items}
        for c in self.children:
            if c.attr not in in_container:
                init.append(f"        self.{c.attr} = {aliases[stems[c.attr]]}()")
        for name, items in self.containers.items():
            typ = self.container_types[name]
            if typ is nn.ModuleDict:
                keys = [a.split(".", 1)[1] for a in items]
                body = ", ".join(f"{k!r}: {aliases[stems[a]]}()" for k, a in zip(keys, items, strict=True))
                init.append(f"        self.{name} = nn.ModuleDict({{{body}}})")
            else:
                body = ", ".join(f"{aliases[stems[a]]}()" for a in items)
                init.append(f"        self.{name} = nn.{typ.__name__}([{body}])")
        for name, value in self.consts.items():
            init.append(f"        self.{name} = {literal(value, self.ctx)}")
        for dst, src in self.ties:
            init.append(f"        self{access_path(dst)} = self{access_path(src)}  # one module in the original, read by "
                        "several children")
        user_imports, defs = _parent_definitions(self.ctx)
        lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
        if self.ctx.needs_math:
            lines.insert(0, "import math")
        lines += [ln for ln in [*user_imports, *self.ctx.import_lines()] if ln not in lines]
        lines.append("")
        lines += imports
        if defs:
            lines += ["", "", "# ---- carried over from the model file ----", "", defs]
        lines += ["", "", "class RefactoredModel(nn.Module):", f'    """{doc}"""', "",
                  "    def __init__(self, *init_inputs):",
                  "        # Built like the original (same get_init_inputs()); the children have the recorded sizes.",
                  "        super().__init__()"]
        lines += init
        lines.append("")
        forward = self.forward
        if forward.name == "forward" and self.fs.decorators:   # (its library decorators, as written)
            forward = copy.copy(forward)
            forward.decorator_list = list(self.fs.decorators)
        lines += ["    " + ln if ln else ln for ln in ast.unparse(forward).split("\n")]
        for m in self.methods:
            lines.append("")
            lines += ["    " + ln if ln else ln for ln in ast.unparse(m).split("\n")]
        return "\n".join(lines) + "\n"


def _parent_definitions(ctx: SourceContext) -> tuple[list[str], str]:
    from hdecomp.decompose.source import carried_source
    return carried_source(ctx) if ctx.user_names else ([], "")


# where a run of the module being split computes in its own code (file, line): set by plan_source_step
_COMPUTES_AT: contextvars.ContextVar[frozenset[tuple[str, int]]] = contextvars.ContextVar(
    "hdecomp_computes_at", default=frozenset())
# whether the executed lines hold every run the verification can make (plan_source_step's `every_test`)
_EVERY_TEST: contextvars.ContextVar[bool] = contextvars.ContextVar("hdecomp_every_test", default=False)
# the attributes of the module whose forward holds the code being split (a wrapper's, a method's, a helper's
# caller): the children of the inner split take none of their names (`self.mapper`, the pooler's state, and a
# child `mapper` for the region calling `mapper(boxes)`)
_OUTER_ATTRS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("hdecomp_outer_attrs",
                                                                              default=frozenset())


@contextlib.contextmanager
def _outer(attrs: Iterable[str]) -> Iterator[None]:
    token = _OUTER_ATTRS.set(_OUTER_ATTRS.get() | frozenset(attrs))
    try:
        yield
    finally:
        _OUTER_ATTRS.reset(token)


def computes_at(model: nn.Module, args: list[Any], kwargs: dict[str, Any]) -> frozenset[tuple[str, int]]:
    """The (file, line) where one run of `model` computes in its own code, not in a submodule's (aten compute
    ops that are not residual adds, where the verifier's HD401 would find them in a parent that kept the
    line): `xy_preds[i, 0, :] = x + offset_x[i]` adds a 0-dim tensor, which no static reading tells from a
    residual. Empty where the run raises. A probe: the model is left as built."""
    from hdecomp.runtime.component import clone_nested, plain_attributes, restore_plain_attributes
    from hdecomp.runtime.ops import record_ops
    before = plain_attributes(model)
    try:
        _, trace = record_ops(model, clone_nested(args), clone_nested(kwargs), locations_for=lambda m: m == "",
                              frames=True)
    except Exception:
        return frozenset()
    finally:
        restore_plain_attributes(model, before)
    return frozenset(f for e in trace.events
                     if e.level == "aten" and e.compute and not e.residual and e.module == "" for f in e.frames)


def plan_source_step(model: nn.Module, user_file: Any, *, per_statement: bool = False,
                     full_tensors: dict[str, torch.Tensor] | None = None, max_iterations: int = 8,
                     executed: set[int] | None = None,
                     executed_of: Callable[[nn.Module], set[int] | None] | None = None,
                     full_tensors_of: Callable[[str], dict[str, torch.Tensor]] | None = None,
                     computing: frozenset[tuple[str, int]] = frozenset(), every_test: bool = False) -> SourcePlan:
    """Split `model`'s forward at its source level (see the module docstring); `per_statement`: every
    compute statement a child of its own (a fusion's children are kernels). `full_tensors`: the module's own
    parameters and buffers at the original batch under `--batch-limit` (hdecomp.decompose.shapes), for the
    shapes a child writes. `executed`: the forward's file lines a run executed (executed_lines), where
    known: a branch on flags that never runs is not split into children. A forward that only calls one
    submodule with plumbing around it (a wrapper: `out = self.model(list(images)); return tuple(...)`) is
    seen through (see_through): `executed_of` / `full_tensors_of` give the same for a submodule (by the
    module / by its qualified name). A forward that is one call of a plain Python function (a library helper:
    diffusers' `get_1d_rotary_pos_embed(dim, pos, ...)`) has that function's body split in its place
    (function_plan). `every_test`: `executed` holds every run the verification can make (a module without
    float weights, on every input its trials draw), so a branch none of them runs is not split whatever its
    test computes."""
    fs = forward_source(model)
    all_names = names_of([fs.fdef])
    attrs: dict[str, AttrInfo] = {}
    for name in all_names.self_attrs:
        attrs[name] = attr_info(model, name)
    # methods the forward calls bring their own attributes
    for a in list(attrs.values()):
        if a.kind == "method":
            for sub in _method_self_attrs(a.value):
                if sub not in attrs:
                    attrs[sub] = attr_info(model, sub)
    token = _COMPUTES_AT.set(computing)
    every = _EVERY_TEST.set(every_test)
    try:
        return _plan_source(model, fs, attrs, user_file, per_statement=per_statement, full_tensors=full_tensors,
                            max_iterations=max_iterations, executed=executed, executed_of=executed_of,
                            full_tensors_of=full_tensors_of)
    finally:
        _COMPUTES_AT.reset(token)
        _EVERY_TEST.reset(every)


def _plan_source(model: nn.Module, fs: ForwardSource, attrs: dict[str, AttrInfo], user_file: Any, *,
                 per_statement: bool, full_tensors: dict[str, torch.Tensor] | None, max_iterations: int,
                 executed: set[int] | None, executed_of: Callable[[Any], set[int] | None] | None,
                 full_tensors_of: Callable[[str], dict[str, torch.Tensor]] | None) -> SourcePlan:
    flagged, plumbing = static_reading(fs, attrs)
    forced: set[tuple[int, int]] = _computing_statements(fs)
    dropped: list[str] = []
    flags = _flag_calls(model, fs.fdef, attrs, fs) if executed is not None else set()
    for _ in range(max_iterations):
        fdef = copy.deepcopy(fs.fdef)
        stores, kept_stores = _attribute_stores_kept(fdef)
        dropped = _fold_fixed_conditionals(fdef, fs, attrs) + _comprehensions_as_loops(fdef, fs, attrs) + stores
        if executed is not None:
            dropped += _drop_branches_not_taken(fdef, fs, executed, flagged, flags, _EVERY_TEST.get())
        as_written = copy.deepcopy(fdef)   # (the splitter replaces statements with children's placeholders)
        splitter = _Splitter(flagged, forced, per_statement)
        splitter.kept |= kept_stores
        # (the module's own methods only: the parent carries them, and the verifier reads what they do; a
        # library's `torchvision._is_tracing()` in a parent is code it cannot prove plumbing, HD108)
        splitter.flag_calls = {f for f in flags if f.startswith("self.") and f.count(".") == 1}
        splitter.local_modules = _called_locals(fdef)
        splitter.containers = {a for a, i in attrs.items() if i.kind == "container"}
        fdef.body = splitter.block(fdef.body, False, [], whole_forward=True) or [ast.Pass()]
        regions = splitter.regions
        if not regions:
            # only calls of submodules with plumbing between them: one submodule is a wrapper's (seen through),
            # several are the step's children as they are (Reformer's attention: norm, self-attention, output
            # and a namedtuple built from their results)
            wrapped = _wrapped_submodule(model, fdef, attrs)
            if wrapped is not None:
                return _wrapper_plan(model, fs, fdef, attrs, wrapped, user_file, per_statement, max_iterations,
                                     executed_of, full_tensors_of)
            calls = [f for st in fdef.body if (f := _called_function([st], fs)) is not None]
            if len(calls) == 1 and not _called_submodules(fdef, attrs):   # a library helper the analysis lets be
                return _function_plan(model, fs, as_written, attrs, calls[0], user_file, per_statement,
                                      max_iterations, executed_of)
            if len(_called_submodules(fdef, attrs)) < 2:
                raise SourceStepError("the forward has no compute of its own to split (only child calls)")
        calls = ([ast.Expr(value=regions[0].expr)] if regions[0].expr is not None else regions[0].stmts) \
            if len(regions) == 1 else []
        if calls and all(_called_method(st, attrs) is not None for st in calls):
            # the only compute is in the module's own methods it calls (torchvision's AnchorGenerator:
            # `self.set_cell_anchors(...)`, `self.grid_anchors(...)`; a `return self._grid(sizes)`): one child
            # holding them would be the parent in disguise; their bodies are split instead, as methods of the
            # parent its forward calls as written
            methods = _methods_plan(model, fs, as_written, attrs, calls, user_file, per_statement,
                                    max_iterations, executed_of)
            if methods is not None:
                return methods
        only: list[ast.stmt] = []
        if len(regions) == 1:
            only = [ast.Expr(value=regions[0].expr)] if regions[0].expr is not None else list(regions[0].stmts)
        elif len(live := _regions_computing(fs, regions)) == 1 and (live[0].expr is not None or
                                                                    len(live[0].stmts) == 1):
            # (the one region where a run computes, beside calls that compute nothing, `scales, mapper =
            # setup(...)` on Python numbers: a child of it alone would be the parent in disguise, HD305)
            only = [ast.Expr(value=live[0].expr)] if live[0].expr is not None else list(live[0].stmts)
        if len(only) == 1 and not _whole_forward(fdef, regions) and not _submodules_read(as_written, attrs):
            # the only compute is one call of a plain function, in a loop or among plumbing (torchvision's
            # keypointrcnn_inference: `kp_prob, scores = heatmaps_to_keypoints(xx, bb)` per image): one child
            # holding it would be the parent in disguise at one image; the function's body is split instead,
            # as a method of the parent that its code, kept as written, calls in the function's place
            fn = _called_function(only, fs)
            if fn is not None:
                return _function_plan(model, fs, as_written, attrs, fn, user_file, per_statement, max_iterations,
                                      executed_of)
        if _whole_forward(fdef, regions):
            fn = _called_function(regions[0].stmts, fs) if len(regions[0].stmts) == 1 else None
            if fn is not None:
                return _function_plan(model, fs, as_written, attrs, fn, user_file, per_statement, max_iterations,
                                      executed_of)
            via = _called_submodule_method(regions[0].stmts[0], attrs) if len(regions[0].stmts) == 1 else None
            if via is not None:
                return _submodule_method_plan(model, fs, as_written, attrs, *via, user_file, per_statement,
                                              max_iterations, executed_of)
            if len(regions[0].stmts) < 2 or any(isinstance(st, (ast.With, ast.AsyncWith, ast.Try))
                                                for st in regions[0].stmts):
                raise SourceStepError("the forward is one piece of straight-line compute: nothing to split at "
                                      "its source level")
            regions = _one_per_statement(fdef, regions[0])
        more = _statements_to_force(fdef, regions, attrs, plumbing)
        if not more - forced:
            break
        forced |= more
    else:
        raise SourceStepError("the split does not settle (submodules shared between the parent and children)")
    plan = _build_plan(model, fs, fdef, regions, attrs, user_file, full_tensors or {}, as_written=as_written)
    plan.notes.extend(dropped)
    return plan


def _regions_computing(fs: ForwardSource, regions: list[Region]) -> list[Region]:
    """The regions holding a line where a run computed (computes_at); all of them where that is unknown."""
    lines = _COMPUTES_AT.get()
    if not lines or fs.code is None:
        return list(regions)
    here = {ln for f, ln in lines if f == fs.code.co_filename}
    return [r for r in regions if any(fs.file_line.get(n.lineno) in here  # type: ignore[attr-defined]
                                      for node in r.nodes for n in ast.walk(node) if hasattr(n, "lineno"))]


def _computing_statements(fs: ForwardSource) -> set[tuple[int, int]]:
    """The simple statements of `fs` on a line where a run computed in the module's own code (computes_at):
    compute, whatever the static reading says, as the verifier will find it."""
    lines = _COMPUTES_AT.get()
    if not lines or fs.code is None:
        return set()
    here = {ln for f, ln in lines if f == fs.code.co_filename}
    return {(st.lineno, st.col_offset) for st in ast.walk(fs.fdef)
            if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return))
            and fs.file_line.get(st.lineno) in here}


def _wrapper_plan(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo],
                  wrapped: str, user_file: Any, per_statement: bool, max_iterations: int,
                  executed_of: Callable[[nn.Module], set[int] | None] | None,
                  full_tensors_of: Callable[[str], dict[str, torch.Tensor]] | None) -> SourcePlan:
    """plan_source_step of the wrapped submodule, seen through (see_through)."""
    inner_of: Callable[[str], dict[str, torch.Tensor]] | None = None
    if full_tensors_of is not None:
        outer_of = full_tensors_of

        def inner_of(q: str) -> dict[str, torch.Tensor]:
            return outer_of(f"{wrapped}.{q}" if q else wrapped)
    sub = getattr(model, wrapped)
    with _outer(attrs):
        inner = plan_source_step(sub, user_file, per_statement=per_statement,
                                 full_tensors=inner_of("") if inner_of is not None else None,
                                 max_iterations=max_iterations,
                                 executed=executed_of(sub) if executed_of is not None else None,
                                 executed_of=executed_of, full_tensors_of=inner_of)
    return see_through(model, fs, fdef, attrs, wrapped, inner, user_file)


def _global_callee(func: ast.expr, fs: ForwardSource) -> Any:
    """What a call's `name` or `module.name` is in the forward's globals; None where it is neither."""
    if isinstance(func, ast.Name):
        return fs.globals.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return getattr(fs.globals.get(func.value.id), func.attr, None)
    return None


def _called_function(stmts: list[ast.stmt], fs: ForwardSource) -> Any:
    """The plain Python function a single statement only calls (`cos, sin = get_1d_rotary_pos_embed(...)`,
    `return helper(x)`), when it is one a file can carry or import and not torch's; else None."""
    stmt = stmts[0]
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr, ast.AnnAssign)) else None
    if not isinstance(value, ast.Call):
        return None
    target = _global_callee(value.func, fs)
    if not isinstance(target, types.FunctionType):
        return None
    mod = getattr(target, "__module__", "") or ""
    if mod == "torch" or mod.startswith("torch."):
        return None
    try:
        function_source(target)
    except SourceStepError:
        return None
    return target


def _function_plan(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo],
                   fn: Any, user_file: Any, per_statement: bool, max_iterations: int,
                   executed_of: Callable[[Any], set[int] | None] | None) -> SourcePlan:
    """The step of a forward that only calls `fn`: the function's body split at its source level, as a method
    of the parent its forward calls in the function's place (the parent keeps its own code as written: the
    arguments, `self.axes_dim[i]` read at each call, stay Python)."""
    ffs = function_source(fn)
    with _outer(attrs):
        inner = _plan_source(model, ffs, {}, user_file, per_statement=per_statement, full_tensors=None,
                             max_iterations=max_iterations, executed=executed_of(fn) if executed_of else None,
                             executed_of=executed_of, full_tensors_of=None)
    taken = {c.attr.split(".")[0] for c in inner.children} | set(inner.consts) | set(attrs) | \
        {m.name for m in inner.methods}
    method = safe_attr(fn.__name__, taken)
    forward = _FunctionCallsRenamed(fn.__name__, method).visit(copy.deepcopy(fdef))
    ast.fix_missing_locations(forward)
    body = copy.deepcopy(inner.forward)
    body.name = method
    local_names = (_arg_names(fdef.args) | set(names_of(fs.fdef.body).stores)) - {"self"}
    loads = [n for n in names_of([forward]).loads if n != fn.__name__]
    return _around(fs, inner, attrs, user_file, forward, [forward], loads, local_names,
                   note=f"one call of {fn.__name__}: its body is split here, as the parent's method {method}",
                   methods=[body, *inner.methods], key_prefix=inner.key_prefix)


def _around(fs: ForwardSource, inner: SourcePlan, attrs: dict[str, AttrInfo], user_file: Any,
            forward: ast.FunctionDef, own_code: list[ast.FunctionDef], loads: list[str], local_names: set[str],
            *, note: str, methods: list[ast.FunctionDef], key_prefix: str,
            model: nn.Module | None = None) -> SourcePlan:
    """`inner`'s children with the parent's own code around them (`own_code`: its forward as written or
    renamed, methods carried as they are): the names that code reads bound in the parent's file, the
    inner plan's imports and names merged in, and the plain constants the code reads (`self.eps`) carried.
    `model`: read an attribute `attrs` lacks from the module itself."""
    ctx = SourceContext(user_file=user_file)
    _bind_globals([*loads, *names_of(fs.decorators).loads], local_names, fs, ctx, where="the refactored parent")
    ctx.imports.update(inner.ctx.imports)
    ctx.user_names |= inner.ctx.user_names
    ctx.needs_math = ctx.needs_math or inner.ctx.needs_math
    consts = dict(inner.consts)
    for a in names_of(own_code).self_attrs:
        info = attrs.get(a) or (attr_info(model, a) if model is not None else None)
        if info is not None and info.kind == "const" and a not in consts:
            consts[a] = info.value
    if model is not None:
        consts.update(_decorator_state(model, fs, consts, ctx, {c.attr.split(".")[0] for c in inner.children}))
    return SourcePlan(fs=fs, regions=inner.regions, children=inner.children, forward=forward, consts=consts,
                      containers=inner.containers, container_types=inner.container_types, ties=inner.ties,
                      ctx=ctx, notes=[note, *inner.notes], methods=methods, key_prefix=key_prefix)


def _called_method(stmt: ast.stmt, attrs: dict[str, AttrInfo]) -> str | None:
    """The module's own method a statement only calls (`self.set_cell_anchors(dtype, device)`, `x =
    self.grid_anchors(g, s)`; a field or item of its result read, `decoded = self._decode(z).sample`),
    else None."""
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr, ast.AnnAssign)) else None
    while isinstance(value, ast.Attribute) or \
            (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)):
        value = value.value   # (a field or constant item of the call's result: plumbing)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            isinstance(value.func.value, ast.Name) and value.func.value.id == "self":
        info = attrs.get(value.func.attr)
        if info is not None and info.kind == "method" and isinstance(getattr(info.value, "__func__", None),
                                                                     types.FunctionType):
            return value.func.attr
    return None


def _methods_plan(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo],
                  calls: list[ast.stmt], user_file: Any, per_statement: bool, max_iterations: int,
                  executed_of: Callable[[Any], set[int] | None] | None) -> SourcePlan | None:
    """The step of a forward whose compute is all in the methods it calls (`calls`: the statements of the one
    region, each a call of one): the one method that computes is split at its source level, the others
    (plumbing) are carried as they are; the forward stays as written. None where more than one of them
    computes (their children would share one namespace)."""
    names = list(dict.fromkeys(_called_method(st, attrs) for st in calls))
    plans: dict[str, SourcePlan] = {}
    kept: list[ast.FunctionDef] = []
    for name in names:
        assert name is not None
        method = attrs[name].value
        mfs = function_source(method, method=True)
        m_attrs = {a: attr_info(model, a) for a in names_of([mfs.fdef]).self_attrs if a != name}
        try:
            with _outer(attrs):
                plans[name] = _plan_source(model, mfs, m_attrs, user_file, per_statement=per_statement,
                                           full_tensors=None, max_iterations=max_iterations,
                                           executed=executed_of(getattr(method, "__func__", method))
                                           if executed_of else None, executed_of=executed_of,
                                           full_tensors_of=None)
        except SourceStepError:
            carried = copy.deepcopy(mfs.fdef)
            carried.name = name
            kept.append(carried)
    # the forward's calls of methods the analysis finds only plumbing in stay outside the region (torchvision's
    # AnchorGenerator: `self.set_cell_anchors(dtype, device)`): carried as they are too
    for name in dict.fromkeys(a for _, a in _self_calls([fdef])):
        if name not in names and name in attrs and attrs[name].kind == "method":
            carried = copy.deepcopy(function_source(attrs[name].value, method=True).fdef)
            carried.name = name
            kept.append(carried)
    if len(plans) != 1:
        return None
    (name, inner), = plans.items()
    body = copy.deepcopy(inner.forward)
    body.name = name
    local_names = (_arg_names(fdef.args) | set(names_of(fs.fdef.body).stores)) - {"self"}
    local_names |= {n for k in kept for n in _arg_names(k.args)} | {n for k in kept for n in names_of(k.body).stores}
    return _around(fs, inner, attrs, user_file, copy.deepcopy(fdef), [fdef, *kept], names_of([fdef, *kept]).loads,
                   local_names, note=f"its compute is in the method {name}: split here, as a method of the parent",
                   methods=[body, *kept, *inner.methods], key_prefix=inner.key_prefix, model=model)


def _called_submodule_method(stmt: ast.stmt, attrs: dict[str, AttrInfo]) -> tuple[str, str] | None:
    """(attribute, method) where a statement only calls a method of a submodule, `self.<attr>.<method>(...)`
    (torchvision's `detections = self.transform.postprocess(detections, ...)`), written in Python on the
    submodule's class; else None."""
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr, ast.AnnAssign)) else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    owner = value.func.value
    if not (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"):
        return None
    info = attrs.get(owner.attr)
    if info is None or info.kind not in ("module", "container"):
        return None
    try:
        static = inspect.getattr_static(info.value, value.func.attr)
    except AttributeError:
        return None
    if not inspect.isfunction(static) or static.__qualname__.startswith("Module."):
        return None
    return owner.attr, value.func.attr


def _submodule_method_plan(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo],
                           attr: str, name: str, user_file: Any, per_statement: bool, max_iterations: int,
                           executed_of: Callable[[Any], set[int] | None] | None) -> SourcePlan:
    """The step of a forward that only calls a submodule's method: the method's body split at its source level
    (its `self` the submodule, as a wrapper's forward is seen through), as a method of the parent that its
    forward calls in the submodule's place."""
    sub = attrs[attr].value
    method = getattr(sub, name)
    mfs = function_source(method, method=True)
    m_attrs = {a: attr_info(sub, a) for a in names_of([mfs.fdef]).self_attrs}
    with _outer(attrs):
        inner = _plan_source(sub, mfs, m_attrs, user_file, per_statement=per_statement, full_tensors=None,
                             max_iterations=max_iterations,
                             executed=executed_of(method.__func__) if executed_of else None,
                             executed_of=executed_of, full_tensors_of=None)
    return see_through(model, fs, fdef, attrs, attr, inner, user_file, via=name)


class _FunctionCallsRenamed(ast.NodeTransformer):
    """`fn(...)` (or `module.fn(...)`) -> `self.<method>(...)`."""

    def __init__(self, name: str, method: str) -> None:
        self.name, self.method = name, method

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if (isinstance(f, ast.Name) and f.id == self.name) or (isinstance(f, ast.Attribute) and f.attr == self.name):
            node.func = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=self.method, ctx=ast.Load())
        return node


def _wrapped_submodule(model: nn.Module, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> str | None:
    """The attribute of the one submodule a forward without compute of its own calls, when that submodule is
    no kernel (it has a forward of its own to split, with submodules or only methods: torchvision's
    GeneralizedRCNNTransform); else None."""
    from hdecomp.decompose.plan import is_kernel_module
    modules = _called_submodules(fdef, attrs)
    if len(modules) != 1 or attrs[modules[0]].kind != "module":
        return None
    sub = attrs[modules[0]].value
    if is_kernel_module(sub) or type(sub).forward is nn.Module.forward:
        return None
    return modules[0]


def _called_submodules(fdef: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> list[str]:
    """The distinct submodules (and containers) a forward calls as `self.<attr>(...)`, in order."""
    return list(dict.fromkeys(a for _, a in _self_calls([fdef]) if a in attrs and attrs[a].kind in ("module", "container")))


def _submodules_read(fdef: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> set[str]:
    """The submodules and containers a forward reads in any way: called (`self.norm(x)`), iterated (`for block
    in self.blocks`) or handed on; a plan that keeps the forward as written must keep them."""
    return {n.attr for n in ast.walk(fdef) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and
            n.value.id == "self" and n.attr in attrs and attrs[n.attr].kind in ("module", "container")}


class _CallsRenamed(ast.NodeTransformer):
    """`self.<attr>(...)` (with `via`, `self.<attr>.<via>(...)`) -> `self.<method>(...)`."""

    def __init__(self, attr: str, method: str, via: str | None = None) -> None:
        self.attr, self.method, self.via = attr, method, via

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if self.via is not None:
            if isinstance(f, ast.Attribute) and f.attr == self.via and isinstance(f.value, ast.Attribute) and \
                    isinstance(f.value.value, ast.Name) and f.value.value.id == "self" and f.value.attr == self.attr:
                node.func = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=self.method,
                                          ctx=ast.Load())
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and \
                f.attr == self.attr:
            f.attr = self.method
        return node


def see_through(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, attrs: dict[str, AttrInfo],
                wrapped: str, inner: SourcePlan, user_file: Any, via: str | None = None) -> SourcePlan:
    """The step of a wrapper (a forward that only calls `self.<wrapped>` with plumbing around it; with `via`,
    one of its methods, `self.<wrapped>.<via>(...)`): the wrapped module's forward (or method), split at its
    source level (`inner`), becomes a method of the parent that its own forward calls instead of the
    submodule, so the tree steps straight into the wrapped module's parts (as a graph capture traces through
    such a submodule). The parent keeps its own plumbing as written."""
    taken = {c.attr.split(".")[0] for c in inner.children} | set(inner.consts) | set(inner.containers) | \
        {m.name for m in inner.methods} | set(attrs)
    method = safe_attr(f"{wrapped}_{via or 'forward'}", taken)
    forward = _CallsRenamed(wrapped, method, via=via).visit(copy.deepcopy(fdef))
    ast.fix_missing_locations(forward)
    body = copy.deepcopy(inner.forward)
    body.name = method
    local_names = (_arg_names(fdef.args) | set(names_of(fs.fdef.body).stores)) - {"self"}
    what = f"one call of self.{wrapped}.{via}: its body" if via else f"a wrapper of self.{wrapped}: its forward"
    return _around(fs, inner, attrs, user_file, forward, [forward], names_of([forward]).loads, local_names,
                   note=f"{what} is split here, as the parent's method {method}",
                   methods=[body, *inner.methods], key_prefix=f"{wrapped}.{inner.key_prefix}")


def _whole_forward(fdef: ast.FunctionDef, regions: list[Region]) -> bool:
    """One region that holds every statement of the forward but its `return` of plain names (the parent
    would only call it: a parent in disguise)."""
    if len(regions) != 1 or regions[0].expr is not None:
        return False
    rest = [s for s in fdef.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and
                                         isinstance(s.value.func, ast.Attribute) and
                                         s.value.func.attr == _PLACEHOLDER)]
    return all(isinstance(s, ast.Return) and not _has_call(s) for s in rest)


def _one_per_statement(fdef: ast.FunctionDef, whole: Region) -> list[Region]:
    """Split the single region into one region per statement (a straight-line forward under a context)."""
    regions: list[Region] = []
    body: list[ast.stmt] = []
    for st in fdef.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                isinstance(st.value.func, ast.Attribute) and st.value.func.attr == _PLACEHOLDER:
            for inner in whole.stmts:
                r = Region(index=len(regions), stmts=[inner], contexts=list(whole.contexts), in_loop=whole.in_loop)
                regions.append(r)
                body.append(_placeholder_stmt(r))
        else:
            body.append(st)
    fdef.body = body
    return regions


def _method_self_attrs(method: Any) -> list[str]:
    try:
        src = textwrap.dedent(inspect.getsource(inspect.unwrap(getattr(method, "__func__", method))))
        return names_of([ast.parse(src)]).self_attrs
    except (OSError, TypeError, SyntaxError):
        return []


def _parent_code_nodes(fdef: ast.FunctionDef) -> Iterator[ast.AST]:
    """The statements and expressions the parent runs itself (placeholders' regions excluded)."""
    for n in ast.walk(fdef):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == _PLACEHOLDER:
            continue
        yield n


def _statements_to_force(fdef: ast.FunctionDef, regions: list[Region], attrs: dict[str, AttrInfo],
                         plumbing: set[str] | frozenset[str] = frozenset()) -> set[tuple[int, int]]:
    """Statements the parent keeps that it cannot: they read a tensor or call a method of the parent (other
    than the `plumbing` ones, which it carries), or a submodule that a region uses too (a child may not call
    its sibling's submodule)."""
    attrs = {a: i for a, i in attrs.items() if a not in plumbing}
    region_attrs: set[str] = set()
    for r in regions:
        region_attrs |= set(names_of(r.nodes).self_attrs)
    # a submodule whose tensors the forward reads (DBRX's `self.mlp.v1`) goes with those reads: its calls too
    region_attrs |= {read.split(".")[1] for st in _kept_statements(fdef.body) for n in _own_nodes(st)
                     for read in _child_tensor_reads(n, attrs)}
    force: set[tuple[int, int]] = set()
    for stmt in _kept_statements(fdef.body):
        nodes = _own_nodes(stmt)
        used = set(names_of(nodes).self_attrs)
        bad = any(attrs[a].kind in ("tensor", "method") for a in used if a in attrs) or \
            any(a in region_attrs and attrs[a].kind in ("module", "container") for a in used if a in attrs) or \
            any(_child_tensor_reads(n, attrs) for n in nodes)
        if bad:
            for n in nodes:
                if isinstance(n, (ast.stmt, ast.expr)) and _uses_bad(n, attrs, region_attrs):
                    force.add((n.lineno, n.col_offset))
    return force


def _kept_statements(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    for s in stmts:
        yield s
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(s, name, None)
            if isinstance(inner, list) and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from _kept_statements(inner)


def _own_nodes(stmt: ast.stmt) -> list[ast.AST]:
    """A statement without its nested blocks (a compound statement's header expressions only)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [it.context_expr for it in stmt.items]
    if isinstance(stmt, (ast.Try, ast.Match, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [stmt]


def _uses_bad(node: ast.AST, attrs: dict[str, AttrInfo], region_attrs: set[str]) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == _PLACEHOLDER:
        return False
    if _child_tensor_reads(node, attrs):
        return True
    for a in names_of([node]).self_attrs:
        info = attrs.get(a)
        if info is None:
            continue
        if info.kind in ("tensor", "method") or (a in region_attrs and info.kind in ("module", "container")):
            return True
    return False


def _build_plan(model: nn.Module, fs: ForwardSource, fdef: ast.FunctionDef, regions: list[Region],
                attrs: dict[str, AttrInfo], user_file: Any, full_tensors: dict[str, torch.Tensor],
                as_written: ast.FunctionDef | None = None) -> SourcePlan:
    """`as_written`: the forward as the split read it (after the rewrites before it: _attribute_stores_kept)."""
    params = _arg_names(fdef.args)
    # (and the names the regions store: a rewrite before the split may have made new ones, _attribute_stores_kept)
    local_names = (params | set(names_of(fs.fdef.body).stores) | set(names_of(fdef.body).stores) |
                   {n for r in regions for n in names_of(r.nodes).stores}) - {"self"}
    local_defs = _local_definitions(fs.fdef)
    # each region's inputs and outputs (outputs: written in the region, read anywhere else in the forward)
    for r in regions:
        used_defs = _defs_needed(r.nodes, local_defs)
        r.local_defs = [local_defs[n] for n in used_defs]
        inner = names_of([*r.local_defs, *r.nodes, *(it.context_expr for it in r.contexts)])
        first_reads = _reads_before_writes(r)
        r.inputs = [n for n in first_reads if n in local_names and n not in used_defs]
        # free names of the local definitions it carries are inputs too
        for d in r.local_defs:
            for n in names_of([d]).loads:
                if n in local_names and n not in r.inputs and n not in local_defs:
                    r.inputs.append(n)
        _pass_elements(r, local_names)
        if r.expr is not None:
            r.outputs = []
        else:
            elsewhere = _reads_outside(as_written or fs.fdef, r)
            written = [n for n in inner.stores if n not in local_defs]
            mutated = [n for n in inner.mutated if n in local_names]
            r.outputs = [n for n in [*written, *[m for m in mutated if m not in written]]
                         if n in elsewhere or (r.in_loop and n in r.inputs)]
        # (names the generated files bind only for their module-level code, `batch_size` above all, may be a
        # forward's locals: a local shadows them inside forward, where generated code never reads them)
        bad = [n for n in [*r.inputs, *r.outputs] if n in FILE_NAMES and n not in _MODULE_LEVEL_ONLY]
        if bad:
            raise SourceStepError(f"the forward names a variable {bad[0]!r}, a name generated files use")
    # who holds what
    region_uses: dict[str, list[Region]] = {}
    for r in regions:
        for a in names_of([*r.local_defs, *r.nodes]).self_attrs:
            region_uses.setdefault(a, []).append(r)
        for d in r.local_defs:
            for a in names_of([d]).self_attrs:
                region_uses.setdefault(a, []).append(r)
    parent_attrs = names_of(list(_parent_code_nodes(fdef))).self_attrs
    parent_attrs = [a for a in parent_attrs if a != _PLACEHOLDER]
    used_attr_names: set[str] = set(parent_attrs) | _OUTER_ATTRS.get()
    for r in regions:
        base = _region_base(r, attrs)
        r.attr = safe_attr(base, used_attr_names)
    fill = _FillRegions(regions)
    forward = fill.visit(fdef)
    ast.fix_missing_locations(forward)
    _no_reads_into_children(forward, attrs)
    ctx = SourceContext(user_file=user_file)
    _bind_globals(names_of([forward, *fs.decorators]).loads, local_names, fs, ctx, where="the refactored parent")
    children: list[SourceChild] = []
    consts: dict[str, Any] = {}
    containers: dict[str, list[str]] = {}
    container_types: dict[str, type] = {}
    methods: list[ast.FunctionDef] = []
    parent_attrs = list(parent_attrs)
    for a in parent_attrs:
        info = attrs.get(a)
        if info is None:
            continue
        if info.kind == "method":
            # (a test the parent keeps, `if self.has_mask():`, calls a method that answers from the
            # configuration: carried as it is, with what it reads)
            carried = ast.parse(textwrap.dedent(_method_source(info.value, a))).body[0]
            if not isinstance(carried, ast.FunctionDef):
                raise SourceStepError(f"self.{a} is not a plain method")
            methods.append(carried)
            own = _arg_names(carried.args) | set(names_of(carried.body).stores)
            _bind_globals([n for n in names_of([carried]).loads if n not in own], local_names | own, fs, ctx,
                          where="the refactored parent")
            for sub in names_of([carried]).self_attrs:
                if sub not in parent_attrs:
                    attrs.setdefault(sub, attr_info(model, sub))
                    parent_attrs.append(sub)
            continue
        if info.kind == "const":
            consts[a] = info.value
        elif info.kind == "module":
            children.append(_module_child(a, info.value, user_file, fdef))
        elif info.kind == "container":
            items = []
            container_types[a] = type(info.value)
            for key, sub in info.value.named_children():
                child = _module_child(f"{a}.{key}", sub, user_file, fdef)
                children.append(child)
                items.append(child.attr)
            containers[a] = items
    if not children and len(regions) == 1 and not regions[0].in_loop and _module_calls(regions[0], attrs) > 1:
        # one child called once that holds every submodule the forward calls (`return self.up(self.proj(x))`):
        # the parent in disguise the verifier refuses (HD305, HD304); a graph splits it into its submodules
        raise SourceStepError("the split would be one child holding the whole forward")
    ties: list[tuple[str, str]] = []
    for r in regions:
        children.append(_region_child(model, r, attrs, region_uses, fs, user_file, local_names, ties,
                                      full_tensors))
    consts.update(_decorator_state(model, fs, consts, ctx, {c.attr.split(".")[0] for c in children} |
                                   set(containers)))
    return SourcePlan(fs=fs, regions=regions, children=children, forward=forward, consts=consts,
                      containers=containers, container_types=container_types, ties=ties, ctx=ctx,
                      methods=methods)


def _local_definitions(fdef: ast.FunctionDef) -> dict[str, ast.stmt]:
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


def _defs_needed(nodes: list[ast.AST], defs: dict[str, ast.stmt]) -> list[str]:
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


def _pass_elements(r: Region, local_names: set[str]) -> None:
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
        r.first_line = r.first_line or ast.unparse(r.expr if r.expr is not None else r.stmts[0]).split("\n")[0]
        label = index.id if isinstance(index, ast.Name) else str(index.value)
        part = safe_local(f"{name}_{label}", local_names | set(r.inputs) | set(names.loads) | set(names.stores))
        swap = _ElementReads(name, ast.dump(index), part)
        r.stmts = [swap.visit(st) for st in r.stmts]
        if r.expr is not None:
            r.expr = swap.visit(r.expr)
        for it in r.contexts:
            it.context_expr = swap.visit(it.context_expr)
        r.passed[part] = ast.Subscript(value=ast.Name(id=name, ctx=ast.Load()), slice=index, ctx=ast.Load())
        r.inputs[r.inputs.index(name)] = part
        local_names.add(part)   # a parameter of the child
        nodes = [*r.nodes, *(it.context_expr for it in r.contexts)]
        if isinstance(index, ast.Name) and not any(isinstance(n, ast.Name) and n.id == index.id
                                                   for node in nodes for n in ast.walk(node)):
            r.inputs.remove(index.id)


class _ElementReads(ast.NodeTransformer):
    """`name[index]` read -> the name of the element passed in."""

    def __init__(self, name: str, index: str, part: str) -> None:
        self.name, self.index, self.part = name, index, part

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.ctx, ast.Load) \
                and ast.dump(node.slice) == self.index:
            return ast.copy_location(ast.Name(id=self.part, ctx=ast.Load()), node)
        return self.generic_visit(node)


def _child_tensor_reads(node: ast.AST, attrs: dict[str, AttrInfo]) -> list[str]:
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


def _no_reads_into_children(forward: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> None:
    """The parent calls its module children and reads nothing inside them: a child's own tensor read by the
    parent (DBRX's experts: `self.mlp.v1.view(shape)[e]`, handed back to `self.mlp(...)`) is not there once
    the child is composed of its own children, so such a step would pass and its composition fail. (Such
    reads are moved into regions with the calls of that module, _statements_to_force: this is the check.)"""
    reads = _child_tensor_reads(forward, attrs)
    if reads:
        raise SourceStepError(f"the parent reads {reads[0]}, a tensor inside a child it calls (gone once that "
                              "child is split)")


def _reads_before_writes(r: Region) -> list[str]:
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


def _reads_outside(original: ast.FunctionDef, r: Region) -> set[str]:
    """Names the forward reads outside region `r` (by line: the canonical source has one statement per
    line, and the region's nodes keep their lines)."""
    lines: set[int] = set()
    for node in r.nodes:
        a, b = _span(node)
        lines |= set(range(a, b + 1))
    found: set[str] = set()
    for n in ast.walk(original):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno not in lines:
            found.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.lineno not in lines:
            found.add(n.target.id)
    return found


def _region_base(r: Region, attrs: dict[str, AttrInfo]) -> str:
    """A child attribute / file name base: the role of what the region calls (vocab/roles.py:
    `linear_act`, `gating`); a region of one call is named after it (`logsigmoid`)."""
    ops = _region_ops(r, attrs)
    if r.contexts or any(isinstance(s, (ast.With, ast.AsyncWith)) for s in r.stmts):
        return "region"
    if len(ops) == 1:
        return ops[0]
    return role_of(ops) if ops else "region"


def _region_ops(r: Region, attrs: dict[str, AttrInfo]) -> list[str]:
    """What the region calls, in order, each once (`linear`, `relu`; a submodule by its class)."""
    ops: list[str] = []
    for node in r.nodes:
        for n in ast.walk(node):
            name = None
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute):
                    if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in attrs and \
                            attrs[f.attr].kind in ("module", "container"):
                        name = snake(type(attrs[f.attr].value).__name__)
                    elif f.attr == BASE_FORWARD and f.attr in attrs:   # the torch layer's forward: by its class
                        name = snake(attrs[f.attr].value.__func__.__qualname__.split(".")[0])
                    else:
                        name = f.attr
                elif isinstance(f, ast.Name):
                    name = f.id
            elif isinstance(n, ast.BinOp):
                name = _BINOP_NAMES.get(type(n.op))
            elif isinstance(n, ast.Compare):
                name = "compare"
            if name and snake(name) not in ops and not name.startswith("_") and name not in _PLUMBING_CALLS:
                ops.append(snake(name))
    # an eval-mode drop_path (nn.Identity) computes nothing: `shortcut + self.drop_path(x)` is an add
    return [o for o in ops if is_compute_op(o)] or ops


_BINOP_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
                ast.Pow: "pow", ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.BitAnd: "and_", ast.BitOr: "or_"}
_PLUMBING_CALLS = {"view", "reshape", "permute", "transpose", "contiguous", "size", "unsqueeze", "squeeze",
                   "flatten", "chunk", "split", "to", "float", "half", "range", "len", "enumerate", "zip",
                   "append", "tuple", "list", "int", "float_", "expand", "shape", "dim"}


# ---- children's source -------------------------------------------------------------------------------------


def _module_child(attr: str, sub: nn.Module, user_file: Any, fdef: ast.FunctionDef) -> SourceChild:
    from hdecomp.decompose.codegen import module_child_class
    ctx = SourceContext(user_file=user_file)
    doc = f"{type(sub).__name__} with the recorded constructor arguments."
    wrap = getattr(nn, type(sub).__name__, None) is type(sub) and any(True for _ in sub.children())
    try:
        class_src, _ = module_child_class(sub, ctx, doc, wrap=wrap)
    except NotRepresentable as exc:
        raise SourceStepError(f"self.{attr} cannot be written as a child: {exc}") from exc
    inner = "layers." if wrap else ""
    wm = {key: f"{inner}{key}" for key in _state_keys(sub)}
    base = module_base_name(sub, attr)
    return SourceChild(attr=attr, kind="module", class_src=class_src, ctx=ctx, base=base, weight_map=wm,
                       ops=[type(sub).__name__], module=sub, call_args=_call_sites(fdef, attr))


def _state_keys(m: nn.Module) -> list[str]:
    from hdecomp.verify.weights import transferred_keys
    return transferred_keys(m)


def _call_sites(fdef: ast.FunctionDef, attr: str) -> list[ast.expr]:
    """The arguments of the first call of `self.<attr>(...)` (a container item: of a call through it)."""
    head = attr.split(".")[0]
    for n in ast.walk(fdef):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == head and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == "self":
            return list(n.args)
    return []


def _region_child(model: nn.Module, r: Region, attrs: dict[str, AttrInfo], region_uses: dict[str, list[Region]],
                  fs: ForwardSource, user_file: Any, local_names: set[str],
                  ties: list[tuple[str, str]], full_tensors: dict[str, torch.Tensor]) -> SourceChild:
    from hdecomp.decompose.codegen import initialise_text
    ctx = SourceContext(user_file=user_file)
    used = names_of([*r.local_defs, *r.nodes, *(it.context_expr for it in r.contexts)])
    init: list[str] = []
    wm: dict[str, str] = {}
    methods: list[str] = []
    method_homes: list[ForwardSource] = []
    attr_list = list(used.self_attrs)
    i = 0
    while i < len(attr_list):
        a = attr_list[i]
        i += 1
        info = attrs.get(a)
        if info is None:
            raise SourceStepError(f"self.{a} is read by a child but not found on the module")
        if info.kind == "method":
            src = _method_source(info.value, a)
            methods.append(src)
            method_homes.append(_method_home(info.value, fs))
            for sub in names_of([ast.parse(textwrap.dedent(src))]).self_attrs:
                if sub not in attr_list:
                    attr_list.append(sub)
                    if sub not in attrs:
                        attrs[sub] = attr_info(model, sub)
            continue
        owners = region_uses.get(a, [r])
        first = owners[0]
        if info.kind in ("module", "container"):
            # one module object for the regions that read it where it holds state (its weights are one);
            # a stateless one (EdgeNeXt's drop_path, an nn.Identity in eval) is a copy in each region
            if first is not r and first.attr and _state_keys(info.value):
                ties.append((f"{r.attr}.{a}", f"{first.attr}.{a}"))
            try:
                expr = module_expr(info.value, ctx)
            except NotRepresentable as exc:
                raise SourceStepError(f"self.{a} cannot be rebuilt in a child: {exc}") from exc
            problem = check_expr(expr, info.value, ctx)
            if problem:
                raise SourceStepError(problem)
            init.append(f"        self.{a} = {expr}")
            init.extend(f"        {line}" for line in hook_registrations(info.value, f"self.{a}", ctx))
            # (a constructor that leaves its parameters as torch.empty memory: DBRX's expert GLU)
            fill = initialise_text(info.value, prefix=f"{a}.")
            if fill:
                init.extend(fill.rstrip("\n").split("\n"))
            if first is r:
                for key in _state_keys(info.value):
                    wm[f"{a}.{key}"] = f"{a}.{key}"
        elif info.kind == "tensor":
            if first is not r and first.attr:
                ties.append((f"{r.attr}.{a}", f"{first.attr}.{a}"))
            init.append(_tensor_init(model, a, full_tensors.get(a, info.value), ctx))
            registered = a in dict(model.named_parameters(recurse=False)) or a in dict(model.named_buffers(recurse=False))
            if first is r and (registered or not _small_tensor(info.value)):   # (a small plain one: a literal)
                wm[a] = a
        else:
            try:
                init.append(f"        self.{a} = {literal(info.value, ctx)}")
            except NotRepresentable as exc:
                raise SourceStepError(f"self.{a} ({type(info.value).__name__}) cannot be written as code") from exc
    _bind_globals(used.loads, local_names, fs, ctx, where="a child")
    for m, home in zip(methods, method_homes, strict=True):
        # (a method another module defines, a base class's `warn_if_padding_and_no_attention_mask` in
        # transformers' modeling_utils, reads that module's globals: `is_tracing`)
        _bind_globals(names_of([ast.parse(textwrap.dedent(m))]).loads, set(), home, ctx, where="a child")
    body: list[str] = []
    for d in r.local_defs:
        body += ast.unparse(d).split("\n")
    stmts = ast.unparse(r.expr).split("\n") if r.expr is not None else \
        [ln for s in r.stmts for ln in ast.unparse(s).split("\n")]
    if r.expr is not None:
        stmts = ["return " + stmts[0], *stmts[1:]]
    if r.contexts:
        head = "with " + ", ".join(ast.unparse(it) for it in r.contexts) + ":"
        body.append(head)
        body += ["    " + ln for ln in stmts]
        indent = "    "
    else:
        body += stmts
        indent = ""
    if r.expr is None:
        ret = r.outputs[0] if len(r.outputs) == 1 else "(" + ", ".join(r.outputs) + ")" if r.outputs else "None"
        body.append(f"{indent}return {ret}")
    doc = _region_doc(r)
    lines = ["class Model(nn.Module):", f'    """{doc}"""', "", "    def __init__(self):", "        super().__init__()"]
    lines += init
    for m in methods:
        lines.append("")
        lines += ["    " + ln if ln else ln for ln in textwrap.dedent(m).rstrip().split("\n")]
    lines += ["", f"    def forward(self, {', '.join(r.inputs)}):" if r.inputs else "    def forward(self):"]
    lines += ["        " + ln if ln else ln for ln in body]
    ops = (["region"] if any(isinstance(s, (ast.With, ast.AsyncWith)) for s in r.stmts) else []) + \
        (["autocast"] if r.contexts else []) + _region_ops(r, attrs)
    held = [attrs[a].value for a in attr_list if a in attrs and attrs[a].kind in ("module", "container")]
    return SourceChild(attr=r.attr, kind="region", class_src="\n".join(lines) + "\n", ctx=ctx,
                       base=_region_base(r, attrs), weight_map=wm, ops=ops, region=r, region_modules=held)


def _region_doc(r: Region) -> str:
    first = r.first_line or ast.unparse(r.expr if r.expr is not None else r.stmts[0]).split("\n")[0]
    if len(first) > 80:
        first = first[:77] + "..."
    where = " (a loop body: called once per iteration)" if r.in_loop else ""
    return f"`{first}`{' ...' if len(r.stmts) > 1 else ''} from the parent's forward{where}.".replace('"""', "'''")


def _method_home(method: Any, fs: ForwardSource) -> ForwardSource:
    """Where the names a copied method reads are bound: its own module's globals, not the forward's."""
    fn = inspect.unwrap(getattr(method, "__func__", method))
    glb = getattr(fn, "__globals__", None)
    if not isinstance(glb, dict) or glb is fs.globals:
        return fs
    mod = getattr(fn, "__module__", "") or ""
    return replace(fs, globals=glb, module_name=mod,
                   user_code=mod.startswith("_hdecomp_component_") or mod == "__main__")


def _method_source(method: Any, name: str) -> str:
    fn = inspect.unwrap(getattr(method, "__func__", method))
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise SourceStepError(f"the source of self.{name} is not available") from exc
    tree = ast.parse(src)
    d = tree.body[0]
    if not isinstance(d, ast.FunctionDef):
        raise SourceStepError(f"self.{name} is not a plain method")
    d.name = name   # (the base class's forward, read as `self._base_forward`, is carried by that name)
    keep: list[ast.expr] = [dec for dec in d.decorator_list
                            if isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod")]
    d.decorator_list = keep
    for n in ast.walk(d):
        if isinstance(n, ast.Name) and n.id in ("super", "__class__"):
            raise SourceStepError(f"self.{name} uses super()")
    _drop_signature_annotations(d)
    _strip_annotations(d)
    return ast.unparse(d)


def _small_tensor(t: torch.Tensor) -> bool:
    """A tensor a file writes as a literal (`torch.tensor([...])`): at most 16 values, at most one dimension."""
    return t.numel() <= 16 and t.dim() <= 1


def _tensor_init(model: nn.Module, name: str, t: torch.Tensor, ctx: SourceContext) -> str:
    """A parameter / buffer the region reads, in the child's __init__: a stand-in of the recorded shape and
    dtype (batch-sized dimensions as `batch_size`) whose values the verifier (and the composition test)
    transfer from the parent (weight_map.json)."""
    from hdecomp.decompose.codegen import uses_batch
    from hdecomp.decompose.shapes import BATCH, dims_source, full_batch, sample
    from hdecomp.decompose.source import tensor_literal
    dims = dims_source(t)
    if any(d == BATCH or d.startswith(f"{BATCH} ") for d in dims):
        uses_batch(ctx, full_batch(t))
    shape_t = f"({', '.join(dims)},)" if len(dims) == 1 else f"({', '.join(dims)})"
    dt = "" if t.dtype == torch.float32 else f", dtype={t.dtype}"
    own = dict(model.named_parameters(recurse=False))
    if name in own:
        frozen = "" if own[name].requires_grad else ", requires_grad=False"
        return f"        self.{name} = nn.Parameter(torch.randn({shape_t}{dt}){frozen})"
    small = _small_tensor(t)
    plain = name not in dict(model.named_buffers(recurse=False))
    if plain and small:   # a small plain tensor attribute: the same value, written out
        return f"        self.{name} = {tensor_literal(sample(t))}"
    if plain:   # a big one (a sinusoidal table built in __init__): a non-persistent buffer the map fills
        init = f"torch.randn({shape_t}{dt})" if t.is_floating_point() else f"torch.zeros({shape_t}{dt})"
        return (f"        # a plain tensor attribute of the original ({name}): its values come from the parent\n"
                f"        self.register_buffer({name!r}, {init}, persistent=False)")
    persistent = name in model.state_dict()
    init = tensor_literal(sample(t)) if small else \
        f"torch.randn({shape_t}{dt})" if t.is_floating_point() else f"torch.zeros({shape_t}{dt})"
    flag = "" if persistent else ", persistent=False"
    return (f"        # buffer of the original ({name}): its values come from the parent\n"
            f"        self.register_buffer({name!r}, {init}{flag})")


_STANDARD = {"torch": torch, "nn": nn, "F": torch.nn.functional}


def _imported(value: Any) -> bool:
    """A module, or a class or function an installed package defines (a user file's import binds it)."""
    if isinstance(value, type(sys)):
        return True
    mod = getattr(value, "__module__", None)
    if not isinstance(mod, str) or not (isinstance(value, type) or callable(value)):
        return False
    return not (mod.startswith("_hdecomp_component_") or mod == "__main__") and import_home(value) is not None


def _bind_globals(loads: list[str], local_names: set[str], fs: ForwardSource, ctx: SourceContext,
                  where: str) -> None:
    """Make every global name the code reads available in the generated file: carried over from the model
    file, imported from the package that defines the forward, or the standard torch imports."""
    import math
    for name in loads:
        if name in local_names or name == "self":
            continue
        if name in fs.globals:
            value = fs.globals[name]
        elif hasattr(builtins, name):
            continue
        else:
            raise SourceStepError(f"{where} reads {name!r}, which is not defined where the forward is")
        if name in _STANDARD and value is _STANDARD[name]:
            continue
        if name == "math" and value is math:
            ctx.needs_math = True
            continue
        # (a name a user file binds by an import, `import torchvision` or `from collections import OrderedDict`,
        # is imported the same way, not carried as a definition the file does not have)
        if fs.user_code and not _imported(value):
            ctx.need(name)
            continue
        if isinstance(value, type(sys)):
            line = f"import {value.__name__}" + (f" as {name}" if value.__name__.split(".")[-1] != name or
                                                  "." in value.__name__ else "")
            if value.__name__ == name:
                line = f"import {name}"
            ctx.imports[name] = line
            continue
        home = fs.module_name
        if getattr(sys.modules.get(home), name, None) is not value:
            home = import_home(value) or ""
        if not home:
            raise SourceStepError(f"{where} reads {name!r}, which cannot be imported")
        ctx.imports[name] = f"from {home} import {name}"
