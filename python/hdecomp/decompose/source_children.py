"""The children of a source-level step as source: a submodule's or a region's file (see source_step.py)."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.naming import module_base_name
from hdecomp.decompose.source import (
    NotRepresentable,
    SourceContext,
    hook_registrations,
    literal,
    module_expr,
    tensor_literal,
)
from hdecomp.decompose.source_bind import bind_globals, method_home, method_source
from hdecomp.decompose.source_forward import BASE_FORWARD, ForwardSource, SourceStepError
from hdecomp.decompose.source_names import names_of, self_method_calls
from hdecomp.decompose.source_reading import AttrInfo, attr_info
from hdecomp.decompose.source_regions import OPERATOR_NAMES, Region
from hdecomp.decompose.stepfiles import check_expr
from hdecomp.formats.weight_map import WeightSlice
from hdecomp.runtime.memoized import is_plain_object
from hdecomp.vocab.ops import REGION_PLUMBING_CALLS, is_compute_op, snake
from hdecomp.vocab.roles import role_of


@dataclass
class SourceChild:
    """One child of a source-level step."""

    attr: str                      # the refactored parent's attribute (a container's: `experts.0`)
    kind: str                      # "region" | "module"
    class_src: str                 # `class Model(...)`, without imports
    ctx: SourceContext
    base: str                      # file name base (before workload naming / dedup)
    weight_map: dict[str, str | WeightSlice]   # original key -> key inside the child (or the entry it holds)
    ops: list[str]
    module: nn.Module | None = None     # a module child: the submodule it rebuilds
    region: Region | None = None
    region_modules: list[nn.Module] = field(default_factory=list)   # a region child: the submodules it holds
    region_calls: list[nn.Module] = field(default_factory=list)     # ... and, of them, those its code calls
    call_args: list[ast.expr] = field(default_factory=list)   # a module child: its first call's arguments
    expr: str = ""     # a module child's constructor expression (`Attention(config, 0)`), where not wrapped


def region_base(r: Region, attrs: dict[str, AttrInfo]) -> str:
    """A child attribute / file name base: the role of what the region calls (vocab/roles.py:
    `linear_act`, `gating`); a region of one call is named after it (`logsigmoid`)."""
    ops = _region_ops(r, attrs)
    if r.contexts or any(isinstance(s, (ast.With, ast.AsyncWith)) for s in r.stmts):
        return "region"
    if len(ops) == 1:
        return ops[0]
    return role_of(ops) if ops else "region"


def _region_ops(r: Region, attrs: dict[str, AttrInfo]) -> list[str]:
    """What the region calls, in order, each once (`linear`, `relu`; a submodule by its class)."""
    ops: list[str] = []
    for node in r.nodes:
        for n in ast.walk(node):
            name = None
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute):
                    if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in attrs and \
                            attrs[f.attr].kind in ("module", "container"):
                        name = snake(type(attrs[f.attr].value).__name__)
                    elif f.attr == BASE_FORWARD and f.attr in attrs:   # the torch layer's forward: by its class
                        name = snake(attrs[f.attr].value.__func__.__qualname__.split(".")[0])
                    else:
                        name = f.attr
                elif isinstance(f, ast.Name):   # (a module's private function computes too: VITS's spline)
                    name = f.id.lstrip("_") if f.id.startswith("_") and not f.id.startswith("__") else f.id
            elif isinstance(n, ast.BinOp):
                # (arithmetic on the module's numbers, `num_classes=self.num_experts + 1`, is none of its ops)
                name = None if _plain_number(n, attrs) else OPERATOR_NAMES.get(type(n.op))
            elif isinstance(n, ast.Compare):
                name = "compare"
            if name and snake(name) not in ops and not name.startswith("_") and name not in REGION_PLUMBING_CALLS:
                ops.append(snake(name))
    # an eval-mode drop_path (nn.Identity) computes nothing: `shortcut + self.drop_path(x)` is an add
    ops = [o for o in ops if is_compute_op(o)] or ops
    if not ops:   # (only the module's own private methods: OmniGen's `self._cropped_pos_embed(h, w)`, by name)
        ops = list(dict.fromkeys(snake(a.lstrip("_")) for _, a in self_method_calls(r.nodes)
                                 if a in attrs and attrs[a].kind == "method" and a.lstrip("_")))
    return ops


def _plain_number(e: ast.expr, attrs: dict[str, AttrInfo]) -> bool:
    """A number the code spells from literals and the module's own number attributes alone (`self.n + 1`)."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        info = attrs.get(e.attr)
        return info is not None and info.kind == "const" and type(info.value) in (int, float)
    if isinstance(e, ast.BinOp):
        return _plain_number(e.left, attrs) and _plain_number(e.right, attrs)
    if isinstance(e, ast.UnaryOp):
        return _plain_number(e.operand, attrs)
    return False






def submodule_child(attr: str, sub: nn.Module, user_file: Any, fdef: ast.FunctionDef) -> SourceChild:
    from hdecomp.decompose.codegen import module_child_class
    ctx = SourceContext(user_file=user_file)
    doc = f"{type(sub).__name__} with the recorded constructor arguments."
    wrap = getattr(nn, type(sub).__name__, None) is type(sub) and any(True for _ in sub.children())
    try:
        class_src, expr = module_child_class(sub, ctx, doc, wrap=wrap)
    except NotRepresentable as exc:
        raise SourceStepError(f"self.{attr} cannot be written as a child: {exc}") from exc
    inner = "layers." if wrap else ""
    wm: dict[str, str | WeightSlice] = {key: f"{inner}{key}" for key in _state_keys(sub)}
    base = module_base_name(sub, attr)
    return SourceChild(attr=attr, kind="module", class_src=class_src, ctx=ctx, base=base, weight_map=wm,
                       ops=[type(sub).__name__], module=sub, call_args=_call_sites(fdef, attr),
                       expr="" if wrap else expr)


def _state_keys(m: nn.Module) -> list[str]:
    from hdecomp.verify.weights import transferred_keys
    return transferred_keys(m)


def _call_sites(fdef: ast.FunctionDef, attr: str) -> list[ast.expr]:
    """The arguments of the first call of `self.<attr>(...)` (a container item: of a call through it)."""
    head = attr.split(".")[0]
    for n in ast.walk(fdef):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == head and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == "self":
            return list(n.args)
    return []


def region_child(model: nn.Module, r: Region, attrs: dict[str, AttrInfo], region_uses: dict[str, list[Region]],
                  fs: ForwardSource, user_file: Any, local_names: set[str],
                  ties: list[tuple[str, str]], full_tensors: dict[str, torch.Tensor],
                  entry: int | None = None) -> SourceChild:
    """`entry`: the instance that holds that entry of the stacked tensors the region reads (r.stacked): its
    attribute is the container's item (`linear.3`), its weight the entry (source_regions.stacked_entries)."""
    from hdecomp.decompose.codegen import initialise_text
    ctx = SourceContext(user_file=user_file)
    wm: dict[str, str | WeightSlice] = {}
    used = names_of([*r.local_defs, *r.nodes, *(it.context_expr for it in r.contexts)])
    init: list[str] = []
    methods: list[str] = []
    method_homes: list[ForwardSource] = []
    attr_list = list(used.self_attrs)
    i = 0
    while i < len(attr_list):
        a = attr_list[i]
        i += 1
        info = attrs.get(a)
        if info is None:
            raise SourceStepError(f"self.{a} is read by a child but not found on the module")
        if info.kind == "method":
            src = method_source(info.value, a)
            methods.append(src)
            method_homes.append(method_home(info.value, fs))
            for sub in names_of([ast.parse(textwrap.dedent(src))]).self_attrs:
                if sub not in attr_list:
                    attr_list.append(sub)
                    if sub not in attrs:
                        attrs[sub] = attr_info(model, sub)
            continue
        owners = region_uses.get(a, [r])
        first = owners[0]
        if info.kind in ("module", "container"):
            # one module object for the regions that read it where it holds state (its weights are one);
            # a stateless one (EdgeNeXt's drop_path, an nn.Identity in eval) is a copy in each region
            if first is not r and first.attr and _state_keys(info.value):
                ties.append((f"{r.attr}.{a}", f"{first.attr}.{a}"))
            try:
                expr = module_expr(info.value, ctx)
            except NotRepresentable as exc:
                raise SourceStepError(f"self.{a} cannot be rebuilt in a child: {exc}") from exc
            problem = check_expr(expr, info.value, ctx)
            if problem:
                raise SourceStepError(problem)
            init.append(f"        self.{a} = {expr}")
            init.extend(f"        {line}" for line in hook_registrations(info.value, f"self.{a}", ctx))
            # (a constructor that leaves its parameters as torch.empty memory: DBRX's expert GLU)
            fill = initialise_text(info.value, prefix=f"{a}.")
            if fill:
                init.extend(fill.rstrip("\n").split("\n"))
            if first is r:
                for key in _state_keys(info.value):
                    wm[f"{a}.{key}"] = f"{a}.{key}"
        elif info.kind == "tensor" and entry is not None and a in r.stacked:
            init.append(_tensor_init(model, a, _entry(full_tensors.get(a, info.value), entry), ctx))
            wm[a] = WeightSlice.entry(a, 0, entry)
        elif info.kind == "tensor":
            if first is not r and first.attr:
                ties.append((f"{r.attr}.{a}", f"{first.attr}.{a}"))
            init.append(_tensor_init(model, a, full_tensors.get(a, info.value), ctx))
            registered = a in dict(model.named_parameters(recurse=False)) or a in dict(model.named_buffers(recurse=False))
            if first is r and (registered or not _small_tensor(info.value)):   # (a small plain one: a literal)
                wm[a] = a
        else:
            if first is not r and first.attr and is_plain_object(info.value):
                # one object for the regions that read it, as in the original: a cache it fills once (Z-Image's
                # RopeEmbedder and its frequency tables) is filled once
                ties.append((f"{r.attr}.{a}", f"{first.attr}.{a}"))
            try:
                init.append(f"        self.{a} = {literal(info.value, ctx)}")
            except NotRepresentable as exc:
                raise SourceStepError(f"self.{a} ({type(info.value).__name__}) cannot be written as code") from exc
    bind_globals(used.loads, local_names, fs, ctx, where="a child")
    for m, home in zip(methods, method_homes, strict=True):
        # (a method another module defines, a base class's `warn_if_padding_and_no_attention_mask` in
        # transformers' modeling_utils, reads that module's globals: `is_tracing`)
        bind_globals(names_of([ast.parse(textwrap.dedent(m))]).loads, set(), home, ctx, where="a child")
    body: list[str] = []
    for d in r.local_defs:
        body += ast.unparse(d).split("\n")
    stmts = ast.unparse(r.expr).split("\n") if r.expr is not None else \
        [ln for s in r.stmts for ln in ast.unparse(s).split("\n")]
    if r.expr is not None:
        stmts = ["return " + stmts[0], *stmts[1:]]
    if r.contexts:
        head = "with " + ", ".join(ast.unparse(it) for it in r.contexts) + ":"
        body.append(head)
        body += ["    " + ln for ln in stmts]
        indent = "    "
    else:
        body += stmts
        indent = ""
    if r.expr is None:
        ret = r.outputs[0] if len(r.outputs) == 1 else "(" + ", ".join(r.outputs) + ")" if r.outputs else "None"
        body.append(f"{indent}return {ret}")
    doc = _region_doc(r)
    lines = ["class Model(nn.Module):", f'    """{doc}"""', "", "    def __init__(self):", "        super().__init__()"]
    lines += init
    for m in methods:
        lines.append("")
        lines += ["    " + ln if ln else ln for ln in textwrap.dedent(m).rstrip().split("\n")]
    lines += ["", f"    def forward(self, {', '.join(r.inputs)}):" if r.inputs else "    def forward(self):"]
    lines += ["        " + ln if ln else ln for ln in body]
    # (the contexts it runs under, `torch.no_grad()`, `sdpa_kernel(...)`, are listed, and no compute ops)
    ops = (["autocast"] if r.contexts else []) + _region_ops(r, attrs)
    held = [a for a in attr_list if a in attrs and attrs[a].kind in ("module", "container")]
    # (`self.norm(x)`, `self.experts[i](x)`; not a table it reads, `self.level_embed.weight[i]`)
    called = {a for _, a in self_method_calls(r.nodes)} | {
        n.func.value.attr for node in r.nodes for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) and isinstance(n.func.value, ast.Attribute)
        and isinstance(n.func.value.value, ast.Name) and n.func.value.value.id == "self"}
    return SourceChild(attr=r.attr if entry is None else f"{r.attr}.{entry}", kind="region",
                       class_src="\n".join(lines) + "\n", ctx=ctx,
                       base=region_base(r, attrs), weight_map=wm, ops=ops, region=r,
                       region_modules=[attrs[a].value for a in held],
                       region_calls=[attrs[a].value for a in held if a in called])


def _region_doc(r: Region) -> str:
    first = r.first_line or ast.unparse(r.expr if r.expr is not None else r.stmts[0]).split("\n")[0]
    if len(first) > 80:
        first = first[:77] + "..."
    where = " (a loop body: called once per iteration)" if r.in_loop else ""
    if r.entries:
        held = ", ".join(f"self.{a}" for a in r.stacked)
        where = (f" (a loop body: the parent holds one instance per entry of the stacked {held} it read as "
                 f"`[{r.entry}]`, {r.entries} in all, and calls the one of each iteration)")
    return f"`{first}`{' ...' if len(r.stmts) > 1 else ''} from the parent's forward{where}.".replace('"""', "'''")


def _entry(t: torch.Tensor, k: int) -> torch.Tensor:
    """Entry `k` of a stacked tensor, with its recorded dimensions' source (the entries' count dropped)."""
    from hdecomp.decompose.shapes import dims_source
    e = t.select(0, k)
    if getattr(t, "_hdecomp_dims", None) is not None:
        e._hdecomp_dims = dims_source(t)[1:]  # type: ignore[attr-defined]
    return e


def _small_tensor(t: torch.Tensor) -> bool:
    """A tensor a file writes as a literal (`torch.tensor([...])`): at most 16 values, at most one dimension."""
    return t.numel() <= 16 and t.dim() <= 1


def _tensor_init(model: nn.Module, name: str, t: torch.Tensor, ctx: SourceContext) -> str:
    """A parameter / buffer the region reads, in the child's __init__: a stand-in of the recorded shape and
    dtype (batch-sized dimensions as `batch_size`) whose values the verifier (and the composition test)
    transfer from the parent (weight_map.json)."""
    from hdecomp.decompose.codegen import uses_batch
    from hdecomp.decompose.input_code import float_draw
    from hdecomp.decompose.shapes import BATCH, dims_source, full_batch, sample
    dims = dims_source(t)
    if any(d == BATCH or d.startswith(f"{BATCH} ") for d in dims):
        uses_batch(ctx, full_batch(t))
    shape_t = f"({', '.join(dims)},)" if len(dims) == 1 else f"({', '.join(dims)})"
    dt = "" if t.dtype == torch.float32 else f", dtype={t.dtype}"
    own = dict(model.named_parameters(recurse=False))
    if name in own:
        frozen = "" if own[name].requires_grad else ", requires_grad=False"
        return f"        self.{name} = nn.Parameter({float_draw(sample(t).detach(), shape_t, dt)}{frozen})"
    small = _small_tensor(t)
    plain = name not in dict(model.named_buffers(recurse=False))
    if plain and small:   # a small plain tensor attribute: the same value, written out
        return f"        self.{name} = {tensor_literal(sample(t))}"
    draw = float_draw(sample(t).detach(), shape_t, dt) if t.is_floating_point() else f"torch.zeros({shape_t}{dt})"
    if plain:   # a big one (a sinusoidal table built in __init__): a non-persistent buffer the map fills
        init = draw
        return (f"        # a plain tensor attribute of the original ({name}): its values come from the parent\n"
                f"        self.register_buffer({name!r}, {init}, persistent=False)")
    persistent = name in model.state_dict()
    init = tensor_literal(sample(t)) if small else draw
    flag = "" if persistent else ", persistent=False"
    return (f"        # buffer of the original ({name}): its values come from the parent\n"
            f"        self.register_buffer({name!r}, {init}{flag})")
