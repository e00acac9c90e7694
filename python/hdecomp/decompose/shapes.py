"""Full-size shapes for files generated under `--batch-limit`.

Under `--batch-limit N` the decomposer records every component at a cut batch (GPU-sized KernelBench shapes
would take minutes per forward on a CPU), yet every generated file must carry the ORIGINAL dimensions
(DESIGN.md: "never shrunk"). Which dimensions scale with the batch is learned from a second, cheap recording
at batch N + 1: a dimension equal in both recordings is a constant; one equal to k * batch in both is
`batch_size * k`, written symbolically so the generated file declares `batch_size = <original>` and the one
batching rule (hdecomp.runtime.batch_limit: a module-level int `batch_size` is lowered) keeps verifying it at the cut
batch. Anything else keeps its recorded value and is reported as a deviation.

A full-size tensor is a meta tensor (no memory) of the full shape that carries its source dimensions
(`dims`) and the recorded tensor (`sample`, for value ranges); a full-size int is a `BatchInt`.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import copy
import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.fx as fx
from torch import nn
from torch.overrides import TorchFunctionMode

from hdecomp.errors import DecomposeError, HdecompError
from hdecomp.runtime.batch_limit import batch_cut_policy, cut_batch, grouped_sizes, input_tensors, meta_build
from hdecomp.runtime.component import (
    Component,
    clone_nested,
    map_nested,
    move_to,
    run_user_code,
    same_kind_dict,
    user_dict_holding,
)
from hdecomp.runtime.settings import RunSettings
from hdecomp.vocab.workload import BATCH as BATCH_NAME

BATCH = BATCH_NAME   # (vocab.workload: the workload key writes the batch as its value)


@dataclass(frozen=True)
class Scaling:
    """A recording at batch `b1` (and a second at `b2`) of a component whose original batch is `full`."""

    full: int
    b1: int
    b2: int
    policy: str          # batch_cut_policy of the component: "batch_size" | "cut"

    def dim(self, a: int, b: int) -> int | None:
        """k when (a, b) are k * (b1, b2); None otherwise."""
        if a * self.b2 == b * self.b1 and a % self.b1 == 0 and a > 0:
            return a // self.b1
        return None


class BatchInt(int):
    """An int that is `expr` (e.g. `batch_size * 4`) in generated source; its value is the full size."""

    expr: str

    def __new__(cls, value: int, expr: str) -> BatchInt:
        obj = super().__new__(cls, value)
        obj.expr = expr
        return obj

    def __getnewargs__(self) -> tuple[int, str]:  # type: ignore[override]  # (copies and pickles keep the expression)
        return int(self), self.expr


def dim_expr(k: int) -> str:
    return BATCH if k == 1 else f"{BATCH} * {k}"


def is_full_size(t: Any) -> bool:
    """A full-size stand-in made by `full_size` (a meta tensor with source dimensions)."""
    return isinstance(t, torch.Tensor) and hasattr(t, "_hdecomp_dims")


def dims_source(t: torch.Tensor) -> list[str]:
    """Each dimension as source: `batch_size * 4` for batch-scaled ones, else the number."""
    dims = getattr(t, "_hdecomp_dims", None)
    return list(dims) if dims is not None else [str(int(d)) for d in t.shape]


def sample(t: torch.Tensor) -> torch.Tensor:
    """The recorded tensor behind a full-size stand-in (value ranges, finiteness); `t` itself otherwise."""
    s = getattr(t, "_hdecomp_sample", None)
    return s if isinstance(s, torch.Tensor) else t


def real_values(args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Inputs with every full-size stand-in replaced by the recorded tensor behind it (sample), and every
    full-size int (BatchInt) by the plain int the recording had."""
    return _recorded_ints(map_nested(list(args), sample)), _recorded_ints(map_nested(dict(kwargs), sample))


def _recorded_ints(value: Any) -> Any:
    if isinstance(value, BatchInt):
        return int(getattr(value, "recorded", value))
    if isinstance(value, list):
        return [_recorded_ints(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields") and not isinstance(value, torch.Size):
        return tuple(_recorded_ints(v) for v in value)
    if isinstance(value, dict) and type(value) is dict:
        return {k: _recorded_ints(v) for k, v in value.items()}
    return value


def full_batch(value: Any) -> int | None:
    """The original batch of the first full-size stand-in nested in `value` (None: no batch dimension)."""
    if isinstance(value, BatchInt):
        return getattr(value, "full_batch", None)
    if isinstance(value, torch.Tensor):
        return getattr(value, "_hdecomp_batch", None)
    if isinstance(value, (list, tuple)):
        items: list[Any] = list(value)
    elif isinstance(value, dict):
        items = list(value.values())
    else:
        return None
    for v in items:
        b = full_batch(v)
        if b is not None:
            return b
    return None


def full_size(v1: Any, v2: Any, sc: Scaling, where: str, deviations: list[str]) -> Any:
    """`v1` (recorded at b1) at the original batch, learned from `v2` (the same value at b2)."""
    if isinstance(v1, torch.Tensor) and isinstance(v2, torch.Tensor):
        if v1.dim() != v2.dim():
            deviations.append(f"{where}: rank differs between batch {sc.b1} and {sc.b2}; kept the recorded "
                              f"shape {list(v1.shape)}")
            return v1
        dims: list[str] = []
        full: list[int] = []
        for a, b in zip(v1.shape, v2.shape, strict=True):
            if a == b:
                dims.append(str(int(a)))
                full.append(int(a))
                continue
            k = sc.dim(int(a), int(b))
            if k is None and sc.b2 == sc.full and where.startswith("output"):
                # a size the data sets (OmDet-Turbo's class columns, as many as the batch's longest class list),
                # recorded at both batches the file runs at: each where it runs
                deviations.append(f"{where}: dimension {a} at batch {sc.b1} is {b} at batch {sc.b2} (not "
                                  f"proportional to the batch): written for both")
                dims.append(f"({a} if {BATCH} == {sc.b1} else {b})")
                full.append(int(b))
                continue
            if k is None:
                deviations.append(f"{where}: dimension {a} at batch {sc.b1} is {b} at batch {sc.b2} (not "
                                  f"proportional to the batch); kept the recorded shape {list(v1.shape)}")
                return v1
            dims.append(dim_expr(k))
            full.append(k * sc.full)
        if dims == [str(int(d)) for d in v1.shape]:
            if _counts_per_batch(v1, v2, sc) is None:
                return v1
            counts = v1.clone()   # offsets / cumulative counts: written scaled by the batch (codegen)
            counts._hdecomp_counts_of = sc.b1  # type: ignore[attr-defined]
            counts._hdecomp_batch = sc.full  # type: ignore[attr-defined]
            return counts
        t = torch.empty(full, dtype=v1.dtype, device="meta")
        t._hdecomp_dims = tuple(dims)  # type: ignore[attr-defined]
        t._hdecomp_sample = v1  # type: ignore[attr-defined]
        t._hdecomp_batch = sc.full  # type: ignore[attr-defined]
        # ids and masks per sample: codegen writes them as recorded, tiled along the batch (ERNIE 4.5 VL's image
        # grids, `[[1, 4, 4]]` per sample, sorted by chance, whose product the features' rows must equal: a
        # sorted draw of their range indexed out of them); where rows along the batch's own dimension are
        # sorted or a permutation (expert ids sorted over the whole batch), tiling would break that: the
        # invariant a draw keeps
        kind = int_structure(v1, v2)
        along_batch = BATCH in dims[-1]
        if _per_sample(v1, v2, dims) and (kind is None or not along_batch):
            t._hdecomp_sample2 = v2  # type: ignore[attr-defined]
        elif kind is not None:
            t._hdecomp_ints = kind  # type: ignore[attr-defined]
        return t
    if type(v1) is int and type(v2) is int and v1 != v2:
        k = sc.dim(v1, v2)
        if k is None and sc.b2 == sc.full:
            # a count of the data (tokens an expert got, `bincount(top).tolist()`): not proportional to the batch,
            # but recorded at both batches the file runs at (the cut and its own): each where it runs
            bi = BatchInt(v2, f"({v1} if {BATCH} == {sc.b1} else {v2})")
            bi.full_batch = sc.full  # type: ignore[attr-defined]
            bi.recorded = v1   # type: ignore[attr-defined]
            deviations.append(f"{where}: int {v1} at batch {sc.b1} is {v2} at batch {sc.b2}: written for both")
            return bi
        if k is None:
            deviations.append(f"{where}: int {v1} at batch {sc.b1} is {v2} at batch {sc.b2}; kept {v1}")
            return v1
        bi = BatchInt(k * sc.full, dim_expr(k))
        bi.full_batch = sc.full  # type: ignore[attr-defined]
        bi.recorded = v1   # type: ignore[attr-defined]   # (what the recording at the cut batch had)
        return bi
    if isinstance(v1, (list, tuple)) and isinstance(v2, (list, tuple)) and len(v1) == len(v2) \
            and not isinstance(v1, torch.Size):
        items = [full_size(a, b, sc, f"{where}[{i}]", deviations) for i, (a, b) in enumerate(zip(v1, v2, strict=True))]
        try:
            return type(v1)(items) if not hasattr(v1, "_fields") else type(v1)(*items)
        except TypeError:
            return v1
    if isinstance(v1, dict) and isinstance(v2, dict) and set(v1) == set(v2):
        return same_kind_dict(v1, {k: full_size(v1[k], v2[k], sc, f"{where}[{k!r}]", deviations) for k in v1})
    if isinstance(v1, collections.UserDict) and type(v2) is type(v1) and set(v1) == set(v2):
        # (a UserDict of tensors, transformers' KVSharingDict: its items at the original batch, in a copy)
        return user_dict_holding(v1, {k: full_size(v1[k], v2[k], sc, f"{where}[{k!r}]", deviations) for k in v1})
    return v1


def _per_sample(v1: torch.Tensor, v2: torch.Tensor, dims: list[str]) -> bool:
    """Whether `v1`/`v2` (integer or boolean, one batch-scaled dimension) hold values per sample: the larger
    batch's leading rows are the smaller one's (token ids, positions, a padding mask), not values that count
    over the batch (a permutation of all rows, expert ids sorted over the batch), which tiling would break."""
    scaled = [i for i, d in enumerate(dims) if BATCH in d]
    if v1.is_floating_point() or v1.is_complex() or len(scaled) != 1 or v2.is_meta:   # (meta: no values)
        return False
    d = scaled[0]
    return v2.shape[d] > v1.shape[d] and torch.equal(v2.detach().narrow(d, 0, v1.shape[d]).cpu(), v1.detach().cpu())


def _integer(t: torch.Tensor) -> bool:
    return not (t.is_floating_point() or t.is_complex() or t.dtype == torch.bool)


def _rows(t: torch.Tensor) -> torch.Tensor:
    """`t` (at least 1-D) as rows along its last dimension."""
    return t.detach().reshape(-1, t.shape[-1]).cpu()


def _is_permutation(t: torch.Tensor) -> bool:
    rows = _rows(t)
    ref = torch.arange(rows.shape[1]).expand_as(rows)
    return bool(torch.equal(rows.sort(dim=1).values.to(torch.int64), ref))


def _is_sorted(t: torch.Tensor) -> bool:
    rows = _rows(t)
    return bool((rows[:, 1:] >= rows[:, :-1]).all())


def int_structure(v1: torch.Tensor, v2: torch.Tensor) -> str | None:
    """The invariant an integer input keeps at both recorded batches, which a random draw of its value
    range would break: "permutation" (every row, along the last dimension, a permutation of 0..n-1: a sort's
    indices, an inverse permutation) or "sorted" (every row non-decreasing: expert ids grouped by a sort).
    Rows of at least 3 entries at the second batch (at batch 1 and 2, a row of one id in a small range is
    often a permutation of 0 or of 0, 1 by chance: an id written as a permutation would index out of range);
    None otherwise."""
    if not (_integer(v1) and _integer(v2)) or v1.dim() == 0 or v1.numel() == 0 or v2.dim() != v1.dim():
        return None
    n2 = int(v2.shape[-1])
    if n2 < 3:
        return None
    if _is_permutation(v1) and _is_permutation(v2):
        return "permutation"
    if _is_sorted(v1) and _is_sorted(v2) and not torch.equal(v2.min(), v2.max()):
        return "sorted"
    return None


def _counts_per_batch(v1: torch.Tensor, v2: torch.Tensor, sc: Scaling) -> int | None:
    """k when `v1`/`v2` (the same shape at both batches) are offsets or cumulative counts over k * batch
    rows: non-negative, non-decreasing along the last dimension, ending at k * b1 and k * b2 (grouped-GEMM
    offsets, `cu_seqlens`). Recorded values would be wrong at the original batch; scaled, they stay valid."""
    if not (_integer(v1) and _integer(v2)) or v1.dim() != 1 or v1.numel() < 2 or torch.equal(v1, v2):
        return None
    if int(v1.min()) < 0 or not (_is_sorted(v1) and _is_sorted(v2)):
        return None
    return sc.dim(int(v1[-1]), int(v2[-1]))


def uses_batch_size_in_definitions(comp: Component) -> bool:
    """Whether a class or function other than the input factories reads the module-level `batch_size`
    (a model sizing state by the batch in __init__ must be rebuilt for the second recording)."""
    try:
        tree = ast.parse(comp.path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return True
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and \
                stmt.name not in ("get_inputs", "get_input_kwargs"):
            if any(isinstance(n, ast.Name) and n.id == BATCH for n in ast.walk(stmt)):
                return True
    return False


def scaling_for(comp: Component, run: RunSettings, args: list[Any], kwargs: dict[str, Any], *,
                seed: int = 42) -> tuple[Scaling | None, list[Any], dict[str, Any]]:
    """How `comp`'s inputs (`args`/`kwargs`, made under `run`'s `--batch-limit`) relate to its original batch,
    and the same inputs at the second batch b2 = b1 + 1. (None, [], {}) when nothing was cut."""
    limit, device, timeout = run.batch_limit, run.device, run.timeout
    if limit is None:
        return None, [], {}
    policy = batch_cut_policy(comp.module, args, kwargs, comp.batch_size_kept(limit, timeout))
    if policy == "batch_size":
        full = int(comp.module.batch_size)
        if full <= limit:
            return None, [], {}
        sc = Scaling(full=full, b1=limit, b2=limit + 1, policy=policy)
        a2, k2 = comp.make_inputs(seed=seed, device=device, timeout=timeout, batch_limit=sc.b2, checked=False)
        return sc, a2, k2
    if policy != "cut":
        return None, [], {}
    fa, fk = comp.make_inputs(seed=seed, device=device, timeout=timeout)
    # the leading size the rule cut (hdecomp.runtime.batch_limit.choose_cut: not always the first input's): the full
    # size of the first input the cut shortened; none shortened (every cut broke the model) -> full size
    # (not an input grouped by the batch: OWLv2's batch x queries rows of ids, batch_limit.grouped_sizes)
    grouped = grouped_sizes(fa, fk)
    full_b = next((int(f.shape[0]) for (_, f), (_, c) in zip(input_tensors(fa, fk), input_tensors(args, kwargs),
                                                              strict=False)
                   if f.dim() >= 1 and c.dim() >= 1 and c.shape[0] != f.shape[0] and int(f.shape[0]) not in grouped),
                  None)
    if full_b is None or full_b <= limit:
        return None, [], {}
    sc = Scaling(full=full_b, b1=limit, b2=limit + 1, policy=policy)
    a2, k2, _ = cut_batch(fa, fk, sc.b2, full_b)
    return sc, a2, k2


def models_at(comp: Component, model: nn.Module, sc: Scaling, device: Any = None,
              timeout: float | None = None) -> Iterator[tuple[nn.Module, bool]]:
    """Models for the second recording, cheapest first, as (model, on the meta device). The recorded model
    itself serves unless its definitions read `batch_size` (state sized by the batch in __init__); then a
    rebuild at b2 on the meta device (only shapes are needed: no memory, no init time), else a real one."""
    if not (sc.policy == "batch_size" and uses_batch_size_in_definitions(comp)):
        yield model, False
        return
    meta = meta_build(comp, sc.b2, timeout, checked=False)
    if meta is not None:
        yield meta, True
    yield comp.build(device=device, timeout=timeout, batch_limit=sc.b2, checked=False), False


# A second recording estimated above this many bytes runs on the meta device first (shapes need no data).
META_FIRST_BYTES = 256 << 20


def tensor_bytes(value: Any, skip: set[int] | None = None) -> int:
    """Bytes of the (real) tensors nested in `value` (a dict of node values, outputs, inputs), each storage
    counted once (a view or a transposed weight holds no memory of its own); storages in `skip` (the
    module's weights: state_storages) not at all, since they do not grow with the batch."""
    seen = set(skip or ())

    def count(v: Any) -> int:
        if isinstance(v, torch.Tensor):
            if v.is_meta:
                return 0
            try:
                storage = v.untyped_storage()
                key, size = storage.data_ptr(), storage.nbytes()
            except Exception:   # a tensor subclass without a storage of its own
                return v.numel() * v.element_size()
            if key in seen and key != 0:
                return 0
            seen.add(key)
            return size
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, (list, tuple)):
            return sum(count(x) for x in v)
        return 0
    return count(value)


def state_storages(module: nn.Module) -> set[int]:
    """The storages of `module`'s parameters and buffers (skipped by tensor_bytes)."""
    out = set()
    for t in [*module.parameters(), *module.buffers()]:
        if not t.is_meta:
            with contextlib.suppress(Exception):
                out.add(t.untyped_storage().data_ptr())
    return out


def available_bytes() -> int | None:
    """MemAvailable of this machine (Linux), None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def second_recording_models(comp: Component, model: nn.Module, sc: Scaling, cost_bytes: int, run: RunSettings, *,
                            deviations: list[str] | None = None) -> Iterator[tuple[nn.Module, bool]]:
    """models_at, memory-aware (hdecomp memory order, bench/memory). `cost_bytes`: what the recording at
    b1 held. When the recording at b2 would be big, a meta-device build comes first (shapes only: no
    memory; a GPU-sized attention at batch 2 does not fit a CPU machine), and a real model at b2 is only
    tried when it fits in the memory available now; otherwise a deviation says so and the caller keeps
    the recorded shapes."""
    device, timeout = run.device, run.timeout
    need = cost_bytes * sc.b2 // max(sc.b1, 1)
    if need < META_FIRST_BYTES:
        yield from models_at(comp, model, sc, device=device, timeout=timeout)
        return
    meta = meta_build(comp, sc.b2, timeout, checked=False)
    if meta is not None:
        yield meta, True
    avail = available_bytes()
    if avail is not None and need > avail:
        if deviations is not None:
            deviations.append(f"the recording at batch {sc.b2} needs about {need / 2**30:.1f} GiB (available "
                              f"{avail / 2**30:.1f} GiB) and failed on the meta device: not run for real")
        return
    for m, on_meta in models_at(comp, model, sc, device=device, timeout=timeout):
        if not on_meta:
            yield m, on_meta


def _shapes(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), value.dtype)
    if isinstance(value, (list, tuple)):
        return [_shapes(v) for v in value]
    if isinstance(value, dict):
        return {k: _shapes(v) for k, v in value.items()}
    return None


class _MetaDevices(TorchFunctionMode):
    """While replaying a recorded graph on the meta device: device arguments baked into it by the recording
    (`x.to(torch.device("cpu"))`) name the meta device instead, and `.cpu()` is a no-op."""

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cpu:
            return args[0]

        def meta(a: Any) -> Any:
            if isinstance(a, torch.device) or (isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda", "mps")):
                return torch.device("meta")
            return a
        args = tuple(meta(a) for a in args)
        kwargs = {k: meta(v) if k == "device" else v for k, v in kwargs.items()}
        return func(*args, **kwargs)


def _capture_like(method: str | None, model: nn.Module, args: list[Any], kwargs: dict[str, Any],
                  expected: Any, expand: set[str] | None) -> Any:
    """A fresh capture by `method` (the first capture's: "fx" | "export" | "record"), so its graph has
    the same nodes — the general `capture` may succeed with an earlier method at another batch (export
    rejected at the cut batch for dropping dead code is not checked against a plain output)."""
    from hdecomp.decompose import capture as cm
    by_method = cm.CAPTURE_METHODS
    fn = by_method.get(method or "")
    if fn is None:
        return cm.capture(model, args, kwargs, expected, expand)
    return fn(model, args, kwargs, expected, expand or set())


def graph_values_at(model: nn.Module, graph: fx.Graph, args: list[Any], kwargs: dict[str, Any],
                    expand: set[str] | None = None, method: str | None = None, *,
                    values_checked: bool = False, why: list[str] | None = None,
                    keep: set[str] | None = None) -> dict[str, Any] | None:
    """Every node's value of the captured `graph` at other inputs (the second batch, the ones the module
    received in the model): the graph replayed on `model` (checked: the module's own output has the same
    shapes; with `values_checked` the same values too), else a fresh capture by the same `method` with
    the same node names. None when neither works (a graph that baked the batch or a data-dependent size
    into its code and a capture that differs). `why` gets "module" (the module itself does not run on those
    inputs) or "graph" (it does, the graph does not replay, and a capture there is another graph: the first
    capture holds for the first inputs only). `keep`: the nodes whose values are wanted (a replay then holds
    no more than one forward's peak besides them)."""
    from hdecomp.decompose.capture import CAPTURE_SEED, CaptureError, node_values
    from hdecomp.decompose.capture.common import same_outputs
    try:
        with torch.no_grad():
            torch.manual_seed(CAPTURE_SEED)
            expected = model(*clone_nested(args), **clone_nested(kwargs))
    except Exception:  # user code (on the meta device: an op without a meta kernel, .item(), ...)
        if why is not None:
            why.append("module")
        return None
    owner = graph.owning_module
    on_meta = any(t.is_meta for _, t in input_tensors(args, kwargs))
    try:
        gm = fx.GraphModule(model, copy.deepcopy(graph))
        with torch.no_grad(), (_MetaDevices() if on_meta else contextlib.nullcontext()):
            torch.manual_seed(CAPTURE_SEED)
            out, values = node_values(gm, clone_nested(args), clone_nested(kwargs), keep)
        if _shapes(out) == _shapes(expected) and set(values) >= (keep if keep is not None else {n.name for n in graph.nodes}) and \
                (not values_checked or same_outputs(out, expected, rtol=1e-4, atol=1e-5)):
            return values
    except Exception:  # a recorded graph may have baked the batch into a view/expand: capture again
        pass
    finally:
        graph.owning_module = owner
    if on_meta:  # a capture checks values, which meta tensors have not: capture a real model instead
        return None
    try:
        cap2 = _capture_like(method, model, args, kwargs, expected, expand)
    except (CaptureError, NotImplementedError, RuntimeError):
        return None
    if [n.name for n in cap2.graph.nodes] != [n.name for n in graph.nodes]:
        if why is not None:
            why.append("graph")
        return None
    return cap2.values if keep is None else {k: v for k, v in cap2.values.items() if k in keep}


def full_size_values(values: dict[str, Any], values2: dict[str, Any], sc: Scaling,
                     deviations: list[str]) -> dict[str, Any]:
    """Every recorded node value at the original batch."""
    return {name: full_size(v, values2.get(name), sc, name, deviations) if name in values2 else v
            for name, v in values.items()}


class BatchBakedError(DecomposeError):
    """A graph captured at the cut batch that another batch does not run (`[b for b in boxes]` unrolled):
    written at the original batch it would not be the module's."""


def full_size_capture(comp: Component, model: nn.Module, cap: Any, run: RunSettings, args: list[Any],
                      kwargs: dict[str, Any], expand: set[str] | None = None, *, cost_bytes: int | None = None,
                      ) -> tuple[Any, list[Any], dict[str, Any], list[str]]:
    """`cap` (a Capture recorded under `run`'s `--batch-limit`) and the component's inputs at the original
    batch, plus the deviations (values whose full size could not be learned keep their recorded value).
    Without a cut batch everything is returned as is."""
    sc, args2, kwargs2 = scaling_for(comp, run, args, kwargs)
    if sc is None:
        return cap, args, kwargs, []
    deviations: list[str] = []
    values2 = None
    cost = tensor_bytes(cap.values, state_storages(model)) if cost_bytes is None else cost_bytes
    why: list[str] = []
    for model2, on_meta in second_recording_models(comp, model, sc, cost, run, deviations=deviations):
        a2, k2 = (move_to(args2, "meta"), move_to(kwargs2, "meta")) if on_meta else (args2, kwargs2)
        values2 = graph_values_at(model2, cap.graph, a2, k2, expand, getattr(cap, "method", None),
                                  why=None if on_meta else why)
        if values2 is not None:
            break
    if values2 is None:
        if "graph" in why:
            raise BatchBakedError(f"its captured graph holds at the cut batch {sc.b1} only: at batch {sc.b2} the "
                                  "module runs another graph (a list or loop over the batch written out)")
        deviations.append(f"the forward could not be recorded again at batch {sc.b2}: every shape keeps its "
                          f"recorded (batch {sc.b1}) value")
        return cap, args, kwargs, deviations
    values = full_size_values(cap.values, values2, sc, deviations)
    args_full = full_size(list(args), list(args2), sc, "input", deviations)
    kwargs_full = full_size(dict(kwargs), dict(kwargs2), sc, "input", deviations)
    return replace(cap, values=values), args_full, kwargs_full, deviations


def full_size_io(comp: Component, model: nn.Module, run: RunSettings, args: list[Any], kwargs: dict[str, Any],
                 out: Any, *, cost_bytes: int = 0) -> tuple[list[Any], dict[str, Any], Any, list[str]]:
    """A model's inputs and output (recorded under `run`'s `--batch-limit`) at the original batch, from one
    more forward at the second batch; plus the deviations. As given when nothing was cut."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    sc, args2, kwargs2 = scaling_for(comp, run, args, kwargs)
    timeout = run.timeout
    if sc is None:
        return args, kwargs, out, []
    deviations: list[str] = []
    out2: Any = None
    ran = False
    for model2, on_meta in second_recording_models(comp, model, sc, cost_bytes, run, deviations=deviations):
        a2, k2 = (move_to(args2, "meta"), move_to(kwargs2, "meta")) if on_meta else (args2, kwargs2)
        try:
            with torch.no_grad(), (_MetaDevices() if on_meta else contextlib.nullcontext()):
                torch.manual_seed(CAPTURE_SEED)
                out2 = run_user_code(functools.partial(_forward, model2, a2, k2),
                                     what="Model.forward", path=comp.path, timeout=timeout)
            ran = True
            break
        except HdecompError as exc:
            if on_meta:
                continue
            # A model that only runs at its own batch and at the cut one (KernelBench's 100_HingeLoss
            # broadcasts (B, B) * (B,)): the files keep the recorded sizes, as full_size_capture does.
            deviations.append(f"the forward does not run at batch {sc.b2} ({exc.cause}): every shape keeps its "
                              f"recorded (batch {sc.b1}) value")
            return args, kwargs, out, deviations
    if not ran:  # too big to run for real and not runnable on the meta device (second_recording_models)
        return args, kwargs, out, deviations
    args_full = full_size(list(args), list(args2), sc, "input", deviations)
    kwargs_full = full_size(dict(kwargs), dict(kwargs2), sc, "input", deviations)
    out_full = full_size(out, out2, sc, "output", deviations)
    return args_full, kwargs_full, out_full, deviations


def _forward(model: nn.Module, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return model(*clone_nested(args), **clone_nested(kwargs))
