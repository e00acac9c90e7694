"""Readable names of a captured graph's values: the names the model's own source gives them.

A child's inputs are values of its parent's graph; the child's forward takes them under these names
(`q, k, v, attn_mask`, `hidden_states`) rather than `x0, x1, ...`. Where the graph recorded where each
node came from (fx's stack traces), the statement that computed a value names it: `q = self.q_proj(x)`
names the last node of its line `q`, `q, k, v = qkv.unbind(0)` names the three items. Otherwise, and for
values no assignment names, a name is made from the node: a forward's parameter keeps its own, a
submodule's output is named after the submodule's attribute (`conv1`), an op's after the op (`softmax`).
"""

from __future__ import annotations

import ast
import functools
import operator
import re
import sys
from pathlib import Path
from typing import Any

import torch.fx as fx

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def value_names(graph: fx.Graph) -> dict[fx.Node, str]:
    """A readable base name for every node of `graph` (not unique: the caller makes names unique)."""
    nodes = list(graph.nodes)
    names: dict[fx.Node, str] = {}
    by_line: dict[tuple[str, int], list[fx.Node]] = {}
    for n in nodes:
        where = _origin(n)
        if where is not None:
            by_line.setdefault(where, []).append(n)
    for (path, line), group in by_line.items():
        targets = _assigned_names(path, line)
        if not targets:
            continue
        value = [n for n in group if not _is_item(n)] or group   # `x1 = x[..., :h]`: the item is the value
        if len(targets) == 1 and value and _readable(targets[0]):
            names[value[-1]] = targets[0]
        elif len(targets) > 1:
            for n in group:
                if _is_item(n) and isinstance(n.args[1], int) and 0 <= n.args[1] < len(targets) and \
                        _readable(targets[n.args[1]]):
                    names[n] = targets[n.args[1]]
    for n in nodes:
        if n not in names:
            names[n] = _fallback(n, names)
    return names


def _readable(name: str) -> bool:
    """A name worth keeping: not `_` (a value the source throws away) nor a private `_tmp`."""
    return not name.startswith("_")


def _is_item(n: fx.Node) -> bool:
    return n.op == "call_function" and n.target is operator.getitem and len(n.args) == 2


def _origin(n: fx.Node) -> tuple[str, int] | None:
    """(file, line) of the statement the node came from: the innermost frame of its stack trace."""
    trace = n.meta.get("stack_trace") or getattr(n, "stack_trace", None)
    if not isinstance(trace, str):
        return None
    frames = [(p, line) for p, line in _FRAME.findall(trace) if not _in_torch(p)]
    if not frames:
        return None
    path, line = frames[-1]
    return path, int(line)


@functools.cache
def _torch_dir() -> str:
    import torch
    return str(Path(torch.__file__).resolve().parent) + "/"


def _in_torch(path: str) -> bool:
    """A frame of torch itself (fx's proxy machinery records its own frames after the user's)."""
    try:
        return str(Path(path).resolve()).startswith(_torch_dir())
    except (OSError, ValueError):
        return False


@functools.lru_cache(maxsize=64)
def _statements(path: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """(first line, last line, assigned names) of every single-target assignment in the file."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return ()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target: Any = node.targets[0]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name):
            names: tuple[str, ...] = (target.id,)
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            names = tuple(e.id for e in target.elts)   # type: ignore[attr-defined]
        else:
            continue
        out.append((node.lineno, node.end_lineno or node.lineno, names))
    return tuple(out)


def _assigned_names(path: str, line: int) -> tuple[str, ...]:
    """The names the innermost assignment spanning `line` of `path` binds (empty when none does)."""
    best: tuple[int, int, tuple[str, ...]] | None = None
    for first, last, names in _statements(path):
        if first <= line <= last and (best is None or last - first < best[1] - best[0]):
            best = (first, last, names)
    return best[2] if best is not None else ()


def _fallback(n: fx.Node, names: dict[fx.Node, str]) -> str:
    from hdecomp.vocab.ops import snake
    if n.op == "placeholder":
        return str(n.target).lstrip("*")
    if n.op in ("call_module", "get_attr"):
        parts = [p for p in str(n.target).split(".") if p and not p.isdigit()]
        return snake(parts[-1]) if parts else "value"
    if _is_item(n) and isinstance(n.args[0], fx.Node):
        base = names.get(n.args[0]) or _fallback(n.args[0], names)
        return f"{base}_{n.args[1]}" if isinstance(n.args[1], int) else base
    if n.op == "call_method":
        return snake(str(n.target).strip("_")) or "value"
    if n.target is getattr and len(n.args) > 1 and isinstance(n.args[1], str) and n.args[1].isidentifier():
        return n.args[1]   # `p.feats`: feats
    name = getattr(n.target, "__name__", "") or ""
    return snake(name.strip("_")) if name.strip("_") else "value"


@functools.cache
def _hdecomp_dir() -> str:
    return str(Path(__file__).resolve().parent.parent) + "/"


def user_frame_trace() -> str | None:
    """The calling user code's innermost frame, as a stack-trace line (`File "m.py", line 12, in forward`):
    what an op recorder stores in `node.meta["stack_trace"]`, as fx's tracer does. Frames of torch and of
    hdecomp itself are skipped."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not _skipped_frame(path):
            return f'File "{path}", line {frame.f_lineno}, in {frame.f_code.co_name}'
        frame = frame.f_back   # type: ignore[assignment]
    return None


@functools.lru_cache(maxsize=4096)
def _skipped_frame(path: str) -> bool:
    """A frame of torch or hdecomp, or no file: by the resolved path (a virtual environment reached
    through a symlink names torch's files by the link)."""
    if path.startswith("<"):
        return True
    try:
        real = str(Path(path).resolve())
    except (OSError, ValueError):
        real = path
    return real.startswith((_torch_dir(), _hdecomp_dir()))
