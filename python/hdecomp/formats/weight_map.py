"""weight_map.json, the one reader and writer of its format (torch-free: the editor, the language server and
the verifier read it alike).

A step folder's weight map says which tensor of the refactored model receives which tensor of the original:
`{original_key: refactored_key}`. A packed tensor (nn.MultiheadAttention's in_proj_weight, chunked into the q,
k and v projections) maps to several refactored tensors, each one slice of it along one dimension: its value
is a list `[{"key": "q_proj.weight", "dim": 0, "start": 0, "stop": 128}, ...]` instead of one key. A stacked
tensor (the experts' weights of a mixture of experts, `self.weight[i]` in a loop over the experts) maps to the
tensors that each hold one of its entries, the dimension dropped: `{"key": "linear.3.weight", "dim": 0,
"index": 3}` (torch.select). A tensor
several refactored tensors each hold whole (a composed model whose children each hold a tensor the parent
ties) is a list of plain keys; slices and whole copies may mix. The tensor work (matching, copying,
re-drawing) is hdecomp.verify.weights's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import JsonFileError, dumps_json, read_json_file, write_text_atomic

WEIGHT_MAP_FILE = "weight_map.json"


class WeightMapError(HdecompError):
    """The explicit weight map is unreadable or wrong (unknown key, shape or dtype mismatch)."""


class UnknownOriginalKey(WeightMapError):
    """The explicit weight map names a tensor the original does not hold (as built: a tensor its first forward
    makes, LongRoPE's `long_inv_freq`, is held only once that forward ran)."""


@dataclass(frozen=True)
class WeightSlice:
    """The refactored tensor `key` holds original[..., start:stop, ...] (along `dim`) of a packed tensor, or,
    `select`, original.select(dim, start) of a stacked one: one entry, the dimension dropped (stop is
    start + 1)."""

    key: str
    dim: int
    start: int
    stop: int
    select: bool = False

    @staticmethod
    def entry(key: str, dim: int, index: int) -> WeightSlice:
        """The part that holds entry `index` of a stacked tensor along `dim` (torch.select)."""
        return WeightSlice(key, dim, index, index + 1, select=True)

    def of(self, t: Any) -> Any:
        """The slice (or entry) of the tensor `t` (a view: same storage)."""
        return t.select(self.dim, self.start) if self.select else t.narrow(self.dim, self.start, self.stop - self.start)

    def to_dict(self) -> dict[str, Any]:
        if self.select:
            return {"key": self.key, "dim": self.dim, "index": self.start}
        return {"key": self.key, "dim": self.dim, "start": self.start, "stop": self.stop}

    @staticmethod
    def from_dict(d: Any, where: str) -> WeightSlice:
        fields = ("key", "dim", "index") if isinstance(d, dict) and "index" in d else ("key", "dim", "start", "stop")
        if not isinstance(d, dict) or set(d) != set(fields) or not isinstance(d["key"], str) or \
                not all(isinstance(d[f], int) and not isinstance(d[f], bool) for f in fields[1:]):
            raise ValueError(f"{where}: a slice is {{\"key\": str, \"dim\": int, \"start\": int, \"stop\": int}}, "
                             f"an entry {{\"key\": str, \"dim\": int, \"index\": int}}, got {json.dumps(d)[:80]}")
        if "index" in d:
            if d["index"] < 0:
                raise ValueError(f"{where}: entry {d['index']} is negative")
            return WeightSlice.entry(d["key"], d["dim"], d["index"])
        if d["start"] < 0 or d["stop"] <= d["start"]:
            raise ValueError(f"{where}: slice {d['start']}:{d['stop']} is empty or negative")
        return WeightSlice(d["key"], d["dim"], d["start"], d["stop"])


@dataclass(frozen=True)
class WholeCopy:
    """The refactored tensor `key` holds a whole copy of the original tensor, one of several (a composed model
    whose children each hold a tensor the refactored parent ties: written as a plain key in a list)."""

    key: str

    def of(self, t: Any) -> Any:
        """All of the tensor `t`."""
        return t

    def to_dict(self) -> str:
        return self.key


# a part of an original tensor one refactored tensor holds
Part = WeightSlice | WholeCopy
# weight_map.json: original key -> refactored key, or the parts it goes to (slices of a packed tensor, whole
# copies)
ExplicitMap = dict[str, str | list[Part]]


def map_value_json(value: str | Sequence[Part | str | dict[str, Any]]) -> str | list[dict[str, Any] | str]:
    """A map value as weight_map.json writes it (a list's items already in their JSON form kept as they are)."""
    return value if isinstance(value, str) else \
        [p.to_dict() if isinstance(p, (WeightSlice, WholeCopy)) else p for p in value]


def load_explicit_map(path: str | Path) -> ExplicitMap:
    """Read weight_map.json ({original_key: refactored_key or [slices]}); raise WeightMapError naming the
    problem."""
    path = Path(path)
    if not path.exists():
        raise WeightMapError("weight map file not found", path)
    try:
        data = read_json_file(path)
    except JsonFileError as exc:
        cause = exc.cause.replace("cannot read:", "cannot read weight map:").split(" (column")[0]
        raise WeightMapError(cause, path, exc.line) from exc
    if not isinstance(data, dict):
        raise WeightMapError(f"expected a JSON object {{original_key: refactored_key}}, got {type(data).__name__}",
                             path)
    return parse_explicit_map(data, path)


def parse_explicit_map(data: Mapping[str, Any], where: str | Path | None = None) -> ExplicitMap:
    """A weight map's JSON object as an ExplicitMap; WeightMapError names the first bad value."""
    out: ExplicitMap = {}
    for k, v in data.items():
        if isinstance(v, str):
            out[str(k)] = v
        elif isinstance(v, list) and v:
            try:
                out[str(k)] = [WholeCopy(d) if isinstance(d, str) else WeightSlice.from_dict(d, f"value of {k!r}")
                               for d in v]
            except ValueError as exc:
                raise WeightMapError(str(exc), where) from exc
        else:
            raise WeightMapError(f"value of {k!r} is {type(v).__name__}, expected a refactored state_dict key "
                                 "(string) or a list of slices and whole copies (keys)", where)
    return out


def map_json(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A whole map as weight_map.json writes it (values: keys, or lists of Parts, keys or their JSON)."""
    return {k: map_value_json(v) for k, v in mapping.items()}


def weight_map_text(mapping: Mapping[str, Any]) -> str:
    """weight_map.json's text for `mapping`, in its order (indent 2, a final newline)."""
    return dumps_json(map_json(mapping)) + "\n"


def dump_weight_map(folder: str | Path, mapping: Mapping[str, Any]) -> Path:
    """Write `folder`/weight_map.json, keys sorted, atomically."""
    return write_text_atomic(Path(folder) / WEIGHT_MAP_FILE, weight_map_text(dict(sorted(mapping.items()))))


def read_weight_map_json(path: str | Path) -> dict[str, Any] | None:
    """A weight map's JSON object as it is, for an editor that rewrites some entries and keeps every other
    one as the user wrote it (load_explicit_map checks it); None where the file is missing, unreadable or
    not an object."""
    try:
        data = read_json_file(path)
    except (OSError, UnicodeDecodeError, JsonFileError):
        return None
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else None
