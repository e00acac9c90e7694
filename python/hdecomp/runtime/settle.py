"""Models that settle on their first forward.

Some forwards write the model's own parameters or buffers in place once and then set a flag that skips the
write on every later call: transformers' RWKV divides its output projections by 2^(i // rescale_every) on its
first forward in eval mode (an fp16 overflow guard), and a module may fold or normalise its weights lazily the
same way. Such a model computes one thing on its first call and another on every call after it, from weights
that are no longer the ones it was built with.

The rule: whoever compares such a model compares it as its first forward left it. The decomposer captures it
after that forward (hdecomp.decompose.capture.reference_run tells it so); verify-step (where the original's
first trial writes its own state and the refactored model's does not), the composition test and the coverage
count run each model once before the original's weights are handed over, so that both sides hold the settled
weights and neither settles again. A forward that writes its own state on every call (a
step counter, a cache filled in place) is settled the same way and then runs in step on both sides.

A write is seen on the tensors' version counters, which every in-place op bumps (under no_grad too): no
forward that leaves its parameters and buffers alone pays for anything but one list of counters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn


def state_versions(model: nn.Module) -> list[tuple[int, int]]:
    """(id, version counter) of every parameter and buffer of `model`: equal before and after a forward that
    wrote none of them in place (and replaced none)."""
    return [(id(t), t._version) for t in [*model.parameters(), *model.buffers()]]


def wrote_state(model: nn.Module, before: list[tuple[int, int]]) -> bool:
    """Whether `model`'s parameters or buffers changed since `before` (state_versions)."""
    return state_versions(model) != before


def settle(model: nn.Module, forward: Callable[[], Any]) -> bool:
    """Run `forward` (one call of `model`, under no_grad, its output dropped) and say whether it wrote the
    model's own parameters or buffers: then the model is settled, as its first forward leaves it."""
    before = state_versions(model)
    with torch.no_grad():
        forward()
    return wrote_state(model, before)


__all__ = ["settle", "state_versions", "wrote_state"]
