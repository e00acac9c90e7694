"""What a forward writes into the containers it was handed: entries it adds to, or replaces in, a list, a dict or
a UserDict among its inputs (Gemma 3n's attentions store their keys and values in the `KVSharingDict` the
decoder hands every layer, `shared_kv_states[layer_type] = k, v`, for the layers after them to read).

Such a write is part of what the module computes, as its output is: a step that drops it verifies alone and
breaks the composition (the readers find no entry). The verifier compares the writes of both sides as it
compares their outputs (hdecomp.verify.trials, WithWrites); a recording refuses a forward that writes so, whose
graph would drop the write (hdecomp.decompose.capture.record: the step is written at the source level, the write
kept in the parent). Writes into a tensor are in-place mutations, judged elsewhere."""

from __future__ import annotations

from collections import UserDict
from typing import Any

import torch


def _items(obj: Any) -> list[tuple[Any, Any]]:
    return list(enumerate(obj)) if isinstance(obj, list) else list(obj.items())


class HeldEntries:
    """The entries of every list, dict and UserDict nested in a forward's inputs (through tuples too), as they
    were before it ran: each container with its items (the objects themselves, held, so an id is never
    reused)."""

    def __init__(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        self.held: list[tuple[str, Any, dict[Any, Any]]] = []
        seen: set[int] = set()
        for i, a in enumerate(args):
            self._take(a, f"args[{i}]", seen)
        for k, v in kwargs.items():
            self._take(v, k, seen)

    def _take(self, obj: Any, path: str, seen: set[int]) -> None:
        if isinstance(obj, torch.Tensor) or id(obj) in seen:
            return
        if isinstance(obj, (list, dict, UserDict)):
            seen.add(id(obj))
            items = _items(obj)
            self.held.append((path, obj, dict(items)))
            for k, v in items:
                self._take(v, f"{path}[{k!r}]", seen)
        elif isinstance(obj, tuple):
            for i, v in enumerate(obj):
                self._take(v, f"{path}[{i}]", seen)

    def written(self) -> dict[str, Any]:
        """{path: value} of the entries the forward added or replaced since, those holding tensors (a flag set
        in a config dict is no output)."""
        out: dict[str, Any] = {}
        for path, obj, before in self.held:
            for k, v in _items(obj):
                if (k not in before or before[k] is not v) and holds_tensors(v):
                    out[f"{path}[{k!r}]"] = v
        return out


def holds_tensors(obj: Any) -> bool:
    if isinstance(obj, torch.Tensor):
        return True
    if isinstance(obj, (list, tuple)):
        return any(holds_tensors(v) for v in obj)
    if isinstance(obj, (dict, UserDict)):
        return any(holds_tensors(v) for v in obj.values())
    return False


class WithWrites(dict):  # type: ignore[type-arg]
    """A forward's output with what it wrote into its inputs beside it, compared as one output by the verifier:
    `{"output": ..., "written into its inputs": {path: value}}`."""

    OUTPUT, WRITTEN = "output", "written into its inputs"

    @classmethod
    def of(cls, out: Any, written: dict[str, Any]) -> Any:
        """`out` as it is where nothing was written, else with the writes beside it."""
        return cls({cls.OUTPUT: out, cls.WRITTEN: written}) if written else out

    @staticmethod
    def paths(out: Any) -> list[str]:
        """The input paths an output says were written (none for a plain output)."""
        return sorted(out[WithWrites.WRITTEN]) if isinstance(out, WithWrites) else []
