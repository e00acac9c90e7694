"""Entry points: analyse a parsed tree, a source text (cached) or a file."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from hdecomp.anticheat.rules import RULES, AntiCheatViolation, SourceRange
from hdecomp.anticheat.static.library import CodeSpan
from hdecomp.anticheat.static.memo import AnalysisMemo
from hdecomp.anticheat.static.module_scan import ModuleScan
from hdecomp.errors import HdecompError, read_source


def _syntax_violation(exc: BaseException, source: str, path: str | None) -> AntiCheatViolation:
    line = getattr(exc, "lineno", None) or 1
    offset = getattr(exc, "offset", None) or 1
    end_line = getattr(exc, "end_lineno", None) or line
    end_offset = getattr(exc, "end_offset", None) or offset + 1
    if (end_line, end_offset) <= (line, offset):
        end_line, end_offset = line, offset + 1
    lines = source.splitlines()

    def byte_col(at_line: int, char_offset: int) -> int:
        # SyntaxError counts characters; SourceRange columns are UTF-8 bytes, like every `ast` position
        raw = lines[at_line - 1] if 0 < at_line <= len(lines) else ""
        return len(raw[: max(char_offset - 1, 0)].encode("utf-8", errors="replace"))

    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    msg = getattr(exc, "msg", None) or str(exc)
    spec = RULES["HD001"]
    return AntiCheatViolation(
        rule="HD001", message=f"syntax error: {msg}", severity=spec.severity, file=path,
        range=SourceRange(line, byte_col(line, offset), end_line, byte_col(end_line, end_offset)), line_text=text,
        allowed_instead=spec.allowed_instead)


def _incomplete(reason: str, path: str | None) -> AntiCheatViolation:
    spec = RULES["HD004"]
    return AntiCheatViolation(rule="HD004", message=f"analysis incomplete: {reason}", severity=spec.severity,
                              file=path, range=SourceRange(1, 0, 1, 0), allowed_instead=spec.allowed_instead)


def analyze_tree(tree: ast.Module, source: str, path: str | None = None,
                 memo: AnalysisMemo | None = None) -> list[AntiCheatViolation]:
    """Analyse an already parsed module (the language server parses once per document version).

    With a `memo` (one per document), statements of forward() unchanged since the previous call reuse
    their results; the violations are the same as without it. The returned objects may be shared with
    the memo: callers that modify them must copy them first."""
    return _analysis(tree, source, path, memo)[0]


def _analysis(tree: ast.Module, source: str, path: str | None,
              memo: AnalysisMemo | None = None) -> tuple[list[AntiCheatViolation], frozenset[CodeSpan]]:
    """(the violations, the library code forward() may run as its own: static.library)."""
    try:
        scan = ModuleScan(source, tree, path, memo)
        return scan.run(), frozenset(scan.library_code)
    except RecursionError:
        return [_incomplete("the code is nested too deeply to analyse", path)], frozenset()
    except Exception as exc:  # never let a half-typed file crash the editor; say so instead
        return [_incomplete(f"internal error {type(exc).__name__}: {exc}", path)], frozenset()


_CACHE: dict[tuple[str | None, str], tuple[list[AntiCheatViolation], frozenset[CodeSpan]]] = {}
_CACHE_SIZE = 16


def analyze_source(source: str, path: str | None = None) -> list[AntiCheatViolation]:
    """Static anti-cheat findings for the source of a refactored.py, sorted by position. Never raises.

    The same text is often analysed several times in a row (diagnostics, code actions, CodeLens of one
    document version), so the last few results are kept; callers get fresh copies."""
    return [replace(v, related=list(v.related), details=dict(v.details)) for v in _cached(source, path)[0]]


def library_host_code(source: str, path: str | None = None) -> frozenset[CodeSpan]:
    """The functions of libraries a refactored.py's forward() calls that the analysis read and found
    plumbing in ((resolved file, first line, last line) each): host compute there is the parent's own, as
    in the file itself (anticheat.runtime)."""
    return _cached(source, path)[1]


def _cached(source: str, path: str | None) -> tuple[list[AntiCheatViolation], frozenset[CodeSpan]]:
    key = (path, source)
    cached = _CACHE.get(key)
    if cached is None:
        tree = parse_source(source, path)
        cached = (tree, frozenset()) if isinstance(tree, list) else _analysis(tree, source, path)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = cached
    return cached


def analyze_source_uncached(source: str, path: str | None) -> list[AntiCheatViolation]:
    tree = parse_source(source, path)
    return tree if isinstance(tree, list) else analyze_tree(tree, source, path)


def parse_source(source: str, path: str | None = None) -> ast.Module | list[AntiCheatViolation]:
    """The module's tree, or the one violation (HD001 syntax error, HD004) saying why there is none."""
    try:
        if "\x00" in source:
            idx = source.index("\x00")
            line = source.count("\n", 0, idx) + 1
            col = idx - (source.rfind("\n", 0, idx) + 1)
            err = SyntaxError("source contains a null byte")
            err.lineno, err.offset = line, col + 1
            return [_syntax_violation(err, source, path)]
        with warnings.catch_warnings():
            # invalid escape sequences etc. warn at parse time; the editor must stay quiet
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=path or "<source>")
    except (SyntaxError, ValueError) as exc:
        return [_syntax_violation(exc, source, path)]
    except (RecursionError, MemoryError):
        return [_incomplete("the code is nested too deeply to parse", path)]


class UnreadableFileError(HdecompError, OSError):
    """The file cannot be read as UTF-8 text (missing, a folder, no permission, not UTF-8).

    An HdecompError so that every caller (verify-step, check) reports it as one `file: cause` line with
    exit 2, and an OSError so that callers written against the old contract still catch it."""


def analyze_file(path: str | Path) -> list[AntiCheatViolation]:
    """Read a file (UTF-8) and analyse it. Raises UnreadableFileError if it cannot be read."""
    p = Path(path)
    if p.is_dir():
        raise UnreadableFileError("is a folder, not a Python file", p)
    source = read_source(p, UnreadableFileError)
    return analyze_source(source, str(p))


def has_errors(violations: Iterable[AntiCheatViolation]) -> bool:
    return any(v.severity == "error" for v in violations)
