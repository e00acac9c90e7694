"""The composition's weight map: the steps' weight maps composed along each path, from the original's
state_dict keys to the composed model's (packed-tensor slices carried through)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.errors import HdecompError
from hdecomp.toolchain.compose.plan import ComposeError, Composition, child_steps

if TYPE_CHECKING:
    from hdecomp.toolchain.compose.plan import MapValue


def _build_for_mapping(path: Path, timeout: float | None) -> Any:
    """Build a component for weight-map purposes: on the meta device when its constructor allows
    (no memory, no init time), else normally."""
    import torch

    from hdecomp.runtime.component import load_component
    comp = load_component(path, timeout=timeout)
    try:
        with torch.device("meta"):
            return comp, comp.build(timeout=timeout)
    except HdecompError:
        return comp, comp.build(timeout=timeout)


def _settled_for_mapping(path: Path, timeout: float | None) -> Any:
    """A component built for real and run once on its own inputs (the batch cut to one): where a weight map
    names a tensor the model's first forward makes (LongRoPE's `long_inv_freq`, of a model whose first forward
    writes its state and whose step was written from the model as that forward left it), it exists then."""
    import torch

    from hdecomp.runtime.batch_limit import limited_inputs
    from hdecomp.runtime.component import load_component
    from hdecomp.runtime.settings import RunSettings
    comp = load_component(path, timeout=timeout)
    run = RunSettings(batch_limit=1, timeout=timeout)
    model = comp.build(run=run)
    args, kwargs = limited_inputs(comp, run, model=model)
    with torch.no_grad():
        model(*args, **kwargs)
    return comp, model


def _child_instances(model: Any, child_files: dict[Path, Path]) -> list[tuple[str, Path]]:
    """(qualified name, child file) of the outermost modules of `model` that come from child files."""
    from hdecomp.runtime.component import class_source_file
    found: list[tuple[str, Path]] = []
    for qn, m in model.named_modules():
        if not qn or any(qn.startswith(p + ".") for p, _ in found):
            continue
        f = class_source_file(type(m))
        if f is not None and f in child_files:
            found.append((qn, child_files[f]))
    return found


def _through(value: MapValue, resolve: Any, where: Path) -> MapValue | None:
    """`value` (a key, or the slices of a packed tensor) with each key followed by `resolve` (key -> the
    composed key or slices, None where a lower step leaves it unmapped)."""
    from hdecomp.formats.weight_map import WeightSlice
    if isinstance(value, str):
        got: MapValue | None = resolve(value)
        return got
    out: list[WeightSlice | str] = []
    for p in value:
        if isinstance(p, str):   # a whole copy
            got_copy = resolve(p)
            out.extend([] if got_copy is None else [got_copy] if isinstance(got_copy, str) else got_copy)
            continue
        inner = resolve(p.key)
        if inner is None:
            continue
        if isinstance(inner, str):
            out.append(replace(p, key=inner))
            continue
        for q in inner:   # a slice of a slice: along the same dimension, offsets add
            if isinstance(q, str):   # the slice, copied whole to each tensor the lower step ties
                out.append(replace(p, key=q))
                continue
            if q.dim != p.dim or p.select:
                raise ComposeError(f"weight map: {p.key} is a part of a packed or stacked tensor that a lower step "
                                   "cuts again along another dimension", where)
            out.append(replace(q, dim=p.dim, start=p.start + q.start, stop=p.start + q.stop))
    return out or None


def composed_weight_map(comp: Composition, timeout: float | None = None) -> dict[str, MapValue]:
    """original key -> composed key (or the slices of a packed tensor), each step's weight map applied along
    the path to the kernels."""
    from hdecomp.formats.weight_map import UnknownOriginalKey, WholeCopy, load_explicit_map
    from hdecomp.verify.weights import build_weight_map
    if comp.kernel_root is not None or comp.top is None:
        return dict(_kernel_root_weight_map(comp, timeout))
    top = comp.top
    memo: dict[Path, dict[str, MapValue]] = {}

    def for_step(step_dir: Path) -> dict[str, MapValue]:
        if step_dir in memo:
            return memo[step_dir]
        plan = comp.plans[step_dir]
        s = plan.step
        assert s.original is not None
        _, orig = _build_for_mapping(s.original, timeout)
        _, ref = _build_for_mapping(s.refactored, timeout)
        explicit = load_explicit_map(s.weight_map) if s.weight_map else None
        try:
            wm = build_weight_map(orig, ref, explicit, s.weight_map)
        except UnknownOriginalKey:   # (state the original's first forward makes: mapped on it settled)
            _, orig = _settled_for_mapping(s.original, timeout)
            wm = build_weight_map(orig, ref, explicit, s.weight_map)
        if wm.problems:
            raise ComposeError(f"weight map: {wm.problems[0]}", s.weight_map or s.refactored)
        for name in wm.unmapped_original:
            comp.notes.append(f"{s.dir.name}: original tensor {name} is not mapped to the refactored model")
        files = {r.file.resolve(): r.file.resolve() for r in plan.refs}
        instances = _child_instances(ref, files)
        sub_for: dict[str, Path | None] = {}
        for qn, f in instances:
            sub_for[qn] = comp.sub_steps.get((step_dir, f))
        def resolve(rkey: str) -> MapValue | None:
            """A key of this step's refactored model, followed into the step of the child that holds it."""
            owner = next((qn for qn, _ in instances if rkey.startswith(qn + ".")), None)
            sub = sub_for.get(owner) if owner else None
            if owner is None or sub is None:
                return rkey
            # (the child's own step may leave it unmapped, a BatchNorm's num_batches_tracked when the kernel is
            # F.batch_norm: so does the whole model's map)
            got = for_step(sub).get(rkey[len(owner) + 1:])
            if got is None or isinstance(got, str):
                return None if got is None else f"{owner}.{got}"
            return [f"{owner}.{q}" if isinstance(q, str) else replace(q, key=f"{owner}.{q.key}") for q in got]

        out: dict[str, MapValue] = {}
        values: list[tuple[str, MapValue]] = list(wm.mapping.items())
        values += [(k, [q.key if isinstance(q, WholeCopy) else q for q in v]) for k, v in wm.slices.items()]
        for okey, value in values:
            got = _through(value, resolve, s.weight_map or s.refactored)
            # a tensor the refactored model ties (one tensor under several names, `self.b.w = self.a.w`) goes
            # to every composed tensor its names reach: a composed child holds its own copy, where only one
            # use may read it (Zamba2's shared block: each use reads its own LoRA adapter)
            extra = [resolve(a) for a in wm.aliases_refactored.get(value, [])] if isinstance(value, str) else []
            reached = [g for g in [got, *extra] if isinstance(g, str)]
            # (whole copies, each named by its key: a slice would write the size down, which a batch-sized
            # parameter does not keep under --batch-limit)
            if len(set(reached)) > 1:
                out[okey] = list(dict.fromkeys(reached))
            elif got is not None:
                out[okey] = got
            elif reached:
                out[okey] = reached[0]
        memo[step_dir] = out
        comp.step_maps[step_dir] = out
        return out

    result = for_step(top.dir)
    # children whose tensors a step names itself (a tie `self.b.w = self.a.w`): their steps' maps too
    for d in list(comp.order):
        for sub in child_steps(comp, comp.plans[d], read_only=True).values():
            for_step(sub)
    return result


def _kernel_root_weight_map(comp: Composition, timeout: float | None) -> dict[str, str]:
    """original key -> kernel key for a one-kernel model (names > structure, the verifier's rules)."""
    from hdecomp.verify.weights import build_weight_map
    assert comp.kernel_root is not None
    _, orig = _build_for_mapping(comp.original, timeout)
    _, kernel = _build_for_mapping(comp.kernel_root.file, timeout)
    wm = build_weight_map(orig, kernel)
    if wm.problems:
        raise ComposeError(f"weight map: {wm.problems[0]}", comp.kernel_root.file)
    for name in wm.unmapped_original:
        comp.notes.append(f"original tensor {name} is not mapped to the kernel {comp.kernel_root.file.name}")
    return dict(wm.mapping)


def kernel_use_counts(comp: Composition, timeout: float | None = None) -> dict[Path, int]:
    """How many instances of each leaf file one forward of the composed model builds: every step's
    refactored model is built (on the meta device when possible) and its child instances counted,
    multiplied down the steps. Keys are the files the composition loads (level_0_kernel/ when possible)."""
    if comp.kernel_root is not None or comp.top is None:
        return {lf.file.resolve(): 1 for lf in comp.leaves.values()}
    top = comp.top
    per_step: dict[Path, list[tuple[str, Path]]] = {}
    for d in comp.order:
        plan = comp.plans[d]
        _, ref = _build_for_mapping(plan.step.refactored, timeout)
        files = {r.file.resolve(): r.file.resolve() for r in plan.refs}
        per_step[d] = _child_instances(ref, files)
    counts: dict[Path, int] = {}

    def walk(d: Path, mult: int, trail: tuple[Path, ...]) -> None:
        for _qn, f in per_step[d]:
            sub = comp.sub_steps.get((d, f))
            if sub is not None and sub not in trail:
                walk(sub, mult, (*trail, d))
            else:
                leaf = comp.leaves.get(f)
                key = (leaf.file if leaf else f).resolve()
                counts[key] = counts.get(key, 0) + mult

    walk(top.dir, 1, ())
    return counts
