"""What a scan records per statement and per class, and the memo that replays the unchanged ones on the
next version of a file (the editor re-analyses on every keystroke)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from hdecomp.anticheat.rules import AntiCheatViolation
from hdecomp.anticheat.static.values import CHILD_OUT, Val


@dataclass
class HelperResult:
    ret: Val
    violations: list[AntiCheatViolation]


@dataclass
class ClassInfo:
    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    attrs: dict[str, Val] = field(default_factory=dict)        # class-level attributes
    bases: list[ClassInfo] = field(default_factory=list)      # local base classes (for method lookup)
    is_module: bool = False
    is_autograd: bool = False


HelperKey = tuple[int, tuple[str, ...]]


@dataclass(slots=True)
class StmtRecord:
    """What analysing one statement of forward() did (see ModuleScan.run_forward_memoized)."""

    env_before: dict[str, Val]
    ret_before: Val | None
    reports: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]]
    helper_reads: list[tuple[HelperKey, HelperResult]]
    helper_news: list[tuple[HelperKey, Any, HelperResult]]
    env_after: dict[str, Val]
    ret_after: Val | None
    max_line: int = -1  # the last line any position in the record refers to (computed when needed)

    def last_line(self) -> int:
        if self.max_line < 0:
            found = [0]
            for _key, v in self.reports:
                violation_lines(v, found)
            for _hkey, _node, res in self.helper_news:
                _val_lines(res.ret, found, set())
                for v in res.violations:
                    violation_lines(v, found)
            seen: set[int] = set()
            for env in (self.env_before, self.env_after):
                for val in env.values():
                    _val_lines(val, found, seen)
            _val_lines(self.ret_before, found, seen)
            _val_lines(self.ret_after, found, seen)
            self.max_line = found[0]
        return self.max_line


def violation_lines(v: AntiCheatViolation, found: list[int]) -> None:
    for r in (v.range, *(rel.range for rel in v.related)):
        if r is not None and r.end_line > found[0]:
            found[0] = r.end_line


def _val_lines(v: Val | None, found: list[int], seen: set[int]) -> None:
    """The last line an abstract value refers to: its origins and its node (deeply)."""
    if v is None or id(v) in seen:
        return
    seen.add(id(v))
    for loc in v.origin:
        found[0] = max(found[0], loc.range.end_line)
    if v.node is not None:
        found[0] = max(found[0], getattr(v.node, "end_lineno", 0) or 0)
    if v.qual == CHILD_OUT and v.ctx:
        for pos in v.ctx:  # the loops the child ran in
            if isinstance(pos, tuple):
                found[0] = max(found[0], pos[0])
    _val_lines(v.elem, found, seen)
    for e in v.elts or ():
        _val_lines(e, found, seen)
    for c in (v.closure or {}).values():
        _val_lines(c, found, seen)


@dataclass(slots=True)
class ScanRecord:
    """What scan_file() reported (before de-duplication) and the import lookups it made."""

    reports: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]]
    child_lookups: list[tuple[str, int, bool | None]]


class AnalysisMemo:
    """Per-document memory between analyses of successive versions of one file (the language server keeps
    one per open document): the result of each statement of forward(), valid while the rest of the file
    is unchanged. Results are identical to a fresh analysis; only the time differs."""

    def __init__(self) -> None:
        self.context: tuple[Any, ...] | None = None
        self.records: dict[tuple[int, int, str], StmtRecord] = {}
        self.scan: ScanRecord | None = None
        self.body_end = 0
        self.lines: list[str] = []


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def first_line(s: ast.stmt) -> int:
    """A statement's first line, decorators included."""
    if type(s) not in _DEFS or not s.decorator_list:  # type: ignore[attr-defined]
        return s.lineno
    return min(s.lineno, *(d.lineno for d in s.decorator_list))  # type: ignore[attr-defined]


def same_val(a: Val | None, b: Val | None) -> bool:
    """Structural equality of abstract values (Val compares by identity); AST nodes by identity."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return (a.kind == b.kind and a.qual == b.qual and a.via == b.via and a.bound == b.bound
            and a.ctx == b.ctx and a.node is b.node and a.origin == b.origin and same_val(a.elem, b.elem)
            and (a.elts is b.elts or (a.elts is not None and b.elts is not None and len(a.elts) == len(b.elts)
                                      and all(same_val(x, y) for x, y in zip(a.elts, b.elts, strict=True))))
            and (a.closure is b.closure or (a.closure is not None and b.closure is not None
                                            and same_env(a.closure, b.closure))))


def same_env(a: dict[str, Val], b: dict[str, Val]) -> bool:
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for k, v in a.items():
        w = b.get(k)
        if w is not v and not same_val(v, w):
            return False
    return True
