"""`hdecomp export DIR... -o PROBLEMS/`: the kernels (`--fusions`: and the fusions) of one or more
decompositions as a KernelBench-format problem set, one standalone file per unique workload, with a manifest.

A kernel file already is a KernelBench problem (`class Model`, `get_inputs()`, `get_init_inputs()`, no
imports of its own folder). Two kernel files are one workload when the decomposer would have written them
as one file (hdecomp.vocab.workload: the same code up to docstrings, the self-test and the names of local
values, `x_3` in one tree, `hidden_states` in another). manifest.json says, per problem: the decompositions, models, tree nodes and instance counts
that use it; its dtype and KernelBench-style tolerance; and, where a decomposition was profiled
(`hdecomp profile`), its FLOPs, bytes and share of each model's time.

Fusion files are workloads the same way. Most are standalone; one that imports other files of its
decomposition (`from children.linear import Model as Fc`) gets their code inlined (`_Standalone`), or is
skipped with the reason where that could change what a name means.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import read_profile_components
from hdecomp.formats.tree import load_decomposition
from hdecomp.vocab.levels import LEVEL_NAMES
from hdecomp.vocab.workload import is_main_block, is_shape_free, strip_docstrings, workload_key

MANIFEST = "manifest.json"
# KernelBench's correctness tolerance (atol = rtol) by dtype
TOLERANCE = {"float32": 1e-4, "float64": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def _dtype(input_dtypes: dict[str, Any]) -> str:
    dtypes = [d for d in (input_dtypes or {}).values() if isinstance(d, str)]
    floats = [d for d in dtypes if d in TOLERANCE]
    return floats[0] if floats else (dtypes[0] if dtypes else "float32")


# ---- fusions: a fusion file that imports other files of its decomposition, made standalone ---------------

# names whose meaning changes when a file's code moves into another module or runs under exec()
_MOVED_MEANING = {"__file__", "__name__", "__spec__", "__loader__", "__builtins__", "globals", "locals", "vars",
                  "eval", "exec", "__import__"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)
_Spec = tuple[Any, ...]
_LOCAL: _Spec = ("local",)
_DEF: _Spec = ("def",)


class _Skip(Exception):
    """A fusion that cannot be made standalone exactly; the message says why."""


def _walk_scope(nodes: list[Any]) -> Iterator[ast.AST]:
    """The nodes of one scope under `nodes`: not those inside a nested function, lambda, class or
    comprehension (a nested def or class itself is yielded: its name is bound here)."""
    todo = list(nodes)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _alias_name(a: ast.alias) -> str:
    return a.asname or a.name.split(".")[0]


def _bound(nodes: list[Any]) -> set[str]:
    """The names a scope binds (assignments, defs, classes, imports, `except ... as`)."""
    names: set[str] = set()
    for node in _walk_scope(nodes):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(_alias_name(a) for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _identifiers(tree: ast.AST) -> set[str]:
    """Every name a file uses or binds, at any depth."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add(_alias_name(n))
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _import_spec(a: ast.alias, node: ast.Import | ast.ImportFrom) -> _Spec:
    """What an import binds its name to, comparable across files."""
    if isinstance(node, ast.Import):
        return ("module", a.name if a.asname else a.name.split(".")[0])
    return ("from", node.level, node.module, a.name)


def _bindings(body: list[ast.stmt], local: set[int]) -> dict[str, list[_Spec]]:
    """Each top-level name -> how each statement binds it: an import's spec, _LOCAL for an import of a
    file of the decomposition (statement ids in `local`), _DEF for anything else."""
    out: dict[str, list[_Spec]] = {}
    for s in body:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                out.setdefault(_alias_name(a), []).append(_LOCAL if id(s) in local else _import_spec(a, s))
        else:
            for name in _bound([s]):
                out.setdefault(name, []).append(_DEF)
    return out


class _Renamer(ast.NodeVisitor):
    """Renames a module's top-level names (`mapping`) wherever they mean that global, not where a local
    shadows them; `free` collects the other global names read (builtins)."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping
        self.shadow: set[str] = set()
        self.free: set[str] = set()

    def _global(self, name: str) -> str | None:
        return None if name in self.shadow else self.mapping.get(name)

    def visit_Name(self, node: ast.Name) -> None:
        new = self._global(node.id)
        if new:
            node.id = new
        elif node.id not in self.shadow and isinstance(node.ctx, ast.Load):
            self.free.add(node.id)

    def _in_scope(self, local: set[str], nodes: list[Any]) -> None:
        saved, self.shadow = self.shadow, self.shadow | local
        for n in nodes:
            self.visit(n)
        self.shadow = saved

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        node.name = self._global(node.name) or node.name
        self._function(node.args, [*node.decorator_list, *([node.returns] if node.returns else [])], node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function(node.args, [], [node.body])

    def _function(self, a: ast.arguments, outer: list[Any], body: list[Any]) -> None:
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
                  *([a.kwarg] if a.kwarg else [])]
        for n in [*outer, *a.defaults, *a.kw_defaults, *(p.annotation for p in params)]:
            if n is not None:
                self.visit(n)
        self._in_scope({p.arg for p in params} | _bound(body), body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        node.name = self._global(node.name) or node.name
        for n in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(n)
        if any(self._global(name) for name in _bound(node.body)):
            # a class body looks a name up in the class first, then in the module: ambiguous once renamed
            raise _Skip(f"class {node.name} binds a module-level name in its body")
        for n in node.body:
            self.visit(n)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        gens = node.generators
        self.visit(gens[0].iter)          # evaluated in the enclosing scope
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        rest = [*(g.target for g in gens), *(i for g in gens for i in g.ifs), *(g.iter for g in gens[1:]), *elts]
        self._in_scope(_bound([g.target for g in gens]), rest)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        node.name = (self._global(node.name) if node.name else None) or node.name
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        raise _Skip("an inlined file uses a `global` statement")

    def visit_Match(self, node: ast.Match) -> None:
        raise _Skip("an inlined file uses a match statement")


def _prunable(s: ast.stmt) -> bool:
    """A definition whose only effect is the name it binds."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return not s.decorator_list
    if isinstance(s, ast.Assign):
        targets, value = s.targets, s.value
    elif isinstance(s, ast.AnnAssign) and s.value is not None:
        targets, value = [s.target], s.value
    else:
        return False
    return all(isinstance(t, ast.Name) for t in targets) and not any(isinstance(n, ast.Call) for n in ast.walk(value))


def _prune(out: list[ast.stmt], candidates: set[int]) -> list[ast.stmt]:
    """`out` without the candidate statements whose names nothing else reads."""
    while True:
        reads = [{n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} for s in out]
        dead = {i for i, s in enumerate(out) if id(s) in candidates
                and not any(_bound([s]) & r for j, r in enumerate(reads) if j != i)}
        if not dead:
            return out
        out = [s for i, s in enumerate(out) if i not in dead]


class _Standalone:
    """A fusion file without imports of its decomposition's files: each imported file's code goes in at
    its import, once, with its top-level names made unique (`_<file>__<name>`; an imported class takes the
    name the fusion imports it as) and what nothing uses left out."""

    def __init__(self, root: Path, path: Path) -> None:
        self.root = root.resolve()
        self.path = path
        # where its imports find files: sys.path as the component loader sets it for the fusion, then the
        # decomposition's root
        self.bases = [path.parent, path.parent / "children", root]
        self.taken: set[str] = set()                # names in use (never given to an inlined definition)
        self.emitted: dict[str, _Spec] = {}         # import names in the output, bound only by that import
        self.done: dict[Path, dict[str, str]] = {}  # an inlined file -> its top-level names in the output
        self.out: list[ast.stmt] = []
        self.inlined: set[int] = set()              # ids of inlined definitions, left out when unused
        self.free: set[str] = set()                 # builtins the inlined code reads

    def build(self, text: str) -> str:
        """The fusion's source, standalone (`text` itself when it imports no file of the decomposition)."""
        path = self.path
        tree = ast.parse(text)
        self._check(path, tree, {"__file__"})     # KernelBench's exec() defines no __file__
        local = {id(s): imp for s in tree.body if (imp := self._local_import(path, s))}
        if not local:
            return text
        top = _bindings(tree.body, set(local))
        self.taken = _identifiers(tree)
        for s in tree.body:
            if id(s) in local:
                self._bring(local[id(s)], (path.resolve(),), {}, top)
                continue
            self.out.append(s)
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    if set(top[_alias_name(a)]) == {_import_spec(a, s)}:
                        self.emitted[_alias_name(a)] = _import_spec(a, s)
        self.out = _prune(self.out, self.inlined)
        clash = self.free & _bound(self.out)
        if clash:
            raise _Skip(f"the inlined code reads {', '.join(sorted(clash))}, which the fusion defines")
        source = ast.unparse(ast.fix_missing_locations(ast.Module(body=self.out, type_ignores=[]))) + "\n"
        try:
            compile(source, str(path), "exec")
        except SyntaxError as exc:
            raise _Skip(f"the standalone file would not compile ({exc})") from exc
        return source

    def _bring(self, local: tuple[Path, list[ast.alias]], stack: tuple[Path, ...], names: dict[str, str],
               bindings: dict[str, list[_Spec]]) -> None:
        """The imported file's code into the output (once), then each imported name bound under the
        importer's name for it (`names`; the fusion, `names` empty, keeps its own)."""
        file, aliases = local
        target = {a.asname or a.name: names.get(a.asname or a.name, a.asname or a.name) for a in aliases}
        prefer: dict[str, str] = {}
        for a in aliases:   # a name only this import binds: the imported definition can take it
            if bindings[a.asname or a.name] == [_LOCAL]:
                prefer.setdefault(a.name, target[a.asname or a.name])
        defined = self._file(file, stack, prefer)
        for a in aliases:
            if a.name not in defined:
                raise _Skip(f"{file.name} defines no {a.name} at its top level")
            if defined[a.name] != target[a.asname or a.name]:
                s = ast.Assign(targets=[ast.Name(target[a.asname or a.name], ast.Store())],
                               value=ast.Name(defined[a.name], ast.Load()))
                self.out.append(s)
                if names:   # an inlined file's own name: left out when unused
                    self.inlined.add(id(s))

    def _file(self, file: Path, stack: tuple[Path, ...], prefer: dict[str, str]) -> dict[str, str]:
        """Inline one imported file; its top-level names -> their names in the output."""
        key = file.resolve()
        if key in stack:
            raise _Skip(f"{file.name} imports itself (through {' -> '.join(p.name for p in stack)})")
        if key in self.done:
            return self.done[key]
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError) as exc:
            raise _Skip(f"cannot read {file.name} ({exc})") from exc
        self._check(file, tree, _MOVED_MEANING)
        body = [s for s in strip_docstrings(tree, nested=False).body if not is_main_block(s)]
        local = {id(s): imp for s in body if (imp := self._local_import(file, s))}
        bindings = _bindings(body, set(local))
        stem = re.sub(r"\W", "_", file.stem).lstrip("_") or "file"
        others, names = set(self.taken), {}
        self.taken |= _identifiers(tree)
        for name, specs in sorted(bindings.items()):
            if specs[0][0] in ("module", "from") and set(specs) == {specs[0]} and \
                    (self.emitted.get(name) == specs[0] or name not in others):
                names[name] = name    # an import the output has already, or can have under its own name
            else:
                names[name] = prefer.get(name) or self._fresh(f"_{stem}__{name}")
        self.done[key] = names
        renamer = _Renamer(names)
        for s in body:
            if id(s) in local:
                self._bring(local[id(s)], (*stack, key), names, bindings)
                continue
            if isinstance(s, (ast.Import, ast.ImportFrom)):   # without what the output imports already
                # (`import a.b` stays: it also loads a.b, and binds `a` to the same module again)
                s.names = [a for a in s.names if self.emitted.get(names[_alias_name(a)]) != _import_spec(a, s)
                           or (isinstance(s, ast.Import) and "." in a.name and not a.asname)]
                if not s.names:
                    continue
                if isinstance(s, ast.ImportFrom) and s.module == "__future__":
                    raise _Skip(f"{file.name}: `{ast.unparse(s)}`, which the fusion does not have first")
            else:
                renamer.visit(s)
            for node in _walk_scope([s]):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                for a in node.names:
                    new = names[_alias_name(a)]
                    if new == _alias_name(a):
                        if node is s:
                            self.emitted.setdefault(new, _import_spec(a, node))
                    elif isinstance(node, ast.Import) and "." in a.name and not a.asname:
                        raise _Skip(f"{file.name}: `import {a.name}` would need another name")
                    else:
                        a.asname = new
            self.out.append(s)
            if _prunable(s):
                self.inlined.add(id(s))
        self.free |= renamer.free
        return names

    def _fresh(self, base: str) -> str:
        name, i = base, 2
        while name in self.taken:
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name

    def _check(self, path: Path, tree: ast.Module, forbidden: set[str]) -> None:
        for node in ast.walk(ast.Module(body=[s for s in tree.body if not is_main_block(s)], type_ignores=[])):
            if isinstance(node, ast.Name) and node.id in forbidden:
                raise _Skip(f"{path.name} uses {node.id}")
            if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
                    and node.value.id == "sys":
                raise _Skip(f"{path.name} uses sys.path")

    def _local_import(self, path: Path, stmt: ast.stmt) -> tuple[Path, list[ast.alias]] | None:
        """(the file, the names) when `stmt` is `from <a file of the decomposition> import NAME, ...`;
        _Skip for any other import of the decomposition's files (`import children.x`, `from children
        import x`, `*`, one inside a function or a block)."""
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and (found := self._resolve(path, node)):
                if node is not stmt or not isinstance(node, ast.ImportFrom) or found.is_dir() or \
                        any(a.name == "*" for a in node.names):
                    raise _Skip(f"{path.name} line {node.lineno}: `{ast.unparse(node)}` (only a top-level "
                                "`from FILE import NAME` of a file of the decomposition can be inlined)")
                return found, node.names
        return None

    def _resolve(self, path: Path, node: ast.Import | ast.ImportFrom) -> Path | None:
        """The decomposition's file or folder an import in `path` names (see `bases`; a relative import:
        from `path`'s folder, in an imported file only); None for another module."""
        level = node.level if isinstance(node, ast.ImportFrom) else 0
        bases = [path.parents[level - 1]] if 0 < level <= len(path.parents) and path != self.path else \
            [] if level else self.bases
        for module in [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]:
            parts = module.split(".") if module else []
            for base in bases:
                target = base.joinpath(*parts)
                for found in (target.parent / f"{target.name}.py", target) if parts else (target,):
                    if found.exists() and found.resolve().is_relative_to(self.root):
                        return found
            if level or parts[0] == "children":
                raise _Skip(f"{path.name} line {node.lineno}: `{ast.unparse(node)}` names no file of the "
                            "decomposition, and fails under KernelBench's exec()")
        return None


def _standalone_fusion(path: Path, root: Path, text: str) -> tuple[str, list[str]]:
    """The fusion file's source as a standalone file, and the decomposition's files it inlined (relative to
    `root`); _Skip with the reason when it imports one of them in a way that cannot be inlined exactly."""
    s = _Standalone(root, path)
    text = s.build(text)
    return text, sorted(p.relative_to(s.root).as_posix() for p in s.done)


def _file_name(stem: str, model: str, files: dict[str, Any]) -> str:
    """`stem.py`; `stem__model.py` when another workload (a kernel, a fusion, another tree's) has that name."""
    name, i = f"{stem}.py", 2
    while name in files:
        name, i = (f"{stem}__{model}.py" if i == 2 else f"{stem}__{model}_{i - 1}.py"), i + 1
    return name


def export_problems(roots: list[str | Path], out: str | Path, *, fusions: bool = False) -> dict[str, Any]:
    """Write one file per unique kernel workload (with `fusions`, per unique fusion workload too) of the
    decompositions at `roots` into `out`, with manifest.json; returns the manifest. A fusion file that
    imports other files of its decomposition is written with their code inlined, or, where that cannot
    be done exactly, left out and listed under `skipped` with the reason."""
    out = Path(out)
    trees = [(Path(r), load_decomposition(r)) for r in roots]
    problems: dict[tuple[int, str], dict[str, Any]] = {}   # (level, workload key) -> manifest entry
    files: dict[str, Path | str] = {}                       # exported name -> source file, or its text
    sources: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    profiles = {root: read_profile_components(root) for root, _ in trees}
    for root, tree in trees:
        sources.append({"decomposition": str(root), "model": tree.root_id, "profiled": bool(profiles[root])})
    # all kernels first: a kernel's file name does not depend on --fusions
    for level in (0, 1) if fusions else (0,):
        kind = LEVEL_NAMES[level]
        for root, tree in trees:
            model = tree.root_id
            for nid, node in sorted(tree.nodes.items()):
                if node.level != level or not node.path:
                    continue
                src = root / node.path
                inlined: list[str] = []
                try:
                    text = src.read_text(encoding="utf-8")
                    if level == 1:
                        standalone, inlined = _standalone_fusion(src, root, text)
                    key = workload_key(standalone if level == 1 else text,
                                       shape_free=is_shape_free(level == 0, [str(o) for o in node.extra.get("ops") or []]))
                except _Skip as exc:
                    skipped.append({"level": kind, "decomposition": str(root), "model": model, "node": nid,
                                    "path": node.path, "reason": str(exc)})
                    continue
                except (OSError, UnicodeDecodeError, SyntaxError) as exc:
                    raise HdecompError(f"cannot read the {kind} file ({exc})", src) from exc
                entry = problems.get((level, key))
                if entry is None:
                    name = _file_name(Path(node.path).stem, model or root.name, files)
                    files[name] = standalone if inlined else src
                    dtype = _dtype(node.input_dtypes)
                    entry = problems[level, key] = {
                        "file": name, "workload": key, "level": kind, kind: nid, "dtype": dtype,
                        "tolerance": {"atol": TOLERANCE.get(dtype, 1e-4), "rtol": TOLERANCE.get(dtype, 1e-4)},
                        "input_shapes": node.input_shapes, "uses": []}
                    if inlined:
                        entry["inlined"] = inlined
                use: dict[str, Any] = {"decomposition": str(root), "model": model, "node": nid,
                                       "path": node.path, "instances": int(node.instance_count or 1)}
                p = profiles[root].get(nid)
                if p is not None:
                    use.update({"flops": p["flops"], "bytes": p["bytes"], "seconds": p["seconds"],
                                "share_of_model": p["share_of_model"]})
                    entry.setdefault("flops", p["flops"])
                    entry.setdefault("bytes", p["bytes"])
                entry["uses"].append(use)
    if out.exists() and not out.is_dir():
        raise HdecompError("the output is a file, not a folder", out)
    out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, Path):
            shutil.copyfile(content, out / name)
        else:
            (out / name).write_text(content, encoding="utf-8")
    manifest: dict[str, Any] = {"format": "KernelBench (class Model, get_inputs(), get_init_inputs())",
                                "sources": sources,
                                "problems": sorted(problems.values(), key=lambda e: e["file"])}
    if fusions:
        manifest["skipped"] = skipped
    write_json_atomic(out / MANIFEST, manifest)
    return manifest


__all__ = ["MANIFEST", "TOLERANCE", "export_problems"]
