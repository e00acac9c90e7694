"""What counts as the same code and as the same workload, decided once for every part that compares
component files: the decomposer's file names (one file per workload), export, the quality lint (Q4),
validate and the structural anti-cheat checks. Pure `ast`, torch-free."""

from __future__ import annotations

import ast
from typing import TypeVar

_Tree = TypeVar("_Tree", bound=ast.AST)


def strip_docstrings(tree: _Tree, *, nested: bool = True) -> _Tree:
    """`tree` without the docstrings of its module, classes and functions (changed in place, returned);
    `nested=False`: without its own docstring only (a function's, kept whole otherwise)."""
    for node in ast.walk(tree) if nested else [tree]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalized_dump(source: str) -> str | None:
    """The code of `source` up to layout, comments and docstrings, as comparable text (None if it does not
    parse): equal for two files of the same code."""
    try:
        return ast.dump(strip_docstrings(ast.parse(source)), annotate_fields=False)
    except SyntaxError:
        return None


__all__ = ["normalized_dump", "strip_docstrings"]
