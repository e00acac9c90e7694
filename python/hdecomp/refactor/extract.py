"""Extract to child component: move a selection of `forward()` (whole statements, or one expression) of a
`Model` / `RefactoredModel` into a new, complete child component file, and rewrite the parent to call it.

The analysis (what is selected, which variables flow in and out, which submodules move) reads the source
with Python's `ast`; the parent is rewritten with libcst so its formatting and comments are kept. The result
is a list of file changes (the parent, the new child, weight_map.json) that callers apply themselves: the
language server turns them into one WorkspaceEdit, a CLI or a test writes them to disk.
"""

from __future__ import annotations

import ast
import functools
import json
import keyword
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import dumps_json
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.refactor.selection import ExtractionRefused, FileChange, Offsets, SelectionInfo, Span
from hdecomp.refactor.state_keys import (
    call_name,
    constructor_keys,
    file_state_keys,
    make_resolver,
    self_attr_target,
)

MODEL_CLASSES = ("RefactoredModel", "Model")
# nn.Module's own state every child has as well (the parent's .eval() reaches it)
_MODULE_STATE = {"training"}
TODO_SHAPE = "# TODO(hdecomp): fill in the input shape"
TODO_VALUE = "# TODO(hdecomp): fill in this constructor argument"


@functools.lru_cache(maxsize=8)
def _parse(source: str) -> ast.Module:
    """Parse once per text: editors ask for code actions on every selection change. The trees are only
    read, never changed, so sharing them is safe."""
    return ast.parse(source)


@dataclass
class Extraction:
    child_name: str
    class_alias: str
    attribute: str
    child_path: Path
    inputs: list[str]
    outputs: list[str]
    moved_attributes: list[str]
    changes: list[FileChange]
    weight_map_entries: dict[str, Any]
    todo: list[str]


_BLANK = re.compile(r"(?:\s|;|#[^\n]*)*")


def _child_blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", []) or []:
        yield handler.body
    for case in getattr(stmt, "cases", []) or []:
        yield case.body


def _find_model_forward(tree: ast.Module, offsets: Offsets, start: int, end: int
                        ) -> tuple[ast.ClassDef, ast.FunctionDef]:
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        c_start, c_end = offsets.node(node)
        if not (c_start <= start and end <= c_end):
            continue
        for fn in node.body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "forward":
                # the body starts on the line after the `def` line (comments before the first statement count)
                first = fn.body[0].lineno
                body_start = offsets.node(fn.body[0])[0] if first == fn.lineno else offsets.starts[fn.lineno]
                f_end = offsets.node(fn)[1]
                if body_start <= start and end <= f_end:
                    if node.name not in MODEL_CLASSES:
                        raise ExtractionRefused(
                            f"extract works in forward() of `Model` or `RefactoredModel`, not `{node.name}`")
                    if isinstance(fn, ast.AsyncFunctionDef):
                        raise ExtractionRefused("forward() is async: cannot extract from it")
                    return node, fn
    raise ExtractionRefused("select whole statements (or one expression) inside forward() of "
                            "`Model` or `RefactoredModel`")


def check_selection(source: str, span: Span) -> SelectionInfo:
    """Validate a selection (fast, `ast` only); raises ExtractionRefused with the reason."""
    try:
        tree = _parse(source)
    except SyntaxError as exc:
        raise ExtractionRefused(f"the file has a syntax error (line {exc.lineno}): fix it first") from None
    except ValueError as exc:
        raise ExtractionRefused(f"the file cannot be parsed: {exc}") from None
    offsets = Offsets(source)
    a = offsets.of_char(span.start_line, span.start_col)
    b = offsets.of_char(span.end_line, span.end_col)
    if b < a:
        a, b = b, a
    text = source[a:b]
    a += len(text) - len(text.lstrip())
    b -= len(text) - len(text.rstrip())
    if b <= a:
        raise ExtractionRefused("nothing selected: select whole statements or one expression in forward()")
    cls, fwd = _find_model_forward(tree, offsets, a, b)

    # top-most statements inside the selection, and any statement cut by it
    selected: list[tuple[list[ast.stmt], int]] = []

    def visit(block: list[ast.stmt]) -> None:
        for i, stmt in enumerate(block):
            s, e = offsets.node(stmt)
            if e <= a or s >= b:
                continue
            if a <= s and e <= b:
                selected.append((block, i))
                continue
            if s <= a and b <= e:  # the selection lies inside this statement: look deeper
                inner_before = len(selected)
                for inner in _child_blocks(stmt):
                    visit(inner)
                if len(selected) == inner_before:
                    raise _Partial(stmt)
                continue
            raise _Partial(stmt)

    try:
        visit(fwd.body)
    except _Partial as exc:
        if not selected and not _overlaps_many(exc.stmt, offsets, a, b):
            expr = _find_expression(exc.stmt, offsets, a, b)
            if expr is not None:
                _refuse_unmovable([expr], expression=True)
                return SelectionInfo(cls.name, "expression", a, b, expression=expr, forward=fwd, cls=cls, tree=tree)
        raise ExtractionRefused("the selection cuts a statement in two: select whole statements "
                                "(or exactly one expression)") from None
    if not selected:
        raise ExtractionRefused("select whole statements or one expression inside forward()")
    block = selected[0][0]
    if any(blk is not block for blk, _ in selected):
        raise ExtractionRefused("the selected statements are at different indentation levels")
    indices = [i for _, i in selected]
    if indices != list(range(indices[0], indices[-1] + 1)):
        raise ExtractionRefused("the selected statements are not consecutive")
    stmts = [block[i] for i in indices]
    # what is selected besides the statements must be blank or comments
    cursor = a
    for stmt in stmts:
        s, e = offsets.node(stmt)
        if not _BLANK.fullmatch(source[cursor:s]):
            raise ExtractionRefused("the selection cuts a statement in two: select whole statements")
        cursor = e
    if not _BLANK.fullmatch(source[cursor:b]):
        raise ExtractionRefused("the selection cuts a statement in two: select whole statements")
    # the first and last statement must not share their line with unselected code (`a = 1; b = 2`)
    first_s = offsets.node(stmts[0])[0]
    last_e = offsets.node(stmts[-1])[1]
    before = source[offsets.starts[offsets.line_of(first_s) - 1]:first_s]
    line_end = source.find("\n", last_e)
    after = source[last_e: len(source) if line_end < 0 else line_end]
    if before.strip() or after.split("#", 1)[0].strip().strip(";").strip():
        raise ExtractionRefused("a selected statement shares its line with another (`;`): "
                                "put it on its own line first")
    _refuse_unmovable(stmts, expression=False)
    return SelectionInfo(cls.name, "statements", a, b, statements=stmts, forward=fwd, cls=cls, tree=tree)


class _Partial(Exception):
    def __init__(self, stmt: ast.stmt) -> None:
        super().__init__()
        self.stmt = stmt


def _overlaps_many(stmt: ast.stmt, offsets: Offsets, a: int, b: int) -> bool:
    s, e = offsets.node(stmt)
    return not (s <= a and b <= e)


def _find_expression(stmt: ast.stmt, offsets: Offsets, a: int, b: int) -> ast.expr | None:
    best = None
    for node in ast.walk(stmt):
        if not isinstance(node, ast.expr):
            continue
        s, e = offsets.node(node)
        src = offsets.source
        # parentheses around an expression are not part of its ast range
        while s > a and e < b and src[s - 1] == "(" and src[e] == ")":
            s, e = s - 1, e + 1
        if (s, e) == (a, b):
            if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                return None
            if isinstance(node, (ast.Starred, ast.Slice)):
                return None
            best = node
            break
    return best


def _refuse_unmovable(nodes: list[ast.stmt] | list[ast.expr], *, expression: bool) -> None:
    def walk(node: ast.AST, in_loop: bool, in_func: bool) -> None:
        if isinstance(node, ast.Return) and not in_func:
            raise ExtractionRefused("the selection contains `return`: select the statements before it")
        if isinstance(node, (ast.Yield, ast.YieldFrom)) and not in_func:
            raise ExtractionRefused("the selection contains `yield`: it cannot move into a child")
        if isinstance(node, ast.Await) and not in_func:
            raise ExtractionRefused("the selection contains `await`: it cannot move into a child")
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            raise ExtractionRefused("the selection declares global/nonlocal names")
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop and not in_func:
            raise ExtractionRefused("the selection contains `break`/`continue` of a loop outside it")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                       else [node.target])
            for t in targets:
                for sub in ast.walk(t):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self"):
                        raise ExtractionRefused(f"the selection assigns `self.{sub.attr}`: a child cannot "
                                                "change its parent's state")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            raise ExtractionRefused("the selection calls super(): it cannot move into a child")
        for child in ast.iter_child_nodes(node):
            walk(child,
                 in_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor)),
                 in_func or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    for n in nodes:
        walk(n, False, False)


# -- data flow ----------------------------------------------------------------------------------------------

def _names(node: ast.AST, ctx: type) -> Iterator[ast.Name]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ctx):
            yield sub


def _comprehension_names(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in sub.generators:
                out |= {n.id for n in _names(gen.target, ast.Store)}
        if isinstance(sub, ast.Lambda):
            out |= {a.arg for a in sub.args.args + sub.args.kwonlyargs}
    return out


def _params(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return [n for n in names if n != "self"]


def _self_attrs(nodes: list[ast.AST]) -> list[str]:
    out: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
                    and sub.attr not in out):
                out.append(sub.attr)
    return out


@dataclass
class _Flow:
    inputs: list[str]
    outputs: list[str]
    globals_used: set[str]


def _data_flow(info: SelectionInfo, offsets: Offsets) -> _Flow:
    fwd = info.forward
    assert fwd is not None
    params = _params(fwd)
    local_names = set(params)
    stores_before: set[str] = set(params)
    for node in ast.walk(fwd):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local_names.add(node.id)
            if offsets.node(node)[0] < info.start:
                stores_before.add(node.id)
        elif isinstance(node, ast.arg) and node is not fwd:
            pass
    local_names -= _comprehension_names(fwd) - set(params)
    nodes: list[ast.AST] = list(info.statements) if info.mode == "statements" else [info.expression]  # type: ignore[list-item]
    inputs: list[str] = []
    assigned: set[str] = set()
    globals_used: set[str] = set()
    comp_names: set[str] = set()
    for n in nodes:
        comp_names |= _comprehension_names(n)
    outer_comp = _comprehension_names(fwd) - comp_names - local_names
    for n in nodes:
        for name in _names(n, ast.Load):
            if name.id in outer_comp:
                raise ExtractionRefused(f"`{name.id}` is bound by a comprehension or lambda around the selection: "
                                        "select the whole comprehension")
    for n in nodes:
        for name in sorted(_names(n, ast.Load), key=lambda x: offsets.node(x)[0]):
            ident = name.id
            if ident == "self" or (ident in comp_names and ident not in local_names):
                continue
            if ident in local_names:
                if ident not in assigned and ident in stores_before and ident not in inputs:
                    inputs.append(ident)
            else:
                globals_used.add(ident)
        assigned |= {x.id for x in _names(n, ast.Store)}
        for sub in ast.walk(n):
            if isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                assigned.add(sub.name)
    outputs: list[str] = []
    if info.mode == "statements":
        # loads after the selection, or anywhere in a loop around it (the next iteration reads them)
        loops = [n for n in ast.walk(fwd) if isinstance(n, (ast.For, ast.While))
                 and offsets.node(n)[0] <= info.start and info.end <= offsets.node(n)[1]]
        later: set[str] = set()
        for name in _names(fwd, ast.Load):
            s, _ = offsets.node(name)
            if s >= info.end or any(offsets.node(lp)[0] <= s < offsets.node(lp)[1] and not
                                    (info.start <= s < info.end) for lp in loops):
                later.add(name.id)
        ordered_stores: list[str] = []
        for n in nodes:
            for x in sorted(_names(n, ast.Store), key=lambda x: offsets.node(x)[0]):
                if x.id not in ordered_stores:
                    ordered_stores.append(x.id)
        outputs = [x for x in ordered_stores if x in later and x not in comp_names]
        # an output assigned only inside a branch or loop keeps its old value when that code does not run:
        # the child needs the old value as an argument
        surely: set[str] = set()
        for stmt in info.statements:
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                surely |= {x.id for x in _names(stmt, ast.Store)}
        inputs += [x for x in outputs if x in stores_before and x not in surely and x not in inputs]
    return _Flow(inputs, outputs, globals_used)


# -- the parent's __init__ -----------------------------------------------------------------------------------

@dataclass
class _InitAttr:
    name: str
    statements: list[ast.stmt]
    value: ast.expr | None  # the assigned expression (a constructor call for submodules)


def _init_of(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)


def _init_attrs(init: ast.FunctionDef | None) -> dict[str, _InitAttr]:
    attrs: dict[str, _InitAttr] = {}
    if init is None:
        return attrs
    for stmt in init.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            attr = self_attr_target(targets)
            if attr is not None:
                entry = attrs.setdefault(attr, _InitAttr(attr, [], stmt.value))
                entry.statements.append(stmt)
                continue
        for attr in _self_attrs([stmt]):
            if attr in attrs:
                attrs[attr].statements.append(stmt)
    return attrs


def _uses_outside(cls: ast.ClassDef, attr: str, offsets: Offsets, start: int, end: int,
                  init: ast.FunctionDef | None) -> bool:
    for fn in cls.body:
        if fn is init:
            continue
        for sub in ast.walk(fn):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
                    and sub.attr == attr):
                s, _ = offsets.node(sub)
                if not (start <= s < end):
                    return True
    return False


# -- naming ---------------------------------------------------------------------------------------------------

def _snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not text or text[0].isdigit():
        text = f"child_{text}".rstrip("_")
    if keyword.iskeyword(text):
        text += "_"
    return text


def _camel(snake: str) -> str:
    out = "".join(p[:1].upper() + p[1:] for p in snake.split("_") if p)
    return out if out.isidentifier() else "Child"


def _default_name(info: SelectionInfo, attrs: list[str], op: str | None) -> str:
    if op:
        return _snake(op)
    parts: list[str] = []
    nodes: list[ast.AST] = list(info.statements) if info.mode == "statements" else [info.expression]  # type: ignore[list-item]
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Call):
                f = sub.func
                if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
                    parts.append(f.attr)
                elif isinstance(f, ast.Attribute):
                    parts.append(f.attr)
                elif isinstance(f, ast.Name):
                    parts.append(f.id)
    seen: list[str] = []
    for p in parts:
        p = _snake(p)
        if p not in seen:
            seen.append(p)
    name = "_".join(seen[:3]) if seen else "child"
    return name[:48].strip("_") or "child"


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    i = 2
    while f"{name}_{i}" in taken:
        i += 1
    return f"{name}_{i}"


# -- module-level context for the child ------------------------------------------------------------------------

def _module_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in _names(t, ast.Store):
                    out.setdefault(n.id, node)
    return out


def _is_local_import(node: ast.stmt, folder: Path) -> bool:
    """An import of a file of this step (children/..., or a sibling .py file)."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return True
        mod = (node.module or "").split(".")
    elif isinstance(node, ast.Import):
        mod = node.names[0].name.split(".")
    else:
        return False
    if mod[0] == "children":
        return True
    return (folder / f"{mod[0]}.py").is_file() or (folder / "children" / f"{mod[0]}.py").is_file()


def _needed_module_nodes(tree: ast.Module, names: set[str], folder: Path) -> list[ast.stmt]:
    """Module-level statements (imports, constants, helpers) the child needs, in source order."""
    bindings = _module_bindings(tree)
    needed: list[ast.stmt] = []
    todo = list(names)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        node = bindings.get(name)
        if node is None or node in needed:
            continue
        if isinstance(node, ast.ClassDef) and node.name in MODEL_CLASSES:
            continue
        needed.append(node)
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            for n in _names(node, ast.Load):
                todo.append(n.id)
    return sorted(needed, key=lambda n: (n.lineno, n.col_offset))


def _segment(source: str, offsets: Offsets, node: ast.AST, *, full_lines: bool = False) -> str:
    s, e = offsets.node(node)
    if full_lines:
        first = offsets.line_of(s)
        s = offsets.starts[first - 1]
        for dec in getattr(node, "decorator_list", []) or []:
            s = min(s, offsets.starts[dec.lineno - 1])
    return source[s:e]


# -- get_inputs / get_init_inputs of the child --------------------------------------------------------------

def _returned_list(tree: ast.Module, func: str) -> list[ast.expr] | None:
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func), None)
    if fn is None:
        return None
    rets = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if len(rets) != 1 or not isinstance(rets[0].value, (ast.List, ast.Tuple)):
        return None
    if any(isinstance(e, ast.Starred) for e in rets[0].value.elts):
        return None
    # the expressions may use names local to the function: only module-level names are safe to copy
    local = {n.id for n in _names(fn, ast.Store)}
    if any(n.id in local for e in rets[0].value.elts for n in _names(e, ast.Load)):
        return None
    return rets[0].value.elts


def _tree_shapes(path: Path) -> dict[str, tuple[list[int], str]]:
    """Tensor shapes by name from the nearest decomposition_tree.json above `path` (its data flow)."""
    found: dict[str, set[tuple[tuple[int, ...], str]]] = {}
    for parent in list(path.parents)[:6]:
        if not (parent / TREE_FILE).is_file():
            continue
        try:
            flows = DecompositionTree.load(parent).data_flow
        except TreeFormatError:
            return {}
        for flow in flows:
            if isinstance(flow.tensor_name, str) and _is_shape(flow.shape):
                found.setdefault(flow.tensor_name, set()).add((tuple(flow.shape), str(flow.dtype or "float32")))
        break
    return {k: (list(next(iter(v))[0]), next(iter(v))[1]) for k, v in found.items() if len(v) == 1}


def _is_shape(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)


_DTYPES = {"float32": "torch.float32", "fp32": "torch.float32", "float16": "torch.float16",
           "fp16": "torch.float16", "bfloat16": "torch.bfloat16", "bf16": "torch.bfloat16",
           "float64": "torch.float64", "int64": "torch.int64", "long": "torch.int64", "int32": "torch.int32",
           "bool": "torch.bool"}


def _tensor_expr(shape: list[int], dtype: str) -> str:
    dt = _DTYPES.get(dtype.replace("torch.", ""), "torch.float32")
    dims = ", ".join(str(d) for d in shape)
    if dt in ("torch.int64", "torch.int32"):
        return f"torch.randint(0, 10, ({dims}{',' if len(shape) == 1 else ''}), dtype={dt})"
    if dt == "torch.bool":
        return f"torch.rand({dims}) > 0.5"
    suffix = "" if dt == "torch.float32" else f", dtype={dt}"
    return f"torch.randn({dims}{suffix})"


# -- the transformation ---------------------------------------------------------------------------------------

def _statements_text(source: str, offsets: Offsets, stmts: list[ast.stmt]) -> str:
    """The selected statements' full lines (with comments between them), dedented."""
    first = offsets.line_of(offsets.node(stmts[0])[0])
    for dec in getattr(stmts[0], "decorator_list", []) or []:
        first = min(first, dec.lineno)
    last = offsets.line_of(max(offsets.node(stmts[-1])[1] - 1, 0))
    text = "".join(offsets.lines[first - 1:last])
    return textwrap.dedent(text).rstrip() + "\n"


def _call_args(names: list[str]) -> str:
    return ", ".join(names)


def extract_to_child(source: str, path: str | Path, span: Span, *, child_name: str | None = None,
                     kernel_op: str | None = None) -> Extraction:
    """Plan the whole extraction: the new child file, the rewritten parent and the weight_map.json update.

    Raises ExtractionRefused (with a message for the user) when the selection cannot be extracted."""
    path = Path(path)
    info = check_selection(source, span)
    assert info.tree is not None and info.cls is not None and info.forward is not None
    tree, cls, fwd = info.tree, info.cls, info.forward
    offsets = Offsets(source)
    flow = _data_flow(info, offsets)
    nodes: list[ast.AST] = list(info.statements) if info.mode == "statements" else [info.expression]  # type: ignore[list-item]
    used_attrs = _self_attrs(nodes)
    init = _init_of(cls)
    init_attrs = _init_attrs(init)
    folder = path.parent
    in_step = cls.name == "RefactoredModel" or (folder / "children").is_dir() or path.name == "refactored.py"
    child_dir = folder / "children" if in_step else folder

    # which attributes move into the child, which are copied (stateless, still used by the parent)
    moved: list[str] = []
    copied: list[str] = []
    resolver = make_resolver(tree, folder)
    for attr in [a for a in used_attrs if a not in _MODULE_STATE]:
        entry = init_attrs.get(attr)
        if entry is None:
            raise ExtractionRefused(f"`self.{attr}` is not set in __init__: the child cannot rebuild it")
        if any(s not in init.body for s in entry.statements):  # type: ignore[union-attr]
            raise ExtractionRefused(f"`self.{attr}` is built inside a loop or condition of __init__: "
                                    "cannot move it automatically")
        keys = constructor_keys(entry.value, resolver) if isinstance(entry.value, ast.Call) else None
        still_used = _uses_outside(cls, attr, offsets, info.start, info.end, init)
        is_module = isinstance(entry.value, ast.Call)
        if still_used and is_module and keys != []:
            raise ExtractionRefused(f"`self.{attr}` is also used outside the selection: a child cannot share "
                                    "its weights with the parent (select all its uses, or extract them apart)")
        (copied if still_used else moved).append(attr)
        for stmt in entry.statements:
            for sub in ast.walk(stmt):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
                        and sub.attr != attr):
                    raise ExtractionRefused(f"building `self.{attr}` uses `self.{sub.attr}`: move it by hand")

    # names
    # a moved attribute's name is free again (`self.conv` -> `self.conv = Conv()` holding it)
    existing_attrs = (set(init_attrs) | {a for fn in cls.body for a in _self_attrs([fn])}) - set(moved)
    taken_files = {p.stem for p in child_dir.glob("*.py")} if child_dir.is_dir() else set()
    module_names = set(_module_bindings(tree))
    base = _snake(child_name) if child_name else _default_name(info, used_attrs, kernel_op)
    name = _unique(base, taken_files | existing_attrs | module_names | {"self", "torch", "nn", "F", "children"})
    alias = _unique(_camel(name), module_names | existing_attrs)
    attribute = name

    # constructor arguments of the moved statements: names local to the parent's __init__
    init_params = _params(init) if init else []
    init_locals = set(init_params) | ({n.id for n in _names(init, ast.Store)} if init else set())
    moved_stmts = [s for attr in moved + copied for s in init_attrs[attr].statements]
    moved_stmts = sorted({id(s): s for s in moved_stmts}.values(), key=lambda s: (s.lineno, s.col_offset))
    ctor_args: list[str] = []
    ctor_globals: set[str] = set()
    for stmt in moved_stmts:
        for n in sorted(_names(stmt, ast.Load), key=lambda x: (x.lineno, x.col_offset)):
            if n.id == "self":
                continue
            if n.id in init_locals:
                if n.id not in ctor_args:
                    ctor_args.append(n.id)
            else:
                ctor_globals.add(n.id)
    todo: list[str] = []

    # values for the child's get_init_inputs(): the parent's get_init_inputs() by position, or defaults
    init_values = _returned_list(tree, "get_init_inputs")
    defaults: dict[str, ast.expr] = {}
    if init is not None:
        pos = init.args.posonlyargs + init.args.args
        for arg, default in zip(pos[len(pos) - len(init.args.defaults):], init.args.defaults, strict=True):
            defaults[arg.arg] = default
        for arg, kwdefault in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True):
            if kwdefault is not None:
                defaults[arg.arg] = kwdefault
    positional = [p.arg for p in (init.args.posonlyargs + init.args.args)[1:]] if init else []
    init_value_exprs: list[str] = []
    value_globals: set[str] = set()
    for name_ in ctor_args:
        expr: ast.expr | None = None
        if name_ in positional and init_values is not None and positional.index(name_) < len(init_values):
            expr = init_values[positional.index(name_)]
        elif name_ in defaults:
            expr = defaults[name_]
        if expr is None:
            init_value_exprs.append(f"None  {TODO_VALUE} `{name_}`")
            todo.append(f"constructor argument `{name_}` of {alias}")
        else:
            init_value_exprs.append(_segment(source, offsets, expr))
            value_globals |= {n.id for n in _names(expr, ast.Load)}

    # values for the child's get_inputs(): the parent's inputs when the child reads forward's parameters
    fwd_params = [p.arg for p in (fwd.args.posonlyargs + fwd.args.args)[1:]]
    parent_inputs = _returned_list(tree, "get_inputs")
    shapes = _tree_shapes(path)
    input_exprs: list[str] = []
    input_notes: list[str] = []
    for var in flow.inputs:
        if (var in fwd_params and parent_inputs is not None and fwd_params.index(var) < len(parent_inputs)
                and _not_reassigned_before(fwd, var, info.start, offsets)):
            expr_node = parent_inputs[fwd_params.index(var)]
            input_exprs.append(_segment(source, offsets, expr_node))
            value_globals |= {n.id for n in _names(expr_node, ast.Load)}
            input_notes.append(f"{var}: as the parent's input")
        elif var in shapes:
            shape, dtype = shapes[var]
            input_exprs.append(_tensor_expr(shape, dtype))
            input_notes.append(f"{var}: {shape} {dtype} (decomposition_tree.json)")
        else:
            input_exprs.append(f"torch.randn(1)  {TODO_SHAPE} of `{var}`")
            input_notes.append(f"{var}: unknown shape (TODO)")
            todo.append(f"input shape of `{var}`")

    # the child file
    child_path = child_dir / f"{name}.py"
    body_globals = flow.globals_used | ctor_globals | value_globals
    needed = _needed_module_nodes(tree, body_globals, folder)
    header_imports: list[str] = []
    child_imports: list[str] = []
    other_nodes: list[str] = []
    have_torch = have_nn = False
    for node in needed:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if _is_local_import(node, folder):
                child_imports.append(_local_import_for_child(node))
            else:
                header_imports.append(_segment(source, offsets, node))
        else:
            other_nodes.append(_segment(source, offsets, node, full_lines=True))
    for line in header_imports:
        have_torch |= bool(re.match(r"import torch\s*$", line))
        have_nn |= bool(re.search(r"\bas nn\b|from torch import .*\bnn\b", line))
    std = [ln for ln in header_imports if re.match(r"(import|from) (torch|numpy|math|sys)\b", ln)]
    local = [ln for ln in header_imports if ln not in std]
    local += _child_import_block(child_imports, in_step)
    if not have_torch:
        std.insert(0, "import torch")
    if not have_nn:
        std.append("import torch.nn as nn")
    all_imports = _dedupe(["import sys", "", *sorted(std, key=lambda ln: ln.replace("from ", "import ")),
                           *(["", *local] if local else [])])

    if info.mode == "statements":
        body = _statements_text(source, offsets, info.statements)
        if flow.outputs:
            body += f"return {', '.join(flow.outputs)}\n"
        else:
            body += "return None\n"
    else:
        assert info.expression is not None
        body = f"return {source[info.start:info.end]}\n"
    init_body_lines = [textwrap.dedent(_segment(source, offsets, s, full_lines=True)).rstrip()
                       for s in moved_stmts]
    forward_sig = ", ".join(["self", *flow.inputs])
    init_sig = ", ".join(["self", *ctor_args])
    weight_keys: dict[str, list[str] | None] = {}
    for attr in moved:
        value = init_attrs[attr].value
        weight_keys[attr] = constructor_keys(value, resolver) if isinstance(value, ast.Call) else []
    ops = _op_names(nodes, init_attrs)
    level = "kernel" if kernel_op or len(ops) <= 1 else "fusion"
    docstring = _header(alias, name, path, cls.name, level, ops, flow, input_notes, weight_keys, init_attrs,
                        offsets.line_of(info.start), offsets.line_of(max(info.end - 1, info.start)))
    child_text = _child_source(docstring, all_imports, other_nodes, init_sig, init_body_lines, forward_sig, body,
                               input_exprs, init_value_exprs)
    try:
        ast.parse(child_text)
    except SyntaxError as exc:  # a bug here must not write a broken file
        raise ExtractionRefused(f"internal error: the generated child does not parse ({exc.msg})") from None

    # the parent, rewritten with libcst
    place_last = any(a not in init_params for a in ctor_args)
    from hdecomp.refactor.rewrite import rewrite_parent  # libcst is slow to import: only when editing

    new_parent = rewrite_parent(
        source, info, offsets, alias=alias, attribute=attribute, child_module=name, in_step=in_step,
        call_args=_call_args(flow.inputs), outputs=flow.outputs, ctor_args=ctor_args,
        remove_stmts=[s for attr in moved for s in init_attrs[attr].statements],
        anchor_stmts=[s for attr in moved + copied for s in init_attrs[attr].statements], place_last=place_last,
        init=init)

    changes = [FileChange(path=child_path, new_text=child_text, old_text=None),
               FileChange(path=path, new_text=new_parent, old_text=source)]
    # a step keeps its weight map; a plain component file has none to update
    entries = _weight_map_update(folder, path, attribute, moved, weight_keys) if in_step else None
    if entries is not None:
        wm_path, old_text, new_map = entries
        changes.append(FileChange(path=wm_path, new_text=dumps_json(new_map) + "\n", old_text=old_text))
        added = new_map
    else:
        added = {}
    return Extraction(child_name=name, class_alias=alias, attribute=attribute, child_path=child_path,
                      inputs=flow.inputs, outputs=flow.outputs, moved_attributes=moved, changes=changes,
                      weight_map_entries=added, todo=todo)


def _not_reassigned_before(fwd: ast.FunctionDef, var: str, start: int, offsets: Offsets) -> bool:
    return not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == var
                   and offsets.node(n)[0] < start for n in ast.walk(fwd))


def _local_import_for_child(node: ast.stmt) -> str:
    """A parent's import of a children/ file, as the child (which lives in children/ too) spells it."""
    if isinstance(node, ast.ImportFrom) and node.module:
        mod = node.module
        if mod.startswith("children."):
            mod = mod[len("children."):]
        names = ", ".join(f"{a.name} as {a.asname}" if a.asname else a.name for a in node.names)
        return f"from {mod} import {names}"
    return ast.unparse(node)


def _child_import_block(imports: list[str], in_step: bool) -> list[str]:
    """Sibling children by bare name when children/ is on sys.path (the child's self-test, hdecomp's
    loader), else through `children.` (imported from the step folder)."""
    if not imports:
        return []
    if not in_step:
        return imports
    fallback = [re.sub(r"^from ", "from children.", ln) for ln in imports]
    return ["try:  # children/ on sys.path: this file's self-test, hdecomp's loader",
            *[f"    {ln}" for ln in imports],
            "except ModuleNotFoundError:  # imported as children.<name> from the step folder",
            *[f"    {ln}" for ln in fallback]]


def _dedupe(lines: list[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        if not ln or ln not in out:
            out.append(ln)
    return out


def _op_names(nodes: list[ast.AST], init_attrs: dict[str, _InitAttr]) -> list[str]:
    ops: list[str] = []
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Call):
                f = sub.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
                    entry = init_attrs.get(f.attr)
                    ctor = call_name(entry.value) if entry and isinstance(entry.value, ast.Call) else "?"
                    label = f"self.{f.attr} ({ctor})"
                else:
                    label = ast.unparse(f)
                if label not in ops:
                    ops.append(label)
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult) and "@" not in ops:
                ops.append("@")
    return ops


def _header(alias: str, name: str, parent: Path, parent_class: str, level: str, ops: list[str], flow: _Flow,
            input_notes: list[str], weight_keys: dict[str, list[str] | None], init_attrs: dict[str, _InitAttr],
            first_line: int, last_line: int) -> str:
    weights: list[str] = []
    for attr, keys in weight_keys.items():
        entry = init_attrs[attr]
        ctor = ast.unparse(entry.value) if entry.value is not None else attr
        if keys:
            weights.append(f"{attr} = {ctor}: {', '.join(f'{attr}.{k}' if k else attr for k in keys)}")
        elif keys is None:
            weights.append(f"{attr} = {ctor}: (parameters not known statically)")
    lines = [
        f"{alias}: extracted from {parent.name} ({parent_class}.forward, lines {first_line}-{last_line}).",
        "",
        f"Component: {name}",
        f"Level: {level}",
        f"Parent: {parent.name}",
        f"Ops: {', '.join(ops) if ops else '(data movement only)'}",
        f"Inputs: {'; '.join(input_notes) if input_notes else '(none)'}",
        f"Outputs: {', '.join(flow.outputs) if flow.outputs else '(the returned value)'}",
        f"Weights: {'; '.join(weights) if weights else '(none)'}",
        "",
        "Written by hdecomp's \"Extract to child component\"; run this file for its self-test.",
    ]
    return '"""' + "\n".join(lines).replace('"""', "'''") + '\n"""'


def _child_source(docstring: str, imports: list[str], module_nodes: list[str], init_sig: str,
                  init_body: list[str], forward_sig: str, body: str, input_exprs: list[str],
                  init_values: list[str]) -> str:
    def block(lines: list[str]) -> str:
        return "\n".join(textwrap.indent(x, "        ") for x in lines)

    init_lines = ["super().__init__()", *init_body]
    out = [docstring, "", *imports]
    if module_nodes:
        out += ["", ""]
        # constants one per line; functions and classes separated by blank lines
        for n in module_nodes:
            compound = n.lstrip().startswith(("def ", "class ", "async def ", "@"))
            out += ["", "", n.rstrip(), "", ""] if compound else [n.rstrip()]
        while out[-1] == "":
            out.pop()
    out += [
        "",
        "",
        "class Model(nn.Module):",
        f"    def __init__({init_sig}):",
        block(init_lines),
        "",
        f"    def forward({forward_sig}):",
        textwrap.indent(body, "        ").rstrip(),
        "",
        "",
        "def get_inputs():",
        "    return [",
        *[f"        {e}," if "#" not in e else f"        {e.split('#', 1)[0].rstrip()},  #{e.split('#', 1)[1]}"
          for e in input_exprs],
        "    ]",
        "",
        "",
        "def get_init_inputs():",
        "    return [",
        *[f"        {e}," if "#" not in e else f"        {e.split('#', 1)[0].rstrip()},  #{e.split('#', 1)[1]}"
          for e in init_values],
        "    ]",
        "",
        "",
        "def run_tests():",
        '    """Self-test: build, run twice on the same inputs, check the outputs are finite and repeatable."""',
        "    torch.manual_seed(0)",
        "    model = Model(*get_init_inputs())",
        "    model.eval()",
        "    inputs = get_inputs()",
        "    with torch.no_grad():",
        "        first = model(*inputs)",
        "        second = model(*inputs)",
        "",
        "    def leaves(value):",
        "        if isinstance(value, torch.Tensor):",
        "            return [value]",
        "        if isinstance(value, (list, tuple)):",
        "            return [t for v in value for t in leaves(v)]",
        "        if isinstance(value, dict):",
        "            return [t for v in value.values() for t in leaves(v)]",
        "        return []",
        "",
        "    a, b = leaves(first), leaves(second)",
        "    ok = len(a) == len(b) and all(",
        "        x.shape == y.shape and torch.equal(x, y) and bool(torch.isfinite(x.float()).all())",
        "        for x, y in zip(a, b)",
        "    )",
        "    shapes = [tuple(t.shape) for t in a]",
        '    print(("PASS" if ok else "FAIL") + f": {len(a)} output(s), shapes {shapes}")',
        "    return ok",
        "",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(0 if run_tests() else 1)",
        "",
    ]
    return "\n".join(out)


# -- weight_map.json ---------------------------------------------------------------------------------------------

def _weight_map_update(folder: Path, path: Path, attribute: str, moved: list[str],
                       weight_keys: dict[str, list[str] | None]) -> tuple[Path, str | None, dict[str, Any]] | None:
    """weight_map.json after the move: existing entries re-pointed under the child, new ones for the moved
    submodules' tensors (only keys the original really has, when original.py is there to tell)."""
    wm_path = folder / "weight_map.json"
    old_text: str | None = None
    mapping: dict[str, Any] = {}   # a value is a key, or the slices of a packed tensor [{"key": ...}, ...]
    if wm_path.is_file():
        try:
            old_text = wm_path.read_text(encoding="utf-8")
            loaded = json.loads(old_text)
            if isinstance(loaded, dict):
                mapping = {str(k): v if isinstance(v, list) else str(v) for k, v in loaded.items()}
        except (OSError, ValueError):
            mapping = {}
    original = folder / "original.py"
    original_keys = set(file_state_keys(original) or []) if original.is_file() else None
    changed = False

    def repointed(key: str) -> str:
        nonlocal changed
        for attr in moved:
            if key == attr or key.startswith(attr + "."):
                changed = True
                return f"{attribute}.{key}"
        return key

    new_map: dict[str, Any] = {}
    for k, v in mapping.items():
        if isinstance(v, list):
            new_map[k] = [{**p, "key": repointed(p["key"])} if isinstance(p, dict) and isinstance(p.get("key"), str)
                          else p for p in v]
        else:
            new_map[k] = repointed(v)
    values = {v for v in new_map.values() if isinstance(v, str)} | \
        {p["key"] for v in new_map.values() if isinstance(v, list) for p in v if isinstance(p, dict) and "key" in p}
    for attr in moved:
        for key in weight_keys.get(attr) or []:
            ref_key = f"{attr}.{key}" if key else attr
            target = f"{attribute}.{ref_key}"
            if target in values or ref_key in new_map:
                continue
            if original_keys is not None and ref_key not in original_keys:
                continue  # the original names it differently: leave it to the verifier's matching
            new_map[ref_key] = target
            values.add(target)
            changed = True
    if not changed:
        return None
    return wm_path, old_text, new_map


def kernel_span(source: str, span: Span) -> Span:
    """The selection a "kernel child" quick fix extracts for a violation at `span`: the flagged expression
    when it is one (its call, when the violation names a function), otherwise the smallest statement of
    forward() around it."""
    try:
        tree = _parse(source)
    except (SyntaxError, ValueError):
        raise ExtractionRefused("the file has a syntax error: fix it first") from None
    offsets = Offsets(source)
    a = offsets.of_char(span.start_line, span.start_col)
    b = offsets.of_char(span.end_line, span.end_col)
    # a violation on a function name (`F.relu`) means its call (`F.relu(y)`)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and offsets.node(node.func) == (a, b):
            a, b = offsets.node(node)
            span = _span_of(offsets, a, b)
            break
    try:
        check_selection(source, span)
        return span
    except ExtractionRefused:
        pass
    best: ast.AST | None = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.expr)) and not isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            s, e = offsets.node(node)
            if s <= a and b <= e and (best is None or e - s < offsets.node(best)[1] - offsets.node(best)[0]):
                try:
                    cand = _span_of(offsets, s, e)
                    check_selection(source, cand)
                except ExtractionRefused:
                    continue
                best = node
    if best is None:
        raise ExtractionRefused("this violation is not inside forward() of the model: move it there "
                                "(or extract the helper it lives in by hand)")
    s, e = offsets.node(best)
    return _span_of(offsets, s, e)


def _span_of(offsets: Offsets, start: int, end: int) -> Span:
    sl, el = offsets.line_of(start), offsets.line_of(end)
    if el > len(offsets.lines):
        el = len(offsets.lines)
    return Span(sl, start - offsets.starts[sl - 1], el, end - offsets.starts[el - 1])
