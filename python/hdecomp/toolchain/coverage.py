"""Op coverage: which compute ops the original model runs vs what the decomposition's kernel files run.

Ops are recorded eagerly (hdecomp.runtime.ops: dispatch + torch-function modes), so models torch.fx cannot
trace (data-dependent control flow, Python loops, `int(tensor)`) are covered too. Every op is
attributed to the module that ran it.

Cheap by default: the op inventory rarely depends on the batch size, so components are recorded with
the inputs' leading dimension cut to 1 and again to 2; when both inventories agree the batch-1 one is
used ("small_batch"), otherwise (or when the cut inputs fail) the component runs at full size
("full"). `input_mode="meta"` records on meta tensors (no data at all, falls back when the model needs
data). Each report says which mode every component used.

Writes coverage_summary.json (whole decomposition: original vs level_0_kernel/, each kernel counted as
often as the tree says it runs) and per-step coverage_report.json (original.py vs the step's children,
as they run inside refactored.py), in the original workspace's format plus our fields.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import torch
from torch import nn

from hdecomp.errors import HdecompError, read_source
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import Step, level_files
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import BUILD_SEED, class_source_file, load_component, map_nested, run_user_code
from hdecomp.runtime.ops import FUSED_PARTS, OpTrace, record_ops, record_ops_meta
from hdecomp.runtime.settings import RunSettings

InputMode = Literal["auto", "small_batch", "meta", "full"]
EXTRACTION_METHOD = "eager (hdecomp.runtime.ops: TorchDispatchMode + TorchFunctionMode)"
FULL, PARTIAL, LOW = "FULL_COVERAGE", "PARTIAL_COVERAGE", "LOW_COVERAGE"


@dataclass
class Inventory:
    """The compute ops one component runs in one forward."""

    file: str
    ops: Counter[str] = field(default_factory=Counter)
    by_module: dict[str, Counter[str]] = field(default_factory=dict)
    module_types: dict[str, str] = field(default_factory=dict)
    input_mode: str = "full"                # small_batch | meta | full
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    plumbing: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"file": self.file, "input_mode": self.input_mode,
                             "ops": dict(sorted(self.ops.items())),
                             "by_module": {m or "<root>": dict(sorted(c.items()))
                                           for m, c in sorted(self.by_module.items())}}
        if self.notes:
            d["notes"] = self.notes
        if self.error:
            d["error"] = self.error
        return d


def plumbing_inventory(trace: OpTrace) -> Counter[str]:
    """Aten-level data plumbing (views, copies, cat, ...): excluded from coverage, reported alongside."""
    return Counter(e.name for e in trace.events if e.level == "aten" and
                   (not e.compute or e.residual or e.host or e.number))


def trace_inventory(trace: OpTrace) -> tuple[Counter[str], dict[str, Counter[str]], dict[str, str]]:
    """Compute ops of a trace (aten level, plus function-level calls that leave no aten trace such as
    dropout in eval mode), overall and per module."""
    total: Counter[str] = Counter()
    by_module: dict[str, Counter[str]] = {}
    types: dict[str, str] = {}
    for e in trace.events:
        if not e.compute or e.residual or e.host or e.number:
            # a residual `+`, compute on host values alone (a constant of the shapes) and arithmetic on numbers
            # alone (0-dim integer or bool tensors: a count), are what a parent may keep (as verify-step allows)
            continue
        if e.level == "aten" or e.aten_invisible:
            total[e.name] += 1
            by_module.setdefault(e.module, Counter())[e.name] += 1
            types.setdefault(e.module, e.module_type)
    return total, by_module, types


def cut_batch(obj: Any, n: int) -> Any:
    """Tensors nested in `obj` with their leading dimension cut to at most `n` (0-dim tensors kept; the
    containers, namedtuples and dataclasses among them, rebuilt around them)."""
    return map_nested(obj, lambda t: t[:n].clone() if t.dim() > 0 and t.shape[0] > n else t)


def _max_leading(obj: Any) -> int:
    if isinstance(obj, torch.Tensor):
        return int(obj.shape[0]) if obj.dim() > 0 else 0
    if isinstance(obj, (list, tuple)):
        return max((_max_leading(o) for o in obj), default=0)
    if isinstance(obj, dict):
        return max((_max_leading(v) for v in obj.values()), default=0)
    return 0


def _record(model: nn.Module, args: Any, kwargs: dict[str, Any], path: Path, timeout: float | None,
            what: str, record: Any = record_ops) -> OpTrace:
    """The ops of one forward of `model`, the one every later run makes: a forward that wrote the model's own
    parameters or buffers (its first: RWKV's rescale, hdecomp.runtime.settle) is recorded again."""
    from hdecomp.runtime.settle import state_versions, wrote_state
    versions = state_versions(model)
    _, trace = run_user_code(lambda: record(model, args, kwargs), what=what, path=path, timeout=timeout)
    if wrote_state(model, versions):
        _, trace = run_user_code(lambda: record(model, args, kwargs), what=what, path=path, timeout=timeout)
    return trace


def record_model_inventory(model: nn.Module, args: list[Any], kwargs: dict[str, Any], path: Path, *,
                           input_mode: InputMode = "auto", timeout: float | None = None,
                           rebuild: Any = None) -> Inventory:
    """Inventory of `model` on `args`: small batch when that provably gives the same inventory (batch 1
    and batch 2 agree), else full size. `rebuild()` makes a fresh model for the meta mode."""
    inv = Inventory(file=str(path))
    import time
    t0 = time.perf_counter()
    trace: OpTrace | None = None
    if input_mode == "meta":
        try:
            target = rebuild() if rebuild is not None else model
            trace = _record(target, args, kwargs, path, timeout, "forward on meta tensors", record_ops_meta)
            inv.input_mode = "meta"
        except HdecompError as exc:
            inv.notes.append(f"meta tensors failed ({exc.cause}); recorded with real inputs")
            trace = None
    if trace is None and input_mode in ("auto", "small_batch", "meta") and _max_leading([args, kwargs]) > 2:
        try:
            t1 = _record(model, cut_batch(args, 1), cut_batch(kwargs, 1), path, timeout, "forward (batch 1)")
            t2 = _record(model, cut_batch(args, 2), cut_batch(kwargs, 2), path, timeout, "forward (batch 2)")
            if trace_inventory(t1)[0] == trace_inventory(t2)[0]:
                trace = t1
                inv.input_mode = "small_batch"
            else:
                inv.notes.append("op counts depend on the batch size; recorded at full size")
        except HdecompError as exc:
            inv.notes.append(f"small batch failed ({exc.cause}); recorded at full size")
    if trace is None:
        trace = _record(model, args, kwargs, path, timeout, "forward")
        inv.input_mode = "full"
    inv.ops, inv.by_module, inv.module_types = trace_inventory(trace)
    inv.plumbing = plumbing_inventory(trace)
    inv.seconds = time.perf_counter() - t0
    return inv


def component_inventory(path: str | Path, *, device: str = "cpu", timeout: float | None = None,
                        input_mode: InputMode = "auto", batch_limit: int | None = None) -> Inventory:
    """Load a component file in isolation and record its op inventory. Errors become `Inventory.error`."""
    path = Path(path)
    try:
        return component_run(path, device=device, timeout=timeout, input_mode=input_mode,
                             batch_limit=batch_limit).inventory
    except HdecompError as exc:
        return Inventory(file=str(path), error=exc.headline, input_mode="none")


@dataclass
class ComponentRun:
    """A component as the coverage ran it: the loaded file, the model, the inputs it ran on, its inventory."""

    comp: Any
    model: nn.Module
    args: list[Any]
    kwargs: dict[str, Any]
    inventory: Inventory


def component_run(path: Path, *, device: str, timeout: float | None, input_mode: InputMode,
                  batch_limit: int | None) -> ComponentRun:
    """Load, build (weights from BUILD_SEED) and record a component file; raises HdecompError."""
    comp = load_component(path, timeout=timeout)
    run = RunSettings(device=device, timeout=timeout, batch_limit=batch_limit)
    model = comp.build(seed=BUILD_SEED, run=run)
    args, kwargs = limited_inputs(comp, run)
    inv = record_model_inventory(model, args, kwargs, path, input_mode=input_mode, timeout=timeout,
                                 rebuild=lambda: comp.build(device=device, timeout=timeout,
                                                            batch_limit=batch_limit, seed=BUILD_SEED))
    return ComponentRun(comp, model, args, kwargs, inv)


def _family(op: str) -> str:
    """The op a fused aten op stands for, less its bias add (hdecomp.runtime.ops.FUSED_PARTS: addmm -> mm)."""
    return FUSED_PARTS.get(op, (op,))[0]


def compare_inventories(original: Counter[str], decomposed: Counter[str]) -> dict[str, Any]:
    """The original workspace's `coverage` object: per op type original vs decomposed counts.

    An op is covered by the same op first, then by the other spelling of the same computation: F.linear is
    `addmm` on a 2-D input but `mm` + a bias add (data plumbing here) on a non-contiguous 3-D one
    (nn.MultiheadAttention's projections), and a kernel file running that linear at its own shape may get
    the other spelling. Such a cover is named in the op's `covered_by`."""
    left = Counter(decomposed)
    got_by: dict[str, Counter[str]] = {op: Counter() for op in original}
    for op, n in original.items():
        take = min(n, left[op])
        if take:
            got_by[op][op] += take
            left[op] -= take
    for op, n in sorted(original.items()):
        for other in sorted(left):
            need = n - sum(got_by[op].values())
            if need <= 0:
                break
            if other != op and left[other] > 0 and _family(other) == _family(op):
                take = min(need, left[other])
                got_by[op][other] += take
                left[other] -= take
    covered, missing, extra, details = [], [], [], []
    for op in sorted(set(original) | set(decomposed)):
        a, b = original.get(op, 0), decomposed.get(op, 0)
        got = sum(got_by.get(op, Counter()).values())
        if a > 0 and got >= a:
            status = "covered"
            covered.append(op)
        elif a > 0 and got > 0:
            status = "partial"
            missing.append(op)
        elif a > 0:
            status = "missing"
            missing.append(op)
        else:
            status = "extra"
            extra.append(op)
        detail: dict[str, Any] = {"op_type": op, "original_count": a, "decomposed_count": b, "status": status}
        others = {k: v for k, v in got_by.get(op, Counter()).items() if k != op}
        if others:
            detail["covered_by"] = dict(sorted(others.items()))
        details.append(detail)
    total = sum(original.values())
    got_total = sum(sum(c.values()) for c in got_by.values())
    pct = (got_total / total * 100.0) if total else 100.0
    return {"total_original_ops": total, "total_decomposed_ops": sum(decomposed.values()),
            "covered_op_count": got_total, "missing_op_types": missing, "extra_op_types": extra,
            "coverage_pct": round(pct, 1), "op_details": details}


def coverage_status(pct: float) -> str:
    return FULL if pct >= 100.0 else (PARTIAL if pct >= 80.0 else LOW)


def _base_report(model_file: Path | str) -> dict[str, Any]:
    return {"timestamp": datetime.now().isoformat(), "model_file": str(model_file), "status": "UNKNOWN",
            "extraction_method": EXTRACTION_METHOD, "extraction_warnings": [], "extraction_errors": []}


def _with_original(report: dict[str, Any], inv: Inventory) -> None:
    report["original_ops_summary"] = dict(sorted(inv.ops.items()))
    report["original_compute_ops"] = dict(sorted(inv.ops.items()))
    report["original_plumbing_ops"] = dict(sorted(inv.plumbing.items()))
    report["original_input_mode"] = inv.input_mode
    report["original_ops_by_module"] = {
        (m or "<root>"): {"module_type": inv.module_types.get(m, ""), "ops": dict(sorted(c.items()))}
        for m, c in sorted(inv.by_module.items())}
    report["extraction_warnings"].extend(inv.notes)


def kernel_instances(decomp_dir: Path, kernel_files: list[Path]) -> tuple[dict[Path, int], str]:
    """How many times each kernel file runs in one forward of the model: from the tree (`instance_count`,
    or how often it is listed as a child, times its parents' counts); without a usable tree, from how the
    steps' refactored models use them (the composition); else once per file. Returns the counts and
    where they came from."""
    counts = {p.resolve(): 1 for p in kernel_files}
    tree_file = decomp_dir / TREE_FILE
    tree: DecompositionTree | None = None
    if tree_file.exists():
        with contextlib.suppress(TreeFormatError):
            tree = DecompositionTree.load(tree_file)
    if tree is None or not any(tree.abs_path(n) in counts for n in tree.nodes.values()):
        used = _composition_counts(decomp_dir)
        if used:
            counts.update({p: n for p, n in used.items() if p in counts})
            return counts, "composition of the steps"
        return counts, "one per file (no tree or steps name the kernel files)"
    assert tree is not None
    per_node = tree.instance_counts()
    seen: dict[Path, int] = {}
    for nid, n in tree.nodes.items():
        p = tree.abs_path(n)
        if p is not None and p in counts:
            seen[p] = seen.get(p, 0) + per_node.get(nid, 1)
    counts.update(seen)
    return counts, "decomposition_tree.json"


def _decomposed_with_a_cut(decomp_dir: Path) -> bool:
    """Whether the tree in `decomp_dir` was decomposed under `--batch-limit` (its metadata says so)."""
    try:
        meta = json.loads((decomp_dir / TREE_FILE).read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("batch_limit") is not None


def _writes_batch_size(path: Path) -> bool:
    """A module-level `batch_size = ...` in the file's text (the decomposer writes batch dimensions with it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return True
    return re.search(r"^batch_size\s*=", text, re.MULTILINE) is not None


def _composition_counts(decomp_dir: Path) -> dict[Path, int]:
    from hdecomp.toolchain.compose import build_composition, kernel_use_counts
    try:
        return kernel_use_counts(build_composition(decomp_dir))
    except HdecompError:
        return {}


def compute_coverage(model_path: str | Path, decomp_dir: str | Path | None = None, *,
                     children: list[str | Path] | None = None, output: str | Path | None = None,
                     device: str = "cpu", timeout: float | None = None, input_mode: InputMode = "auto",
                     batch_limit: int | None = None) -> dict[str, Any]:
    """Original model vs the decomposition's kernel files (level_0_kernel/, or `children`).

    The kernel files are counted as they run inside the composed model (the steps' refactored models with
    every child replaced down to the kernel files, the original's weights), on the very inputs the original
    ran: each op belongs to the kernel file whose module ran it, and compute outside every kernel is listed
    under `outside_kernels`. A kernel whose path depends on its data (a size threshold, a count of boxes
    above a score) is counted on the data the model hands it, not on its file's own workload. Each file is
    also run alone on its own inputs (`components`); where that workload misses op types the file runs in
    the model, a warning says so. Without a composition (`--children`, a tree whose steps do not compose,
    meta tensors) the files alone are counted, each as often as the tree says it runs."""
    model_path = Path(model_path)
    report = _base_report(model_path)
    ddir = Path(decomp_dir) if decomp_dir else model_path.parent
    original: ComponentRun | None = None
    try:
        original = component_run(model_path, device=device, timeout=timeout, input_mode=input_mode,
                                 batch_limit=batch_limit)
        orig = original.inventory
    except HdecompError as exc:
        orig = Inventory(file=str(model_path), error=exc.headline, input_mode="none")
    if orig.error:
        report["status"] = "ERROR"
        report["error"] = orig.error
        report["extraction_errors"].append(orig.error)
        return _written(report, output)
    _with_original(report, orig)
    if children:
        files = [Path(c) for c in children]
        counts, source = {p.resolve(): 1 for p in files}, "one per file (--children)"
    else:
        kdir = ddir / "level_0_kernel"
        files = level_files(kdir)
        counts, source = kernel_instances(ddir, files)
        if not files:
            report["extraction_errors"].append(f"{kdir}: no kernel files")
    alone: Counter[str] = Counter()
    components = []
    inventories: dict[Path, Inventory] = {}
    cut_tree = batch_limit is not None and _decomposed_with_a_cut(ddir)
    for f in files:
        if cut_tree and not _writes_batch_size(f):
            # a tree decomposed under --batch-limit writes every batch dimension with `batch_size`: a kernel
            # file without it has none, and its leading size is its workload (batched_nms' 2020 boxes, one
            # per level above 4000 values), which a cut would change into another path through its code
            inv = component_inventory(f, device=device, timeout=timeout, batch_limit=None,
                                      input_mode="full" if input_mode == "auto" else input_mode)
        else:
            inv = component_inventory(f, device=device, timeout=timeout, input_mode=input_mode,
                                      batch_limit=batch_limit)
        inventories[f.resolve()] = inv
        n = counts.get(f.resolve(), 1)
        entry = inv.to_dict()
        entry["instances"] = n
        components.append(entry)
        if inv.error:
            report["extraction_errors"].append(inv.error)
            continue
        for op, c in inv.ops.items():
            alone[op] += c * n
    decomposed, counted_in = alone, "kernel files"
    if not children and files:
        assert original is not None
        try:
            in_model = composition_inventory(ddir, original, files, device=device, timeout=timeout,
                                             batch_limit=batch_limit)
        except HdecompError as exc:
            report["extraction_warnings"].append(
                f"kernel files counted alone (each as often as the tree says it runs): the composed model "
                f"could not be recorded: {exc.headline}")
            in_model = None
        if in_model is not None:
            decomposed, counted_in = Counter(), "composition"
            for entry, f in zip(components, files, strict=True):
                ops = in_model.per_file.get(f.resolve(), Counter())
                decomposed.update(ops)
                entry["in_model_ops"] = dict(sorted(ops.items()))
                short = _workload_misses(inventories[f.resolve()], ops)
                if short:
                    report["extraction_warnings"].append(
                        f"{f.name}: its own inputs do not reach {', '.join(short)}, which it runs in the model "
                        "(a data-dependent path: counted as the model runs it)")
            report["outside_kernels"] = dict(sorted(in_model.outside.items()))
            report["composition_input_mode"] = in_model.input_mode
    report["counted_in"] = counted_in
    report["decomposed_ops_count"] = sum(decomposed.values())
    report["coverage"] = compare_inventories(orig.ops, decomposed)
    report["coverage"]["data_plumbing_excluded"] = dict(sorted(orig.plumbing.items()))
    report["status"] = coverage_status(report["coverage"]["coverage_pct"])
    report["instances_from"] = source
    report["components"] = components
    report["decomposed_ops_summary"] = dict(sorted(decomposed.items()))
    if output:
        report["output_file"] = str(output)
        write_json_atomic(output, report)
    return report


@dataclass
class InModel:
    """The compute ops the composed model ran, by the kernel file whose module ran them."""

    per_file: dict[Path, Counter[str]]
    outside: Counter[str]
    input_mode: str


def composition_inventory(decomp_dir: Path, original: ComponentRun, kernel_files: list[Path], *, device: str = "cpu",
                          timeout: float | None = None, batch_limit: int | None = None) -> InModel | None:
    """The kernel files' ops as the composed model runs them (the composition test's model: the steps'
    refactored models down to the kernel files, holding the original's own tensors), on the inputs and the
    input mode the original's inventory used. None where there is nothing to compose (a model that is one
    kernel: its file alone is the composed model). Raises HdecompError where it cannot be built or run."""
    import tempfile

    from hdecomp.toolchain.compose.plan import build_composition
    from hdecomp.toolchain.compose.script import generate_script
    from hdecomp.toolchain.compose.weights import composed_weight_map
    if original.inventory.input_mode not in ("small_batch", "full"):
        raise HdecompError(f"the original was recorded on {original.inventory.input_mode} inputs", decomp_dir)
    comp = build_composition(decomp_dir)
    if comp.kernel_root is not None or comp.top is None:
        return None
    comp.weight_map = composed_weight_map(comp, timeout=timeout)
    verification = decomp_dir / "verification"
    verification.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="coverage_", dir=verification) as tmp:
        script = Path(tmp) / "composed_model.py"
        script.write_text(generate_script(comp, batch_limit=batch_limit, device=device, script_dir=Path(tmp)),
                          encoding="utf-8")
        loaded = load_component(script, class_name="ComposedModel", require_inputs=False, timeout=timeout)
        mod: Any = loaded.module
        if batch_limit is not None:   # as the composition test does: every file it loaded, lowered
            for m in mod._MODULES:
                mod.lower_batch_size(m, batch_limit)
        composed, _, unfilled = run_user_code(
            lambda: mod.build_composed(original.model, original.comp.init_inputs(timeout, batch_limit), device, True),
            what="building the composed model", path=script, timeout=timeout)
        if unfilled:
            raise HdecompError(f"composed tensors without a weight from the original: {unfilled[:3]}", script)
        args, kwargs = original.args, original.kwargs
        if original.inventory.input_mode == "small_batch":
            args, kwargs = cut_batch(args, 1), cut_batch(kwargs, 1)
        trace = _record(composed, map_nested(args, torch.Tensor.clone), map_nested(kwargs, torch.Tensor.clone),
                        script, timeout, "forward of the composed model")
        _, by_module, _ = trace_inventory(trace)
        kernels = {f.resolve() for f in kernel_files}
        per_file: dict[Path, Counter[str]] = {}
        outside: Counter[str] = Counter()
        modules = {qn: m for qn, m in composed.named_modules() if qn}
        for mod_name, ops in by_module.items():
            found = _outermost(mod_name, modules, lambda m: _in(class_source_file(type(m)), kernels))
            if found is None:
                outside.update(ops)
            else:
                per_file.setdefault(found[1], Counter()).update(ops)
    return InModel(per_file, outside, original.inventory.input_mode)


def _in(path: Path | None, files: set[Path]) -> Path | None:
    return path.resolve() if path is not None and path.resolve() in files else None


def _outermost(mod_name: str, modules: dict[str, nn.Module], owner_of: Any) -> tuple[str, Any] | None:
    """(qualified name, owner) of the outermost module on the path `mod_name` that has an owner
    (`owner_of(module)` not None)."""
    parts = mod_name.split(".") if mod_name else []
    for i in range(1, len(parts) + 1):
        qn = ".".join(parts[:i])
        m = modules.get(qn)
        owner = owner_of(m) if m is not None else None
        if owner is not None:
            return qn, owner
    return None


def _workload_misses(alone: Inventory, in_model: Counter[str]) -> list[str]:
    """Op types a kernel runs in the model that its file's own inputs do not reach (by op family)."""
    if alone.error:
        return []
    reached = {_family(op) for op in alone.ops}
    return sorted(op for op in in_model if _family(op) not in reached)


def _child_file_of(module: nn.Module, child_files: dict[Path, Path]) -> Path | None:
    return child_files.get(class_source_file(type(module)) or Path("/nonexistent"))


def step_coverage(step: Step, *, output: str | Path | None = None, device: str = "cpu",
                  timeout: float | None = None, input_mode: InputMode = "auto",
                  batch_limit: int | None = None) -> dict[str, Any]:
    """Per-step coverage_report.json: original.py vs the step's children as refactored.py runs them.

    The children run inside the refactored model on the original's inputs, so a child file used three
    times counts three times, and each op is attributed to the child (file and attribute) that ran it.
    Compute ops outside every child are listed under `outside_children` (the runtime anti-cheat's
    concern, repeated here so the report adds up)."""
    report = _base_report(step.original or step.dir / "original.py")
    report["step"] = step.dir.name
    report["refactored_file"] = str(step.refactored)
    if step.original is None:
        report["status"] = "ERROR"
        report["error"] = f"{step.dir / 'original.py'}: {step.problem or 'missing'}"
        return _written(report, output)
    orig = component_inventory(step.original, device=device, timeout=timeout, input_mode=input_mode,
                               batch_limit=batch_limit)
    if orig.error:
        report["status"] = "ERROR"
        report["error"] = orig.error
        return _written(report, output)
    _with_original(report, orig)
    try:
        ref_comp = load_component(step.refactored, timeout=timeout)
        ref_model = ref_comp.build(device=device, timeout=timeout, batch_limit=batch_limit)
        orig_comp = load_component(step.original, timeout=timeout)
        args, kwargs = limited_inputs(orig_comp, RunSettings(device=device, timeout=timeout, batch_limit=batch_limit))
        mode: InputMode = input_mode if input_mode != "meta" else "auto"
        if orig.input_mode == "full":
            mode = "full"   # the original needs full-size inputs, so the children do too
        inv = record_model_inventory(ref_model, args, kwargs, step.refactored, input_mode=mode,
                                     timeout=timeout)
    except HdecompError as exc:
        report["status"] = "ERROR"
        report["error"] = exc.headline
        return _written(report, output)
    _attribute_to_children(report, step, ref_model, orig, inv)
    report["children_input_mode"] = inv.input_mode
    report["extraction_warnings"].extend(inv.notes)
    return _written(report, output)


def _attribute_to_children(report: dict[str, Any], step: Step, ref_model: nn.Module, orig: Inventory,
                           inv: Inventory) -> None:
    """Fill `coverage`, `children` and `outside_children`: each op the refactored model ran belongs to the
    outermost module whose class comes from a file in the step's children/ folder."""
    child_files = {p.resolve(): p for p in step.child_files()}
    per_child: dict[str, dict[str, Any]] = {}
    decomposed: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    modules = {qn: m for qn, m in ref_model.named_modules() if qn}
    for mod_name, ops in inv.by_module.items():
        found = _outermost(mod_name, modules, lambda m: _child_file_of(m, child_files))
        if found is None:
            outside.update(ops)
            continue
        owner, owner_file = found
        entry = per_child.setdefault(owner, {"attribute": owner, "file": str(owner_file), "ops": Counter()})
        entry["ops"].update(ops)
        decomposed.update(ops)
    report["decomposed_ops_count"] = sum(decomposed.values())
    report["coverage"] = compare_inventories(orig.ops, decomposed)
    report["coverage"]["data_plumbing_excluded"] = dict(sorted(orig.plumbing.items()))
    report["status"] = coverage_status(report["coverage"]["coverage_pct"])
    report["children"] = [{"attribute": e["attribute"], "file": e["file"], "ops": dict(sorted(e["ops"].items()))}
                          for e in per_child.values()]
    report["outside_children"] = dict(sorted(outside.items()))


def step_coverage_from_traces(step: Step, trace_original: OpTrace, trace_refactored: OpTrace, *,
                              output: str | Path | None = None, timeout: float | None = None) -> dict[str, Any]:
    """The per-step report from traces the verifier already recorded (its first full-size trial), so the
    pipeline pays no extra forward pass: only the refactored model is rebuilt, on the meta device when
    its constructor allows, to learn which module comes from which child file."""
    import time
    report = _base_report(step.original or step.dir / "original.py")
    report["step"] = step.dir.name
    report["refactored_file"] = str(step.refactored)
    t0 = time.perf_counter()
    orig = Inventory(file=str(step.original), input_mode="verification")
    orig.ops, orig.by_module, orig.module_types = trace_inventory(trace_original)
    orig.plumbing = plumbing_inventory(trace_original)
    inv = Inventory(file=str(step.refactored), input_mode="verification")
    inv.ops, inv.by_module, inv.module_types = trace_inventory(trace_refactored)
    _with_original(report, orig)
    try:
        comp = load_component(step.refactored, timeout=timeout)
        try:
            with torch.device("meta"):
                ref_model = comp.build(timeout=timeout)
        except HdecompError:
            ref_model = comp.build(timeout=timeout)
    except HdecompError as exc:
        report["status"] = "ERROR"
        report["error"] = exc.headline
        return _written(report, output)
    _attribute_to_children(report, step, ref_model, orig, inv)
    report["children_input_mode"] = "verification"
    report["extraction_warnings"].append("op inventories taken from the verification's first trial "
                                         "(full-size inputs, no extra forward pass)")
    orig.seconds = time.perf_counter() - t0
    return _written(report, output)


def _written(report: dict[str, Any], output: str | Path | None) -> dict[str, Any]:
    """`report`, written to `output` first when there is one."""
    if output:
        write_json_atomic(output, report)
    return report


def check_model_source(model: Path) -> None:
    """The model file is a readable, parseable Python file (no code run): HdecompError otherwise."""
    import ast
    if not model.is_file():
        raise HdecompError("is a folder, not a model file" if model.is_dir() else "not a regular file", model)
    source = read_source(model)
    try:
        ast.parse(source, filename=str(model))
    except SyntaxError as exc:
        raise HdecompError(f"syntax error: {exc.msg}", model, exc.lineno) from None
    except ValueError as exc:  # e.g. a NUL byte
        raise HdecompError(f"not valid Python: {exc}", model) from None


__all__ = ["Inventory", "compare_inventories", "component_inventory", "compute_coverage",
           "cut_batch", "kernel_instances", "record_model_inventory", "step_coverage", "step_coverage_from_traces",
           "trace_inventory"]
