"""The data flow of a selection: the values it reads and writes, and the parent attributes (`self.x`,
from __init__) it uses."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from hdecomp.refactor.selection import ExtractionRefused, Offsets, SelectionInfo
from hdecomp.refactor.state_keys import (
    self_attr_target,
)


def names_in(node: ast.AST, ctx: type) -> Iterator[ast.Name]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ctx):
            yield sub


def _comprehension_names(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in sub.generators:
                out |= {n.id for n in names_in(gen.target, ast.Store)}
        if isinstance(sub, ast.Lambda):
            out |= {a.arg for a in sub.args.args + sub.args.kwonlyargs}
    return out


def param_names(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return [n for n in names if n != "self"]


def self_attrs(nodes: list[ast.AST]) -> list[str]:
    out: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
                    and sub.attr not in out):
                out.append(sub.attr)
    return out


@dataclass
class Flow:
    inputs: list[str]
    outputs: list[str]
    globals_used: set[str]


def selection_flow(info: SelectionInfo, offsets: Offsets) -> Flow:
    fwd = info.forward
    assert fwd is not None
    params = param_names(fwd)
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
        for name in names_in(n, ast.Load):
            if name.id in outer_comp:
                raise ExtractionRefused(f"`{name.id}` is bound by a comprehension or lambda around the selection: "
                                        "select the whole comprehension")
    for n in nodes:
        for name in sorted(names_in(n, ast.Load), key=lambda x: offsets.node(x)[0]):
            ident = name.id
            if ident == "self" or (ident in comp_names and ident not in local_names):
                continue
            if ident in local_names:
                if ident not in assigned and ident in stores_before and ident not in inputs:
                    inputs.append(ident)
            else:
                globals_used.add(ident)
        assigned |= {x.id for x in names_in(n, ast.Store)}
        for sub in ast.walk(n):
            if isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                assigned.add(sub.name)
    outputs: list[str] = []
    if info.mode == "statements":
        # loads after the selection, or anywhere in a loop around it (the next iteration reads them)
        loops = [n for n in ast.walk(fwd) if isinstance(n, (ast.For, ast.While))
                 and offsets.node(n)[0] <= info.start and info.end <= offsets.node(n)[1]]
        later: set[str] = set()
        for name in names_in(fwd, ast.Load):
            s, _ = offsets.node(name)
            if s >= info.end or any(offsets.node(lp)[0] <= s < offsets.node(lp)[1] and not
                                    (info.start <= s < info.end) for lp in loops):
                later.add(name.id)
        ordered_stores: list[str] = []
        for n in nodes:
            for x in sorted(names_in(n, ast.Store), key=lambda x: offsets.node(x)[0]):
                if x.id not in ordered_stores:
                    ordered_stores.append(x.id)
        outputs = [x for x in ordered_stores if x in later and x not in comp_names]
        # an output assigned only inside a branch or loop keeps its old value when that code does not run:
        # the child needs the old value as an argument
        surely: set[str] = set()
        for stmt in info.statements:
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                surely |= {x.id for x in names_in(stmt, ast.Store)}
        inputs += [x for x in outputs if x in stores_before and x not in surely and x not in inputs]
    return Flow(inputs, outputs, globals_used)


@dataclass
class InitAttr:
    name: str
    statements: list[ast.stmt]
    value: ast.expr | None  # the assigned expression (a constructor call for submodules)


def init_of(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)


def attrs_from_init(init: ast.FunctionDef | None) -> dict[str, InitAttr]:
    attrs: dict[str, InitAttr] = {}
    if init is None:
        return attrs
    for stmt in init.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            attr = self_attr_target(targets)
            if attr is not None:
                entry = attrs.setdefault(attr, InitAttr(attr, [], stmt.value))
                entry.statements.append(stmt)
                continue
        for attr in self_attrs([stmt]):
            if attr in attrs:
                attrs[attr].statements.append(stmt)
    return attrs


def uses_outside(cls: ast.ClassDef, attr: str, offsets: Offsets, start: int, end: int,
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
