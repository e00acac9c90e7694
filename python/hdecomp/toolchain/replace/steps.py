"""Every step that holds a replaced kernel, re-verified with the replacement in place: the step's
original.py against its composed version (each child replaced by its own decomposition down to kernel
files, each replaced kernel by its `ModelNew`), through `verify-step` itself. A step's children files are
standalone (a fusion file holds its own ops), so only the composed version puts the replacement where the
step's computation runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.tree import TREE_FILE, DecompositionTree
from hdecomp.toolchain.compose.plan import Composition, build_composition, relative_to_root
from hdecomp.toolchain.compose.script import generate_script
from hdecomp.toolchain.compose.weights import composed_weight_map, weight_map_json
from hdecomp.verify.result import VerifyOptions


def steps_holding(comp: Composition, kernels: set[Path]) -> list[Path]:
    """The step folders whose composed model uses one of `kernels` (resolved files), children before
    parents (the composition's order)."""
    holds: dict[Path, bool] = {}
    for d in comp.order:   # children first: a sub-step's answer is known when its parent asks
        plan = comp.plans[d]
        found = False
        for ref in plan.refs:
            sub = comp.sub_steps.get((d, ref.file.resolve()))
            if sub is not None:
                found = found or holds.get(sub, False)
            else:
                leaf = comp.leaves.get(ref.file.resolve())
                found = found or (leaf is not None and leaf.file.resolve() in kernels)
        holds[d] = found
    return [d for d in comp.order if holds[d]]


def _nodes_by_step(root: Path) -> dict[str, tuple[str, str]]:
    try:
        tree = DecompositionTree.load(root / TREE_FILE)
    except Exception:   # a tree that cannot be read names no nodes; the steps still verify
        return {}
    return {n.step: (nid, n.level_name) for nid, n in tree.nodes.items() if n.step}


def prepare(root: Path, timeout: float | None = None) -> Composition:
    """The tree's composition with its weight maps (what the re-verification composes from)."""
    comp = build_composition(root)
    comp.weight_map = composed_weight_map(comp, timeout=timeout)
    return comp


def verify_composed_step(root: Path, comp: Composition, d: Path, replaced: dict[Path, Path], out_dir: Path,
                         options: VerifyOptions, tolerance: float | None = None) -> tuple[dict[str, Any], Any]:
    """One step's original.py against its composed version with `replaced` in place (verify-step; the
    composed file and its result written to `out_dir`): (its record, the VerificationResult)."""
    from hdecomp.verify.step import verify_step
    if tolerance is not None:
        options = dataclasses.replace(options, rtol=max(tolerance, options.rtol or 0),
                                      atol=max(tolerance, options.atol or 0))
    options = dataclasses.replace(options, skip_anticheat=True)   # the composed side is ours, not the user's
    step = comp.plans[d].step
    assert step.original is not None
    text = generate_script(comp, batch_limit=options.batch_limit, device=options.device, replaced=replaced,
                           script_dir=out_dir, tolerance=tolerance, step_dir=d)
    file = write_text_atomic(out_dir / f"{d.name}.py", text)
    wm = comp.step_maps.get(d)
    opts = dataclasses.replace(options, weight_map=weight_map_json(wm) if wm else None)
    res = verify_step(step.original, file, opts, output=out_dir / f"{d.name}.verification_result.json")
    rel = relative_to_root(root, d)
    node, level = _nodes_by_step(root).get(rel, (None, None))
    record = {"step": rel, "node": node, "level": level, "status": res.status, "max_diff": res.max_diff,
              "error": res.error or res.data.get("fail_detail") or (res.fail_reasons[0] if res.fail_reasons else None),
              "composed_file": relative_to_root(root, file),
              "result_file": relative_to_root(root, out_dir / f"{d.name}.verification_result.json")}
    return record, res


def verify_with_replacements(root: Path, replaced: dict[Path, Path], out_dir: Path, options: VerifyOptions, *,
                             kernels: set[Path] | None = None, tolerance: float | None = None,
                             stop_at_failure: bool = True, comp: Composition | None = None,
                             progress: Any = None) -> list[dict[str, Any]]:
    """Re-verify each step holding one of `kernels` (default: every replaced kernel) with `replaced` in
    place, children first; with `stop_at_failure`, none after the first that does not pass."""
    comp = comp or prepare(root, options.timeout)
    targets = {k.resolve() for k in (kernels if kernels is not None else replaced)}
    records: list[dict[str, Any]] = []
    for d in steps_holding(comp, targets):
        if progress is not None:
            progress(f"re-verifying {relative_to_root(root, d)} with the replacement")
        record, _ = verify_composed_step(root, comp, d, replaced, out_dir, options, tolerance)
        records.append(record)
        if stop_at_failure and record["status"] != "PASS":
            break
    return records


__all__ = ["prepare", "steps_holding", "verify_composed_step", "verify_with_replacements"]
