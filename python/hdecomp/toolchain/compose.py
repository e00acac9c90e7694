"""The end-to-end composition test: the whole model rebuilt from kernel files only.

`compose()` reads the steps, replaces each child of a refactored parent by that child's own refactored
decomposition, recursively, until only kernel files remain, and writes verification/composition_test.py:
a standalone script holding the refactored classes re-targeted to one another (readable code, one class
per step) that imports nothing but kernel files. The original's weights reach the composed model
through the steps' weight maps composed along each path (explicit weight_map.json > names > structure,
the verifier's own `hdecomp.verify.weights.build_weight_map`). Running it compares the composed model with the
original (fp32: rtol 1e-4, atol 1e-5; several seeds; nested outputs) and prints PASS or FAIL with the
max difference; exit 0 PASS, 1 FAIL, 2 ERROR.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import read_json, write_json_atomic, write_text_atomic
from hdecomp.formats.layout import Step, discover_steps, source_key
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.vocab.levels import LEVEL_DIRS

if TYPE_CHECKING:
    from hdecomp.verify.weights import WeightSlice

    MapValue = str | list[WeightSlice]   # a composed key, or the slices of a packed original tensor

SCRIPT = "composition_test.py"
RESULT_MARK = "COMPOSITION_RESULT "
_SKIP_TOP = {"get_inputs", "get_init_inputs", "get_input_kwargs", "Model", "RefactoredModel",
             "run_tests", "get_expected_output_shape"}


class ComposeError(HdecompError):
    """The steps cannot be composed into one kernel-only model (the message names the file and cause)."""


@dataclass
class ChildRef:
    """A name in refactored.py that refers to a child component's model class."""

    alias: str                  # the local name (`ConvRelu1`, or a module alias `blocks` for `blocks.Model`)
    is_module: bool             # `import children.x as m` -> m.Model
    file: Path
    class_name: str = "Model"


@dataclass
class StepPlan:
    step: Step
    class_name: str                                 # the composed class's name in the generated file
    tree: ast.Module
    cls: ast.ClassDef
    refs: list[ChildRef]
    other_imports: list[str] = field(default_factory=list)
    helpers: list[ast.stmt] = field(default_factory=list)


@dataclass
class Leaf:
    file: Path                  # the file the generated script imports (level_0_kernel/ when possible)
    var: str                    # its class's name in the generated script
    is_kernel: bool


@dataclass
class Composition:
    root: Path
    top: Step | None                  # None: the tree's root is a kernel (no steps; `kernel_root`)
    original: Path
    plans: dict[Path, StepPlan] = field(default_factory=dict)      # step dir -> plan
    order: list[Path] = field(default_factory=list)                # step dirs, children before parents
    leaves: dict[Path, Leaf] = field(default_factory=dict)         # child file (resolved) -> leaf
    targets: dict[tuple[Path, str], str] = field(default_factory=dict)  # (step dir, alias) -> class name
    weight_map: dict[str, MapValue] = field(default_factory=dict)   # original key -> composed key or slices
    notes: list[str] = field(default_factory=list)
    sub_steps: dict[tuple[Path, Path], Path] = field(default_factory=dict)  # (step dir, child file) -> step dir
    kernel_root: Leaf | None = None   # a one-kernel model: the composed model is this kernel file itself
    step_maps: dict[Path, dict[str, MapValue]] = field(default_factory=dict)  # step dir -> its key -> composed


# ---- reading the steps --------------------------------------------------------------------------------

def _camel(name: str) -> str:
    parts = [p for p in re.split(r"[^0-9a-zA-Z]+", name) if p]
    out = "".join(p[:1].upper() + p[1:] for p in parts) or "Component"
    return out if out[0].isalpha() else "C" + out


def _resolve_module(step: Step, module: str) -> Path | None:
    """The file a refactored.py import names, looking where the step's import path would."""
    parts = module.split(".")
    bases = [step.dir, step.children_dir]
    for base in bases:
        cand = base.joinpath(*parts).with_suffix(".py")
        if cand.exists():
            return cand
    return None


def _parse_refactored(step: Step) -> tuple[ast.Module, ast.ClassDef]:
    try:
        source = step.refactored.read_text(encoding="utf-8")
        mod = ast.parse(source, filename=str(step.refactored))
    except SyntaxError as exc:
        raise ComposeError(f"syntax error: {exc.msg}", step.refactored, exc.lineno) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ComposeError(f"cannot read: {exc}", step.refactored) from exc
    classes = {n.name: n for n in mod.body if isinstance(n, ast.ClassDef)}
    cls = classes.get("RefactoredModel") or classes.get("Model")
    if cls is None:
        raise ComposeError("no RefactoredModel class", step.refactored)
    return mod, cls


def plan_step(step: Step) -> StepPlan:
    """Which names in the step's refactored.py are children, and what else the class needs."""
    mod, cls = _parse_refactored(step)
    refs: list[ChildRef] = []
    imports: list[str] = []
    for node in mod.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            target = _resolve_module(step, node.module)
            if target is not None:
                for a in node.names:
                    refs.append(ChildRef(alias=a.asname or a.name, is_module=False, file=target,
                                         class_name=a.name))
                continue
            # `from children import x` (x a module file)
            resolved = []
            for a in node.names:
                sub = _resolve_module(step, f"{node.module}.{a.name}")
                if sub is not None:
                    resolved.append(ChildRef(alias=a.asname or a.name, is_module=True, file=sub))
            if resolved:
                refs.extend(resolved)
                continue
            imports.append(ast.unparse(node))
        elif isinstance(node, ast.Import):
            kept = []
            for a in node.names:
                target = _resolve_module(step, a.name)
                if target is not None and a.asname:
                    refs.append(ChildRef(alias=a.asname, is_module=True, file=target))
                elif target is not None:
                    raise ComposeError(f"`import {a.name}` without an alias: write `import {a.name} as x`",
                                       step.refactored, node.lineno)
                else:
                    kept.append(a)
            if kept:
                imports.append(ast.unparse(ast.Import(names=kept)))
    return StepPlan(step=step, class_name="", tree=mod, cls=cls, refs=refs, other_imports=imports)


def _kernel_index(root: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    kdir = root / LEVEL_DIRS[0]
    by_key: dict[str, Path] = {}
    by_stem: dict[str, Path] = {}
    if kdir.is_dir():
        for p in sorted(kdir.glob("*.py")):
            if p.name.startswith("__"):
                continue
            k = source_key(p)
            if k:
                by_key.setdefault(k, p)
            by_stem[p.stem] = p
    return by_key, by_stem


def _kernel_levels(root: Path) -> dict[Path, int | None]:
    """Tree levels by resolved file path (to tell a kernel leaf from an undecomposed one)."""
    try:
        tree = DecompositionTree.load(root / TREE_FILE)
    except TreeFormatError:
        return {}
    out: dict[Path, int | None] = {}
    for n in tree.nodes.values():
        p = tree.abs_path(n)
        if p is not None:
            out[p] = n.level
    return out


def _match_step(child: Path, steps: list[Step], current: Step,
                kernel_keys: frozenset[str] | set[str] = frozenset()) -> Step | None:
    """The step that decomposes `child`: same content as its original.py, else the same file, else the
    step named after the child (`step_3_conv_relu_3x64_to_kernels` for `conv_relu_3x64_fp32.py`).
    A kernel file (its content one of `kernel_keys`, level_0_kernel/'s files) is never matched by name: a
    kernel is not decomposed further, and its name may start like a step's (the empty-nn.Sequential kernel
    `sequential_10x240x56x56_fp32.py` is no copy of the conv+bn `step_13_sequential`)."""
    key = source_key(child)
    cand = [s for s in steps if s is not current and s.original is not None and
            (s.original.resolve() == child.resolve() or (key is not None and source_key(s.original) == key))]
    if cand:
        return cand[0]
    if key is not None and key in kernel_keys:
        return None
    best: tuple[int, Step] | None = None
    for s in steps:
        if s is current or s.original is None:
            continue
        base = re.sub(r"_to_(layers?|fusions?|kernels?)$", "", s.name)
        if base and (child.stem == base or child.stem.startswith(base + "_")) and \
                (best is None or len(base) > best[0]):
            best = (len(base), s)
    return best[1] if best else None


def build_composition(root: str | Path) -> Composition:
    """Plan the composed model: the top step and, recursively, the step behind every child."""
    root = Path(root)
    tree = None
    with contextlib.suppress(TreeFormatError):
        tree = DecompositionTree.load(root / TREE_FILE) if (root / TREE_FILE).exists() else None
    steps = discover_steps(root, tree)
    if not steps and tree is not None and tree.root is not None and tree.root.level == 0:
        return _kernel_root_composition(root, tree)
    if not steps:
        raise ComposeError("no step folders with a refactored.py", root / "steps")
    broken = [s for s in steps if s.problem]
    usable = [s for s in steps if not s.problem]
    if not usable:
        raise ComposeError(broken[0].problem or "no usable step", broken[0].dir)
    # which step is whose child
    child_of: dict[Path, Step] = {}
    by_key, by_stem = _kernel_index(root)
    kernel_keys = set(by_key)
    plans: dict[Path, StepPlan] = {}
    plan_errors: dict[Path, ComposeError] = {}
    for s in usable:
        try:
            plans[s.dir] = plan_step(s)
        except ComposeError as exc:
            plan_errors[s.dir] = exc
    for s in usable:
        p = plans.get(s.dir)
        if p is None:
            continue
        for ref in p.refs:
            sub = _match_step(ref.file, usable, s, kernel_keys)
            if sub is not None:
                child_of.setdefault(sub.dir, s)
    tops = [s for s in usable if s.dir not in child_of]
    if not tops:
        raise ComposeError("the steps form a cycle: every step is some other step's child", root / "steps")
    top = tops[0]
    if top.dir in plan_errors:
        raise plan_errors[top.dir]
    assert top.original is not None
    comp = Composition(root=root, top=top, original=top.original.resolve())
    for extra in tops[1:]:
        comp.notes.append(f"{extra.dir}: not reachable from {top.dir.name} (not used by the composition)")
    for b in broken:
        comp.notes.append(f"{b.dir}: {b.problem}")
    levels = _kernel_levels(root)
    used_names: set[str] = set()

    def unique(name: str) -> str:
        n, i = name, 2
        while n in used_names:
            n, i = f"{name}{i}", i + 1
        used_names.add(n)
        return n

    def visit(s: Step, trail: tuple[Path, ...]) -> str:
        if s.dir in comp.plans:
            return comp.plans[s.dir].class_name
        if s.dir in trail:
            raise ComposeError("a step uses itself (cycle through " +
                               " -> ".join(p.name for p in (*trail, s.dir)) + ")", s.refactored)
        if s.dir in plan_errors:
            raise plan_errors[s.dir]
        plan = plans[s.dir]
        for ref in plan.refs:
            if not ref.file.exists():
                raise ComposeError(f"child file {ref.file.name} is missing", ref.file)
            sub = _match_step(ref.file, usable, s, kernel_keys)
            if sub is not None and sub.dir not in trail:
                target = visit(sub, (*trail, s.dir))
                comp.sub_steps[(s.dir, ref.file.resolve())] = sub.dir
            else:
                target = leaf_for(ref.file).var
            comp.targets[(s.dir, ref.alias)] = target
        label = re.sub(r"_to_(layers?|fusions?|kernels?)$", "", s.name) or s.dir.name
        if not trail:  # the top step stands for the whole model
            label = re.sub(r"^\d+_", "", root.resolve().name) or label
        plan.class_name = unique(_camel(label) + "Composed")
        comp.plans[s.dir] = plan
        comp.order.append(s.dir)
        return plan.class_name

    def leaf_for(child: Path) -> Leaf:
        rp = child.resolve()
        if rp in comp.leaves:
            return comp.leaves[rp]
        key = source_key(child)
        kernel = by_key.get(key) if key else None
        if kernel is None and child.stem in by_stem:
            kernel = by_stem[child.stem]
            comp.notes.append(f"{child}: differs from {kernel} (same name); the composition uses the kernel "
                              f"file")
        is_kernel = kernel is not None or levels.get(rp) == 0
        file = kernel or child
        if not is_kernel:
            comp.notes.append(f"{child}: not a kernel file and no step decomposes it; used as it is")
        same = next((lf for lf in comp.leaves.values() if lf.file.resolve() == file.resolve()), None)
        leaf = same or Leaf(file=file, var=unique(_camel(file.stem)), is_kernel=is_kernel)
        comp.leaves[rp] = leaf
        return leaf

    visit(top, ())
    return comp


def original_model_file(root: Path, tree: DecompositionTree) -> Path:
    """The model file a tree was made from (`metadata.source_file`): absolute, else relative to the current
    folder, the decomposition folder or one of its parents (a repository-relative `data/examples/x.py`)."""
    name = tree.metadata.source_file if tree.metadata is not None else None
    if not name:
        raise ComposeError("metadata.source_file is empty: the original model file is unknown", root / TREE_FILE)
    p = Path(name)
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, root / p, *(d / p for d in root.resolve().parents)]
    for c in candidates:
        if c.is_file():
            return c.resolve()
    raise ComposeError(f"the original model file {name} (metadata.source_file) was not found", root / TREE_FILE)


def _kernel_root_composition(root: Path, tree: DecompositionTree) -> Composition:
    """A tree whose root is a kernel (the model is one kernel op): the composed model is that kernel file,
    compared with the original model file the tree names."""
    assert tree.root is not None
    kernel = tree.abs_path(tree.root)
    if kernel is None or not kernel.is_file():
        raise ComposeError(f"the root kernel's file {tree.root.path!r} does not exist", root / TREE_FILE)
    leaf = Leaf(file=kernel, var=_camel(kernel.stem), is_kernel=True)
    comp = Composition(root=root, top=None, original=original_model_file(root, tree), kernel_root=leaf)
    comp.leaves[kernel.resolve()] = leaf
    return comp


# ---- weights ---------------------------------------------------------------------------------------

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
    from hdecomp.verify.weights import WeightSlice
    if isinstance(value, str):
        got: MapValue | None = resolve(value)
        return got
    out: list[WeightSlice] = []
    for p in value:
        inner = resolve(p.key)
        if inner is None:
            continue
        if isinstance(inner, str):
            out.append(WeightSlice(inner, p.dim, p.start, p.stop))
            continue
        for q in inner:   # a slice of a slice: along the same dimension, offsets add
            if q.dim != p.dim:
                raise ComposeError(f"weight map: {p.key} is a slice of a packed tensor that a lower step slices "
                                   "again along another dimension", where)
            out.append(WeightSlice(q.key, p.dim, p.start + q.start, p.start + q.stop))
    return out or None


def weight_map_json(wm: dict[str, MapValue]) -> dict[str, Any]:
    from hdecomp.verify.weights import map_value_json
    return {k: map_value_json(v) for k, v in wm.items()}


def composed_weight_map(comp: Composition, timeout: float | None = None) -> dict[str, MapValue]:
    """original key -> composed key (or the slices of a packed tensor), each step's weight map applied along
    the path to the kernels."""
    from hdecomp.verify.weights import build_weight_map, load_explicit_map
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
            return [replace(q, key=f"{owner}.{q.key}") for q in got]

        out: dict[str, MapValue] = {}
        values: list[tuple[str, MapValue]] = [*wm.mapping.items(), *wm.slices.items()]
        for okey, value in values:
            got = _through(value, resolve, s.weight_map or s.refactored)
            if got is not None:
                out[okey] = got
        memo[step_dir] = out
        comp.step_maps[step_dir] = out
        return out

    result = for_step(top.dir)
    # children whose tensors a step names itself (a tie `self.b.w = self.a.w`): their steps' maps too
    for d in list(comp.order):
        for sub in _child_steps(comp, comp.plans[d], read_only=True).values():
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


# ---- code generation ---------------------------------------------------------------------------------

class _Retarget(ast.NodeTransformer):
    """Child class names -> the composed/kernel classes; helper names -> their prefixed copies."""

    def __init__(self, names: dict[str, str], modules: dict[str, str]) -> None:
        self.names = names
        self.modules = modules

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id in self.modules and node.attr == "Model":
            return ast.copy_location(ast.Name(id=self.modules[node.value.id], ctx=node.ctx), node)
        self.generic_visit(node)
        return node


class _ChildTensorPaths(ast.NodeTransformer):
    """`self.<child>.<tensor>` (a tie `self.b.w = self.a.w` in __init__) where the child is replaced by its
    composed step: that step moved the tensor into a child of its own, so the name follows the step's
    weight map (`self.a.w` -> `self.a.mul.w`)."""

    def __init__(self, maps: dict[str, dict[str, MapValue]]) -> None:
        self.maps = maps

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        chain: list[str] = []
        cur: ast.expr = node
        while isinstance(cur, ast.Attribute):
            chain.insert(0, cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id == "self" and len(chain) >= 2 and chain[0] in self.maps:
            key = ".".join(chain[1:])
            new_key = self.maps[chain[0]].get(key)
            if isinstance(new_key, str) and new_key != key:   # (a tie cannot name a slice)
                new: ast.expr = ast.Name(id="self", ctx=ast.Load())
                for part in [chain[0], *new_key.split(".")]:
                    new = ast.Attribute(value=new, attr=part, ctx=ast.Load())
                assert isinstance(new, ast.Attribute)
                new.ctx = node.ctx
                return ast.copy_location(new, node)
        self.generic_visit(node)
        return node


def _child_step_maps(comp: Composition, plan: StepPlan) -> dict[str, dict[str, MapValue]]:
    """Attribute of each child of the step that a step decomposes -> that step's original key -> composed
    key (filled by composed_weight_map; empty before it ran)."""
    return {a: comp.step_maps[d] for a, d in _child_steps(comp, plan).items() if d in comp.step_maps}


def _child_steps(comp: Composition, plan: StepPlan, read_only: bool = False) -> dict[str, Path]:
    """Attribute of each child of the step (`self.a = A()` in __init__) that a step decomposes -> that
    step's folder; `read_only`: only children whose tensors the class names (`self.a.w`)."""
    by_alias = {r.alias: r for r in plan.refs}
    out: dict[str, Path] = {}
    for node in ast.walk(plan.cls):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        t, f = node.targets[0], node.value.func
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
            continue
        alias = f.id if isinstance(f, ast.Name) else \
            f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
        ref = by_alias.get(alias) if alias else None
        sub = comp.sub_steps.get((plan.step.dir, ref.file.resolve())) if ref else None
        if sub is not None:
            out[t.attr] = sub
    if read_only:
        named = {n.value.attr for n in ast.walk(plan.cls) if isinstance(n, ast.Attribute) and
                 isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name) and
                 n.value.value.id == "self"}
        out = {a: d for a, d in out.items() if a in named}
    return out


def _top_level_defs(mod: ast.Module) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for node in mod.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name not in _SKIP_TOP:
                out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id not in _SKIP_TOP:
                    out[t.id] = node
    return out


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _step_code(comp: Composition, plan: StepPlan) -> tuple[str, list[str]]:
    """The step's RefactoredModel renamed and re-targeted, plus the module-level helpers it uses."""
    prefix = f"_{plan.class_name}_"
    child_aliases = {r.alias for r in plan.refs}
    defs = _top_level_defs(plan.tree)
    needed: list[str] = []
    todo = list(_names_used(plan.cls))
    while todo:
        name = todo.pop()
        if name in defs and name not in needed and name not in child_aliases and name != plan.cls.name:
            needed.append(name)
            todo.extend(_names_used(defs[name]))
    names = {r.alias: comp.targets[(plan.step.dir, r.alias)] for r in plan.refs if not r.is_module}
    modules = {r.alias: comp.targets[(plan.step.dir, r.alias)] for r in plan.refs if r.is_module}
    names.update({n: prefix + n for n in needed})
    names[plan.cls.name] = plan.class_name
    retarget = _Retarget(names, modules)
    chunks: list[str] = []
    emitted: set[int] = set()
    for node in plan.tree.body:  # keep the file's order so helpers see what they need
        if id(node) in emitted or node is plan.cls:
            continue
        if any(defs.get(n) is node for n in needed):
            emitted.add(id(node))
            chunks.append(ast.unparse(retarget.visit(_copy(node))))
    cls = _copy(plan.cls)
    cls.name = plan.class_name
    cls = _ChildTensorPaths(_child_step_maps(comp, plan)).visit(cls)
    doc = ast.get_docstring(cls)
    new_doc = (f"{plan.step.dir.name}: {plan.step.refactored.name} with every child replaced by its "
               f"composed version.")
    if doc:
        cls.body = cls.body[1:]
    cls.body.insert(0, ast.Expr(ast.Constant(new_doc)))
    chunks.append(ast.unparse(retarget.visit(cls)))
    return "\n\n\n".join(chunks), plan.other_imports


def _copy(node: Any) -> Any:
    return ast.parse(ast.unparse(node)).body[0]


def _rel(root: Path, p: Path) -> str:
    try:
        return Path(os.path.relpath(p.resolve(), root.resolve())).as_posix()
    except ValueError:
        return str(p)


# --batch-limit in the generated script, which runs without hdecomp installed: the rule of
# hdecomp.runtime.batch_limit (batch_cut_policy, batch_candidates, cut_batch, choose_cut), written out;
# test_compose checks the two agree.
_STANDARD_IMPORTS = ("import argparse", "import importlib.util", "import json", "import sys",
                     "from pathlib import Path", "from typing import Any", "import torch", "import torch.nn as nn")


_SCRIPT_PART = Path(__file__).with_name("composition_script.py")


def _fixed_part() -> str:
    """composition_script.py from its imports on, less the declarations of the generated names."""
    text = _SCRIPT_PART.read_text(encoding="utf-8")
    start = text.index("from __future__ import annotations")
    cut_from = text.index("# ---- GENERATED:")
    cut_to = text.index("# ---- END GENERATED ----\n") + len("# ---- END GENERATED ----\n")
    return text[start:cut_from] + text[cut_to:].rstrip() + "\n"


def generate_script(comp: Composition, *, batch_limit: int | None = None, device: str = "cpu") -> str:
    root = comp.root
    extra_imports: list[str] = []
    classes: list[str] = []
    for d in comp.order:
        code, imports = _step_code(comp, comp.plans[d])
        classes.append(f"# ---- {d.name}: {comp.plans[d].step.refactored.name} re-targeted "
                       f"{'-' * max(4, 60 - len(d.name))}\n\n{code}")
        for imp in imports:
            if imp not in _STANDARD_IMPORTS and imp not in extra_imports and not imp.startswith(
                    ("import sys", "from pathlib", "import os", "from __future__")):
                extra_imports.append(imp)
    kernel_lines = []
    for leaf in sorted({id(lf): lf for lf in comp.leaves.values()}.values(), key=lambda lf: lf.var):
        note = "" if leaf.is_kernel else "  # not a kernel: no step decomposes it"
        kernel_lines.append(f'{leaf.var} = load_component("{_rel(root, leaf.file)}").Model{note}')
    if comp.kernel_root is not None or comp.top is None:
        assert comp.kernel_root is not None
        # A one-kernel model: the kernel file is the composed model, built from its own get_init_inputs()
        # (its constructor does not take the original's arguments).
        var = comp.kernel_root.var
        kernel_lines = [f'_kernel_file = load_component("{_rel(root, comp.kernel_root.file)}")',
                        f"{var} = _kernel_file.Model"]
        composed_def = (f"def ComposedModel(*original_init):\n    \"\"\"The kernel file is the whole model: "
                        f"{var} built from the kernel file's get_init_inputs().\"\"\"\n"
                        f"    return {var}(*getattr(_kernel_file, \"get_init_inputs\", list)())")
    else:
        composed_def = f"ComposedModel = {comp.plans[comp.top.dir].class_name}"
    wm = json.dumps(weight_map_json(comp.weight_map), indent=4)
    model_name = root.name
    if comp.kernel_root is not None:
        how = (f"for a model that is one kernel (the tree's\nroot is level 0, there are no steps): the kernel "
               f"file {_rel(root, comp.kernel_root.file)} is the composed\nmodel, "
               "with the original's weights (WEIGHT_MAP), compared with the original model.")
    else:
        how = ("from the verified steps under steps/.\nEach class below is one step's refactored.py with its "
               "children replaced by their own composed\nversions, so the only components loaded are the "
               "kernel files listed under \"kernel files\".\nThe original's weights reach the composed model "
               "through the steps' weight maps (WEIGHT_MAP).")
    header = f'''"""Composition test for {model_name}: the whole model rebuilt from kernel files only.

Generated by `hdecomp compose` on {datetime.now().strftime("%Y-%m-%d %H:%M")} {how}

Run: python {SCRIPT} [--batch-limit N] [--device cpu]
Prints PASS or FAIL with the max difference (fp32: rtol 1e-4, atol 1e-5); exit 0 PASS, 1 FAIL, 2 ERROR.
"""

{_fixed_part()}

# ---- this composition -------------------------------------------------------------------------------

{chr(10).join(extra_imports)}

ROOT = Path(__file__).resolve().parent.parent
ORIGINAL = "{_rel(root, comp.original)}"
SEEDS = (42, 43, 44)
TOLERANCES = {{torch.float32: (1e-4, 1e-5), torch.float64: (1e-7, 1e-9), torch.float16: (1e-3, 1e-3),
               torch.bfloat16: (1e-2, 1e-2)}}
DEFAULT_BATCH_LIMIT = {batch_limit!r}
DEFAULT_DEVICE = {device!r}
RESULT_MARK = {RESULT_MARK!r}


# ---- kernel files (the only components the composed model uses) ------------------------------------

{chr(10).join(kernel_lines)}


'''
    footer = f'''

{composed_def}

# original state_dict key -> composed key (the steps' weight maps, composed along each path)
WEIGHT_MAP = {wm}


if __name__ == "__main__":
    sys.exit(main())
'''
    return header + "\n\n\n".join(classes) + "\n" + footer


# ---- the command ---------------------------------------------------------------------------------------

@dataclass
class ComposeResult:
    status: str                      # PASS | FAIL | ERROR | WRITTEN (--no-run)
    script: Path | None = None
    max_diff: float | None = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""
    weights: str | None = None       # shared (the original's tensors themselves) | copied; None: not run

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "WRITTEN": 0, "FAIL": 1}.get(self.status, 2)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "script": str(self.script) if self.script else None,
                "max_diff": self.max_diff, "reason": self.reason, "notes": self.notes,
                "kernels": self.kernels, "steps": self.steps, "weights": self.weights,
                "seconds": round(self.seconds, 3)}


def compose(root: str | Path, *, run: bool = True, batch_limit: int | None = None, device: str = "cpu",
            timeout: float | None = None, python: str | None = None) -> ComposeResult:
    """Write verification/composition_test.py and (unless run=False) run it in a subprocess."""
    root = Path(root)
    t0 = time.perf_counter()
    if not root.is_dir():
        raise HdecompError("not a folder" if root.exists() else "decomposition folder not found", root)
    try:
        comp = build_composition(root)
        comp.weight_map = composed_weight_map(comp, timeout=timeout)
        script = generate_script(comp, batch_limit=batch_limit, device=device)
    except HdecompError as exc:
        return ComposeResult(status="ERROR", reason=exc.headline, seconds=time.perf_counter() - t0)
    path = write_text_atomic(root / "verification" / SCRIPT, script)
    result = ComposeResult(status="WRITTEN", script=path, notes=comp.notes,
                           kernels=sorted({_rel(root, lf.file) for lf in comp.leaves.values()}),
                           steps=[d.name for d in comp.order])
    if run:
        _run_script(result, path, timeout=timeout, python=python)
        _record_in_test_results(root, result)
    result.seconds = time.perf_counter() - t0
    return result


def _run_script(result: ComposeResult, path: Path, *, timeout: float | None, python: str | None) -> None:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        proc = subprocess.run([python or sys.executable, path.name], cwd=path.parent, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        result.status, result.reason = "ERROR", f"{path}: did not finish within {timeout:g} s (timeout)"
        return
    out = (proc.stdout or "") + (proc.stderr or "")
    result.output = out
    for line in out.splitlines():
        if line.startswith(RESULT_MARK):
            with contextlib.suppress(ValueError):
                data = json.loads(line[len(RESULT_MARK):])
                result.status = data.get("status", "ERROR")
                result.max_diff = data.get("max_diff")
                result.reason = data.get("reason")
                result.weights = data.get("weights")
                return
    tail = [ln for ln in out.strip().splitlines() if ln.strip()]
    result.status = "ERROR"
    result.reason = f"{path}: exit code {proc.returncode}: {tail[-1] if tail else '(no output)'}"


def _record_in_test_results(root: Path, result: ComposeResult) -> None:
    """test_results.json keeps the composition verdict next to the self-tests (original format keys)."""
    path = root / "verification" / "test_results.json"
    data: dict[str, Any] = {}
    if path.exists():
        with contextlib.suppress(OSError, ValueError):
            loaded = read_json(path)
            data = loaded if isinstance(loaded, dict) else {}
    data.setdefault("timestamp", datetime.now().isoformat())
    for key, empty in (("total_components", 0), ("passed", 0), ("failed", 0), ("component_results", [])):
        data.setdefault(key, empty)  # required by the format even before `hdecomp test` has run
    data["composition_test"] = {"PASS": "PASSED", "FAIL": "FAILED"}.get(result.status, "ERROR")
    data["max_difference"] = result.max_diff
    data["composition"] = result.to_dict()
    write_json_atomic(path, data)


__all__ = ["ComposeError", "ComposeResult", "Composition", "build_composition", "compose",
           "composed_weight_map", "generate_script", "kernel_use_counts"]
