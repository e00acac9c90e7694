"""weight_map.json after an extraction: the moved attributes' tensors re-pointed under the child."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from hdecomp.formats.weight_map import WEIGHT_MAP_FILE, read_weight_map_json
from hdecomp.refactor.state_keys import (
    file_state_keys,
)


def weight_map_update(folder: Path, path: Path, attribute: str, moved: list[str],
                       weight_keys: dict[str, list[str] | None]) -> tuple[Path, str | None, dict[str, Any]] | None:
    """weight_map.json after the move: existing entries re-pointed under the child, new ones for the moved
    submodules' tensors (only keys the original really has, when original.py is there to tell)."""
    wm_path = folder / WEIGHT_MAP_FILE
    old_text: str | None = None
    mapping: dict[str, Any] = {}   # a value is a key, or the slices of a packed tensor [{"key": ...}, ...]
    if wm_path.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            old_text = wm_path.read_text(encoding="utf-8")
        loaded = read_weight_map_json(wm_path)
        if loaded is not None:
            mapping = {k: v if isinstance(v, list) else str(v) for k, v in loaded.items()}
    original = folder / "original.py"
    original_keys = set(file_state_keys(original) or []) if original.is_file() else None
    changed = False

    def repointed(key: str) -> str:
        nonlocal changed
        for attr in moved:
            if key == attr or key.startswith(attr + "."):
                changed = True
                return f"{attribute}.{key}"
        return key

    new_map: dict[str, Any] = {}
    for k, v in mapping.items():
        if isinstance(v, list):
            new_map[k] = [{**p, "key": repointed(p["key"])} if isinstance(p, dict) and isinstance(p.get("key"), str)
                          else p for p in v]
        else:
            new_map[k] = repointed(v)
    values = {v for v in new_map.values() if isinstance(v, str)} | \
        {p["key"] for v in new_map.values() if isinstance(v, list) for p in v if isinstance(p, dict) and "key" in p}
    for attr in moved:
        for key in weight_keys.get(attr) or []:
            ref_key = f"{attr}.{key}" if key else attr
            target = f"{attribute}.{ref_key}"
            if target in values or ref_key in new_map:
                continue
            if original_keys is not None and ref_key not in original_keys:
                continue  # the original names it differently: leave it to the verifier's matching
            new_map[ref_key] = target
            values.add(target)
            changed = True
    if not changed:
        return None
    return wm_path, old_text, new_map
