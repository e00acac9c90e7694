"""Incremental re-analysis of an open document: on each edit, re-parse only the statements whose lines
changed and splice them into the previous tree, then analyse with the document's AnalysisMemo (which
reuses the results of unchanged statements of forward()).

Why: a whole-file `ast.parse` of a 2000-line file costs about as much as the whole analysis, and a keystroke
changes one statement. The spliced tree is the tree `ast.parse` builds for the new text (same nodes, same
positions); whenever that cannot be guaranteed cheaply (the edit crosses statement boundaries, changes
indentation, leaves a syntax error, tabs or odd line breaks around it...) the whole file is parsed again.
test/server/test_incremental.py checks both equalities (tree and violations) over random edit sequences.
"""

from __future__ import annotations

import ast
import bisect
import copy
import warnings
from dataclasses import replace
from typing import Any

from hdecomp.anticheat.rules import AntiCheatViolation

_BODY_FIELDS = ("body", "orelse", "finalbody")
_LIST_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _first_line(s: ast.stmt) -> int:
    """A statement's first line, decorators included."""
    if type(s) not in _DEFS or not s.decorator_list:  # type: ignore[attr-defined]
        return s.lineno
    return min(s.lineno, *(d.lineno for d in s.decorator_list))  # type: ignore[attr-defined]


def _sub_bodies(s: ast.stmt) -> list[tuple[list[Any], list[ast.stmt]]]:
    """The statement lists directly inside a compound statement, each with the nodes that enclose it
    (the statement, and an except handler's own node, which has a position too)."""
    out: list[tuple[list[Any], list[ast.stmt]]] = []
    for name in _BODY_FIELDS:
        body = getattr(s, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            out.append(([s], body))
    for h in getattr(s, "handlers", ()):  # try / try*
        out.append(([s, h], h.body))
    for c in getattr(s, "cases", ()):  # match
        out.append(([s, c], c.body))
    return out


def _shift(node: ast.AST, delta: int) -> None:
    """Move a subtree `delta` lines down (ast.increment_lineno, without its per-node generator)."""
    stack = [node]
    while stack:
        n: Any = stack.pop()
        if hasattr(n, "lineno"):
            n.lineno += delta
            if getattr(n, "end_lineno", None) is not None:
                n.end_lineno += delta
        stack.extend(ast.iter_child_nodes(n))


def _shift_after(node: ast.AST, old_end: int, delta: int) -> None:
    """After a splice that ended at old line `old_end` and changed the line count by `delta`: move every
    node below it, and stretch the nodes that enclose it (their end moves, their start does not)."""
    stack = [node]
    while stack:
        n: Any = stack.pop()
        line = getattr(n, "lineno", None)
        if line is not None:
            if line > old_end:
                _shift(n, delta)
                continue
            end = getattr(n, "end_lineno", None)
            if end is None or end < old_end:
                continue  # wholly above the edit (and so are its children)
            n.end_lineno = end + delta
        stack.extend(ast.iter_child_nodes(n))


def _clone_path(tree: ast.Module, ancestors: list[Any], body: list[ast.stmt]) -> tuple[
        ast.Module, list[ast.stmt], list[Any]]:
    """Shallow copies of the module and of the nodes enclosing the edited statement list (with copies of
    their statement lists), so that a node object that survives an edit has the same content and
    position as before: the analysis memo compares nodes by identity."""
    chain: list[Any] = [tree, *ancestors]
    clones = [copy.copy(n) for n in chain]
    new_body: list[ast.stmt] | None = None
    for k, (orig, clone) in enumerate(zip(chain, clones, strict=True)):
        for name in _LIST_FIELDS:
            lst = getattr(orig, name, None)
            if not isinstance(lst, list):
                continue
            new = list(lst)
            if k + 1 < len(chain):
                new = [clones[k + 1] if x is chain[k + 1] else x for x in new]
            elif lst is body:
                new_body = new
            setattr(clone, name, new)
    assert new_body is not None
    return clones[0], new_body, clones[1:]


class IncrementalParser:
    """The tree of one document, kept up to date edit by edit."""

    def __init__(self) -> None:
        self.lines: list[str] | None = None
        self.tree: ast.Module | None = None
        self.spliced = 0  # statistics, for tests and the benchmark: edits served by a splice / a full parse
        self.full = 0

    def parse(self, source: str, path: str | None = None) -> ast.Module | list[AntiCheatViolation]:
        """The tree of `source`, or why there is none. After a splice the new tree shares the nodes of
        unchanged statements with the previous one (those below the edit moved to their new lines)."""
        lines = source.split("\n")
        tree = None
        # a lone CR anywhere is a line break for Python but not for our line lists: no splicing then
        if self.tree is not None and self.lines is not None and source.count("\r") == source.count("\r\n"):
            try:
                tree = self._splice(lines)
            except Exception:  # a bug here must not cost the user diagnostics: parse the whole file
                tree = None
        if tree is None:
            from hdecomp.anticheat.static import parse_source

            parsed = parse_source(source, path)
            self.full += 1
            if isinstance(parsed, list):
                # a syntax error (half-typed code): keep the last good tree, the fix is spliced against it
                return parsed
            tree = parsed
        else:
            self.spliced += 1
        self.tree, self.lines = tree, lines
        return tree

    def _splice(self, new: list[str]) -> ast.Module | None:
        old = self.lines
        tree = self.tree
        assert old is not None and tree is not None
        n_old, n_new = len(old), len(new)
        limit = min(n_old, n_new)
        p = 0
        while p < limit and old[p] == new[p]:
            p += 1
        if p == n_old == n_new:
            return tree
        s = 0
        while s < limit - p and old[n_old - 1 - s] == new[n_new - 1 - s]:
            s += 1
        # changed old lines are p+1..n_old-s (1-based; empty for a pure insertion): cover them, and both
        # neighbours of an insertion point, with whole statements
        lo, hi = p + 1, n_old - s
        a, b = max(min(lo, hi), 1), max(lo, hi)
        found = self._region(tree.body, a, b, [])
        if found is None:
            return None
        body, i, j, ancestors = found
        start, end = _first_line(body[i]), body[j].end_lineno or body[j].lineno
        delta = n_new - n_old
        col = body[i].col_offset
        region_new = new[start - 1: end + delta]
        if any(not (line[:col].isspace() or col == 0) for line in region_new[:1]) or \
                any("\t" in line[: len(line) - len(line.lstrip())] or "\f" in line for line in region_new):
            return None  # indentation the splice cannot judge (tabs, form feeds): parse the whole file
        if ";" in old[end - 1] or (region_new and ";" in region_new[-1]):
            return None  # a block ending in `x = 1;` ends after the `;`, its last statement before it
        text = "\n".join(region_new)
        if col == 0:
            padded = "\n" * (start - 1) + text + "\n"
        else:  # keep the indentation and absolute positions: parse it inside an `if 1:` one line above
            padded = "\n" * (start - 2) + "if 1:\n" + text + "\n"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = ast.parse(padded)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if col == 0:
            stmts = mod.body
        else:
            if len(mod.body) != 1 or not isinstance(mod.body[0], ast.If) or mod.body[0].orelse:
                return None  # something dedented out of the block (a statement, or an `else:` on our `if`)
            stmts = mod.body[0].body
        if (stmts and stmts[0].col_offset != col) or (not stmts and body is not tree.body and j - i + 1 == len(body)):
            return None  # a changed indentation, or a block left empty: let the real parser decide
        if any(isinstance(x, ast.ImportFrom) and x.module == "__future__" for x in stmts):
            return None  # only legal at the top of the file
        old_end = (body[j].end_lineno, body[j].end_col_offset)
        tree, body, ancestors = _clone_path(tree, ancestors, body)
        del body[i: j + 1]
        if delta:
            _shift_after(tree, end, delta)
        body[i:i] = stmts  # parsed at their final positions already
        if stmts:
            # enclosing statements that ended where the replaced run ended now end where the new one does
            for anc in ancestors:
                if (getattr(anc, "end_lineno", None), getattr(anc, "end_col_offset", None)) == \
                        ((old_end[0] or 0) + delta, old_end[1]):
                    anc.end_lineno, anc.end_col_offset = stmts[-1].end_lineno, stmts[-1].end_col_offset
        return tree

    def _region(self, body: list[ast.stmt], a: int, b: int, ancestors: list[Any]) -> tuple[
            list[ast.stmt], int, int, list[Any]] | None:
        """The innermost run of whole statements body[i..j] that covers lines a..b and starts its first
        line, with the statements enclosing `body`; None when this body cannot hold such a run."""
        if not body:
            return None
        # statements are in line order: binary searches (a forward() can hold a thousand of them)
        i = bisect.bisect_right(body, a, key=_first_line) - 1
        if i < 0:
            return None
        j = bisect.bisect_left(body, b, lo=i, key=lambda st: st.end_lineno or st.lineno)
        if j >= len(body):
            return None
        # statements sharing a line (`a = 1; b = 2`) go together
        while i > 0 and (body[i - 1].end_lineno or 0) >= _first_line(body[i]):
            i -= 1
        while j + 1 < len(body) and _first_line(body[j + 1]) <= (body[j].end_lineno or 0):
            j += 1
        if i == j:
            for owners, sub in _sub_bodies(body[i]):
                if _first_line(sub[0]) <= a and (sub[-1].end_lineno or 0) >= b:
                    inner = self._region(sub, a, b, [*ancestors, *owners])
                    if inner is not None:
                        return inner
        # the run must start its first line (a body on its header's line, `if x: y`, does not)
        if ancestors and self.lines is not None:
            first = _first_line(body[i])
            line = self.lines[first - 1]
            col = body[i].col_offset
            if not line[:col].isspace() or len(line) <= col:
                return None
        return body, i, j, ancestors


class DocumentAnalysis:
    """Parser and analysis memo of one open document."""

    def __init__(self) -> None:
        from hdecomp.anticheat.static import AnalysisMemo

        self.parser = IncrementalParser()
        self.memo = AnalysisMemo()
        self.source: str | None = None
        self.result: list[AntiCheatViolation] = []
        # moving estimate of the CPU seconds of one re-analysis (diagnostics.py keeps it, to time the next one)
        self.cost_s: float | None = None

    def analyze(self, source: str, path: str | None) -> list[AntiCheatViolation]:
        """Static anti-cheat findings of `source`, the same as hdecomp.anticheat.static.analyze_source."""
        from hdecomp.anticheat import static

        if source != self.source:
            tree = self.parser.parse(source, path)
            self.result = tree if isinstance(tree, list) else static.analyze_tree(tree, source, path, self.memo)
            self.source = source
        return [replace(v, related=list(v.related), details=dict(v.details)) for v in self.result]


def stats(doc: DocumentAnalysis) -> dict[str, Any]:
    return {"spliced": doc.parser.spliced, "full": doc.parser.full}
