"""`--batch-limit`: one rule for every command that runs models (verify, coverage, decompose).

KernelBench's shapes are GPU-sized; CPU users verify with the inputs' batch cut to N. A file with
KernelBench's module-level int `batch_size` gets it lowered to N while its user code runs — get_inputs()
(Component.make_inputs) AND the model's construction (Component.build: an RNN sizing its hidden state by
the batch in __init__) — in the file and in every child file it imports; those inputs are trusted as
built. All inputs square matrices of one size (a square matmul): nothing is cut, the leading dimension is
not a batch.

Otherwise ("cut") the batch is guessed from the inputs' leading sizes and the guess is checked by the
model itself: candidate sizes are tried in order — the first input's leading size first (the batch in the
common case), then each other distinct leading size in input order — cutting every input whose leading
dimension has that size, and the first cut under which the forward runs is taken. When no cut runs, the
inputs stay at full size: a cut never breaks a model that runs uncut. `(K, M)ᵀ @ (N, K)ᵀ`
(18_Matmul_with_transposed_both) cannot lose K from A alone, but loses N from B (an output dimension, as
faithful a sub-problem as a batch); `(M, K) @ (K, N)` keeps its cut of M. A forward that runs is the only
test a shape-only guess cannot pass on its own (`(N, N) @ (N,)` shares one leading size and still breaks
when cut). The check is first a forward of a meta-device build of the model on meta copies of the cut
inputs (shapes only: no memory, no compute); only a cut the meta forward rejects (a shape error, or an op
or constructor without meta support) is checked again with a real forward at the cut size. The choice is
made once per file and input shapes (memoised).

Every command that runs models applies this rule: verify-step (original and refactored: the original
decides the cut, the refactored gets the same inputs), coverage, pipeline, decompose, compose (its
generated script carries a copy: it lowers every loaded file's `batch_size` before the build and checks
its cut with the original model) and `hdecomp test` (its runner executes a file with the `batch_size`
assignment lowered in memory). Files written by `hdecomp decompose --batch-limit N` keep the original
dimensions and write their batch dimensions with a module-level `batch_size` (hdecomp.decompose.shapes),
so the rule applies to them too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from hdecomp.errors import ComponentRunError, ComponentTimeout, HdecompError
from hdecomp.runtime.component import (
    Component,
    clone_nested,
    dataclass_fields,
    is_oom,
    move_to,
    plain_attributes,
    restore_plain_attributes,
    run_user_code,
)
from hdecomp.runtime.settings import RunSettings

# A check of a candidate cut: does the forward run on these inputs?
Probe = Callable[[list[Any], dict[str, Any]], bool]


def tensors_at(obj: Any, path: str) -> list[tuple[str, torch.Tensor]]:
    """Every tensor nested in lists/tuples/dicts of `obj`, with its path (`args[0]['mask']`)."""
    if isinstance(obj, torch.Tensor):
        return [(path, obj)]
    if isinstance(obj, (list, tuple)):
        return [t for i, o in enumerate(obj) for t in tensors_at(o, f"{path}[{i}]")]
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in tensors_at(v, f"{path}[{k!r}]")]
    fields = dataclass_fields(obj)
    if fields is not None:
        return [t for k, v in fields.items() for t in tensors_at(v, f"{path}.{k}")]
    return []


def input_tensors(args: list[Any], kwargs: dict[str, Any]) -> list[tuple[str, torch.Tensor]]:
    return tensors_at(list(args), "args") + [t for k, v in kwargs.items() for t in tensors_at(v, k)]


def batch_cut_policy(module: Any, args: list[Any], kwargs: dict[str, Any], kept: str | None = None) -> str:
    """How `--batch-limit` applies to a file's inputs: "batch_size" when the module defines KernelBench's
    int `batch_size` (make_inputs lowers it; the inputs are never cut further) and the file works lowered
    (`kept`: why it does not, Component.batch_size_kept), "not_applicable" when every input tensor is a 2-D
    square matrix of one size, else "cut" (`choose_cut`)."""
    value = getattr(module, "batch_size", None)
    if isinstance(value, int) and not isinstance(value, bool) and kept is None:
        return "batch_size"
    tensors = [t for _, t in input_tensors(args, kwargs)]
    if tensors and all(t.dim() == 2 and t.shape[0] == t.shape[1] == tensors[0].shape[0] for t in tensors):
        return "not_applicable"
    return "cut"


def grouped_sizes(args: list[Any], kwargs: dict[str, Any]) -> dict[int, int]:
    """Leading sizes of integer inputs laid out batch-major with several rows per sample: {k * b: b}, where
    b is the leading size of a float input (OWLv2's text queries, `batch x queries` rows of ids and masks
    beside `batch` images; MusicGen's `batch x codebooks` rows of codes beside `batch` text states). Such
    an input is no batch of its own: a cut keeps its first k rows per sample kept."""
    tensors = [t for _, t in input_tensors(args, kwargs) if t.dim() >= 1]
    data = {int(t.shape[0]) for t in tensors if t.is_floating_point() or t.is_complex()}
    out: dict[int, int] = {}
    for t in tensors:
        n = int(t.shape[0])
        if t.dim() < 2 or t.is_floating_point() or t.is_complex() or n in data:
            continue
        bases = [b for b in data if 1 < b < n and n % b == 0]
        if bases and all(not (u.is_floating_point() or u.is_complex()) for u in tensors if int(u.shape[0]) == n):
            out[n] = max(bases)
    return out


def batch_candidates(args: list[Any], kwargs: dict[str, Any], limit: int) -> list[int]:
    """The leading sizes a cut to `limit` may take as the batch, in the order they are tried: the first
    input's leading size, then every other distinct one in input order (only sizes above `limit`; not the
    sizes of grouped_sizes, whose tensors follow their batch). None when the first input with a leading
    dimension is within the limit already: the batch is small, and another input's leading size is no
    batch (a convolution's weight handed in as an input)."""
    out: list[int] = []
    grouped = grouped_sizes(args, kwargs)
    tensors = [t for _, t in input_tensors(args, kwargs) if t.dim() >= 1 and int(t.shape[0]) not in grouped]
    if tensors and int(tensors[0].shape[0]) <= limit:
        return out
    for t in tensors:
        if int(t.shape[0]) > limit and int(t.shape[0]) not in out:
            out.append(int(t.shape[0]))
    return out


def cut_batch(args: list[Any], kwargs: dict[str, Any], limit: int, batch: int | None = None,
              ) -> tuple[list[Any], dict[str, Any], list[dict[str, Any]]]:
    """Cut the leading dimension of every input tensor whose leading size is `batch` (default: the first
    input's) to `limit`, and of those grouped by it (grouped_sizes: k rows per sample) to `k * limit`. Returns the new inputs and the cuts made ({input, from, to}); copies so the
    full-size tensors can go."""
    grouped = grouped_sizes(args, kwargs)
    if batch is None:
        batch = next((int(t.shape[0]) for _, t in input_tensors(args, kwargs)
                      if t.dim() >= 1 and int(t.shape[0]) not in grouped), None)
    cuts: list[dict[str, Any]] = []
    if batch is None or batch <= limit:
        return args, kwargs, cuts

    def cut(obj: Any, path: str) -> Any:
        if isinstance(obj, torch.Tensor):
            if obj.dim() >= 1 and obj.shape[0] == batch:
                cuts.append({"input": path, "from": int(batch), "to": int(limit)})
                return obj[:limit].clone()
            n = int(obj.shape[0]) if obj.dim() >= 1 else 0
            if grouped.get(n) == batch:   # k rows per sample: the first `limit` samples' rows
                per = n // batch
                cuts.append({"input": path, "from": n, "to": int(limit * per), "per_sample": per})
                return obj[:limit * per].clone()
            return obj
        if isinstance(obj, (list, tuple)):
            return type(obj)(cut(o, f"{path}[{i}]") for i, o in enumerate(obj))
        if isinstance(obj, dict):
            return {k: cut(v, f"{path}[{k!r}]") for k, v in obj.items()}
        return obj

    new_args = [cut(a, f"args[{i}]") for i, a in enumerate(args)]
    new_kwargs = {k: cut(v, k) for k, v in kwargs.items()}
    return new_args, new_kwargs, cuts


@dataclass
class BatchCut:
    """Inputs under the cut rule: `cuts` made ({input, from, to}; empty when nothing was cut) and the
    candidate batch sizes whose cut the model rejected (`refused`; then maybe full size)."""

    args: list[Any]
    kwargs: dict[str, Any]
    cuts: list[dict[str, Any]] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)

    @property
    def batch(self) -> int | None:
        """The leading size that was cut (None: nothing was): the batch, not a size grouped by it."""
        return int(self.cuts[0]["from"]) // int(self.cuts[0].get("per_sample", 1)) if self.cuts else None

    @property
    def full_size(self) -> bool:
        """Every candidate cut broke the model: the inputs stay whole."""
        return bool(self.refused) and not self.cuts


def choose_cut(args: list[Any], kwargs: dict[str, Any], limit: int, runs: Probe | None = None,
               ) -> BatchCut:
    """The cut rule (module docstring): the first candidate batch whose cut `runs` accepts; none accepted,
    the inputs as they are. Without `runs` the first candidate is taken unchecked."""
    refused: list[int] = []
    for batch in batch_candidates(args, kwargs, limit):
        a, k, cuts = cut_batch(args, kwargs, limit, batch)
        if runs is None or runs(a, k):
            return BatchCut(a, k, cuts, refused)
        refused.append(batch)
    return BatchCut(args, kwargs, [], refused)


def forward_runs(model: Any, path: Any = "<model>", timeout: float | None = None) -> Probe:
    """A probe for `choose_cut`: `model` runs on copies of the inputs without raising. A time-out or an
    out-of-memory is not a verdict on the cut's shapes: it propagates."""
    def runs(args: list[Any], kwargs: dict[str, Any]) -> bool:
        def call() -> Any:
            with torch.no_grad():
                return model(*clone_nested(args), **clone_nested(kwargs))
        # (the probe leaves the model as built: state its forward sets lazily, a rotary table it memoises,
        # would let the caller's next forward skip work the other model it is compared with does)
        before = plain_attributes(model) if isinstance(model, nn.Module) else None
        try:
            run_user_code(call, what="Model.forward at the cut batch", path=path, timeout=timeout)
        except ComponentTimeout:
            raise
        except ComponentRunError as exc:
            if exc.__cause__ is not None and is_oom(exc.__cause__):
                raise
            return False
        finally:
            if before is not None:
                restore_plain_attributes(model, before)
        return True
    return runs


def meta_runs(meta_model: Any, path: Any = "<model>", timeout: float | None = None) -> Probe:
    """A probe on a meta-device model: its forward runs on meta copies of the inputs (shape checks only)."""
    def runs(args: list[Any], kwargs: dict[str, Any]) -> bool:
        def call() -> Any:
            with torch.no_grad():
                return meta_model(*move_to(list(args), "meta"), **move_to(dict(kwargs), "meta"))
        try:
            run_user_code(call, what="Model.forward on meta tensors", path=path, timeout=timeout)
        except HdecompError:  # a shape error, no meta support, or too slow: the real forward decides
            return False
        return True
    return runs


def meta_first(meta_model: Any, real: Probe, path: Any = "<model>", timeout: float | None = None) -> Probe:
    """A cut the meta forward accepts is taken; one it rejects is checked by `real` (a real forward)."""
    if meta_model is None:
        return real
    meta = meta_runs(meta_model, path, timeout)
    return lambda a, k: meta(a, k) or real(a, k)


def meta_build(comp: Component, limit: int, timeout: float | None, checked: bool = True) -> Any:
    """`comp`'s model built on the meta device at batch `limit` (None when its constructor cannot be):
    shapes only, no memory, no init time (`checked`: as Component.build)."""
    try:
        with torch.device("meta"):
            return comp.build(timeout=timeout, batch_limit=limit, checked=checked)
    except HdecompError:
        return None


# (file, mtime, class, input signature, limit) -> (cut batch or None, refused): one probe per file and
# input shapes across verify-step's trials, coverage and the decomposer (all in one process).
_CHOSEN: dict[tuple[Any, ...], tuple[int | None, tuple[int, ...]]] = {}


def _signature(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    return tuple((p, tuple(t.shape), str(t.dtype), str(t.device)) for p, t in input_tensors(args, kwargs))


def cut_for(comp: Component, args: list[Any], kwargs: dict[str, Any], run: RunSettings, *,
            model: Any = None) -> BatchCut:
    """`comp`'s inputs (made with `run`'s batch limit) under the rule: as they are unless the policy is
    "cut"; then `choose_cut`, each candidate checked on a meta-device build of `comp` first and, when that
    rejects it, by a real forward of `model` (built when needed and not given). Memoised (_CHOSEN)."""
    limit, timeout = run.batch_limit, run.timeout
    if limit is None or batch_cut_policy(comp.module, args, kwargs, comp.batch_size_kept(limit, timeout)) != "cut" \
            or not batch_candidates(args, kwargs, limit):
        return BatchCut(args, kwargs)
    try:
        stat = comp.path.stat()
        stamp: tuple[Any, ...] = (str(comp.path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (str(comp.path), None, None)
    key = (*stamp, comp.class_name, _signature(args, kwargs), limit)
    known = _CHOSEN.get(key)
    if known is not None:
        batch, refused = known
        if batch is None:
            return BatchCut(args, kwargs, [], list(refused))
        a, k, cuts = cut_batch(args, kwargs, limit, batch)
        return BatchCut(a, k, cuts, list(refused))
    real: list[Any] = [model]

    def real_runs(a: list[Any], k: dict[str, Any]) -> bool:
        if real[0] is None:
            real[0] = comp.build(run=run)
        return forward_runs(real[0], comp.path, timeout)(a, k)
    # (a meta forward checks shapes, not values: where an input holds integers, indices a cut may take out
    # of range, a gather's table cut below the positions it reads, or a mask, whose count a `masked_scatter`
    # must find in its source (Molmo2's image features, not cut with the batch), only a real forward tells)
    indices = any(not t.is_floating_point() and not t.is_complex() for _, t in input_tensors(args, kwargs))
    probe = real_runs if indices else meta_first(meta_build(comp, limit, timeout), real_runs, comp.path, timeout)
    chosen = choose_cut(args, kwargs, limit, probe)
    _CHOSEN[key] = (chosen.batch, tuple(chosen.refused))
    return chosen


def limited_inputs(comp: Component, run: RunSettings, *, seed: int = 42, model: Any = None,
                   ) -> tuple[list[Any], dict[str, Any]]:
    """A component's inputs under `run` (its `--batch-limit`; None: full size), by the rule above (`model`:
    the built component, to check a cut with; built here when a cut needs checking and it is not given)."""
    args, kwargs = comp.make_inputs(seed=seed, run=run)
    chosen = cut_for(comp, args, kwargs, run, model=model)
    return chosen.args, chosen.kwargs


