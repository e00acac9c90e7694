"""The names a forward's statements read and write (a source-level step's data flow between its parent and its
children)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence


def self_method_calls(nodes: Iterable[ast.AST]) -> list[tuple[ast.Call, str]]:
    """Every call `self.<attr>(...)` in `nodes` (in ast.walk order), with its attribute's name."""
    return [(n, n.func.attr) for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"]




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
            root = root_variable(node.value)
            if root is not None and root != "self":
                self._mut(root)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            root = root_variable(node.value)
            if root is not None:
                self._mut(root)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute):
            root = root_variable(f.value)
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
        self._scoped(arg_names(node.args), [*node.args.defaults, node.body])

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:   # (read where the function is defined)
            self.visit(d)
        self._store(node.name)
        local = arg_names(node.args) | {n.id for s in node.body for n in ast.walk(s)
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


def root_variable(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def arg_names(args: ast.arguments) -> set[str]:
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
