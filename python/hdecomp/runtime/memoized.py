"""Memoized methods and helpers (`functools.lru_cache` on a module's method, or on a function of the file that
defines its class: EfficientLoFTR's `compute_embeddings`): they hand back tensors an earlier forward made, so a
forward recorded after a first one neither computes them nor reads them from its state. Emptied before a
recording, the forward computes them again and the recording sees that compute (the op inventory of the
original, the capture of a step)."""

from __future__ import annotations

import sys
import types
from typing import Any

from torch import nn


def clear_memoized(module: nn.Module) -> None:
    """Empty the `functools.lru_cache` / `cache` of every method of `module`'s classes (RT-DETR's
    `generate_anchors`): a memoized method hands back the tensors an earlier forward made, which a capture
    sees as constants from nowhere; emptied, the forward computes them, and the capture records that."""
    seen: set[int] = set()
    files: set[str] = set()
    for m in module.modules():
        for cls in type(m).__mro__:
            if id(cls) in seen or cls.__module__ == "builtins" or cls.__module__.startswith("torch."):
                continue
            seen.add(id(cls))
            files.add(cls.__module__)
            for value in vars(cls).values():
                for cache in _caches(value.__func__ if isinstance(value, (staticmethod, classmethod)) else value):
                    cache.cache_clear()
    for name in files:   # the memoized functions of the files that define them (a helper the forward calls)
        for value in list(vars(sys.modules[name]).values()) if name in sys.modules else []:
            if isinstance(value, types.FunctionType) or callable(getattr(value, "cache_clear", None)):
                for cache in _caches(value):
                    cache.cache_clear()


def _caches(fn: Any, depth: int = 0) -> list[Any]:
    """The lru caches behind `fn`: itself, or one a wrapper closes over (transformers'
    `compile_compatible_method_lru_cache` wraps `lru_cache(func)` in a function of its own)."""
    if callable(getattr(fn, "cache_clear", None)) and hasattr(fn, "cache_info"):
        return [fn]
    if depth > 1 or not isinstance(fn, types.FunctionType) or not fn.__closure__:
        return []
    out: list[Any] = []
    for cell in fn.__closure__:
        try:
            out += _caches(cell.cell_contents, depth + 1)
        except ValueError:   # an empty cell
            continue
    return out
