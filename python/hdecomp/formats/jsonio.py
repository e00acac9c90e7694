"""Writing result files safely: JSON is written atomically (temp file + rename), never half-written."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError


def _json_default(obj: Any) -> Any:
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    return str(obj)


def _sanitize(obj: Any) -> Any:
    """JSON has no NaN/Inf: write them as strings so every tool can read the file back."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {str(k): _sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_sanitize(v) for v in obj]
    if hasattr(obj, "to_dict") and not isinstance(obj, type):
        return _sanitize(obj.to_dict())
    return obj


def dumps_json(data: Any) -> str:
    """`data` as the JSON every `--json` output and result file uses: indent 2, NaN/Inf as strings."""
    return json.dumps(_sanitize(data), indent=2, default=_json_default)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write `text` to `path` atomically: readers see the old file or the complete new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_json_atomic(path: str | Path, data: Any) -> Path:
    """Serialise `data` (dicts, lists, dataclasses with to_dict) to `path` atomically, indent 2."""
    text = dumps_json(data) + "\n"
    return write_text_atomic(path, text)


def read_json(path: str | Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


class JsonFileError(HdecompError):
    """A JSON file that cannot be read or parsed; `column` where the parser stopped."""

    def __init__(self, cause: str, file: str | Path, line: int | None = None, column: int | None = None) -> None:
        super().__init__(cause, file, line)
        self.column = column


def read_json_file(path: str | Path) -> Any:
    """`path` parsed, or JsonFileError saying why not (unreadable, not UTF-8, not JSON: line and column)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JsonFileError(f"cannot read: {exc}", path) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno, exc.colno) from exc
