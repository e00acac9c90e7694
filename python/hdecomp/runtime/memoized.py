"""Memoized methods and helpers (`functools.lru_cache` on a module's method, or on a function of the file that
defines its class: EfficientLoFTR's `compute_embeddings`): they hand back tensors an earlier forward made, so a
forward recorded after a first one neither computes them nor reads them from its state. Emptied before a
recording, the forward computes them again and the recording sees that compute (the op inventory of the
original, the capture of a step)."""

from __future__ import annotations

import ast
import enum
import functools
import inspect
import sys
import textwrap
import types
from typing import Any

import torch
from torch import nn


def clear_memoized(module: nn.Module) -> None:
    """Empty the `functools.lru_cache` / `cache` of every method of `module`'s classes (RT-DETR's
    `generate_anchors`): a memoized method hands back the tensors an earlier forward made, which a capture
    sees as constants from nowhere; emptied, the forward computes them, and the capture records that. Also
    the tables a plain object a module holds builds on its first call (clear_lazy_tables)."""
    clear_lazy_tables(module)
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


def clear_lazy_tables(module: nn.Module) -> None:
    """Set back to None the tensors a plain object (not a module) held by `module` or its submodules built on
    its first call, where its constructor left None (Z-Image's RopeEmbedder: `self.freqs_cis = None`, then
    `if self.freqs_cis is None: self.freqs_cis = precompute(...)`): the forward builds them again, in the
    recording, as it did the first time."""
    for m in module.modules():
        # a dict the constructor leaves empty and the forward fills with tensors (timm's LeViT and
        # EfficientViT-MSRA: `self.attention_bias_cache = {}`, the bias table gathered once per device in eval)
        for name in {n for cls in type(m).__mro__ for n in _empty_dict_at_construction(cls)}:
            held = vars(m).get(name)
            if isinstance(held, dict) and held and all(isinstance(t, torch.Tensor) for t in held.values()):
                setattr(m, name, {})
        for value in list(vars(m).values()):
            if not is_plain_object(value):
                continue
            for name in _none_at_construction(type(value)):
                held = vars(value).get(name)
                if isinstance(held, torch.Tensor) or (isinstance(held, (list, tuple)) and held and
                                                      all(isinstance(t, torch.Tensor) for t in held)):
                    setattr(value, name, None)


def is_plain_object(value: Any) -> bool:
    """An instance of a package's or the user's class with attributes (Z-Image's RopeEmbedder): not a module, a
    tensor, a number, a string, a container, a function, a class or an enum."""
    home = getattr(type(value), "__module__", "") or ""
    return isinstance(getattr(value, "__dict__", None), dict) and home != "builtins" and \
        not home.startswith("torch") and not isinstance(value, (type, types.FunctionType, types.MethodType,
                                                                 enum.Enum, functools.partial, nn.Module))


# class -> (the attributes its `__init__` sets to None, those it sets to an empty dict), read once per class
_AT_CONSTRUCTION: dict[type, tuple[frozenset[str], frozenset[str]]] = {}


def _none_at_construction(cls: type) -> frozenset[str]:
    """The attributes `cls.__init__` sets to None (`self.freqs_cis = None`), read from its source."""
    return _at_construction(cls)[0]


def _empty_dict_at_construction(cls: type) -> frozenset[str]:
    """The attributes `cls.__init__` sets to an empty dict (`self.attention_bias_cache = {}`)."""
    return _at_construction(cls)[1]


def _at_construction(cls: type) -> tuple[frozenset[str], frozenset[str]]:
    if cls in _AT_CONSTRUCTION:
        return _AT_CONSTRUCTION[cls]
    init = vars(cls).get("__init__")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init))) if init is not None else None
    except (OSError, TypeError, SyntaxError):
        tree = None

    def set_to(test: Any) -> frozenset[str]:
        return frozenset() if tree is None else frozenset(
            t.attr for n in ast.walk(tree) if isinstance(n, ast.Assign) and test(n.value)
            for t in n.targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
            and t.value.id == "self")

    # (a dict the constructor fills itself, `self.tables = {}` then `self.tables["a"] = ...`, is its state)
    filled = set() if tree is None else {
        n.value.attr for n in ast.walk(tree)
        if (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)) or (
            isinstance(n, ast.Attribute) and n.attr in ("update", "setdefault", "__setitem__"))
        if isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name) and n.value.value.id == "self"}
    found = (set_to(lambda v: isinstance(v, ast.Constant) and v.value is None),
             set_to(lambda v: (isinstance(v, ast.Dict) and not v.keys) or (
                 isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "dict" and not v.args
                 and not v.keywords)) - filled)
    _AT_CONSTRUCTION[cls] = found
    return found
