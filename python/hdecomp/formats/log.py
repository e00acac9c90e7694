"""decomposition_log.json: the decisions, difficulties and deviations of a decomposition, one entry each.
Torch-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import read_json, write_json_atomic
from hdecomp.formats.tree import TreeFormatError

LOG_FILE = "decomposition_log.json"
LOG_ENTRY_TYPES = ("decision", "difficulty", "deviation")


@dataclass
class LogEntry:
    step: str | int | None
    type: str                                # decision | difficulty | deviation
    title: str
    description: str = ""
    resolution: str | None = None
    timestamp: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d.update({"step": self.step, "type": self.type, "title": self.title, "description": self.description,
                  "timestamp": self.timestamp})
        if self.resolution is not None:
            d["resolution"] = self.resolution
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LogEntry:
        known = {"step", "type", "title", "description", "resolution", "timestamp"}
        return cls(step=d.get("step"), type=str(d.get("type", "decision")), title=str(d.get("title", "")),
                   description=str(d.get("description", "")), resolution=d.get("resolution"),
                   timestamp=str(d.get("timestamp", "")), extra={k: v for k, v in d.items() if k not in known})


@dataclass
class DecompositionLog:
    """decomposition_log.json: `{entries: [{step, type, title, description, resolution?, timestamp}]}`."""

    entries: list[LogEntry] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> DecompositionLog:
        path = Path(path)
        if path.is_dir():
            path = path / LOG_FILE
        if not path.exists():
            return cls()
        try:
            data = read_json(path)
        except ValueError as exc:
            raise TreeFormatError(f"not valid JSON ({getattr(exc, 'msg', exc)})", path,
                                  getattr(exc, "lineno", None)) from exc
        if isinstance(data, list):  # a bare list of entries
            data = {"entries": data}
        if not isinstance(data, dict):
            raise TreeFormatError("expected {entries: [...]}", path)
        entries = [LogEntry.from_dict(e) for e in data.get("entries") or [] if isinstance(e, dict)]
        return cls(entries=entries, extra={k: v for k, v in data.items() if k != "entries"})

    def add(self, step: str | int | None, type: str, title: str, description: str = "",
            resolution: str | None = None) -> LogEntry:
        if type not in LOG_ENTRY_TYPES:
            raise ValueError(f"log entry type must be one of {LOG_ENTRY_TYPES}, not {type!r}")
        entry = LogEntry(step=step, type=type, title=title, description=description, resolution=resolution)
        self.entries.append(entry)
        return entry

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d["entries"] = [e.to_dict() for e in self.entries]
        return d

    @staticmethod
    def write_entries(folder: str | Path, entries: list[dict[str, Any]]) -> Path:
        """Write entries already in the file's shape (the decomposer keeps its log as dicts)."""
        return write_json_atomic(Path(folder) / LOG_FILE, {"entries": entries})

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.is_dir():
            path = path / LOG_FILE
        return write_json_atomic(path, self.to_dict())
