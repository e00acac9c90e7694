"""Host values at run time: the tensors a forward builds from plain data alone (sizes, Python numbers), such as
a causal mask from `torch.ones(S, S).tril()`, `torch.div(64, 8)` or `torch.log2(torch.tensor(scale))`.

They are constants of the shapes: what is computed from them alone is host code, which a parent may keep
(hdecomp.anticheat.runtime exempts it where the parent's own code runs it, as the static check's `HOST` values
say). A tensor is a host value when an op made it with no tensor input (a factory), or from host values only
as a number, a mask or an index (a 0-dim result, an integer or bool one, or one of the ops that select
values: `tril`, `where`, `masked_fill`), and no op has since written anything else into its storage (a write
of a model's tensor into a view of it makes the whole base data). Float arithmetic on whole host tensors
(`cos(positions * inv_freq)`: a table of RoPE) is the model's compute, a component of its own; random draws
are never host values (a draw is no constant).

A number a model keeps in a 0-dim integer or bool tensor (`is_number`: EnCodec's `kernel_size`, `stride` and
`padding_total` buffers; `self.stride = torch.tensor(8)`) is a host value from the start
(`HostValues.numbers_of`): the padding arithmetic on it is host code, as on the int it holds."""

from __future__ import annotations

import weakref
from typing import Any

import torch

from hdecomp.vocab.ops import RANDOM_OPS

# aten ops that make a tensor from Python data handed in (`torch.tensor(5)` lifts a fresh constant)
_LIFTS = frozenset({"lift_fresh", "lift_fresh_copy", "lift"})
# compute ops that select or rearrange values rather than compute new ones (a causal mask's `triu` of -inf)
SELECTION_OPS = frozenset("tril triu tril_ triu_ where masked_fill masked_fill_ flip roll rot90".split())


def host_result(op: str, compute: bool, outputs: list[torch.Tensor]) -> bool:
    """Whether an op on host values alone makes host values: plumbing does, and compute whose results are
    numbers, masks or indices (0-dim, integer or bool) or that only selects values (SELECTION_OPS)."""
    return not compute or op in SELECTION_OPS or all(
        t.dim() == 0 or not (t.is_floating_point() or t.is_complex()) for t in outputs)


def is_number(t: torch.Tensor) -> bool:
    """A 0-dim integer or bool tensor: a number, as plain as the int it holds (no parameter is one)."""
    return t.dim() == 0 and not (t.is_floating_point() or t.is_complex()) and not isinstance(t, torch.nn.Parameter)


def on_numbers(inputs: Any, outputs: Any) -> bool:
    """Every tensor among `inputs` and `outputs` is a number (`is_number`), and there is one at least."""
    tensors = _tensors((inputs, outputs))
    return bool(tensors) and all(is_number(t) for t in tensors)


def number_annotation(value: Any, depth: int = 0) -> str | None:
    """The annotation of a Python number or of a tuple or list of them (`int`, `tuple[int, int]`,
    `list[float]`), or of a list or tuple of such tuples (`list[tuple[int, int]]`: Deformable DETR's
    `spatial_shapes_list`), or of a number held in a 0-dim integer or bool tensor (`int`, `bool`: a count LED's
    attention takes, `max_num_global_attn_indices`; is_number); None for anything else (a tensor, a namedtuple,
    an empty tuple). The static anti-cheat reads each of them as numbers (its numbers_annotation)."""
    if isinstance(value, torch.Tensor):
        return ("bool" if value.dtype == torch.bool else "int") if is_number(value) else None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return type(value).__name__
    if isinstance(value, (tuple, list)) and value and not hasattr(value, "_fields") and depth < 2:
        maybe = [number_annotation(v, depth + 1) for v in value]
        parts = [a for a in maybe if a is not None]
        numbers = all(a in _NUMBER_KINDS for a in parts)
        # (every item annotated; a sequence within one holds numbers, alike and not mixed with numbers)
        if len(parts) < len(maybe) or (not numbers and (depth or len(set(parts)) > 1)):
            return None
        if isinstance(value, list):
            return f"list[{parts[0]}]" if len(set(parts)) == 1 else None
        if not numbers:
            return f"tuple[{parts[0]}, ...]"
        return f"tuple[{', '.join(parts)}]" if len(parts) <= 4 else \
            f"tuple[{parts[0]}, ...]" if len(set(parts)) == 1 else None
    return None


_NUMBER_KINDS = frozenset({"int", "float", "bool"})


def _tensors(tree: Any) -> list[torch.Tensor]:
    return [t for t in torch.utils._pytree.tree_leaves(tree) if isinstance(t, torch.Tensor)]


def _base(t: torch.Tensor) -> torch.Tensor:
    return t._base if t._base is not None else t


class HostValues:
    """Which tensors of one recorded run are host values (by their view base, held weakly)."""

    def __init__(self) -> None:
        self._bases: dict[int, weakref.ref[torch.Tensor]] = {}

    def numbers_of(self, model: torch.nn.Module) -> None:
        """Mark the numbers `model` keeps in tensors (`is_number`): its modules' 0-dim integer or bool buffers
        and tensor attributes."""
        for m in model.modules():
            for t in [*m._buffers.values(), *vars(m).values()]:
                if isinstance(t, torch.Tensor) and is_number(t):
                    self._mark(t)

    def holds(self, t: torch.Tensor) -> bool:
        b = _base(t)
        ref = self._bases.get(id(b))
        return ref is not None and ref() is b

    def _mark(self, t: torch.Tensor) -> None:
        b = _base(t)
        try:
            self._bases[id(b)] = weakref.ref(b)
        except TypeError:   # (a tensor subclass that takes no weak reference: not a host value)
            pass

    def _unmark(self, t: torch.Tensor) -> None:
        self._bases.pop(id(_base(t)), None)

    def called_on_host(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """Whether a torch function's call was handed host values (one at least) and plain data only."""
        inputs = _tensors((args, kwargs))
        return name not in RANDOM_OPS and bool(inputs) and all(self.holds(t) for t in inputs)

    def op(self, func: Any, packet: str, compute: bool, args: tuple[Any, ...], kwargs: dict[str, Any],
           out: Any) -> bool:
        """Record one aten op that ran (`out` its result): whether it made host values (module docstring)."""
        inputs, outputs = _tensors((args, kwargs)), _tensors(out)
        made = not inputs or packet in _LIFTS   # (a factory: its values come from Python data)
        host = packet not in RANDOM_OPS and (made or (all(self.holds(t) for t in inputs) and
                                                      host_result(packet, compute, outputs)))
        if host:
            for t in outputs:
                self._mark(t)
            return True
        # a write of anything else into a tensor (an in-place op, an `out=`): its storage holds data now
        for i, arg in enumerate(func._schema.arguments):
            alias = arg.alias_info
            if alias is not None and alias.is_write:
                for t in _tensors(args[i] if i < len(args) else kwargs.get(arg.name)):
                    self._unmark(t)
        return False


__all__ = ["SELECTION_OPS", "HostValues", "host_result", "is_number", "on_numbers"]
