"""The four levels of a decomposition, their names and folders, and how a written level is read back.

One copy for every tool: the decomposer, the tree reader, the validator and the language server's tree
view. Torch-free.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

LEVEL_NAMES: dict[int, str] = {3: "model", 2: "layer", 1: "fusion", 0: "kernel"}
LEVEL_NUMBERS: dict[str, int] = {name: number for number, name in LEVEL_NAMES.items()}
LEVEL_DIRS: dict[int, str] = {number: f"level_{number}_{name}" for number, name in LEVEL_NAMES.items()}
LEVEL_DIR_RE = re.compile(r"^level_([0-3])_(model|layer|fusion|kernel)$")
_LOOSE_RE = re.compile(r"(?:l|level[_ ]?)?([0-3])(?:_\w+)?")


def parse_level(value: Any, *, strict: bool = False) -> int | None:
    """0..3 from a level as written, None when it names no level.

    Strict (what the validator accepts): an int, a digit string, a level name ("kernel") or a level
    folder name ("level_0_kernel"). Loose (what the readers accept, to open older trees): also "L1",
    "level 2" and "level_2_anything"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in LEVEL_NAMES else None
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text in LEVEL_NUMBERS:
        return LEVEL_NUMBERS[text]
    if text.isdigit():
        return int(text) if int(text) in LEVEL_NAMES else None
    match = LEVEL_DIR_RE.match(text) or (None if strict else _LOOSE_RE.fullmatch(text))
    return int(match.group(1)) if match else None


def level_name(level: int | None) -> str:
    return LEVEL_NAMES.get(level, "unknown") if level is not None else "unknown"


def level_of_path(path: str | None, *, strict: bool = False) -> int | None:
    """The level a component file's folder stands for (`level_0_kernel/x.py` -> 0), else None."""
    if not path:
        return None
    for part in PurePosixPath(path.replace("\\", "/")).parts[:-1]:
        if part.startswith("level_"):
            level = parse_level(part, strict=strict)
            if level is not None:
                return level
    return None


def descends(parent: int, child: int) -> bool:
    """Levels go down along an edge; a layer may hold layers (a stage of blocks, a block's attention)."""
    return child < parent or parent == child == 2


# How many logical compute ops each level holds (a kernel module such as an RMSNorm counts as one):
# a kernel one, a fusion 2-5, a layer 6-15, a model more. The decomposer's policy (decompose/levels.py)
# and the quality lint's rule Q6 both read these bands.
KERNEL_MAX_OPS = 1
FUSION_OPS = (2, 5)
LAYER_OPS = (6, 15)
