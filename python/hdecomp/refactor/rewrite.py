"""Rewriting the parent of an extraction with libcst (formatting and comments kept): the selection becomes a
call to the child, the moved submodules leave __init__ for the child's registration, the child's import
is added and imports of children the parent no longer uses are dropped."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hdecomp.refactor.selection import ExtractionRefused, Offsets, SelectionInfo


class _ParentRewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, *, select_lines: set[int], expr_range: tuple[int, int, int, int] | None,
                 call_stmt: str, call_expr: str, remove_lines: set[int], anchor_line: int | None,
                 new_init_stmt: str, import_stmt: str, class_name: str) -> None:
        super().__init__()
        self.select_lines = select_lines
        self.expr_range = expr_range
        self.call_stmt = call_stmt
        self.call_expr = call_expr
        self.remove_lines = remove_lines
        self.anchor_line = anchor_line
        self.new_init_stmt = new_init_stmt
        self.import_stmt = import_stmt
        self.class_name = class_name
        self.replaced = False
        self.inserted_init = False
        self.expr_done = False

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _rewrite_block(self, body: tuple[cst.BaseStatement, ...]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for stmt in body:
            line = self._line(stmt)
            if line in self.select_lines:
                if not self.replaced:
                    self.replaced = True
                    new = cst.parse_statement(self.call_stmt)
                    out.append(new.with_changes(leading_lines=stmt.leading_lines))  # type: ignore[attr-defined]
                continue
            if line in self.remove_lines:
                if line == self.anchor_line and not self.inserted_init:
                    self.inserted_init = True
                    out.append(cst.parse_statement(self.new_init_stmt).with_changes(
                        leading_lines=stmt.leading_lines))  # type: ignore[attr-defined]
                continue
            out.append(stmt)
            if line == self.anchor_line and not self.inserted_init:
                self.inserted_init = True
                out.append(cst.parse_statement(self.new_init_stmt))
        return out

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
                            ) -> cst.IndentedBlock:
        if not (self.select_lines or self.remove_lines or self.anchor_line):
            return updated_node
        # positions are looked up on the original nodes; updated children keep the same order
        new_body: list[cst.BaseStatement] = []
        for orig, upd in zip(original_node.body, updated_node.body, strict=True):
            kept = self._rewrite_block((orig,))
            for k in kept:
                new_body.append(upd if k is orig else k)
        if not new_body:
            new_body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=new_body)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def]
        if self.expr_range is not None and not self.expr_done and isinstance(original_node, cst.BaseExpression):
            pos = self.get_metadata(PositionProvider, original_node)
            if (pos.start.line, pos.start.column, pos.end.line, pos.end.column) == self.expr_range:
                self.expr_done = True
                return cst.parse_expression(self.call_expr).with_changes(
                    lpar=getattr(updated_node, "lpar", ()), rpar=getattr(updated_node, "rpar", ()))
        return super().on_leave(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = list(updated_node.body)
        last_import = -1
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
                last_import = i
            elif isinstance(stmt, cst.SimpleStatementLine) and i <= last_import + 1 and _is_sys_path_call(stmt):
                last_import = i
        new = cst.parse_statement(self.import_stmt)
        if last_import >= 0:
            body.insert(last_import + 1, new)
        else:
            at = 1 if body and _is_docstring(body[0]) else 0
            body.insert(at, new)
        return updated_node.with_changes(body=body)


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString))


def _is_sys_path_call(stmt: cst.SimpleStatementLine) -> bool:
    code = cst.Module([]).code_for_node(stmt)
    return "sys.path" in code


def rewrite_parent(source: str, info: SelectionInfo, offsets: Offsets, *, alias: str, attribute: str,
                    child_module: str, in_step: bool, call_args: str, outputs: list[str], ctor_args: list[str],
                    remove_stmts: list[ast.stmt], anchor_stmts: list[ast.stmt], place_last: bool,
                    init: ast.FunctionDef | None) -> str:
    call = f"self.{attribute}({call_args})"
    if info.mode == "statements":
        if len(outputs) == 1:
            call_stmt = f"{outputs[0]} = {call}\n"
        elif outputs:
            call_stmt = f"{', '.join(outputs)} = {call}\n"
        else:
            call_stmt = f"{call}\n"
        select_lines = {s.lineno for s in info.statements}
        # libcst positions count decorators as part of the statement start
        for s in info.statements:
            for dec in getattr(s, "decorator_list", []) or []:
                select_lines.add(dec.lineno)
        expr_range = None
    else:
        call_stmt = ""
        select_lines = set()
        assert info.expression is not None
        a, b = info.start, info.end
        sl, el = offsets.line_of(a), offsets.line_of(b)
        expr_range = (sl, a - offsets.starts[sl - 1], el, b - offsets.starts[el - 1])
    new_init_stmt = f"self.{attribute} = {alias}({', '.join(ctor_args)})\n"
    remove_lines = {s.lineno for s in remove_stmts}
    anchor_line: int | None = None
    if anchor_stmts:
        anchor = max(anchor_stmts, key=lambda s: s.lineno) if place_last else min(anchor_stmts, key=lambda s: s.lineno)
        anchor_line = anchor.lineno
    elif init is not None:
        anchor_line = init.body[-1].lineno
    if init is None:
        raise ExtractionRefused("the class has no __init__ to register the child in")
    import_stmt = (f"from children.{child_module} import Model as {alias}\n" if in_step
                   else f"from {child_module} import Model as {alias}\n")
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module)
    rewriter = _ParentRewriter(select_lines=select_lines, expr_range=expr_range, call_stmt=call_stmt,
                               call_expr=call, remove_lines=remove_lines, anchor_line=anchor_line,
                               new_init_stmt=new_init_stmt, import_stmt=import_stmt, class_name=info.class_name)
    new_module = wrapper.visit(rewriter)
    if info.mode == "statements" and not rewriter.replaced:
        raise ExtractionRefused("internal error: the selected statements were not found by libcst")
    if info.mode == "expression" and not rewriter.expr_done:
        raise ExtractionRefused("the selected expression could not be located (try selecting a whole statement)")
    if not rewriter.inserted_init:
        raise ExtractionRefused("internal error: could not register the child in __init__")
    return _drop_unused_child_imports(new_module, Path("."))


class _UnusedImportRemover(cst.CSTTransformer):
    """Drops `from children.x import Model as X` lines whose names the parent no longer uses (their blank
    lines and comments above move to the next statement)."""

    def __init__(self, used: set[str]) -> None:
        super().__init__()
        self.used = used

    def _unused(self, stmt: cst.BaseStatement) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        imp = stmt.body[0]
        if not isinstance(imp, cst.ImportFrom) or imp.module is None or isinstance(imp.names, cst.ImportStar):
            return False
        if not cst.Module([]).code_for_node(imp.module).startswith("children."):
            return False
        names = [(a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name)
                  else cst.Module([]).code_for_node(a.name)) for a in imp.names]
        return not any(n in self.used for n in names)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body: list[cst.BaseStatement] = []
        carry: list[cst.EmptyLine] = []
        for stmt in updated_node.body:
            if self._unused(stmt):
                carry.extend(stmt.leading_lines)  # type: ignore[attr-defined]
                continue
            if carry:
                stmt = stmt.with_changes(leading_lines=[*carry, *stmt.leading_lines])  # type: ignore[attr-defined]
                carry = []
            body.append(stmt)
        return updated_node.with_changes(body=body)


def _drop_unused_child_imports(module: cst.Module, _folder: Path) -> str:
    code = module.code
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return module.visit(_UnusedImportRemover(used)).code
