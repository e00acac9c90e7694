"""Library results -> LSP types, in one place (violations, ranges, extraction edits, diagnostics order).

Columns: the library reports Python `ast` columns (UTF-8 byte offsets, lines 1-based); LSP wants
0-based lines and UTF-16 code units. `SourceLines` converts between them for one text.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from hdecomp.anticheat.rules import AntiCheatViolation, Kind, RelatedLocation, Severity, SourceRange
from lsprotocol import types

from hdecomp_lsp.uris import path_to_uri

SOURCE = "hdecomp"


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class SourceLines:
    """One text split into lines, converting `ast` (line, byte col) positions to LSP positions in the
    negotiated position encoding (UTF-16 unless the client chose utf-8 or utf-32)."""

    def __init__(self, source: str, encoding: str = "utf-16") -> None:
        self.lines = source.splitlines() or [""]
        self.encoding = encoding

    def _units(self, text: str) -> int:
        if self.encoding == "utf-8":
            return len(text.encode("utf-8"))
        if self.encoding == "utf-32":
            return len(text)
        return _utf16_len(text)

    def position(self, line: int, byte_col: int) -> types.Position:
        """(1-based line, UTF-8 byte column) -> LSP Position; clamped into the text."""
        idx = min(max(line - 1, 0), len(self.lines) - 1)
        text = self.lines[idx] if line >= 1 else ""
        prefix = text.encode("utf-8")[: max(byte_col, 0)].decode("utf-8", errors="ignore")
        if line > len(self.lines):  # past the end: end of the last line
            prefix = text
        return types.Position(line=idx, character=self._units(prefix))

    def range(self, rng: SourceRange | None) -> types.Range:
        if rng is None:
            return types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
        start = self.position(rng.line, rng.col)
        end = self.position(rng.end_line, rng.end_col)
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return types.Range(start=start, end=end)

    def line_range(self, line: int) -> types.Range:
        """The whole of 1-based `line` (without leading indentation)."""
        idx = min(max(line - 1, 0), len(self.lines) - 1)
        text = self.lines[idx]
        indent = len(text) - len(text.lstrip())
        return types.Range(start=types.Position(idx, self._units(text[:indent])),
                           end=types.Position(idx, self._units(text)))


_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}


def _severity(v: AntiCheatViolation) -> types.DiagnosticSeverity:
    # compute (HD1xx), construction/own state (HD2xx) and runtime compute (HD4xx) are always errors
    if v.rule[:3] in ("HD1", "HD2", "HD4"):
        return types.DiagnosticSeverity.Error
    return _SEVERITY.get(v.severity, types.DiagnosticSeverity.Error)


def violation_message(v: AntiCheatViolation) -> str:
    msg = v.message.strip()
    if v.allowed_instead and v.allowed_instead not in msg:
        msg = f"{msg} — allowed instead: {v.allowed_instead}"
    return msg


def violation_to_diagnostic(v: AntiCheatViolation, lines: SourceLines, doc_uri: str) -> types.Diagnostic:
    rng = lines.range(v.range) if v.range else lines.line_range(v.line or 1)
    related = []
    for r in v.related:
        if r.file and r.file.startswith("<"):  # code built at runtime has no file to point at
            continue
        uri = path_to_uri(r.file) if r.file else doc_uri
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=lines.range(r.range) if uri == doc_uri else
                                    types.Range(types.Position(max(r.range.line - 1, 0), r.range.col),
                                                types.Position(max(r.range.end_line - 1, 0), r.range.end_col))),
            message=r.message))
    data: dict[str, Any] = {"rule": v.rule, "kind": v.kind}
    if v.op:
        data["op"] = v.op
    return types.Diagnostic(
        range=rng, message=violation_message(v), severity=_severity(v), code=v.rule, source=SOURCE,
        related_information=related or None, data=data)


def _range_from_dict(r: Any) -> SourceRange | None:
    if not isinstance(r, dict):
        return None
    try:
        return SourceRange(int(r["line"]), int(r["col"]), int(r["end_line"]), int(r["end_col"]))
    except (KeyError, TypeError, ValueError):
        return None


def violation_from_dict(d: dict[str, Any]) -> AntiCheatViolation | None:
    """A violation as written in verification_result.json (our `to_dict` or the original workspace's keys)."""
    if not isinstance(d, dict):
        return None
    rng = _range_from_dict(d.get("range"))
    line = d.get("line_number") or d.get("line") or 0
    kind: Kind = d["kind"] if d.get("kind") in ("static", "structural", "runtime") else "runtime"
    sev: Severity = d["severity"] if d.get("severity") in ("error", "warning", "info") else "error"
    v = AntiCheatViolation(rule=str(d.get("rule") or d.get("pattern") or "HD400"),
                           message=str(d.get("message") or d.get("description") or "anti-cheat violation"),
                           kind=kind, severity=sev, range=rng, allowed_instead=str(d.get("allowed_instead") or ""),
                           op=d.get("op") if isinstance(d.get("op"), str) else None)
    if rng is None and isinstance(line, int) and line > 0:
        v.details["line"] = line
    for rel in d.get("related") or []:  # where the op really ran (a helper file, exec'd code)
        rel_range = _range_from_dict(rel.get("range")) if isinstance(rel, dict) else None
        if rel_range is not None:
            v.related.append(RelatedLocation(message=str(rel.get("message") or ""), range=rel_range,
                                             file=rel.get("file") if isinstance(rel.get("file"), str) else None))
    return v


def text_edits(old: str, new: str) -> list[types.TextEdit]:
    """Minimal line-based edits turning `old` into `new` (ranges refer to `old`)."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    edits: list[types.TextEdit] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start = _end_position(old_lines, i1)
        end = _end_position(old_lines, i2)
        edits.append(types.TextEdit(range=types.Range(start=start, end=end), new_text="".join(new_lines[j1:j2])))
    return edits


def _end_position(lines: list[str], index: int) -> types.Position:
    """Position of the start of line `index` (or the end of the text when past the last line)."""
    if index < len(lines):
        return types.Position(line=index, character=0)
    if not lines:
        return types.Position(0, 0)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=_utf16_len(last))


def diagnostics_sorted(diags: Iterable[types.Diagnostic]) -> list[types.Diagnostic]:
    return sorted(diags, key=lambda d: (d.range.start.line, d.range.start.character, str(d.code)))
