"""Structural anti-cheat: checks on the loaded models and their recorded op traces.

  HD301  a parameter or buffer of RefactoredModel that does not live under a child
  HD302  a child's source imports original.py (the parent, reused)
  HD303  a child class subclasses the original Model
  HD304  a child file (or class) is a copy of original.py, up to whitespace, comments and docstrings
  HD305  one child runs the whole parent's compute (the parent in disguise)
  HD306  a child is never called during forward
  HD307  the refactored model runs different aten compute ops than the original (Counter diff listed)
  HD308  ops invisible at the aten level in eval mode (dropout) differ at the torch-function level
  HD309  a child is defined in refactored.py itself instead of under children/
  HD310  a child's forward or __call__ is replaced (monkeypatched) or defined outside its own file
  HD311  a child is a raw torch module (nn.Linear...), not a component file under children/
  HD312  a child is run from inside another child (a kernel secretly fused with its neighbour)
  HD313  a child's constructor received a function, callable or module from the parent (Pointwise(torch.sigmoid)):
         the op is the parent's choice, the child's file does not test it
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import textwrap
import threading
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import nn

from hdecomp.anticheat.rules import AntiCheatViolation, SourceRange
from hdecomp.runtime.component import class_source_file
from hdecomp.runtime.ops import OpTrace, format_counter_diff
from hdecomp.vocab.workload import normalized_dump, strip_docstrings

HD301, HD302, HD303, HD304, HD305 = "HD301", "HD302", "HD303", "HD304", "HD305"
HD306, HD307, HD308, HD309, HD310 = "HD306", "HD307", "HD308", "HD309", "HD310"
HD311, HD312, HD313 = "HD311", "HD312", "HD313"

_CONTAINERS = (nn.ModuleList, nn.ModuleDict, nn.Sequential)


def component_children(model: nn.Module) -> list[tuple[str, nn.Module]]:
    """The model's children, with ModuleList/ModuleDict containers unpacked to their elements."""
    out: list[tuple[str, nn.Module]] = []

    def visit(prefix: str, mod: nn.Module) -> None:
        for name, child in mod.named_children():
            qn = f"{prefix}.{name}" if prefix else name
            if type(child) in _CONTAINERS:   # torch's own containers; a component subclassing one is a child
                visit(qn, child)
            else:
                out.append((qn, child))

    visit("", model)
    return out


def _class_range(path: Path | None, class_name: str) -> SourceRange | None:
    """The header line of `class_name` in `path`, for violations that concern the whole class."""
    tree = _parse(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return SourceRange(node.lineno, node.col_offset, node.lineno, node.col_offset + 6 + len(node.name))
    return None


def _parse(path: Path | None) -> ast.Module | None:
    if path is None:
        return None
    try:
        p = Path(path).resolve()
        return _parse_cached(str(p), p.stat().st_mtime_ns)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None


@functools.lru_cache(maxsize=64)
def _parse_cached(path: str, mtime_ns: int) -> ast.Module:
    # Parsed trees are only read (ast.walk), never changed: safe to share between calls.
    return ast.parse(Path(path).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=64)
def _dump_cached(source: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """(normalized dump, class keys) of a source text."""
    return normalized_dump(source), tuple(class_keys(source).items())


def _attr_range(path: Path | None, attr: str, any_owner: bool = False) -> SourceRange | None:
    """Where `self.<attr>` is first assigned (the child's construction in __init__);
    `any_owner`: also `<anything>.<attr> = ...` (a patched `self.fc1.forward`)."""
    tree = _parse(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr == attr and (any_owner or (
                        isinstance(t.value, ast.Name) and t.value.id == "self")):
                    return SourceRange(t.lineno, t.col_offset, t.end_lineno or t.lineno, t.end_col_offset or 0)
    return None


def _method_range(path: Path | None, class_name: str, method: str = "forward") -> SourceRange | None:
    """The `def forward(...)` header of `class_name` (for whole-forward findings)."""
    tree = _parse(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                    return SourceRange(item.lineno, item.col_offset, item.lineno, item.col_offset + 4 + len(method))
            return SourceRange(node.lineno, node.col_offset, node.lineno, node.col_offset + 6 + len(node.name))
    return None


def _source_file(obj: Any) -> Path | None:
    if isinstance(obj, type):
        return class_source_file(obj)
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is not None:
        return None if code.co_filename.startswith("<") else Path(code.co_filename).resolve()
    try:
        f = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (TypeError, OSError):
        return None
    return Path(f).resolve() if f and not f.startswith("<") else None


def _own_class(module: nn.Module) -> type:
    """The module's class as its file defines it: torch.nn.utils.parametrize puts a parametrized module
    (weight_norm) into a `Parametrized<Class>` subclass made at run time."""
    from torch.nn.utils import parametrize
    cls = type(module)
    return cls.__bases__[0] if parametrize.is_parametrized(module) and cls.__bases__ else cls


def _forward_file(forward: Any, step_dir: Path) -> Path | None:
    """The file a forward is defined in, seen through decorators (functools.wraps: transformers wraps
    forwards in `deprecate_kwarg`, `can_return_tuple`) written in installed packages, i.e. outside the
    step folder: a wrapper written in the step (refactored.py, a child) is the forward itself."""
    step_dir = step_dir.resolve()
    fn = forward
    for _ in range(16):
        inner = getattr(fn, "__wrapped__", None)
        here = _source_file(fn)
        if inner is None or here is None or here.is_relative_to(step_dir):
            break
        fn = inner
    return _source_file(fn)


def class_keys(source: str) -> dict[str, str]:
    """class name -> what the class computes, as comparable text (see _ClassKeys): equal for a renamed or
    verbatim copy, and for wrappers of the same class built the same way; different for thin wrappers of
    different classes (`class Model(Stage)` vs `class Model(Block)`, both `super().__init__(4)`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    strip_docstrings(tree)
    keys = _ClassKeys(tree)
    return {n.name: keys.key(n.name) for n in tree.body if isinstance(n, ast.ClassDef)}


@functools.lru_cache(maxsize=128)
def _reachable_classes(source: str, name: str) -> tuple[str, ...]:
    """`name` and the top-level classes of the file it uses (bases, constructors, ...), transitively."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    if name not in defs:
        return tuple(n for n, d in defs.items() if isinstance(d, ast.ClassDef))  # not found: judge every class
    seen: list[str] = []
    todo = [name]
    while todo:
        cur = todo.pop()
        if cur in seen or cur not in defs:
            continue
        seen.append(cur)
        todo.extend(n.id for n in ast.walk(defs[cur]) if isinstance(n, ast.Name) and n.id in defs)
    return tuple(n for n in seen if isinstance(defs[n], ast.ClassDef))


class _ClassKeys:
    """Comparable text for what a class of one file computes, independent of the names it is given:

      - a thin wrapper (`class Model(Block): __init__ only calling super().__init__(args)`, or
        `self.m = Block(args)` with forward returning `self.m(...)`) is ("wrap", key(Block), args);
      - any other class is its dump without its name and docstrings, every use of another top-level class or
        function of the same file replaced by that one's key (bases from outside the file are left out, as
        a renamed copy may spell `nn.Module` differently).
    Two classes are copies of each other when their keys are equal."""

    def __init__(self, tree: ast.Module) -> None:
        self.defs = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef,
                                                                    ast.AsyncFunctionDef))}
        self.cache: dict[str, str] = {}
        self.active: set[str] = set()

    def key(self, name: str) -> str:
        if name in self.cache:
            return self.cache[name]
        if name in self.active:
            return f"<recursive {name}>"
        self.active.add(name)
        try:
            node = self.defs[name]
            wrapped = self.thin_wrapper(node) if isinstance(node, ast.ClassDef) else None
            if wrapped is not None:
                inner, args = wrapped
                key = f"wrap({self.key(inner)}; {args})"
            else:
                key = self.dump(node)
        finally:
            self.active.discard(name)
        self.cache[name] = key
        return key

    def dump(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        keys = self

        class Sub(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name) -> ast.AST:
                if n.id in keys.defs and n.id != node.name:
                    return ast.Constant(value=f"<def {keys.key(n.id)}>")
                return n

        clone = Sub().visit(_copy_tree(node))
        if isinstance(clone, ast.ClassDef):
            # local bases (as keys) and imported ones (`class Model(GPT2Attention)` computes what that
            # class does); only the spellings of nn.Module itself are left out (a renamed copy may write
            # `nn.Module`, `torch.nn.Module` or `Module`)
            clone.bases = [b for b in clone.bases if isinstance(b, ast.Constant) or not _is_module_base(b)]
        clone.name = "_"  # type: ignore[union-attr]
        return ast.dump(clone)

    def thin_wrapper(self, cls: ast.ClassDef) -> tuple[str, str] | None:
        """(wrapped top-level class, dump of its constructor arguments) for a thin wrapper, else None."""
        body = [s for s in cls.body if not isinstance(s, ast.Pass)]
        methods = {s.name: s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if len(methods) != len(body) or "__init__" not in methods or set(methods) - {"__init__", "forward"}:
            return None
        init = methods["__init__"]
        stmts = [s for s in init.body if not isinstance(s, ast.Pass)]
        local_bases = [b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in self.defs]
        if len(local_bases) == 1 and len(cls.bases) == 1 and "forward" not in methods and len(stmts) == 1:
            call = _super_init_call(stmts[0])
            if call is not None:  # class Model(Block): super().__init__(4)
                return local_bases[0], _args_dump(call)
        if "forward" not in methods or len(stmts) != 2 or _super_init_call(stmts[0]) is None:
            return None
        assign = stmts[1]
        if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.value, ast.Call)
                and isinstance(assign.value.func, ast.Name) and assign.value.func.id in self.defs):
            return None
        target = assign.targets[0]
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
            return None
        fwd = methods["forward"].body
        if len(fwd) != 1 or not isinstance(fwd[0], ast.Return) or not isinstance(fwd[0].value, ast.Call):
            return None
        called = fwd[0].value.func
        if not (isinstance(called, ast.Attribute) and called.attr == target.attr and isinstance(called.value, ast.Name)
                and called.value.id == "self"):
            return None
        return assign.value.func.id, _args_dump(assign.value)  # self.m = Block(4); return self.m(x)


def _is_module_base(base: ast.expr) -> bool:
    """`nn.Module`, `torch.nn.Module`, `Module` (any spelling of torch.nn.Module as a base)."""
    return (isinstance(base, ast.Name) and base.id == "Module") or \
        (isinstance(base, ast.Attribute) and base.attr == "Module")


def _copy_tree(node: ast.AST) -> ast.AST:
    import copy
    return copy.deepcopy(node)


def _super_init_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of `super().__init__(...)` (or `Base.__init__(self, ...)`) that `stmt` is, else None."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    f = stmt.value.func
    if isinstance(f, ast.Attribute) and f.attr == "__init__":
        if isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) and f.value.func.id == "super":
            return stmt.value
        if isinstance(f.value, ast.Name):
            call = stmt.value
            return ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords)
    return None


def _args_dump(call: ast.Call) -> str:
    return ast.dump(ast.Call(func=ast.Name(id="_"), args=call.args, keywords=call.keywords))


@functools.lru_cache(maxsize=128)
def _imports_original(source: str, original_stem: str) -> int | None:
    """Line of an import of the original file's module (`import original`, `from original import`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name.split(".")[-1] == original_stem for a in node.names):
                return node.lineno
        elif isinstance(node, ast.ImportFrom):
            mod = (node.module or "").split(".")
            if mod and mod[-1] == original_stem:
                return node.lineno
            if any(a.name == original_stem for a in node.names):
                return node.lineno
        elif isinstance(node, ast.Call):
            # importlib / runpy / exec(open(...)) of the original by path
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and \
                        Path(arg.value).name == f"{original_stem}.py":
                    return node.lineno
    return None


def check_parameters(refactored: nn.Module, refactored_path: Path | None = None,
                     class_name: str = "RefactoredModel") -> list[AntiCheatViolation]:
    """HD301: every parameter and buffer of the refactored model lives under a child."""
    children = {qn for qn, _ in component_children(refactored)}
    found: list[AntiCheatViolation] = []
    rng = _class_range(refactored_path, class_name)
    items = [("parameter", n, t) for n, t in refactored.named_parameters(remove_duplicate=False)] + \
            [("buffer", n, t) for n, t in refactored.named_buffers(remove_duplicate=False)]
    for kind, name, t in items:
        if any(name.startswith(c + ".") for c in children):
            continue
        found.append(AntiCheatViolation(
            rule=HD301, kind="structural", file=str(refactored_path) if refactored_path else None,
            range=_attr_range(refactored_path, name.split(".")[0]) or rng,
            message=f"{kind} '{name}' {list(t.shape)} is owned by {class_name} itself, not by a child",
            allowed_instead="move the tensor into the child component that uses it",
            details={"tensor": name, "kind": kind, "shape": list(t.shape)}))
    return found


def check_disguise(refactored: nn.Module, original_path: Path, original_class: type | None = None,
                   refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD302-HD304, HD309, HD310: no child is the parent in disguise, and children are what they say."""
    original_path = Path(original_path).resolve()
    try:
        orig_source = original_path.read_text(encoding="utf-8")
    except OSError:
        orig_source = ""
    orig_dump, orig_key_items = _dump_cached(orig_source)
    orig_model_key = dict(orig_key_items).get(original_class.__name__ if original_class else "Model")
    ref_file = Path(refactored_path).resolve() if refactored_path else None
    found: list[AntiCheatViolation] = []
    checked_files: set[Path] = set()
    for qn, child in component_children(refactored):
        cls = _own_class(child)
        cfile = _source_file(cls)
        label = f"child '{qn}' ({cls.__name__})"
        # HD303: the original Model anywhere in the child's class hierarchy.
        for base in cls.__mro__[1:]:
            bfile = _source_file(base)
            if (original_class is not None and base is original_class) or \
                    (bfile is not None and bfile == original_path):
                found.append(AntiCheatViolation(
                    rule=HD303, kind="structural", file=str(cfile) if cfile else None,
                    message=f"{label} subclasses {base.__name__} from {original_path.name}: the parent itself",
                    allowed_instead="write the child's own forward with only the ops it owns",
                    details={"child": qn, "base": base.__name__}))
                break
        if cls.__module__.startswith("torch."):
            found.append(AntiCheatViolation(
                rule=HD311, kind="structural", file=str(refactored_path) if refactored_path else None,
                range=_attr_range(refactored_path, qn.split(".")[0]),
                message=f"child '{qn}' is a raw {cls.__module__}.{cls.__name__}, not a component",
                allowed_instead="wrap it in a component file under children/ and instantiate that"))
            continue
        if cfile is not None and cfile == original_path:
            found.append(AntiCheatViolation(
                rule=HD302, kind="structural", file=str(cfile),
                message=f"{label} is the original Model class loaded from {original_path.name}",
                allowed_instead="children must be new files under children/"))
            continue
        if cfile is not None and ref_file is not None and cfile == ref_file:
            found.append(AntiCheatViolation(
                rule=HD309, kind="structural", file=str(ref_file), range=_class_range(ref_file, cls.__name__),
                message=f"{label} is defined in refactored.py itself, not in a file under children/",
                allowed_instead="move the class into its own file under children/ and import it"))
        # HD310: forward / __call__ replaced on the instance or the class (but for a class that picks one of its
        # own methods as the forward in its __init__: timm's Partial_conv3, `self.forward = self.forward_split_cat`)
        if ("forward" in vars(child) and not own_forward_choice(child)) or "__call__" in vars(child):
            found.append(AntiCheatViolation(
                rule=HD310, kind="structural", file=str(refactored_path) if refactored_path else None,
                range=_attr_range(refactored_path, "forward", any_owner=True),
                message=f"{label}: forward replaced on the instance (monkeypatching)",
                allowed_instead="call the child as it is defined in its own file"))
        elif cls.__call__ is not nn.Module.__call__ and _source_file(cls.__call__) != cfile:
            found.append(AntiCheatViolation(
                rule=HD310, kind="structural", file=str(refactored_path) if refactored_path else None,
                message=f"{label}: __call__ is overridden outside the child's file",
                allowed_instead="do not override __call__; put the child's work in its forward()"))
        else:
            ffile = _forward_file(getattr(cls, "forward", None), original_path.parent)
            own_files = {_source_file(b) for b in cls.__mro__}
            if cfile is not None and ffile not in own_files:
                found.append(AntiCheatViolation(
                    rule=HD310, kind="structural", file=str(ffile) if ffile else None,
                    message=f"{label}: forward is defined outside the child's file "
                            f"({ffile.name if ffile else 'built at runtime'}): monkeypatched",
                    allowed_instead="keep the child's forward in its own file"))
        if cfile is None or cfile in checked_files:
            continue
        checked_files.add(cfile)
        try:
            csource = cfile.read_text(encoding="utf-8")
        except OSError:
            continue
        line = _imports_original(csource, original_path.stem)
        if line is not None:
            found.append(AntiCheatViolation(
                rule=HD302, kind="structural", file=str(cfile),
                range=SourceRange(line, 0, line, len(csource.splitlines()[line - 1])),
                line_text=csource.splitlines()[line - 1].strip(),
                message=f"{cfile.name} imports the parent ({original_path.name})",
                allowed_instead="a child must not reuse the parent; give it only its own ops"))
        child_dump, child_key_items = _dump_cached(csource)
        if orig_dump is not None and child_dump == orig_dump:
            found.append(AntiCheatViolation(
                rule=HD304, kind="structural", file=str(cfile), range=SourceRange(1, 0, 1, 0),
                message=f"{cfile.name} is a copy of {original_path.name} (same code up to layout, comments "
                        f"and docstrings)", allowed_instead="a child holds a part of the parent, not all of it"))
        elif orig_model_key is not None:
            # the classes the child uses (its class, what it wraps or builds, transitively), compared by what
            # they compute: a wrapper of another carried-over class is not a copy of a wrapper of this one
            child_keys = dict(child_key_items)
            for cname in _reachable_classes(csource, cls.__name__):
                if child_keys.get(cname) == orig_model_key:
                    found.append(AntiCheatViolation(
                        rule=HD304, kind="structural", file=str(cfile), range=_class_range(cfile, cname),
                        message=f"class {cname} in {cfile.name} is a copy of the original Model class "
                                f"(the same code, or a wrapper of the same class built the same way)",
                        allowed_instead="a child holds a part of the parent, not all of it"))
                    break
    return found


# ---------------------------------------------------------------------------------------------------------
# HD313: what the parent hands to a child's constructor
# ---------------------------------------------------------------------------------------------------------

_DATA_TYPES = (int, float, bool, str, bytes, complex)
_ctor_state = threading.local()


@contextlib.contextmanager
def recording_constructor_arguments(modules: Iterable[ModuleType]) -> Iterator[list[tuple[Any, list[tuple[str, str]]]]]:
    """While the refactored model is built: every nn.Module class defined in `modules` (its children/ files)
    records the callables and modules its constructor receives, for constructions made from outside those
    classes (a child's own file may build its parts as it likes). Yields [(weakref to the instance,
    [(which argument, what it is)])]; the classes are restored afterwards."""
    found: list[tuple[Any, list[tuple[str, str]]]] = []
    patched: list[tuple[type, Any]] = []
    seen: set[int] = set()
    for mod in modules:
        for obj in list(vars(mod).values()):
            if not (isinstance(obj, type) and issubclass(obj, nn.Module) and obj.__module__ == mod.__name__
                    and "__init__" in vars(obj) and id(obj) not in seen):
                continue
            seen.add(id(obj))
            orig = vars(obj)["__init__"]
            patched.append((obj, orig))
            obj.__init__ = _recording_init(orig, found)  # type: ignore[method-assign]
    try:
        yield found
    finally:
        for cls, orig in reversed(patched):
            cls.__init__ = orig  # type: ignore[method-assign]


def _recording_init(orig: Any, found: list[tuple[Any, list[tuple[str, str]]]]) -> Any:
    @functools.wraps(orig)
    def __init__(self: nn.Module, *args: Any, **kwargs: Any) -> None:
        depth = getattr(_ctor_state, "depth", 0)
        _ctor_state.depth = depth + 1
        try:
            orig(self, *args, **kwargs)
        finally:
            _ctor_state.depth = depth
        if depth == 0:
            what: list[tuple[str, str]] = []
            for i, a in enumerate(args):
                _callables(a, f"argument {i + 1}", what, 0)
            for k, v in kwargs.items():
                _callables(v, f"`{k}=`", what, 0)
            if what:
                found.append((weakref.ref(self), what))
    return __init__


def _callables(value: Any, where: str, out: list[tuple[str, str]], depth: int) -> None:
    """Functions, callables, classes and modules in a constructor argument (containers searched)."""
    if depth > 4 or len(out) >= 3 or isinstance(value, (torch.Tensor, *_DATA_TYPES)) or value is None:
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _callables(v, f"{where}[{i}]", out, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _callables(v, f"{where}[{k!r}]", out, depth + 1)
    elif isinstance(value, nn.Module):
        out.append((where, f"the module {type(value).__name__}"))
    elif isinstance(value, type):
        if issubclass(value, _DATA_TYPES) or value.__module__.split(".")[0] == "numpy":
            return  # a dtype-like class (float, np.float32)
        out.append((where, f"the class {value.__module__}.{value.__qualname__}"))
    elif callable(value):
        func = value.func if isinstance(value, functools.partial) else value
        name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__name__
        module = getattr(func, "__module__", None)
        label = f"{module}.{name}" if module and module != "builtins" else str(name)
        out.append((where, f"functools.partial({label}, ...)" if func is not value else f"the callable {label}"))


def check_constructor_arguments(refactored: nn.Module, records: list[tuple[Any, list[tuple[str, str]]]],
                                refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD313: a child constructed with a function, callable or module runs an op the parent chose."""
    by_id = {id(obj): what for ref, what in records if (obj := ref()) is not None}
    found = []
    for qn, child in component_children(refactored):
        what = by_id.get(id(child))
        if not what:
            continue
        where, desc = what[0]
        found.append(AntiCheatViolation(
            rule=HD313, kind="structural", file=str(refactored_path) if refactored_path else None,
            range=_attr_range(refactored_path, qn.split(".")[0]),
            message=f"child '{qn}' ({type(child).__name__}) was constructed with {desc} ({where}): the op is "
                    f"chosen by the parent, so the child's file is not a standalone test of any kernel",
            allowed_instead="move the op into the child: its forward calls the op itself and its constructor "
                            "takes plain data only (sizes, flags, strings, dtypes)",
            details={"child": qn, "arguments": [{"argument": w, "value": d} for w, d in what]}))
    return found


def check_children_called(refactored: nn.Module, trace: OpTrace,
                          refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD306: every child component ran at least once during the recorded forward."""
    found = []
    for qn, child in component_children(refactored):
        if trace.module_calls.get(qn, 0) == 0:
            found.append(AntiCheatViolation(
                rule=HD306, kind="structural", file=str(refactored_path) if refactored_path else None,
                range=_attr_range(refactored_path, qn.split(".")[0]),
                message=f"child '{qn}' ({type(child).__name__}) is never called during forward",
                allowed_instead="call every child as self.<child>(...) (not .forward()), or remove it",
                details={"child": qn}))
    return found


def check_call_nesting(refactored: nn.Module, trace: OpTrace,
                       refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD312: children are called by the parent (or a container of the parent), never by a sibling."""
    children = [qn for qn, _ in component_children(refactored)]
    found = []
    reported: set[tuple[str, str]] = set()
    for (caller, callee), n in trace.call_edges.items():
        if callee not in children or caller is None:
            continue
        host = next((c for c in children if c != callee and (caller == c or caller.startswith(c + "."))), None)
        if host is None or (host, callee) in reported:
            continue
        reported.add((host, callee))
        found.append(AntiCheatViolation(
            rule=HD312, kind="structural", file=str(refactored_path) if refactored_path else None,
            range=_attr_range(refactored_path, callee.split(".")[0]),
            message=f"child '{callee}' runs inside child '{host}' ({n}×): '{host}' is not the single op it claims",
            allowed_instead=f"call '{callee}' from the parent's forward and pass its output to '{host}'",
            details={"child": callee, "inside": host, "calls": n}))
    return found


def check_inventory(original: OpTrace, refactored: OpTrace, refactored_model: nn.Module | None = None,
                    refactored_path: Path | None = None) -> list[AntiCheatViolation]:
    """HD307/HD308: same compute ops as the original; HD305: no child runs all of it alone."""
    found: list[AntiCheatViolation] = []
    file = str(refactored_path) if refactored_path else None
    cls = type(refactored_model).__name__ if refactored_model is not None else "RefactoredModel"
    fwd = _method_range(refactored_path, cls)
    a, b = original.compute_inventory("aten"), refactored.compute_inventory("aten")
    if a != b:
        lines = format_counter_diff(a, b)
        found.append(AntiCheatViolation(
            rule=HD307, kind="structural", file=file, range=fwd,
            message="op inventory differs from the original: " + "; ".join(lines),
            allowed_instead="the children together must run exactly the original's compute ops",
            op=_first_diff_op(a, b),
            details={"original": dict(a), "refactored": dict(b), "diff": lines}))
    fa = original.compute_inventory("function", invisible_only=True)
    fb = refactored.compute_inventory("function", invisible_only=True)
    if fa != fb:
        lines = format_counter_diff(fa, fb)
        found.append(AntiCheatViolation(
            rule=HD308, kind="structural", file=file, range=fwd,
            message="ops with no aten trace in eval mode differ: " + "; ".join(lines),
            allowed_instead="keep the original's dropout-style ops in the children too",
            op=_first_diff_op(fa, fb),
            details={"original": dict(fa), "refactored": dict(fb), "diff": lines}))
    # HD305 counts ops as they ran (a Linear is one addmm, not mm + add) plus the aten-invisible ones.
    whole = original.compute_inventory("aten", fold=False) + fa
    if refactored_model is not None and sum(whole.values()) > 1:
        for qn, child in component_children(refactored_model):
            sub = refactored.subtree_inventory(qn, fold=False) + \
                refactored.subtree_inventory(qn, "function", invisible_only=True)
            calls = refactored.module_calls.get(qn, 0)
            # Per call: a child legitimately called twice (a shared layer) doubles its counts.
            if not sub or calls == 0 or any(v % calls for v in sub.values()):
                continue
            if Counter({k: v // calls for k, v in sub.items()}) == whole:
                found.append(AntiCheatViolation(
                    rule=HD305, kind="structural", file=file, range=_attr_range(refactored_path, qn.split(".")[0]),
                    message=f"child '{qn}' ({type(child).__name__}) runs the whole parent's compute "
                            f"({sum(sub.values())} ops): the parent in disguise",
                    allowed_instead="split the parent's ops among several children",
                    details={"child": qn, "inventory": dict(sub)}))
    return found


def _first_diff_op(a: Counter[str], b: Counter[str]) -> str | None:
    for op in sorted(set(a) | set(b)):
        if a.get(op, 0) != b.get(op, 0):
            return op
    return None


__all__ = [
    "check_call_nesting",
    "check_children_called",
    "check_constructor_arguments",
    "check_disguise",
    "check_inventory",
    "check_parameters",
    "class_keys",
    "component_children",
    "recording_constructor_arguments",
]


def own_forward_choice(module: nn.Module) -> bool:
    """Whether the forward set on `module` itself is one of its own class's methods, bound to it, and a class of
    its own assigns `self.forward` in its `__init__` (timm's Partial_conv3 picks `forward_slicing` or
    `forward_split_cat` by a constructor argument): the module as its class builds it, no patch. A parent
    assigning a child's forward is reported by the static check (it writes to a child's attribute)."""
    bound = vars(module).get("forward")
    func = getattr(bound, "__func__", None)
    if getattr(bound, "__self__", None) is not module or func is None:
        return False
    mro = [c for c in type(module).__mro__ if c not in (nn.Module, object)]
    if not any(func is vars(c).get(func.__name__) for c in mro):
        return False
    for c in mro:
        init = vars(c).get("__init__")
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(init))) if init is not None else None
        except (OSError, TypeError, SyntaxError):
            continue
        if tree is not None and any(
                isinstance(t, ast.Attribute) and t.attr == "forward" and isinstance(t.value, ast.Name) and
                t.value.id == "self" for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets):
            return True
    return False
