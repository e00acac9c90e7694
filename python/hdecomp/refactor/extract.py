"""Extract to child component: move a selection of `forward()` (whole statements, or one expression) of a
`Model` / `RefactoredModel` into a new, complete child component file, and rewrite the parent to call it.

The analysis (what is selected, which variables flow in and out, which submodules move) reads the source
with Python's `ast`; the parent is rewritten with libcst so its formatting and comments are kept. The result
is a list of file changes (the parent, the new child, weight_map.json) that callers apply themselves: the
language server turns them into one WorkspaceEdit, a CLI or a test writes them to disk.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.formats.weight_map import weight_map_text
from hdecomp.refactor.child_file import (
    TODO_SHAPE,
    TODO_VALUE,
    camel_name,
    child_header,
    child_import_block,
    child_source,
    dedupe,
    default_name,
    is_local_import,
    local_import_for_child,
    module_bindings,
    needed_module_nodes,
    op_names,
    returned_list,
    snake_name,
    source_segment,
    statements_text,
    tensor_expr,
    tree_shapes,
    unique_name,
)
from hdecomp.refactor.flow import (
    Flow,
    InitAttr,
    attrs_from_init,
    init_of,
    names_in,
    param_names,
    selection_flow,
    self_attrs,
    uses_outside,
)
from hdecomp.refactor.movable import MODULE_STATE, check_selection, parse_cached
from hdecomp.refactor.selection import ExtractionRefused, FileChange, Offsets, SelectionInfo, Span
from hdecomp.refactor.state_keys import (
    Resolver,
    constructor_keys,
    make_resolver,
)
from hdecomp.refactor.weight_map_edit import weight_map_update


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


def _call_args(names: list[str]) -> str:
    return ", ".join(names)


def extract_to_child(source: str, path: str | Path, span: Span, *, child_name: str | None = None,
                     kernel_op: str | None = None) -> Extraction:
    """Plan the whole extraction: the new child file, the rewritten parent and the weight_map.json update.

    Raises ExtractionRefused (with a message for the user) when the selection cannot be extracted."""
    path = Path(path)
    info = check_selection(source, span)
    assert info.tree is not None and info.cls is not None and info.forward is not None
    tree, cls = info.tree, info.cls
    offsets = Offsets(source)
    flow = selection_flow(info, offsets)
    nodes: list[ast.AST] = list(info.statements) if info.mode == "statements" else [info.expression]  # type: ignore[list-item]
    used_attrs = self_attrs(nodes)
    init = init_of(cls)
    init_attrs = attrs_from_init(init)
    folder = path.parent
    in_step = cls.name == "RefactoredModel" or (folder / "children").is_dir() or path.name == "refactored.py"
    child_dir = folder / "children" if in_step else folder
    resolver = make_resolver(tree, folder)
    moved, copied = _attributes_to_move(info, offsets, used_attrs, init, init_attrs, resolver)
    name, alias = _child_names(info, child_dir, used_attrs, init_attrs, moved, child_name, kernel_op)
    attribute = name

    init_params = param_names(init) if init else []
    moved_stmts = [s for attr in moved + copied for s in init_attrs[attr].statements]
    moved_stmts = sorted({id(s): s for s in moved_stmts}.values(), key=lambda s: (s.lineno, s.col_offset))
    ctor_args, ctor_globals = _constructor_arguments(init, init_params, moved_stmts)
    todo: list[str] = []
    init_value_exprs, value_globals = _constructor_values(source, offsets, tree, init, ctor_args, alias, todo)
    input_exprs, input_notes, input_globals = _input_values(source, offsets, info, flow, path, todo)

    # the child file
    child_path = child_dir / f"{name}.py"
    all_imports, other_nodes = _child_imports(source, offsets, tree, folder, in_step,
                                              flow.globals_used | ctor_globals | value_globals | input_globals)
    weight_keys: dict[str, list[str] | None] = {}
    for attr in moved:
        value = init_attrs[attr].value
        weight_keys[attr] = constructor_keys(value, resolver) if isinstance(value, ast.Call) else []
    ops = op_names(nodes, init_attrs)
    level = "kernel" if kernel_op or len(ops) <= 1 else "fusion"
    docstring = child_header(alias, name, path, cls.name, level, ops, flow, input_notes, weight_keys, init_attrs,
                             offsets.line_of(info.start), offsets.line_of(max(info.end - 1, info.start)))
    init_body_lines = [textwrap.dedent(source_segment(source, offsets, s, full_lines=True)).rstrip()
                       for s in moved_stmts]
    child_text = child_source(docstring, all_imports, other_nodes, ", ".join(["self", *ctor_args]), init_body_lines,
                              ", ".join(["self", *flow.inputs]), _child_body(source, offsets, info, flow),
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
    entries = weight_map_update(folder, path, attribute, moved, weight_keys) if in_step else None
    if entries is not None:
        wm_path, old_text, new_map = entries
        changes.append(FileChange(path=wm_path, new_text=weight_map_text(new_map), old_text=old_text))
        added = new_map
    else:
        added = {}
    return Extraction(child_name=name, class_alias=alias, attribute=attribute, child_path=child_path,
                      inputs=flow.inputs, outputs=flow.outputs, moved_attributes=moved, changes=changes,
                      weight_map_entries=added, todo=todo)


def _attributes_to_move(info: SelectionInfo, offsets: Offsets, used_attrs: list[str], init: ast.FunctionDef | None,
                        init_attrs: dict[str, InitAttr], resolver: Resolver) -> tuple[list[str], list[str]]:
    """Which attributes the selection uses move into the child (moved), and which are copied (stateless,
    still used by the parent); refused when one cannot be rebuilt in the child."""
    assert info.cls is not None
    moved: list[str] = []
    copied: list[str] = []
    for attr in [a for a in used_attrs if a not in MODULE_STATE]:
        entry = init_attrs.get(attr)
        if entry is None:
            raise ExtractionRefused(f"`self.{attr}` is not set in __init__: the child cannot rebuild it")
        if any(s not in init.body for s in entry.statements):  # type: ignore[union-attr]
            raise ExtractionRefused(f"`self.{attr}` is built inside a loop or condition of __init__: "
                                    "cannot move it automatically")
        keys = constructor_keys(entry.value, resolver) if isinstance(entry.value, ast.Call) else None
        still_used = uses_outside(info.cls, attr, offsets, info.start, info.end, init)
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
    return moved, copied


def _child_names(info: SelectionInfo, child_dir: Path, used_attrs: list[str], init_attrs: dict[str, InitAttr],
                 moved: list[str], child_name: str | None, kernel_op: str | None) -> tuple[str, str]:
    """The child's module (and attribute) name and its class alias in the parent, clashing with nothing."""
    assert info.tree is not None and info.cls is not None
    # a moved attribute's name is free again (`self.conv` -> `self.conv = Conv()` holding it)
    existing_attrs = (set(init_attrs) | {a for fn in info.cls.body for a in self_attrs([fn])}) - set(moved)
    taken_files = {p.stem for p in child_dir.glob("*.py")} if child_dir.is_dir() else set()
    module_names = set(module_bindings(info.tree))
    base = snake_name(child_name) if child_name else default_name(info, used_attrs, kernel_op)
    name = unique_name(base, taken_files | existing_attrs | module_names | {"self", "torch", "nn", "F", "children"})
    return name, unique_name(camel_name(name), module_names | existing_attrs)


def _constructor_arguments(init: ast.FunctionDef | None, init_params: list[str],
                           moved_stmts: list[ast.stmt]) -> tuple[list[str], set[str]]:
    """The constructor arguments of the moved statements (names local to the parent's __init__, in order of
    use) and the module-level names they read."""
    init_locals = set(init_params) | ({n.id for n in names_in(init, ast.Store)} if init else set())
    ctor_args: list[str] = []
    ctor_globals: set[str] = set()
    for stmt in moved_stmts:
        for n in sorted(names_in(stmt, ast.Load), key=lambda x: (x.lineno, x.col_offset)):
            if n.id == "self":
                continue
            if n.id in init_locals:
                if n.id not in ctor_args:
                    ctor_args.append(n.id)
            else:
                ctor_globals.add(n.id)
    return ctor_args, ctor_globals


def _constructor_values(source: str, offsets: Offsets, tree: ast.Module, init: ast.FunctionDef | None,
                        ctor_args: list[str], alias: str, todo: list[str]) -> tuple[list[str], set[str]]:
    """Values for the child's get_init_inputs(): the parent's get_init_inputs() by position, or defaults
    (a TODO where neither is known); with the module-level names they read."""
    init_values = returned_list(tree, "get_init_inputs")
    defaults: dict[str, ast.expr] = {}
    if init is not None:
        pos = init.args.posonlyargs + init.args.args
        for arg, default in zip(pos[len(pos) - len(init.args.defaults):], init.args.defaults, strict=True):
            defaults[arg.arg] = default
        for arg, kwdefault in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True):
            if kwdefault is not None:
                defaults[arg.arg] = kwdefault
    positional = [p.arg for p in (init.args.posonlyargs + init.args.args)[1:]] if init else []
    exprs: list[str] = []
    value_globals: set[str] = set()
    for name in ctor_args:
        expr: ast.expr | None = None
        if name in positional and init_values is not None and positional.index(name) < len(init_values):
            expr = init_values[positional.index(name)]
        elif name in defaults:
            expr = defaults[name]
        if expr is None:
            exprs.append(f"None  {TODO_VALUE} `{name}`")
            todo.append(f"constructor argument `{name}` of {alias}")
        else:
            exprs.append(source_segment(source, offsets, expr))
            value_globals |= {n.id for n in names_in(expr, ast.Load)}
    return exprs, value_globals


def _input_values(source: str, offsets: Offsets, info: SelectionInfo, flow: Flow, path: Path,
                  todo: list[str]) -> tuple[list[str], list[str], set[str]]:
    """Values for the child's get_inputs(), one per input of the selection: the parent's input when the child
    reads a parameter of forward, else a tensor of the shape decomposition_tree.json recorded, else a TODO;
    with a note on each and the module-level names they read."""
    fwd, tree = info.forward, info.tree
    assert fwd is not None and tree is not None
    fwd_params = [p.arg for p in (fwd.args.posonlyargs + fwd.args.args)[1:]]
    parent_inputs = returned_list(tree, "get_inputs")
    shapes = tree_shapes(path)
    exprs: list[str] = []
    notes: list[str] = []
    value_globals: set[str] = set()
    for var in flow.inputs:
        if (var in fwd_params and parent_inputs is not None and fwd_params.index(var) < len(parent_inputs)
                and _not_reassigned_before(fwd, var, info.start, offsets)):
            expr_node = parent_inputs[fwd_params.index(var)]
            exprs.append(source_segment(source, offsets, expr_node))
            value_globals |= {n.id for n in names_in(expr_node, ast.Load)}
            notes.append(f"{var}: as the parent's input")
        elif var in shapes:
            shape, dtype = shapes[var]
            exprs.append(tensor_expr(shape, dtype))
            notes.append(f"{var}: {shape} {dtype} (decomposition_tree.json)")
        else:
            exprs.append(f"torch.randn(1)  {TODO_SHAPE} of `{var}`")
            notes.append(f"{var}: unknown shape (TODO)")
            todo.append(f"input shape of `{var}`")
    return exprs, notes, value_globals


def _child_imports(source: str, offsets: Offsets, tree: ast.Module, folder: Path, in_step: bool,
                   body_globals: set[str]) -> tuple[list[str], list[str]]:
    """The child's import lines (torch and nn always, then the parent's imports it needs, then its local
    ones) and the other module-level statements it needs (constants, helpers), as source text."""
    needed = needed_module_nodes(tree, body_globals, folder)
    header_imports: list[str] = []
    child_imports: list[str] = []
    other_nodes: list[str] = []
    have_torch = have_nn = False
    for node in needed:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if is_local_import(node, folder):
                child_imports.append(local_import_for_child(node))
            else:
                header_imports.append(source_segment(source, offsets, node))
        else:
            other_nodes.append(source_segment(source, offsets, node, full_lines=True))
    for line in header_imports:
        have_torch |= bool(re.match(r"import torch\s*$", line))
        have_nn |= bool(re.search(r"\bas nn\b|from torch import .*\bnn\b", line))
    std = [ln for ln in header_imports if re.match(r"(import|from) (torch|numpy|math|sys)\b", ln)]
    local = [ln for ln in header_imports if ln not in std]
    local += child_import_block(child_imports, in_step)
    if not have_torch:
        std.insert(0, "import torch")
    if not have_nn:
        std.append("import torch.nn as nn")
    all_imports = dedupe(["import sys", "", *sorted(std, key=lambda ln: ln.replace("from ", "import ")),
                          *(["", *local] if local else [])])
    return all_imports, other_nodes


def _child_body(source: str, offsets: Offsets, info: SelectionInfo, flow: Flow) -> str:
    """The child's forward body: the selected statements and a return of their outputs, or a return of the
    selected expression."""
    if info.mode == "statements":
        body = statements_text(source, offsets, info.statements)
        if flow.outputs:
            body += f"return {', '.join(flow.outputs)}\n"
        else:
            body += "return None\n"
        return body
    assert info.expression is not None
    return f"return {source[info.start:info.end]}\n"


def _not_reassigned_before(fwd: ast.FunctionDef, var: str, start: int, offsets: Offsets) -> bool:
    return not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == var
                   and offsets.node(n)[0] < start for n in ast.walk(fwd))


def kernel_span(source: str, span: Span) -> Span:
    """The selection a "kernel child" quick fix extracts for a violation at `span`: the flagged expression
    when it is one (its call, when the violation names a function), otherwise the smallest statement of
    forward() around it."""
    try:
        tree = parse_cached(source)
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
