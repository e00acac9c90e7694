"""`--batch-limit`: one rule for every command that runs models (verify, coverage, decompose).

KernelBench's shapes are GPU-sized; CPU users verify with the inputs' batch cut to N. A file with
KernelBench's module-level int `batch_size` gets it lowered to N while its user code runs — get_inputs()
(Component.make_inputs) AND the model's construction (Component.build: an RNN sizing its hidden state by
the batch in __init__) — in the file and in every child file it imports; those inputs are trusted as
built. Otherwise the leading dimension of every input sharing the first input's size is cut — except when
all inputs are square matrices of one size (a square matmul: the leading dimension is not a batch).

Every command that runs models applies this rule: verify-step (original and refactored), coverage,
pipeline, decompose, compose (its generated script lowers every loaded file's `batch_size` before the
build) and `hdecomp test` (its runner executes a file with the `batch_size` assignment lowered in memory).
Files written by `hdecomp decompose --batch-limit N` keep the original dimensions and write their batch
dimensions with a module-level `batch_size` (hdecomp.decompose.shapes), so the rule applies to them too.
"""

from __future__ import annotations

from typing import Any

import torch

from hdecomp.component import Component


def tensors_at(obj: Any, path: str) -> list[tuple[str, torch.Tensor]]:
    """Every tensor nested in lists/tuples/dicts of `obj`, with its path (`args[0]['mask']`)."""
    if isinstance(obj, torch.Tensor):
        return [(path, obj)]
    if isinstance(obj, (list, tuple)):
        return [t for i, o in enumerate(obj) for t in tensors_at(o, f"{path}[{i}]")]
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in tensors_at(v, f"{path}[{k!r}]")]
    return []


def input_tensors(args: list[Any], kwargs: dict[str, Any]) -> list[tuple[str, torch.Tensor]]:
    return tensors_at(list(args), "args") + [t for k, v in kwargs.items() for t in tensors_at(v, k)]


def batch_cut_policy(module: Any, args: list[Any], kwargs: dict[str, Any]) -> str:
    """How `--batch-limit` applies to a file's inputs: "batch_size" when the module defines KernelBench's
    int `batch_size` (make_inputs lowers it; the inputs are never cut further), "not_applicable" when every
    input tensor is a 2-D square matrix of one size, else "cut" (`cut_batch`)."""
    value = getattr(module, "batch_size", None)
    if isinstance(value, int) and not isinstance(value, bool):
        return "batch_size"
    tensors = [t for _, t in input_tensors(args, kwargs)]
    if tensors and all(t.dim() == 2 and t.shape[0] == t.shape[1] == tensors[0].shape[0] for t in tensors):
        return "not_applicable"
    return "cut"


def cut_batch(args: list[Any], kwargs: dict[str, Any], limit: int,
              ) -> tuple[list[Any], dict[str, Any], list[dict[str, Any]]]:
    """Cut the leading dimension of every input tensor that shares the first input's batch size.
    Returns the new inputs and the cuts made ({input, from, to}); copies so the full-size tensors can go."""
    batch = next((t.shape[0] for _, t in input_tensors(args, kwargs) if t.dim() >= 1), None)
    cuts: list[dict[str, Any]] = []
    if batch is None or batch <= limit:
        return args, kwargs, cuts

    def cut(obj: Any, path: str) -> Any:
        if isinstance(obj, torch.Tensor):
            if obj.dim() >= 1 and obj.shape[0] == batch:
                cuts.append({"input": path, "from": int(batch), "to": int(limit)})
                return obj[:limit].clone()
            return obj
        if isinstance(obj, (list, tuple)):
            return type(obj)(cut(o, f"{path}[{i}]") for i, o in enumerate(obj))
        if isinstance(obj, dict):
            return {k: cut(v, f"{path}[{k!r}]") for k, v in obj.items()}
        return obj

    new_args = [cut(a, f"args[{i}]") for i, a in enumerate(args)]
    new_kwargs = {k: cut(v, k) for k, v in kwargs.items()}
    return new_args, new_kwargs, cuts


def limited_inputs(comp: Component, limit: int | None, *, seed: int = 42, device: Any = None,
                   timeout: float | None = None) -> tuple[list[Any], dict[str, Any]]:
    """A component's inputs under `--batch-limit limit` (None: full size), by the rule above."""
    args, kwargs = comp.make_inputs(seed=seed, device=device, timeout=timeout, batch_limit=limit)
    if limit is not None and batch_cut_policy(comp.module, args, kwargs) == "cut":
        args, kwargs, _ = cut_batch(args, kwargs, limit)
    return args, kwargs
