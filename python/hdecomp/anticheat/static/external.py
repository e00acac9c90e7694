"""What a name imported from outside torch is, read from its module's source without importing it.

Two kinds are known. A namedtuple class (`ReformerOutput = namedtuple("ReformerOutput", [...])` in
transformers' Reformer, or `class Out(NamedTuple)` with fields only): calling one packs its arguments
into a tuple with names. An output dataclass (`@dataclass class DecoderOutput(BaseOutput)` in diffusers,
transformers' ModelOutputs), fields only on a library's output base (vocab.OUTPUT_BASES): calling one
packs its arguments into a dict by name. Both are data plumbing, like a tuple or dict literal. Anything
else stays unknown code (HD112).
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
    key = _file_key(module) if name else None
    return key is not None and name in _namedtuples(*key)


def _file_key(module: str) -> tuple[str, int, int] | None:
    """(the module's source file, its mtime, its size): what the parsed trees are cached by; None where no
    source is found."""
    path = module_source_file(module) if module else None
    if path is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=256)
def _namedtuples(path: str, _mtime: int, _size: int) -> frozenset[str]:
    """The namedtuple classes a module defines at its top level (cached by file, mtime and size)."""
    tree = _parsed(path, _mtime, _size)
    if tree is None:
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


_DATACLASS_DECORATORS = frozenset({"dataclass", "dataclasses.dataclass"})


def is_output_dataclass(qual: str, depth: int = 0) -> bool:
    """Whether `qual` (`package.module.Name`, followed through re-exports) names a class that only declares
    fields, decorated `@dataclass` (and otherwise only by decorators of a known package: transformers'
    `@auto_docstring`), each of whose bases is a library's output base or such a class itself."""
    from hdecomp.anticheat.static.vocab import KNOWN_PACKAGES, OUTPUT_BASES
    found = _defined_at(qual)
    if found is None or depth > 8:
        return False
    where, cls, tree = found
    module = where.rpartition(".")[0]
    decorators = [_dotted(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list]
    if not any(d in _DATACLASS_DECORATORS for d in decorators):
        return False
    for d in decorators:
        if d in _DATACLASS_DECORATORS:
            continue
        home = _bound_qual(module, tree, d)
        if home is None or home.split(".")[0] not in KNOWN_PACKAGES:
            return False
    if not cls.bases or cls.keywords or not all(_is_field(s) for s in cls.body):
        return False
    for b in cls.bases:
        base = _bound_qual(module, tree, _dotted(b))
        if base is None:
            return False
        defined = _defined_at(base)
        if (defined[0] if defined is not None else base) not in OUTPUT_BASES and \
                not is_output_dataclass(base, depth + 1):
            return False
    return True


def reexported(qual: str, depth: int = 0) -> str:
    """Where the name `qual` (`package.module.Name`) is defined, followed through the imports that re-export it
    (`OrderedDict` read from torchvision's feature_pyramid_network module is `collections.OrderedDict`); `qual`
    itself where its module defines it, or where no source says."""
    module, _, name = qual.rpartition(".")
    tree = module_tree(module) if module and depth <= 8 else None
    if tree is None or any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == name
                           for s in tree.body):
        return qual
    there = _bound_qual(module, tree, name)
    return reexported(there, depth + 1) if there is not None and there != qual else qual


def _defined_at(qual: str, depth: int = 0) -> tuple[str, ast.ClassDef, ast.Module] | None:
    """(the qualified name where the class `qual` is defined, its definition, its module's tree), following
    `from x import Name` re-exports; None where no source defines it at a module's top level."""
    module, _, name = qual.rpartition(".")
    tree = module_tree(module)
    if tree is None or depth > 8:
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return qual, stmt, tree
    there = _bound_qual(module, tree, name)
    return _defined_at(there, depth + 1) if there is not None and there != qual else None


def _bound_qual(module: str, tree: ast.Module, dotted: str) -> str | None:
    """The qualified name a dotted name (`BaseOutput`, `dataclasses.dataclass`) read in `module` stands for:
    a class of the module, or what a top-level import binds (relative imports resolved)."""
    head, _, rest = dotted.partition(".")
    if not head:
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == head and not rest:
            return f"{module}.{head}"
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) != head:
                    continue
                source = absolute_module(module, stmt.module, stmt.level)
                if source is None and stmt.level:
                    return None   # (above the top package)
                return ".".join(p for p in (source, alias.name, rest) if p)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname == head:
                    return ".".join(p for p in (alias.name, rest) if p)
                if alias.asname is None and alias.name.split(".")[0] == head:
                    return dotted
    return None


def absolute_module(module: str, target: str | None, level: int) -> str | None:
    """The module a `from <level dots><target> import ...` in `module` reads (relative to its package)."""
    if not level:
        return target
    is_package = (module_source_file(module) or Path()).name == "__init__.py"
    parts = module.split(".")
    keep = len(parts) - level + (1 if is_package else 0)
    if keep <= 0:
        return None
    return ".".join([*parts[:keep], *([target] if target else [])])


def module_tree(module: str) -> ast.Module | None:
    key = _file_key(module)
    return _parsed(*key) if key is not None else None


@functools.lru_cache(maxsize=256)
def _parsed(path: str, _mtime: int, _size: int) -> ast.Module | None:
    """A module's syntax tree (cached by file, mtime and size)."""
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


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
