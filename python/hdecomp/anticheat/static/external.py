"""What a name imported from outside torch is, read from its module's source without importing it.

One kind is known: a namedtuple class (`ReformerOutput = namedtuple("ReformerOutput", [...])` in
transformers' Reformer, or `class Out(NamedTuple)` with fields only). Calling one packs its arguments
into a tuple with names: data plumbing, like a tuple literal. Anything else stays unknown code (HD112).
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

_NAMEDTUPLE_FACTORIES = frozenset({"namedtuple", "collections.namedtuple", "typing.NamedTuple", "NamedTuple"})


def module_source_file(module: str) -> Path | None:
    """The .py file of a module on sys.path (`a.b.c` -> a/b/c.py or a/b/c/__init__.py), found without
    importing it (importing could run anything)."""
    return _find_source(module, tuple(sys.path))


@functools.lru_cache(maxsize=1024)
def _find_source(module: str, path: tuple[str, ...]) -> Path | None:
    """module_source_file's search, once per module and sys.path (the static check asks on every call of
    a name from outside torch, as the editor re-checks a file)."""
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    for entry in path:
        base = Path(entry or ".").joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def is_namedtuple_class(qual: str) -> bool:
    """Whether `qual` (`package.module.Name`) names a namedtuple class defined at the top of its module."""
    module, _, name = qual.rpartition(".")
    if not module or not name:
        return False
    path = module_source_file(module)
    if path is None:
        return False
    try:
        stat = path.stat()
    except OSError:
        return False
    return name in _namedtuples(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _namedtuples(path: str, _mtime: int, _size: int) -> frozenset[str]:
    """The namedtuple classes a module defines at its top level (cached by file, mtime and size)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return frozenset()
    found = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func) in _NAMEDTUPLE_FACTORIES:
            found.add(stmt.targets[0].id)
        elif isinstance(stmt, ast.ClassDef) and any(_dotted(b) in _NAMEDTUPLE_FACTORIES for b in stmt.bases) \
                and not stmt.decorator_list and all(_is_field(s) for s in stmt.body):
            found.add(stmt.name)
    # a name bound once only: `Out = namedtuple(...)` rebound later to a function is no namedtuple
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        for target in _bindings(node):
            bound[target] = bound.get(target, 0) + 1
    return frozenset(n for n in found if bound.get(n) == 1)


def _bindings(node: ast.AST) -> list[str]:
    """The names a statement or expression binds (assignments, definitions, imports, loop targets)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.Global):
        return list(node.names)
    return []


def _is_field(stmt: ast.stmt) -> bool:
    """A NamedTuple body statement that declares a field or documents the class (no method, no code)."""
    return isinstance(stmt, (ast.AnnAssign, ast.Pass)) or (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""
