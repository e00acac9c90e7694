"""Python source for values, module constructors and carried-over user classes.

`literal(value)` writes a constant the way a person would (`float("-inf")`, `torch.float32`, `(3, 3)`);
`module_expr(module, ctx)` rebuilds a module from its recorded constructor arguments
(`nn.Conv2d(3, 64, kernel_size=3, padding=1)`); `carried_source(ctx)` collects the user classes,
functions and constants those expressions need from the component's own file.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import inspect
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from hdecomp.decompose.capture import init_call


class NotRepresentable(Exception):
    """A value or module that cannot be written as source (the message says which)."""


@dataclass
class SourceContext:
    """What a generated file needs besides torch: user definitions from the component's file."""

    user_file: Path | None
    user_names: set[str] = field(default_factory=set)   # module-level names of user_file to carry over
    needs_math: bool = False

    def need(self, name: str) -> None:
        self.user_names.add(name)


def literal(value: Any, ctx: SourceContext) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, torch.Size):
        return literal(tuple(value), ctx)
    if isinstance(value, tuple):
        items = [literal(v, ctx) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, ctx) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k, ctx)}: {literal(v, ctx)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({literal(value.start, ctx)}, {literal(value.stop, ctx)}, {literal(value.step, ctx)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, (torch.memory_format, torch.layout)):
        return str(value)
    if isinstance(value, complex):
        return repr(value)
    if isinstance(value, nn.Module):
        return module_expr(value, ctx)
    if isinstance(value, torch.Tensor):
        if value.numel() <= 16 and value.dim() <= 1:
            return tensor_literal(value)
        raise NotRepresentable(f"tensor argument of shape {tuple(value.shape)}")
    if isinstance(value, enum.Enum):
        return f"{qualified_name(type(value), ctx)}.{value.name}"
    if isinstance(value, type):
        return qualified_name(value, ctx)
    if callable(value):
        return qualified_name(value, ctx)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls_name = qualified_name(type(value), ctx)
        args = ", ".join(f"{f.name}={literal(getattr(value, f.name), ctx)}"
                         for f in dataclasses.fields(value) if f.init)
        return f"{cls_name}({args})"
    raise NotRepresentable(f"a {type(value).__name__} value")


_PREFERRED_HOMES: list[tuple[str, Any]] = [
    ("nn", nn), ("F", F), ("torch", torch), ("torch.special", torch.special), ("torch.linalg", torch.linalg),
    ("torch.fft", torch.fft), ("operator", operator), ("math", math),
]


def qualified_name(obj: Any, ctx: SourceContext) -> str:
    """How generated code refers to a function or class (`nn.Conv2d`, `F.gelu`, `torch.relu`, `MyBlock`)."""
    name = getattr(obj, "__name__", None)
    if name is None:
        raise NotRepresentable(f"{obj!r} has no name")
    for prefix, home in _PREFERRED_HOMES:
        if getattr(home, name, None) is obj:
            if prefix == "math":
                ctx.needs_math = True
            return f"{prefix}.{name}"
    if getattr(builtins, name, None) is obj:
        return name
    mod = getattr(obj, "__module__", "") or ""
    if mod.startswith("torch"):
        # e.g. torch._C._nn.gelu, nn.modules.activation.X: reachable through its module path
        target: Any = torch
        for part in mod.split(".")[1:]:
            target = getattr(target, part, None)
        if target is not None and getattr(target, name, None) is obj:
            return f"{mod}.{name}"
        raise NotRepresentable(f"{mod}.{name} is not importable")
    if mod.startswith("_hdecomp_component_") or mod == "__main__":
        if "." in getattr(obj, "__qualname__", name):
            raise NotRepresentable(f"nested definition {obj.__qualname__}")
        ctx.need(name)
        return name
    raise NotRepresentable(f"{mod}.{name} (defined outside the model file)")


def is_torch_nn_class(cls: type) -> bool:
    return getattr(nn, cls.__name__, None) is cls


def module_expr(module: nn.Module, ctx: SourceContext) -> str:
    """Source that rebuilds `module` from its recorded constructor arguments (checked by the caller)."""
    cls = type(module)
    call = init_call(module)
    cls_name = qualified_name(cls, ctx)
    if call is None:
        if not any(True for _ in module.children()) and not any(True for _ in module.parameters(recurse=False)):
            try:
                return f"{cls_name}()" if _same_module(cls(), module) else _raise(cls)
            except Exception as exc:
                raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown") from exc
        raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown")
    try:
        sig = inspect.signature(cls.__init__)
        defaults = {p.name: p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty}
    except (TypeError, ValueError):
        defaults = {}
    has_varargs = any(kind == "varargs" and value for _, value, kind in call.params)
    parts: list[str] = []
    positional_run = True
    for i, (name, value, kind) in enumerate(call.params):
        if kind == "varargs":
            parts.extend(literal(v, ctx) for v in value)
            positional_run = False
            continue
        if kind == "varkw":
            parts.extend(f"{k}={literal(v, ctx)}" for k, v in value.items())
            continue
        if has_varargs:
            parts.append(literal(value, ctx))
            continue
        if name in ("device", "dtype") and value is None:
            positional_run = False
            continue
        if name in defaults and _equal_default(defaults[name], value):
            positional_run = False
            continue
        # The first arguments without defaults read best positionally (nn.Linear(64, 256)).
        if positional_run and name not in defaults and i < 2:
            parts.append(literal(value, ctx))
        else:
            positional_run = False
            parts.append(f"{name}={literal(value, ctx)}")
    dtypes = {t.dtype for t in list(module.parameters()) + list(module.buffers()) if t.is_floating_point()}
    if len(dtypes) == 1 and torch.float32 not in dtypes and "dtype" in defaults and \
            not any(p.startswith("dtype=") for p in parts):
        parts.append(f"dtype={next(iter(dtypes))}")
    return f"{cls_name}({', '.join(parts)})"


def tensor_literal(t: torch.Tensor) -> str:
    """`torch.tensor([0.1, 0.2], dtype=torch.float32)` with float32 values written shortest."""
    vals = t.detach().cpu().tolist()
    if t.is_floating_point():
        vals = [float(f"{v:.8g}") for v in (vals if isinstance(vals, list) else [vals])]
        if t.dim() == 0:
            vals = vals[0]
    return f"torch.tensor({vals!r}, dtype={t.dtype})"


def _raise(cls: type) -> str:
    raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown")


def _equal_default(default: Any, value: Any) -> bool:
    try:
        return type(default) is type(value) and bool(default == value)
    except Exception:
        return False


def _same_module(a: nn.Module, b: nn.Module) -> bool:
    return repr(a) == repr(b)


def check_rebuild(expr: str, module: nn.Module, namespace: dict[str, Any]) -> str | None:
    """Build `expr` and compare with `module` (repr, parameter/buffer names, shapes, dtypes). None = same."""
    try:
        rebuilt = eval(expr, namespace)  # the expression we generated ourselves
    except Exception as exc:
        return f"rebuilding {type(module).__name__} failed ({type(exc).__name__}: {exc})"
    if repr(rebuilt) != repr(module):
        return f"{type(module).__name__} rebuilt from its constructor arguments differs ({expr})"
    sa = {k: (tuple(v.shape), v.dtype) for k, v in rebuilt.state_dict().items()}
    sb = {k: (tuple(v.shape), v.dtype) for k, v in module.state_dict().items()}
    if sa != sb:
        return f"{type(module).__name__} rebuilt has different parameters/buffers ({expr})"
    return None


# ---- carrying over user definitions ---------------------------------------------------------------------


def _top_level_defs(tree: ast.Module) -> dict[str, ast.stmt]:
    defs: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defs[n.id] = stmt
    return defs


def carried_source(ctx: SourceContext) -> tuple[list[str], str]:
    """(import lines, definitions) for every user name in ctx and what those need, in file order."""
    if not ctx.user_names:
        return [], ""
    if ctx.user_file is None:
        raise NotRepresentable("user definitions needed but the source file is unknown")
    source = ctx.user_file.read_text(encoding="utf-8")
    tree = ast.parse(source)
    defs = _top_level_defs(tree)
    needed: set[str] = set()
    todo = sorted(ctx.user_names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        if name not in defs:
            raise NotRepresentable(f"definition of {name} not found in {ctx.user_file.name}")
        needed.add(name)
        for n in ast.walk(defs[name]):
            if isinstance(n, ast.Name) and n.id in defs and n.id not in needed and n.id != "Model":
                todo.append(n.id)
            if isinstance(n, ast.Name) and n.id == "Model" and name != "Model":
                raise NotRepresentable(f"{name} refers to the file's Model class")
    if "Model" in needed:
        raise NotRepresentable("a submodule is an instance of the file's own Model class")
    imports: list[str] = []
    blocks: list[str] = []
    emitted: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").split(".")[0] == "children":
                continue
            imports.append(ast.get_source_segment(source, stmt) or ast.unparse(stmt))
            continue
        names = {n for n, s in defs.items() if s is stmt}
        if names & needed and id(stmt) not in emitted:
            emitted.add(id(stmt))
            seg = _segment_with_decorators(source, stmt)
            blocks.append(seg)
    return imports, "\n\n\n".join(blocks)


def _segment_with_decorators(source: str, stmt: ast.stmt) -> str:
    lines = source.splitlines()
    start = stmt.lineno
    for dec in getattr(stmt, "decorator_list", []):
        start = min(start, dec.lineno)
    end = stmt.end_lineno or stmt.lineno
    return "\n".join(lines[start - 1:end])
