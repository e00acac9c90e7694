"""Whether a selection can move into a child: what it holds (statements or one expression of the model's
forward) and what keeps it in place (a return, a yield, a partial statement, a break out of a loop)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator

from hdecomp.refactor.selection import ExtractionRefused, Offsets, SelectionInfo, Span

MODEL_CLASSES = ("RefactoredModel", "Model")


# nn.Module's own state every child has as well (the parent's .eval() reaches it)
MODULE_STATE = {"training"}


@functools.lru_cache(maxsize=8)
def parse_cached(source: str) -> ast.Module:
    """Parse once per text: editors ask for code actions on every selection change. The trees are only
    read, never changed, so sharing them is safe."""
    return ast.parse(source)


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
        tree = parse_cached(source)
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
