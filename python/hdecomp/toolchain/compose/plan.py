"""Reading a tree's steps into a composition: each step's refactored.py, the children it imports, and the
step or kernel file each child stands for, down to the kernel files."""

from __future__ import annotations

import ast
import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hdecomp.errors import HdecompError
from hdecomp.formats.layout import Step, discover_steps, level_files, source_key
from hdecomp.formats.tree import TREE_FILE, DecompositionTree, TreeFormatError
from hdecomp.vocab.levels import LEVEL_DIRS

if TYPE_CHECKING:
    from hdecomp.formats.weight_map import WeightSlice

    # a composed key, or the slices of a packed original tensor, or (a key in the list) whole copies: a tensor the
    # refactored model ties reaches each composed tensor its names reach
    MapValue = str | list[WeightSlice | str]


SKIP_TOP = {"get_inputs", "get_init_inputs", "get_input_kwargs", "Model", "RefactoredModel",
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


def camel_name(name: str) -> str:
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
        for p in level_files(kdir):
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
        plan.class_name = unique(camel_name(label) + "Composed")
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
        leaf = same or Leaf(file=file, var=unique(camel_name(file.stem)), is_kernel=is_kernel)
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
    leaf = Leaf(file=kernel, var=camel_name(kernel.stem), is_kernel=True)
    comp = Composition(root=root, top=None, original=original_model_file(root, tree), kernel_root=leaf)
    comp.leaves[kernel.resolve()] = leaf
    return comp


def child_steps(comp: Composition, plan: StepPlan, read_only: bool = False) -> dict[str, Path]:
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


def relative_to_root(root: Path, p: Path) -> str:
    try:
        return Path(os.path.relpath(p.resolve(), root.resolve())).as_posix()
    except ValueError:
        return str(p)
