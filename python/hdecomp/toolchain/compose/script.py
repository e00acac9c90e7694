"""verification/composition_test.py written: the docstring, script_part.py's fixed code, the constants,
the kernel files, each step's refactored.py re-targeted at composed children, ComposedModel and
WEIGHT_MAP."""

from __future__ import annotations

import ast
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hdecomp.formats.keys import access_path
from hdecomp.formats.weight_map import map_json
from hdecomp.toolchain.compose.plan import SKIP_TOP, Composition, StepPlan, child_steps, relative_to_root
from hdecomp.verify.result import COMPOSITION_SEEDS
from hdecomp.vocab.workload import strip_docstrings

if TYPE_CHECKING:
    from hdecomp.toolchain.compose.plan import MapValue

SCRIPT = "composition_test.py"
SCRIPT_WITH_REPLACEMENTS = "composition_test_with_replacements.py"
RESULT_MARK = "COMPOSITION_RESULT "


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

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        # a tie of a tensor the composed child holds no longer (no kernel of it reads it: Zamba2's shared block
        # holds every use's LoRA adapters, each use reads its own) is no tie of the composed model
        if any(self._unmapped(t) for t in [*node.targets, node.value]):
            return None
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return self._retargeted(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        return self._retargeted(node)

    def _unmapped(self, node: ast.expr) -> bool:
        """`node` names a tensor of a composed child (`self.<child>.<key>`) that its step's map does not carry."""
        chain = self._chain(node)
        # (an object tied alike, one rope embedder for the regions that read it, is held below the composed
        # child, which carries no map entry for it: each of its readers holds its own copy there; a field of a
        # tensor it carries, VITS's `self.text_encoder.embed_tokens.weight.dtype`, is read where the tensor went)
        return chain is not None and len(chain) >= 2 and chain[0] in self.maps \
            and not any(".".join(chain[1:k]) in self.maps[chain[0]] for k in range(2, len(chain) + 1))

    @staticmethod
    def _chain(node: ast.expr) -> list[str] | None:
        chain: list[str] = []
        cur: ast.expr = node
        while True:
            if isinstance(cur, ast.Attribute):
                chain.insert(0, cur.attr)
                cur = cur.value
            elif isinstance(cur, ast.Subscript) and isinstance(cur.slice, ast.Constant) and \
                    isinstance(cur.slice.value, (int, str)):
                chain.insert(0, str(cur.slice.value))
                cur = cur.value
            else:
                break
        return chain if isinstance(cur, ast.Name) and cur.id == "self" else None

    def _retargeted(self, node: ast.Attribute | ast.Subscript) -> ast.AST:
        chain = self._chain(node)   # `self.a.blocks[0].w`: a, blocks, 0, w (a tie inside a ModuleList)
        if chain is not None and len(chain) >= 2 and chain[0] in self.maps:
            key = ".".join(chain[1:])
            new_key = self.maps[chain[0]].get(key)
            if isinstance(new_key, list) and new_key and isinstance(new_key[0], str) and \
                    all(isinstance(k, str) for k in new_key):
                # (a tensor the composed child holds several copies of, one per kernel that reads it, MimiConv1d's
                # `kernel_size` buffer: the tie names the first; a tie cannot name a slice)
                new_key = str(new_key[0])
            if isinstance(new_key, str) and new_key != key:
                new = ast.parse(f"self{access_path(chain[0] + '.' + new_key)}", mode="eval").body
                assert isinstance(new, (ast.Attribute, ast.Subscript))
                new.ctx = node.ctx
                return ast.copy_location(new, node)
        self.generic_visit(node)
        return node


def _child_step_maps(comp: Composition, plan: StepPlan) -> dict[str, dict[str, MapValue]]:
    """Attribute of each child of the step that a step decomposes -> that step's original key -> composed
    key (filled by composed_weight_map; empty before it ran)."""
    return {a: comp.step_maps[d] for a, d in child_steps(comp, plan).items() if d in comp.step_maps}


def _top_level_defs(mod: ast.Module) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for node in mod.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name not in SKIP_TOP:
                out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:   # (`T, D, K = 8, 16, 3`: each name of an unpacking)
                for name in ([t] if isinstance(t, ast.Name) else t.elts if isinstance(t, (ast.Tuple, ast.List))
                             else []):
                    if isinstance(name, ast.Name) and name.id not in SKIP_TOP:
                        out[name.id] = node
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
            todo.extend(_names_used(defs[name]))   # (the other names an unpacking binds too: renamed alike)
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
            helper = retarget.visit(copy_node(node))
            if isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                helper.name = names.get(helper.name, helper.name)   # (its uses are renamed: `class Config:`)
            chunks.append(ast.unparse(helper))
    cls = copy_node(plan.cls)
    cls.name = plan.class_name
    cls = _ChildTensorPaths(_child_step_maps(comp, plan)).visit(cls)
    new_doc = (f"{plan.step.dir.name}: {plan.step.refactored.name} with every child replaced by its "
               f"composed version.")
    strip_docstrings(cls, nested=False)
    cls.body.insert(0, ast.Expr(ast.Constant(new_doc)))
    chunks.append(ast.unparse(retarget.visit(cls)))
    return "\n\n\n".join(chunks), plan.other_imports


def copy_node(node: Any) -> Any:
    return ast.parse(ast.unparse(node)).body[0]


# --batch-limit in the generated script, which runs without hdecomp installed: the rule of
# hdecomp.runtime.batch_limit (batch_cut_policy, batch_candidates, cut_batch, choose_cut), written out;
# test_compose checks the two agree.
_STANDARD_IMPORTS = ("import argparse", "import importlib.util", "import json", "import sys",
                     "from pathlib import Path", "from typing import Any", "import torch", "import torch.nn as nn")


_SCRIPT_PART = Path(__file__).with_name("script_part.py")


def fixed_part() -> str:
    """script_part.py from its imports on, less the declarations of the generated names."""
    text = _SCRIPT_PART.read_text(encoding="utf-8")
    start = text.index("from __future__ import annotations")
    cut_from = text.index("# ---- GENERATED:")
    cut_to = text.index("# ---- END GENERATED ----\n") + len("# ---- END GENERATED ----\n")
    return text[start:cut_from] + text[cut_to:].rstrip() + "\n"


_TOLERANCES = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9), "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}


def _tolerances(floor: float | None) -> str:
    """The script's TOLERANCES (rtol, atol by dtype), each at least `floor` when given."""
    parts = [f"torch.{name}: ({max(r, floor or 0):g}, {max(a, floor or 0):g})" for name, (r, a) in _TOLERANCES.items()]
    return "{" + ", ".join(parts) + "}"


def generate_script(comp: Composition, *, batch_limit: int | None = None, device: str = "cpu",
                    replaced: dict[Path, Path] | None = None, script_dir: Path | None = None,
                    tolerance: float | None = None, step_dir: Path | None = None, component: bool = False) -> str:
    """The composition script's text. `replaced`: kernel file (resolved) -> the file whose `ModelNew` stands
    in for it in every instance (`hdecomp replace`); `script_dir`: the folder the script is written to
    (default verification/); `tolerance`: a floor for every dtype's rtol and atol (a replacement's); `step_dir`:
    instead of a whole-model script, a component file for that step: its composed class as `RefactoredModel`
    with the step original's `get_init_inputs`/`get_inputs` (what verify-step takes as the refactored side);
    `component`: the same for the whole model (the composed model as `RefactoredModel`, the original model
    file's inputs; a one-kernel model's own constructor arguments)."""
    root = comp.root
    replaced = {k.resolve(): v for k, v in (replaced or {}).items()}
    depth = len((script_dir or root / "verification").resolve().relative_to(root.resolve()).parts)
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
        new_file = replaced.get(leaf.file.resolve())
        if new_file is not None:
            kernel_lines.append(f'{leaf.var} = load_component("{relative_to_root(root, new_file)}").ModelNew'
                                f'  # replaces {relative_to_root(root, leaf.file)} (hdecomp replace)')
            continue
        kernel_lines.append(f'{leaf.var} = load_component("{relative_to_root(root, leaf.file)}").Model{note}')
    if comp.kernel_root is not None or comp.top is None:
        assert comp.kernel_root is not None
        # A one-kernel model: the kernel file is the composed model, built from its own get_init_inputs()
        # (its constructor does not take the original's arguments).
        var = comp.kernel_root.var
        new_file = replaced.get(comp.kernel_root.file.resolve())
        kernel_lines = [f'_kernel_file = load_component("{relative_to_root(root, comp.kernel_root.file)}")',
                        f"{var} = _kernel_file.Model" if new_file is None else
                        f'{var} = load_component("{relative_to_root(root, new_file)}").ModelNew  # replaces the kernel']
        composed_def = (f"def ComposedModel(*original_init):\n    \"\"\"The kernel file is the whole model: "
                        f"{var} built from the kernel file's get_init_inputs().\"\"\"\n"
                        f"    return {var}(*getattr(_kernel_file, \"get_init_inputs\", list)())")
    else:
        composed_def = f"ComposedModel = {comp.plans[comp.top.dir].class_name}"
    if component and step_dir is None:
        if comp.kernel_root is not None or comp.top is None:
            assert comp.kernel_root is not None
            composed_def = (f"RefactoredModel = {comp.kernel_root.var}\n"
                            f'_original = load_component(ORIGINAL)\n\n\n'
                            f'def get_init_inputs():\n    return list(getattr(_kernel_file, "get_init_inputs", list)())')
        else:
            composed_def = (f"RefactoredModel = {comp.plans[comp.top.dir].class_name}\n"
                            f'_original = load_component(ORIGINAL)\n\n\n'
                            f'def get_init_inputs():\n    return list(getattr(_original, "get_init_inputs", list)())')
        composed_def += "\n\n\ndef get_inputs():\n    return list(_original.get_inputs())"
    if step_dir is not None:
        step = comp.plans[step_dir].step
        assert step.original is not None
        composed_def = (f'RefactoredModel = {comp.plans[step_dir].class_name}\n'
                        f'_step_original = load_component("{relative_to_root(root, step.original)}")\n\n\n'
                        f'def get_init_inputs():\n    return list(getattr(_step_original, "get_init_inputs", list)())'
                        f'\n\n\ndef get_inputs():\n    return list(_step_original.get_inputs())')
    wm = json.dumps(map_json(comp.weight_map), indent=4)
    model_name = root.name
    if comp.kernel_root is not None:
        how = (f"for a model that is one kernel (the tree's\nroot is level 0, there are no steps): the kernel "
               f"file {relative_to_root(root, comp.kernel_root.file)} is the composed\nmodel, "
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

{fixed_part()}

# ---- this composition -------------------------------------------------------------------------------

{chr(10).join(extra_imports)}

ROOT = Path(__file__).resolve().parents[{depth}]
ORIGINAL = "{relative_to_root(root, comp.original)}"
SEEDS = {COMPOSITION_SEEDS!r}
TOLERANCES = {_tolerances(tolerance)}
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
