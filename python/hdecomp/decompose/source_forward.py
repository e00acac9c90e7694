"""A module's forward (or a plain function) as canonical source: one statement per line, with the file lines a
run executes, its library decorators and its base class's forward (see source_step.py)."""

from __future__ import annotations

import ast
import collections
import copy
import dataclasses
import inspect
import re
import sys
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from hdecomp.anticheat.static.values import read_out
from hdecomp.decompose.source_names import root_variable
from hdecomp.errors import DecomposeError
from hdecomp.vocab.workload import strip_docstrings


class SourceStepError(DecomposeError):
    """The forward cannot be split at its source level (the message says why)."""




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
    drop_signature_annotations(fdef)
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
    strip_annotations(fdef)
    if reads_self_items(model):
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


def library_decorator(d: ast.expr, namespace: dict[str, Any]) -> bool:
    """A decorator (`@name`, `@name(...)` with constant arguments, `@module.name`) bound, where the forward is
    defined, to a function of a model library (anticheat.static.vocab.MODEL_LIBRARIES), in the form the static
    analysis reads as plumbing (module_scan.constant_arguments): it maps the forward's arguments and outputs
    (a config default, a renamed keyword, outputs collected by hooks), which the static analysis reads as
    plumbing, and it runs with the parent's forward as it does with the original's."""
    from hdecomp.anticheat.static.module_scan import constant_arguments
    from hdecomp.anticheat.static.vocab import MODEL_LIBRARIES
    root = root_variable(d.func if isinstance(d, ast.Call) else d)
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


def self_item_names(model: nn.Module) -> set[str] | None:
    """The names of the items a container's forward can reach through `self[key]` where every key is a string
    or an f-string (`self[f"expert_{idx[0]}"]`: the items named `expert_` then anything), None where it can
    reach any (iteration, `len(self)`, `self.items()`, a key computed otherwise). NLLB-MoE's experts dict also
    holds the dropout its forward calls as `self.token_dropout`: that item is no expert the key can name."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(type(model).forward)))
    except (OSError, TypeError, SyntaxError):
        return None
    patterns: list[str] = []
    uses = [n for n in ast.walk(tree) if any(isinstance(c, ast.Name) and c.id == "self" for c in ast.iter_child_nodes(n))]
    for n in uses:
        if isinstance(n, ast.Attribute) and n.attr not in _ITEM_METHODS:   # (`self.token_dropout`: no item by key)
            continue
        if not isinstance(n, ast.Subscript):
            return None
        key = n.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            patterns.append(re.escape(key.value))
        elif isinstance(key, ast.JoinedStr):
            patterns.append("".join(re.escape(str(v.value)) if isinstance(v, ast.Constant) else ".*"
                                    for v in key.values))
        else:
            return None
    names = {name for name, _ in model.named_children()}
    return {name for name in names if any(re.fullmatch(p, name) for p in patterns)}


def reads_self_items(model: nn.Module) -> bool:
    return isinstance(model, _CONTAINER_TYPES) and SELF_ITEMS not in vars(model)


def strip_self_items(model: nn.Module, key: str) -> str:
    """An original state key as the container `model` itself names it (`self_items.expert_0.wi.weight` ->
    `expert_0.wi.weight`); any other module's keys as they are."""
    if reads_self_items(model) and key.startswith(SELF_ITEMS + "."):
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
    drop_signature_annotations(fdef)
    strip_docstrings(fdef, nested=False)
    for n in ast.walk(fdef):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            raise SourceStepError(f"{fn.__name__} uses {type(n).__name__.lower()}")
        if isinstance(n, ast.Name) and n.id in ("super", "__class__", *(() if method else ("self",))):
            raise SourceStepError(f"{fn.__name__} uses `{n.id}`")
    strip_annotations(fdef)
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

    return lines if _traced_runs(model, [(args, kwargs)], code, local) else None


def _traced_runs(model: nn.Module, runs: list[tuple[list[Any], dict[str, Any]]], code: Any, local: Any) -> bool:
    """Run `model` on (copies of) each of `runs` with `local` tracing the frames of `code` only (no grad);
    False where a run raises. A probe: attributes the runs set lazily (MultiScaleRoIAlign's `scales`) are put
    back as they were."""
    from hdecomp.decompose.capture.common import plain_attributes, restore_plain_attributes
    from hdecomp.runtime.component import clone_nested

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code is code else None

    old = sys.gettrace()
    before = plain_attributes(model)
    try:
        for args, kwargs in runs:
            sys.settrace(calls)
            try:
                with torch.no_grad():
                    model(*clone_nested(args), **clone_nested(kwargs))
            finally:
                sys.settrace(old)
    except Exception:
        return False
    finally:
        restore_plain_attributes(model, before)
    return True


def _number_targets(fs: ForwardSource) -> dict[int, list[str]]:
    """{file line: names} of the forward's statements that may bind numbers read out of an integer tensor: one
    name bound to a subscript (`idx = hit[0]`), and the names a loop binds (`for t, n in zip(sizes, counts):`)."""
    out: dict[int, list[str]] = {}
    stored = collections.Counter(n.id for n in ast.walk(fs.fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    for st in ast.walk(fs.fdef):
        # (a conditional expression elsewhere on the line may be chosen by the run: only one that is the value)
        if not isinstance(st, (ast.Assign, ast.For)) or st.lineno not in fs.file_line or \
                (any(line == st.lineno for line, _ in fs.branch_lines) and not (
                    isinstance(st, ast.Assign) and isinstance(st.value, ast.IfExp) and read_out(st.value))):
            continue
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                read_out(st.value):
            out[fs.file_line[st.lineno]] = [st.targets[0].id]
        elif isinstance(st, ast.For):
            # (a loop's names are declared for the whole forward: only names no other statement binds)
            names = [st.target] if isinstance(st.target, ast.Name) else \
                list(st.target.elts) if isinstance(st.target, ast.Tuple) else []
            if names and all(isinstance(n, ast.Name) and stored[n.id] == 1 for n in names):
                out[fs.file_line[st.lineno]] = [n.id for n in names if isinstance(n, ast.Name)]
    return out


def _number_kind(value: Any) -> str:
    """"int" or "bool" for an integer (bool) number: a 0-dim integer tensor, a numpy integer scalar (a count
    read out of `bincount().cpu().numpy().cumsum(0)`), a Python int; "other" for anything else."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and not value.is_floating_point() and \
            not value.is_complex():
        return "bool" if value.dtype == torch.bool else "int"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    return "other"


def number_lines(model: nn.Module, runs: list[tuple[list[Any], dict[str, Any]]],
                 of: Any = None) -> dict[int, dict[str, str]]:
    """{file line: {name: "int" or "bool"}} of the statements of `model`'s own forward that bind names to values
    that are, at every execution in `runs`, 0-dim integer (bool) tensors: numbers read out of an integer tensor
    (`expert_idx = expert_idx[0]` over the rows of a `nonzero()`; `for t, n in zip(grid_t, counts):`). The
    planner writes them annotated (`expert_idx: int = expert_idx[0]`; `t: int` and `n: int` declared before the
    loop), as the static anti-cheat reads a number claimed so, and the run checks it (an aten op on numbers
    alone is the parent's, HD401 sees every other). A loop's names count only where every one of them is a
    number. And, under the def's file line, the parameters handed Python numbers or sequences of them at every
    run (`spatial_shapes_list: list[tuple[int, int]]`, `im2col_step: int`; number_annotation), written
    annotated so that `height * width` over them is the parent's host arithmetic. `of`: of a method or a
    function a run of `model` calls instead (split in place of its call). Empty where it cannot be told."""
    from hdecomp.runtime.host_values import number_annotation
    try:
        fs = forward_source(model) if of is None else function_source(of, method=True)
    except SourceStepError:
        return {}
    targets = _number_targets(fs)
    a = fs.fdef.args
    params = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    def_line = fs.file_line.get(fs.fdef.lineno)
    if not targets and (not params or def_line is None):
        return {}
    kinds: dict[int, dict[str, set[str]]] = {}
    handed: dict[str, set[str | None]] = {}
    last: dict[int, int | None] = {}

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and last.get(id(frame)) is None:
            # (the frame's first line: its parameters as handed)
            seen = frame.f_locals
            for name in params:
                handed.setdefault(name, set()).add(number_annotation(seen.get(name)) if name in seen else None)
        if event in ("line", "return"):
            prev = last.get(id(frame))
            if prev is not None and prev in targets and prev != (frame.f_lineno if event == "line" else None):
                seen = frame.f_locals
                for name in targets[prev]:
                    kinds.setdefault(prev, {}).setdefault(name, set()).add(_number_kind(seen.get(name)))
            last[id(frame)] = frame.f_lineno if event == "line" else None
        return local

    if not _traced_runs(model, runs, fs.code, local):
        return {}
    out: dict[int, dict[str, str]] = {}
    for line, by_name in kinds.items():
        if all(k in ({"int"}, {"bool"}) for k in by_name.values()) and len(by_name) == len(targets[line]):
            out[line] = {name: next(iter(k)) for name, k in by_name.items()}
    claimed = {name: kind for name, k in handed.items() if len(k) == 1 and (kind := next(iter(k))) is not None}
    if claimed and def_line is not None:
        out[def_line] = claimed
    return out


def with_number_annotations(fs: ForwardSource, numbers: dict[int, dict[str, str]]) -> ForwardSource:
    """`fs` with the names that the statements on the file lines of `numbers` (number_lines) bind claimed
    numbers: `idx = hit[0]` is `idx: int = hit[0]`, on the same canonical line; before a loop, `t: int` is
    declared for each name it binds. The canonical lines are mapped to the file's anew."""
    if not numbers:
        return fs
    fdef = copy.deepcopy(fs.fdef)
    changed = False

    def kinds(node: ast.stmt) -> dict[str, str]:
        return numbers.get(fs.file_line.get(node.lineno, -1), {})

    def declared(name: str, kind: str) -> ast.AnnAssign:
        return ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()), annotation=ast.Name(id=kind, ctx=ast.Load()),
                             value=None, simple=1)

    def annotation(kind: str) -> ast.expr:
        return ast.parse(kind, mode="eval").body

    params = kinds(fdef)
    for p in [*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs]:
        if p.arg in params and p.annotation is None:
            p.annotation = annotation(params[p.arg])
            changed = True

    class _Annotated(ast.NodeTransformer):
        def visit_Assign(self, node: ast.Assign) -> Any:
            claim = kinds(node)
            if not claim or not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                return node
            nonlocal changed
            changed = True
            return ast.copy_location(ast.AnnAssign(target=node.targets[0], value=node.value, simple=1,
                                                   annotation=ast.Name(id=claim[node.targets[0].id], ctx=ast.Load())),
                                     node)

        def visit_For(self, node: ast.For) -> Any:
            self.generic_visit(node)
            claim = kinds(node)
            if not claim:
                return node
            nonlocal changed
            changed = True
            return [declared(name, kind) for name, kind in claim.items()] + [node]
    _Annotated().visit(fdef)
    if not changed:
        return fs
    text = ast.unparse(fdef)
    canon = ast.parse(text).body[0]
    assert isinstance(canon, ast.FunctionDef)
    # (the declarations are new statements: every other one keeps its file line, read through the old canon)
    olds = [n for n in ast.walk(fs.fdef) if isinstance(n, ast.stmt)]
    news = [n for n in ast.walk(canon) if isinstance(n, ast.stmt)
            and not (isinstance(n, ast.AnnAssign) and n.value is None)]
    moved = {o.lineno: n.lineno for o, n in zip(olds, news, strict=False)}
    file_line = {moved[c]: f for c, f in fs.file_line.items() if c in moved}
    # (a conditional expression of an annotated statement moves along its line: paired in order, as written)
    places = {(o.lineno, o.col_offset): (n.lineno, n.col_offset)
              for o, n in zip([n for n in ast.walk(fs.fdef) if isinstance(n, ast.IfExp)],
                              [n for n in ast.walk(canon) if isinstance(n, ast.IfExp)], strict=False)}
    branch_lines = {places[k]: b for k, b in fs.branch_lines.items() if k in places}
    return dataclasses.replace(fs, fdef=canon, text=text, file_line=file_line, branch_lines=branch_lines)


def drop_signature_annotations(fdef: ast.FunctionDef) -> None:
    """No annotations on the parameters and the return: they name types of the function's own module (`Union`,
    `ImageList`), which a file the code is carried into may not import. An annotation of a list or tuple of
    Python numbers (`image_shapes: List[Tuple[int, int]]`) stays, spelled with the builtins (`list[tuple[int, int]]`): it is
    how the static anti-cheat knows the parameter holds numbers (a library function handed them is read as
    host code on sizes, not compute)."""
    fdef.returns = None
    for a in [*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs]:
        a.annotation = _builtin_numbers(a.annotation) if isinstance(a.annotation, ast.Subscript) else None
    for extra in (fdef.args.vararg, fdef.args.kwarg):
        if extra is not None:
            extra.annotation = None


_GENERICS = {"List": "list", "Tuple": "tuple", "Sequence": "tuple", "list": "list", "tuple": "tuple"}


def _builtin_numbers(node: ast.expr | None, depth: int = 0) -> ast.expr | None:
    """An annotation of numbers or of lists and tuples of them, spelled with builtins only (`int`,
    `list[tuple[int, int]]`); None for any other annotation."""
    if isinstance(node, ast.Name) and node.id in ("int", "float", "bool"):
        return ast.Name(id=node.id, ctx=ast.Load())
    if isinstance(node, ast.Constant) and node.value is Ellipsis and depth:
        return ast.Constant(value=...)
    if not isinstance(node, ast.Subscript) or depth > 2:
        return None
    base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
    if base not in _GENERICS:
        return None
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    parts = [p for p in (_builtin_numbers(e, depth + 1) for e in elts) if p is not None]
    if not parts or len(parts) != len(elts):
        return None
    inner = parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=ast.Load())
    return ast.Subscript(value=ast.Name(id=_GENERICS[base], ctx=ast.Load()), slice=inner, ctx=ast.Load())


def strip_annotations(fdef: ast.FunctionDef) -> None:
    """`x: torch.Tensor = f(y)` -> `x = f(y)` (annotations only name types)."""
    for node in ast.walk(fdef):
        for field_name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field_name, None)
            if not isinstance(stmts, list):
                continue
            for i, s in enumerate(stmts):
                if isinstance(s, ast.AnnAssign) and s.value is not None:
                    stmts[i] = ast.copy_location(ast.Assign(targets=[s.target], value=s.value), s)
