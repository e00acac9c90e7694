"""What the static anti-cheat analysis calls compute in a forward (the spans a parent may not keep), and the
module's attributes as a source-level step reads them (see source_step.py)."""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
import types
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from hdecomp.anticheat.static.values import dotted_name
from hdecomp.decompose.source import (
    NotRepresentable,
    SourceContext,
    literal,
)
from hdecomp.decompose.source_bind import bind_globals, is_imported, method_source
from hdecomp.decompose.source_forward import (
    BASE_FORWARD,
    SELF_ITEMS,
    ForwardSource,
    SourceStepError,
    base_forward,
    forward_source,
    function_source,
    reads_self_items,
    self_item_names,
)
from hdecomp.decompose.source_names import arg_names, names_of, root_variable, self_method_calls
from hdecomp.runtime.host_values import is_number


def decorator_state(model: nn.Module, fs: ForwardSource, consts: dict[str, Any], ctx: SourceContext,
                     taken: set[str]) -> dict[str, Any]:
    """The plain attributes of the module that its forward's library decorators read (`self.config`, which
    transformers' `@merge_with_config_defaults` reads `use_cache` from; read off the decorators' own source),
    carried as the constants the body reads are: each one a file can write whose name no child has (`taken`)."""
    out: dict[str, Any] = {}
    for a in sorted(_decorator_reads(fs)):
        if a.startswith("_") or a == "training" or a in consts or a in taken or a not in vars(model):
            continue
        info = attr_info(model, a)
        if info.kind != "const":
            continue
        try:
            literal(info.value, ctx)
        except NotRepresentable:
            continue
        out[a] = info.value
    return out


def _decorator_reads(fs: ForwardSource) -> set[str]:
    """The attributes of `self` the forward's library decorators read (`self.config`, `getattr(self, "x")`),
    from their source."""
    reads: set[str] = set()
    for d in fs.decorators:
        root = root_variable(d.func if isinstance(d, ast.Call) else d)
        fn = fs.globals.get(root) if root is not None else None
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(fn))))   # type: ignore[arg-type]
        except (OSError, TypeError, SyntaxError):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                reads.add(n.attr)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") \
                    and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == "self" and \
                    isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                reads.add(n.args[1].value)
    return reads




@dataclass
class AttrInfo:
    """One `self.<name>` the forward reads, by what it holds."""

    name: str
    kind: str              # "module" | "container" | "tensor" | "method" | "const" | "absent"
    value: Any = None


def attr_info(model: nn.Module, name: str) -> AttrInfo:
    if name == SELF_ITEMS and reads_self_items(model):
        keyed = self_item_names(model) if isinstance(model, nn.ModuleDict) else None
        view: nn.Module = (nn.ModuleDict({k: m for k, m in model.named_children() if keyed is None or k in keyed})
                           if isinstance(model, nn.ModuleDict) else nn.ModuleList(list(model.children())))
        return AttrInfo(name, "container", view)
    try:
        static = inspect.getattr_static(model, name)
    except AttributeError:
        static = None
    if static is None and name == BASE_FORWARD and base_forward(model) is not None:
        return AttrInfo(name, "method", base_forward(model))
    if isinstance(static, (staticmethod, classmethod)) or inspect.isfunction(static):
        return AttrInfo(name, "method", getattr(model, name))
    try:
        value = getattr(model, name)
    except AttributeError:
        if static is None:
            # an attribute the constructor made only for other configurations (FastSpeech2's
            # `self.speaker_id_embedding`, built for multi-speaker models): the lines that read it never run
            # here (the module itself would raise); the refactored parent does not have it either
            return AttrInfo(name, "absent")
        raise SourceStepError(f"self.{name} cannot be read") from None
    except Exception as exc:
        raise SourceStepError(f"self.{name} cannot be read ({type(exc).__name__}: {exc})") from exc
    if isinstance(value, nn.Module):
        kind = "container" if type(value).forward is nn.Module.forward else "module"
        return AttrInfo(name, kind, value)
    if isinstance(value, torch.Tensor) and is_number(value) and name not in model.state_dict(keep_vars=True):
        # a number kept in a tensor, no checkpoint's state (EnCodec's `stride` and `kernel_size` buffers): as
        # plain as the int it holds, written out as one (`torch.tensor(7)`) wherever it is read
        return AttrInfo(name, "const", value)
    if isinstance(value, torch.Tensor):
        # (a plain tensor attribute, `self.table = sinusoid(...)`, goes to its child as a non-persistent
        # buffer whose values the weight map transfers, as a registered one does)
        return AttrInfo(name, "tensor", value)
    if inspect.ismethod(value) or inspect.isfunction(value):
        return AttrInfo(name, "method", value)
    return AttrInfo(name, "const", value)


def submodule_numbers(fdef: ast.FunctionDef, attrs: dict[str, AttrInfo]) -> dict[ast.Attribute, Any]:
    """The reads of a plain number or string a submodule holds (`self.embeddings.patch_size`), not called, never
    stored by the forward, no property: {node: its value}."""
    stored = {(n.value.attr, n.attr) for n in ast.walk(fdef) if isinstance(n, ast.Attribute)
              and isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Attribute)
              and isinstance(n.value.value, ast.Name) and n.value.value.id == "self"}
    called = {id(n.func) for n in ast.walk(fdef) if isinstance(n, ast.Call)}
    found: dict[ast.Attribute, Any] = {}
    for node in ast.walk(fdef):
        sub = node.value if isinstance(node, ast.Attribute) else None
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in called
                and isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
                and (sub.attr, node.attr) not in stored):
            continue
        info = attrs.get(sub.attr)
        if info is None or info.kind != "module":
            continue
        try:
            static = inspect.getattr_static(info.value, node.attr)
            value = getattr(info.value, node.attr)
        except AttributeError:
            continue
        if not isinstance(static, (property, types.FunctionType, staticmethod, classmethod)) and \
                type(value) in (int, float, bool, str):
            found[node] = value
    return found


def _numbers_written(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> str:
    """The forward's text with the plain numbers its submodules hold written out where it reads them, as the
    split writes them (source_rewrites.fold_submodule_numbers): `(14)` padded to the read's columns, so every
    other position stays."""
    lines = fs.text.split("\n")
    for node, value in submodule_numbers(fs.fdef, attrs).items():
        width = (node.end_col_offset or 0) - node.col_offset
        text = repr(value)
        if node.end_lineno != node.lineno or not isinstance(value, (int, float, bool)) or len(text) + 2 > width:
            continue
        row = lines[node.lineno - 1]
        lines[node.lineno - 1] = row[:node.col_offset] + "(" + text.ljust(width - 2) + ")" + row[node.end_col_offset:]
    return "\n".join(lines)


def _probe_source(fs: ForwardSource, attrs: dict[str, AttrInfo],
                  methods: dict[str, str] | None = None) -> tuple[str, int, dict[str, tuple[int, int]]]:
    """A refactored file whose forward is the original's, every submodule a child, and `methods` (name ->
    source) the module's own methods it calls, carried as the parent would carry them: what the static
    anti-cheat says about each of its lines is what a parent may keep. Returns (text, line offset of the
    forward, each method's first and last line in the text)."""
    head = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    # the imports the refactored parent will have (`import torchvision`: a call of torchvision.ops.nms is then
    # compute the parent may not run, as the verifier reads it), not the model file's own definitions
    ctx = SourceContext(user_file=None)
    params = arg_names(fs.fdef.args)
    local_names = (params | set(names_of(fs.fdef.body).stores)) - {"self"}
    loads = list(names_of([fs.fdef]).loads)
    for src in (methods or {}).values():   # (and the names the carried methods read: diffusers' SEQ_MULTI_OF)
        method = ast.parse(textwrap.dedent(src)).body[0]
        if isinstance(method, ast.FunctionDef):
            own = arg_names(method.args) | set(names_of(method.body).stores)
            loads += [n for n in names_of([method]).loads if n not in own and n not in loads]
    imported = [n for n in loads if n not in local_names and n in fs.globals and is_imported(fs.globals[n])]
    # a module's constants as the values they hold (`MULTIPLE = 8`: numbers, as a parent binds them)
    constants = [f"{n} = {_probe_literal(fs.globals[n])}" for n in loads
                 if n not in local_names and n in fs.globals and _plain_constant(fs.globals[n])]
    with contextlib.suppress(SourceStepError):
        bind_globals(imported, local_names, ForwardSource(fs.fdef, fs.text, fs.globals, fs.module_name, False,
                                                           fs.owner), ctx, where="the probe")
    head += [ln for ln in ctx.import_lines() if ln not in head]
    if ctx.needs_math:   # (else `math.ceil(n / size)` reads as a tensor's `.ceil()`: compute)
        head.append("import math")
    head += constants
    init = ["class RefactoredModel(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    for a in attrs.values():
        if a.kind == "module":
            head.append(f"from children.c_{a.name} import Model as C_{a.name}")
            init.append(f"        self.{a.name} = C_{a.name}()")
        elif a.kind == "container":
            head.append(f"from children.c_{a.name} import Model as C_{a.name}")
            if isinstance(a.value, nn.ModuleDict):
                items = ", ".join(f"{k!r}: C_{a.name}()" for k in a.value)
                init.append(f"        self.{a.name} = nn.ModuleDict({{{items}}})")
            else:
                init.append(f"        self.{a.name} = nn.ModuleList([C_{a.name}() for _ in range({len(a.value)})])")
        elif a.kind == "const":
            init.append(f"        self.{a.name} = {_probe_literal(a.value)}")
    lines = [*head, "", "", *init]
    offset = len(lines)
    lines += ["    " + line if line else line for line in _numbers_written(fs, attrs).split("\n")]
    spans: dict[str, tuple[int, int]] = {}
    for name, src in (methods or {}).items():
        lines.append("")
        first = len(lines) + 1
        lines += ["    " + line if line else line for line in src.split("\n")]
        spans[name] = (first, len(lines))
    return "\n".join(lines) + "\n", offset, spans


def _plain_constant(value: Any, depth: int = 0) -> bool:
    """A number, string, bool or None, or a tuple of them: a module's constant (`SEQ_MULTI_OF = 32`)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, tuple) and depth < 2 and all(_plain_constant(v, depth + 1) for v in value)


_CARRIED_LIMIT = 16   # methods read for one probe (those the forward calls, and those they call)


def _carried_methods(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> tuple[dict[str, AttrInfo], dict[str, str]]:
    """The module's own plain methods the forward calls, and those they call in turn (name -> source, as the
    parent would carry them), with the attributes they read added to `attrs` (a copy): the probe reads them
    as the verifier reads a parent that carries them. A method whose source cannot be carried is left out
    (its calls stay compute)."""
    attrs = dict(attrs)
    methods: dict[str, str] = {}
    todo = [a for a, i in attrs.items() if i.kind == "method"]
    while todo and len(methods) < _CARRIED_LIMIT:
        name = todo.pop(0)
        info = attrs[name]
        # (a static method is a plain function read from the instance, carried with its decorator)
        if name in methods or name == fs.fdef.name or \
                not isinstance(getattr(info.value, "__func__", info.value), types.FunctionType):
            continue
        model = getattr(info.value, "__self__", None)
        try:
            src = method_source(info.value, name)
        except SourceStepError:
            continue
        methods[name] = src
        if not isinstance(model, nn.Module):
            continue   # (a static or class method reads no instance attributes)
        for sub in names_of([ast.parse(src)]).self_attrs:
            if sub not in attrs:
                try:
                    attrs[sub] = attr_info(model, sub)
                except SourceStepError:
                    continue
                if attrs[sub].kind == "method":
                    todo.append(sub)
    return attrs, methods


def _probe_literal(value: Any) -> str:
    ctx = SourceContext(user_file=None)
    try:
        text = literal(value, ctx)
    except NotRepresentable:
        return "None"
    return text if not ctx.imports and not ctx.user_names else "None"


Span = tuple[int, int, int, int]   # (line, col, end line, end col) in the canonical forward (line 1: `def`)


def flagged_lines(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> list[Span]:
    """Where the canonical forward holds code a parent may not run itself: the exact ranges the static
    anti-cheat reports (a key of a returned dict is not compute when a value on its line is)."""
    return static_reading(fs, attrs)[0]


def static_reading(fs: ForwardSource, attrs: dict[str, AttrInfo]) -> tuple[list[Span], set[str]]:
    """(flagged_lines, the module's own methods the forward calls that the analysis finds only plumbing in:
    the parent keeps their calls and carries them)."""
    from hdecomp.anticheat.static import analyze_source
    probe_attrs, methods = _carried_methods(fs, attrs)
    text, offset, spans = _probe_source(fs, probe_attrs, methods)
    found: list[Span] = []
    n_lines = fs.text.count("\n") + 1
    computing = {a for a, i in attrs.items() if i.kind == "method"} - set(methods)
    # a method reading the module's own tensors (OmniGen's `_cropped_pos_embed`, a view of its `pos_embed`
    # buffer) is no plumbing the parent can carry: a parent holds no tensor, its children do
    computing |= {m for m, src in methods.items()
                  if any(probe_attrs.get(a) is not None and probe_attrs[a].kind == "tensor"
                         for a in names_of([ast.parse(textwrap.dedent(src))]).self_attrs)}
    violations = [v for v in analyze_source(text, None) if v.range is not None and v.severity == "error"]
    for v in violations:
        assert v.range is not None
        computing |= {m for m, (a, b) in spans.items() if a <= v.range.line <= b}
    # a call of a method the analysis finds compute in (or cannot read) is compute where the forward calls it;
    # one it finds only plumbing in (`self.clear_cache()`: the feature caches reset) the parent keeps, carried
    self_calls = self_method_calls([fs.fdef])
    for node, name in self_calls:
        if name in computing:
            found.append((node.lineno, node.col_offset, node.end_lineno or node.lineno,
                          node.end_col_offset if node.end_col_offset is not None else 10**6))
    for v in violations:
        assert v.range is not None
        line, end_line = v.range.line - offset, (v.range.end_line or v.range.line) - offset
        if not (1 <= line <= n_lines):
            continue
        # the probe indents the forward by 4 columns
        col = max(0, (v.range.col or 0) - 4)
        end_col = max(0, (v.range.end_col or 0) - 4) if v.range.end_col else 10**6
        found.append((line, col, min(end_line, n_lines), end_col))
    # (the analysis reports a method's compute where the forward calls it: a method is plumbing where none of
    # its calls is flagged)
    computing |= {name for node, name in self_calls if name in methods and overlaps_flagged(node, found)}
    return found, set(methods) - computing


def library_code_read(model: nn.Module) -> list[tuple[str, int, int]]:
    """The library functions the static reading of `model`'s forward proves plumbing where it calls them
    ((resolved file, first line, last line) each: static.library_host_code), whose host compute the verifier
    lets the parent run as its own."""
    from hdecomp.anticheat.static import library_host_code
    try:
        fs = forward_source(model)
        attrs = {a: attr_info(model, a) for a in names_of([fs.fdef]).self_attrs}
        probe_attrs, methods = _carried_methods(fs, attrs)
    except SourceStepError:
        return []
    text, _, _ = _probe_source(fs, probe_attrs, methods)
    return sorted(library_host_code(text, None))


def loops_over_compute(model: nn.Module) -> bool:
    """Whether a `for`/`while` loop of the forward's own source, or of a method of the module it calls
    (torchvision's RPN: `boxes, scores = self.filter_proposals(...)`, which loops over the images), runs
    compute the parent may not keep (its body or header flagged by the static analysis); not for loops that
    only call submodules."""
    try:
        fs = forward_source(model)
        attrs = {a: attr_info(model, a) for a in names_of([fs.fdef]).self_attrs}
    except SourceStepError:
        return False
    sources = [fs]
    for info in attrs.values():
        if info.kind == "method" and isinstance(getattr(info.value, "__func__", None), types.FunctionType):
            with contextlib.suppress(SourceStepError):
                sources.append(function_source(info.value, method=True))
    return any(_loops_over_compute_in(model, f) for f in sources)


_RANDOM_STATE_CALLS = frozenset({"manual_seed", "fork_rng", "set_rng_state", "seed"})


def seeds_random_state(model: nn.Module) -> bool:
    """Whether the forward's own source seeds or scopes the random state (`torch.manual_seed(...)`,
    `with torch.random.fork_rng():`): a graph capture holds neither, only the draws."""
    try:
        fs = forward_source(model)
    except SourceStepError:
        return False
    names = [dotted_name(n.func) or "" for n in ast.walk(fs.fdef) if isinstance(n, ast.Call)]
    return any(name.startswith("torch.") and name.rsplit(".", 1)[-1] in _RANDOM_STATE_CALLS for name in names)


def _loops_over_compute_in(model: nn.Module, fs: ForwardSource) -> bool:
    try:
        loops = [n for n in ast.walk(fs.fdef) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))]
        if not loops:
            return False
        attrs = {a: attr_info(model, a) for a in names_of([fs.fdef]).self_attrs}
        flagged = flagged_lines(fs, attrs)
    except SourceStepError:
        return False
    def computes(loop: ast.AST) -> bool:
        nodes = [*loop.body, *([loop.test] if isinstance(loop, ast.While) else [loop.iter])]  # type: ignore[attr-defined]
        if not _loop_over_submodules(loop, attrs):
            return any(overlaps_flagged(n, flagged) for n in nodes)
        # a loop over submodules computes where it does more than call them (an MoE's routing per expert)
        bound = {t.id for t in ast.walk(loop.target) if isinstance(t, ast.Name)}  # type: ignore[attr-defined]
        calls = [c for n in nodes for c in ast.walk(n) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id in bound]
        return any(overlaps_flagged(n, flagged) for stmt in nodes for n in ast.walk(stmt)
                   if isinstance(n, ast.expr) and overlaps_flagged(n, flagged) and not any(n is c for c in calls)
                   and not any(_inside(n, c) for c in calls) and not isinstance(n, (ast.Name, ast.Constant)))
    return any(computes(loop) for loop in loops)


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


_MODULE_ITERATORS = frozenset({"items", "values", "children", "named_children", "modules", "named_modules"})


def _loop_over_submodules(loop: ast.AST, attrs: dict[str, AttrInfo]) -> bool:
    """A `for` over the module's own submodules (`for name, module in self.items(): x = module(x)`,
    torchvision's IntermediateLayerGetter; `for blk in self.blocks:`): its calls of the loop's variables are
    calls of submodules, which a graph capture unrolls into children, not compute a parent keeps."""
    if not isinstance(loop, ast.For):
        return False
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("enumerate", "reversed") \
            and it.args:
        it = it.args[0]
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
        owner = it.func.value
        over = (isinstance(owner, ast.Name) and owner.id == "self" and it.func.attr in _MODULE_ITERATORS) or \
            (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"
             and it.func.attr in _MODULE_ITERATORS and owner.attr in attrs and attrs[owner.attr].kind == "container")
    else:
        over = isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and it.value.id == "self" and \
            it.attr in attrs and attrs[it.attr].kind == "container"
    return over


def line_span(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]


def overlaps_flagged(node: ast.AST | None, flagged: list[Span]) -> bool:
    """Whether a flagged range overlaps `node`'s source range."""
    if node is None or not hasattr(node, "lineno"):
        return False
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = (node.end_lineno or node.lineno, node.end_col_offset if node.end_col_offset is not None else 10**6)  # type: ignore[attr-defined]
    return any((fl, fc) < end and start < (el, ec) for fl, fc, el, ec in flagged)


def has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))
