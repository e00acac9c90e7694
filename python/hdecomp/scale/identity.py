"""Whether two trees are the same decomposition: every file byte for byte, but for what a run records
about itself (when it ran, how long each part took, what the reference cache served): JSON keys
`timestamp`, `timings`, `seconds` and `*_seconds`, `reference_cache`, and dates in text files."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

_RUN_KEYS = {"timestamp", "timings", "seconds", "reference_cache", "wall_seconds", "duration"}
_DATE = re.compile(rb"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2})?")


def _without_run_facts(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _without_run_facts(v) for k, v in obj.items()
                if k not in _RUN_KEYS and not k.endswith("_seconds")}
    if isinstance(obj, list):
        return [_without_run_facts(v) for v in obj]
    return obj


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            data = json.dumps(_without_run_facts(json.loads(data)), sort_keys=True).encode()
        except ValueError:
            pass
    else:
        data = _DATE.sub(b"<date>", data)
    return hashlib.sha256(data).hexdigest()


def tree_digest(root: str | Path) -> dict[str, str]:
    """Relative path -> digest of every file of the tree (`__pycache__` left out)."""
    root = Path(root)
    return {p.relative_to(root).as_posix(): file_digest(p) for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def differences(a: str | Path, b: str | Path) -> list[str]:
    """The files that differ between two trees (or exist in one only); [] when they are the same."""
    da, db = tree_digest(a), tree_digest(b)
    return sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))


__all__ = ["differences", "file_digest", "tree_digest"]
