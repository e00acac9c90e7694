"""`hdecomp export DIR... -o PROBLEMS/`: the kernels of one or more decompositions as a KernelBench-format
problem set, one standalone file per unique workload, with a manifest.

A kernel file already is a KernelBench problem (`class Model`, `get_inputs()`, `get_init_inputs()`, no
imports of its own folder). Two kernel files are one workload when their code is the same up to
docstrings, the self-test block and the names of local values (`x_3` in one tree, `hidden_states` in
another): the module's syntax tree with every function's arguments and locals renamed in order of
appearance. manifest.json says, per problem: the decompositions, models, tree nodes and instance counts
that use it; its dtype and KernelBench-style tolerance; and, where a decomposition was profiled
(`hdecomp profile`), its FLOPs, bytes and share of each model's time.
"""

from __future__ import annotations

import ast
import hashlib
import shutil
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import read_profile_components
from hdecomp.formats.tree import load_decomposition

MANIFEST = "manifest.json"
# KernelBench's correctness tolerance (atol = rtol) by dtype
TOLERANCE = {"float32": 1e-4, "float64": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


class _Canonical(ast.NodeTransformer):
    """Renames each function's arguments and local names to v0, v1, ... and each class's own attributes
    (`self.fc`, `self.proj`) to a0, a1, ... in order of appearance."""

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        attrs: dict[str, str] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self" \
                    and isinstance(sub.ctx, ast.Store):
                attrs.setdefault(sub.attr, f"a{len(attrs)}")
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self" \
                    and sub.attr in attrs:
                sub.attr = attrs[sub.attr]
        node.body = _without_docstring(node.body)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        names: dict[str, str] = {}
        for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            if a.arg != "self":
                names.setdefault(a.arg, f"v{len(names)}")
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.setdefault(sub.id, f"v{len(names)}")
        for sub in ast.walk(node):
            if isinstance(sub, ast.arg) and sub.arg in names:
                sub.arg = names[sub.arg]
            elif isinstance(sub, ast.Name) and sub.id in names:
                sub.id = names[sub.id]
        node.body = _without_docstring(node.body)
        return node


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:] or [ast.Pass()]
    return body


def _is_main_block(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and \
        isinstance(stmt.test.left, ast.Name) and stmt.test.left.id == "__name__"


def workload_key(source: str) -> str:
    """The workload a kernel file defines, as a hash of its canonical syntax tree (see the module's doc)."""
    tree = ast.parse(source)
    body = [s for s in _without_docstring(tree.body) if not _is_main_block(s)]
    # the self-test's expectations and helpers are derived from the workload; keep them out of the key
    body = [s for s in body if not (isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and
                                                                      t.id == "EXPECTED_OUTPUTS" for t in s.targets))
            and not (isinstance(s, ast.FunctionDef) and s.name == "_tensors")]
    canonical = _Canonical().visit(ast.Module(body=body, type_ignores=[]))
    return hashlib.sha256(ast.dump(canonical, annotate_fields=False).encode()).hexdigest()[:16]


def _dtype(input_dtypes: dict[str, Any]) -> str:
    dtypes = [d for d in (input_dtypes or {}).values() if isinstance(d, str)]
    floats = [d for d in dtypes if d in TOLERANCE]
    return floats[0] if floats else (dtypes[0] if dtypes else "float32")


def export_problems(roots: list[str | Path], out: str | Path, *, fusions: bool = False) -> dict[str, Any]:
    """Write one file per unique kernel workload of the decompositions at `roots` into `out`, with
    manifest.json; returns the manifest. `fusions`: not supported yet (a fusion file imports its kernels)."""
    if fusions:
        raise HdecompError("--fusions is not supported yet: a fusion file imports its kernel files; export "
                           "the kernels, or run the fusion from its decomposition folder")
    out = Path(out)
    problems: dict[str, dict[str, Any]] = {}     # workload key -> manifest entry
    sources: list[dict[str, Any]] = []
    files: dict[str, Path] = {}                  # exported name -> source file
    for r in roots:
        root = Path(r)
        tree = load_decomposition(root)
        model = tree.root_id
        profiled = read_profile_components(root)
        sources.append({"decomposition": str(root), "model": model, "profiled": bool(profiled)})
        for nid, node in sorted(tree.nodes.items()):
            if node.level != 0 or not node.path:
                continue
            src = root / node.path
            try:
                text = src.read_text(encoding="utf-8")
                key = workload_key(text)
            except (OSError, UnicodeDecodeError, SyntaxError) as exc:
                raise HdecompError(f"cannot read the kernel file ({exc})", src) from exc
            entry = problems.get(key)
            if entry is None:
                name = f"{Path(node.path).stem}.py"
                if name in files:   # the same name for another workload in another tree
                    name = f"{Path(node.path).stem}__{model}.py"
                files[name] = src
                dtype = _dtype(node.input_dtypes)
                entry = problems[key] = {"file": name, "workload": key, "kernel": nid, "dtype": dtype,
                                         "tolerance": {"atol": TOLERANCE.get(dtype, 1e-4),
                                                       "rtol": TOLERANCE.get(dtype, 1e-4)},
                                         "input_shapes": node.input_shapes, "uses": []}
            use: dict[str, Any] = {"decomposition": str(root), "model": model, "node": nid, "path": node.path,
                                   "instances": int(node.instance_count or 1)}
            p = profiled.get(nid)
            if p is not None:
                use.update({"flops": p["flops"], "bytes": p["bytes"], "seconds": p["seconds"],
                            "share_of_model": p["share_of_model"]})
                entry.setdefault("flops", p["flops"])
                entry.setdefault("bytes", p["bytes"])
            entry["uses"].append(use)
    if out.exists() and not out.is_dir():
        raise HdecompError("the output is a file, not a folder", out)
    out.mkdir(parents=True, exist_ok=True)
    for name, src in files.items():
        shutil.copyfile(src, out / name)
    manifest = {"format": "KernelBench (class Model, get_inputs(), get_init_inputs())",
                "sources": sources, "problems": sorted(problems.values(), key=lambda e: e["file"])}
    write_json_atomic(out / MANIFEST, manifest)
    return manifest


__all__ = ["MANIFEST", "TOLERANCE", "export_problems", "workload_key"]
