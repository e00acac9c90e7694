"""What the refactor tools work on: a selection in a source file and the positions in it, the files a
refactoring writes, and the refusal it gives. Shared by the extraction (`extract.py`) and the libcst
rewrite of the parent (`rewrite.py`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


class ExtractionRefused(ValueError):
    """The selection cannot be extracted; the message says why, for the user."""


@dataclass(frozen=True)
class Span:
    """A selection: lines 1-based, columns 0-based in characters (str indices) of each line."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int


@dataclass
class FileChange:
    """A file to write: `old_text` None means the file is created."""

    path: Path
    new_text: str
    old_text: str | None = None


@dataclass
class SelectionInfo:
    """What a selection holds, as far as the (fast, `ast`-only) check can tell."""

    class_name: str
    mode: str  # "statements" | "expression"
    start: int  # character offsets into the source
    end: int
    statements: list[ast.stmt] = field(default_factory=list)
    expression: ast.expr | None = None
    forward: ast.FunctionDef | None = None
    cls: ast.ClassDef | None = None
    tree: ast.Module | None = None


class Offsets:
    """(1-based line, column) <-> character offsets; `ast` columns are UTF-8 bytes, converted here."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for ln in self.lines:
            self.starts.append(self.starts[-1] + len(ln))

    def of_char(self, line: int, col: int) -> int:
        if line < 1:
            return 0
        if line > len(self.lines):
            return len(self.source)
        text = self.lines[line - 1].rstrip("\r\n")
        return self.starts[line - 1] + min(max(col, 0), len(text))

    def of_byte(self, line: int, byte_col: int) -> int:
        if line < 1 or line > len(self.lines):
            return len(self.source) if line >= 1 else 0
        text = self.lines[line - 1]
        return self.starts[line - 1] + len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def node(self, node: ast.AST) -> tuple[int, int]:
        start = self.of_byte(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.of_byte(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
        return start, end

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1
