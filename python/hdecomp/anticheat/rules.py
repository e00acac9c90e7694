"""Anti-cheat rule ids, messages and the violation record shared by the CLI, the server and the tests.

Rule ids are stable (tools and editors key on them):
  HD0xx  the file itself (syntax error, no RefactoredModel, no forward)
  HD1xx  static: compute in forward(), however it is spelled
  HD2xx  static: construction and own state (__init__ builds raw nn modules, own Parameters, ...)
  HD3xx  structural: parameters outside children, a child that is the parent in disguise,
         a child never called, the op inventory differs from the original's
  HD4xx  runtime: compute executed outside any child's forward
Pure Python: importing this module must never import torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
Kind = Literal["static", "structural", "runtime"]


@dataclass(frozen=True)
class SourceRange:
    """A range in a source file: lines 1-based, columns 0-based (as Python's `ast` reports them)."""

    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class RelatedLocation:
    """Where the cheat really lives when it is indirect (the alias, the helper, the lambda...)."""

    message: str
    range: SourceRange
    file: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "range": self.range.to_dict(), "file": self.file}


@dataclass
class AntiCheatViolation:
    """One anti-cheat finding. `to_dict` also carries the original workspace's keys
    (pattern, line_number, line_text) so tools written for it keep working."""

    rule: str
    message: str
    kind: Kind = "static"
    severity: Severity = "error"
    file: str | None = None
    range: SourceRange | None = None
    line_text: str = ""
    allowed_instead: str = ""
    op: str | None = None  # the compute op concerned ("relu", "matmul"), for "Extract <op> into a kernel child"
    related: list[RelatedLocation] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> int:
        return self.range.line if self.range else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
            "allowed_instead": self.allowed_instead,
            "op": self.op,
            "file": self.file,
            "range": self.range.to_dict() if self.range else None,
            "related": [r.to_dict() for r in self.related],
            "details": self.details,
            # original workspace's keys
            "pattern": self.rule,
            "line_number": self.line,
            "line_text": self.line_text,
        }

    def format(self) -> str:
        where = f"{self.file or '<source>'}:{self.line}" + (f":{self.range.col + 1}" if self.range else "")
        return f"{where}: {self.rule} {self.message}"
