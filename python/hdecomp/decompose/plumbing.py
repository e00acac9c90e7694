"""Objects a forward makes and hands its children that no file can write (a transformers cache each layer
appends to): where a child computes the very same outputs without one, its file is written with None there."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture.record import opaque_state, same_without_state
from hdecomp.decompose.input_code import input_expr
from hdecomp.decompose.node_kinds import is_output_object_call
from hdecomp.decompose.shapes import real_values, sample
from hdecomp.decompose.source import NotRepresentable, SourceContext
from hdecomp.runtime.component import clone_nested, map_nested


def without_plumbing_objects(sub: nn.Module, args: list[Any], kwargs: dict[str, Any], out: Any,
                              ctx: SourceContext) -> tuple[list[Any], dict[str, Any]]:
    """A submodule child's inputs for its own file, where one is an object no file can write (a
    transformers DynamicCache the parent made in its forward and hands each layer): None instead, when the
    child computes the very same outputs with None (the object is plumbing for this call: a fresh cache
    each layer only appends to). Where None changes the outputs the object stays (and the step says it
    cannot be written). A graph step's parent calls the child with None the same way; a source-level step's
    parent keeps its code as written, which hands the object on (and the cache it fills, handed back in the
    parent's output, is compared by its tensors: runtime.component.compared_state). Its step verifies either."""

    def writable(v: Any) -> bool:
        if v is None or isinstance(v, torch.Tensor):
            return True
        try:
            input_expr(v, ctx)
            return True
        except NotRepresentable:
            return False

    new_args, new_kwargs = list(args), dict(kwargs)
    slots: list[int | str] = [i for i, v in enumerate(args) if not writable(v)] + \
        [k for k, v in kwargs.items() if not writable(v)]
    if not slots:
        return new_args, new_kwargs
    # values at the original batch (--batch-limit's full-size stand-ins, on the meta device for a big one):
    # checked on the recorded tensors behind them and the output they gave
    real_args, real_kwargs = real_values(args, kwargs)
    out = map_nested(out, sample)
    for slot in slots:
        trial_args, trial_kwargs = list(real_args), dict(real_kwargs)
        for i, v in enumerate(new_args):
            if v is None:
                trial_args[i] = None
        trial_kwargs.update({k: None for k, v in new_kwargs.items() if v is None})
        if isinstance(slot, int):
            trial_args[slot] = None
        else:
            trial_kwargs[slot] = None
        try:
            with torch.no_grad():
                got = sub(*clone_nested(trial_args), **clone_nested(trial_kwargs))
        except Exception:   # the child needs the object: it stays (and cannot be written)
            continue
        if same_without_state(out, got):
            if isinstance(slot, int):
                new_args[slot] = None
            else:
                new_kwargs[slot] = None
    return new_args, new_kwargs


def packed_objects(inputs: list[fx.Node], values: list[Any], members: list[fx.Node]) -> set[int]:
    """The positions of a group child's inputs that are objects no file can write (opaque_state: the cache a
    decoder made and handed back) which the child only packs into the output object it builds
    (`Seq2SeqModelOutput(cache=decoded.cache, ...)`, as NLLB-MoE's model does): its file is written with None
    there (without_packed gives the output it then returns), and the parent hands it the real object, which
    its output then holds as the original's does."""
    inside = set(members)
    return {i for i, (a, v) in enumerate(zip(inputs, values, strict=True))
            if opaque_state(v) and all(is_output_object_call(u) and a not in u.args
                                       for u in a.users if u in inside)}


def without_packed(value: Any, objects: list[Any]) -> Any:
    """`value` (a group child's output) with each of `objects` it packs as an item of an output object left
    out, as the object's class leaves out an item given as None (a ModelOutput holds only the items set)."""
    if isinstance(value, dict) and any(v is o for v in value.values() for o in objects):
        return type(value)(**{k: (None if any(v is o for o in objects) else v) for k, v in value.items()})
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(without_packed(v, objects) for v in value)
    return value
