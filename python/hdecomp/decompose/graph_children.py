"""The children of a graph step as code: each planned child (plan.py's ChildPlan) generated as a component
file's body (codegen.py) with the weights it holds, named by its workload, and drafted into the step
(step_draft.py). A submodule child is the module with its recorded constructor; a group of ops is a class
over the graph's nodes."""

from __future__ import annotations

import keyword
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture import Capture
from hdecomp.decompose.capture.common import CALL_INPUTS, held_value, is_held_object
from hdecomp.decompose.codegen import (
    ComponentText,
    assemble,
    flat_tensors,
    group_child_class,
    module_child_class,
)
from hdecomp.decompose.naming import (
    dtype_short,
    input_signature,
    module_base_name,
    safe_attr,
    shape_sig,
    snake,
)
from hdecomp.decompose.node_kinds import is_parent_plumbing, target_name
from hdecomp.decompose.patterns import plumbing_root
from hdecomp.decompose.plan import ChildPlan, node_op_name
from hdecomp.decompose.plumbing import packed_objects, without_packed, without_plumbing_objects
from hdecomp.decompose.shapes import real_values
from hdecomp.decompose.source import NotRepresentable, SourceContext, literal
from hdecomp.decompose.state import Node
from hdecomp.decompose.step_draft import DraftChild, StepDraft, child_header, child_node
from hdecomp.decompose.stepfiles import (
    check_expr,
    merged_in_model,
    parameter_signature,
)
from hdecomp.decompose.twins import call_numbers, class_workload_key, computing_twin, hands_objects
from hdecomp.formats.weight_map import WeightSlice
from hdecomp.verify.weights import transferred_keys
from hdecomp.vocab.ops import RANDOM_OPS, SHAPE_FREE_OPS, is_compute_op
from hdecomp.vocab.roles import category, role_of
from hdecomp.vocab.workload import is_shape_free, workload_key

WRAP_ATTR = "layers"   # the attribute of a component class that holds a torch.nn container's items


@dataclass
class ChildCode:
    """One child as code, before it is named: its file's body (and the same with canonical names: its
    workload), its attribute in the parent, its name's base, its ops and recorded call, and the parent tensors
    it holds (original key -> key inside the child; a packed tensor's parts; tensors an earlier child holds
    too; a group's attributes of them in order)."""

    body: str
    canon: str
    attr: str
    base: str
    ops: list[str]
    in_names: list[str]
    in_args: list[Any]
    in_kwargs: dict[str, Any]
    out_val: Any
    own_map: dict[str, str] = field(default_factory=dict)
    own_slices: dict[str, list[WeightSlice]] = field(default_factory=dict)
    own_ties: list[tuple[str, str]] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    # a submodule child's constructor expression (`Attention(config, 0)`), where another instance of its class
    # may share its file (twins.py): not wrapped, and handed no object (a cache) by the parent
    expr: str = ""


@dataclass
class GraphChildren:
    """What drafting a graph step's children gives its parent: each child's component by attribute, the
    step's weight map (a packed tensor's parts apart) and the tensors several children read."""

    files: dict[str, str] = field(default_factory=dict)
    weight_map: dict[str, str] = field(default_factory=dict)
    slices: dict[str, list[WeightSlice]] = field(default_factory=dict)
    shared_ties: list[tuple[str, str]] = field(default_factory=list)   # (copy, first)


# a value computed from the weights alone is written with its recorded values up to this many elements (a
# quantiser's levels; not a table, T5's relative position bias, which a random draw stands in for)
_EXACT_LIMIT = 64


def _of_weights_alone(graph: fx.Graph) -> set[fx.Node]:
    """The values computed from parameters, buffers and constants alone: no input reaches them, and no random
    draw made them."""
    data: set[fx.Node] = set()
    for n in graph.nodes:
        if n.op == "placeholder" or any(a in data for a in n.all_input_nodes) or \
                (n.op in ("call_function", "call_method") and target_name(n) in RANDOM_OPS):
            data.add(n)
    return {n for n in graph.nodes if n not in data and n.op != "output"}


def _calls_owner(child: ChildPlan, key: str) -> bool:
    """Whether `child` holds the tensor `key` of the original because it calls the module that owns it (a
    submodule child, a group calling that module), not because it reads the tensor itself (DBRX's experts
    slicing `self.mlp.w1`)."""
    return child.kind == "module" or any(m.op == "call_module" and key.startswith(f"{m.target}.")
                                         for m in child.members)


def draft_children(draft: StepDraft, root_dir: Path, node: Node, model: nn.Module, cap: Capture,
                   children: list[ChildPlan], real: list[dict[str, Any]] | None,
                   vnames: dict[fx.Node, str]) -> GraphChildren:
    """Generate every child, name it by its workload (one file per workload, named like its first use) and add
    it to `draft`. Raises NotRepresentable (or an HdecompError) where a child cannot be written."""
    out = GraphChildren()
    used_attrs: set[str] = set()
    of_weights = _of_weights_alone(cap.graph)
    called: set[str] = set()   # the original's tensors held by a child that calls the module owning them
    for child in children:
        if child.kind == "group":
            # a value computed from the weights alone (X-Codec 2.0's FSQ `atanh(offset / half_range)`, both from
            # its levels) is an input with its recorded values, which a random draw would take out of the domain
            for a in child.inputs:
                if a not in of_weights or a.op == "get_attr":   # (a parameter itself: its child holds it)
                    continue
                value = cap.values.get(a.name)
                if isinstance(value, torch.Tensor) and value.is_floating_point() and not value.is_meta and \
                        value.numel() <= _EXACT_LIMIT and bool(torch.isfinite(value).all()):
                    value._hdecomp_recorded = True  # type: ignore[attr-defined]
        code = _module_child_code(child, model, cap, node, used_attrs) if child.kind == "module" else \
            _group_child_code(child, model, cap, node, used_attrs, vnames, out.weight_map)
        level = 0 if child.kernel else child.level
        names = draft.names
        shape_free = is_shape_free(child.kernel, code.ops)
        content = f"{level}:{workload_key(code.canon, shape_free=shape_free)}"
        class_key = f"{level}:{class_workload_key(code.canon)}" if child.kind == "module" and code.expr else None
        if class_key is not None and content not in names.registry.by_content:
            twin = computing_twin(list(code.in_args), dict(code.in_kwargs), code.out_val,
                                  model.get_submodule(str(child.target)), names.registry.by_class.get(class_key, []),
                                  SourceContext(user_file=node.path), names.registry.numbers)
            if twin is not None:   # a repeated layer that computes as the one written: that one's file
                names.registry.twin(content, twin)
        stem, is_new = names.registry.name_for(code.base, content,
                                               "" if shape_free else input_signature(flat_tensors(list(code.in_args))))
        if is_new and class_key is not None:
            names.registry.by_class.setdefault(class_key, []).append((stem, code.expr))
            names.registry.numbers[stem] = call_numbers(list(code.in_args), dict(code.in_kwargs))
        # the file of the workload's first use names the tensors it holds its own way (`n1` where this
        # use reads `n2`): this use's tensors map onto those attributes, in the same order
        first_state = names.state_attrs.setdefault(stem, code.state)
        rename = dict(zip(code.state, first_state, strict=False)) if not is_new else {}
        # the child's tensors, keyed from its attribute in the parent now that it is known
        attr = code.attr
        for k, v in code.own_map.items():
            mapped = f"{attr}.{_renamed(v, rename)}"
            first = out.weight_map.get(k)
            calls = _calls_owner(child, k)
            if calls and k in called and isinstance(first, str) and first != mapped:
                # a submodule two children call (Granite Speech's embeddings, called by the parent and inside the
                # language model it hands on): the later copy is tied to the first, one tensor
                out.shared_ties.append((mapped, first))
                continue
            out.weight_map[k] = mapped
            if calls:
                called.add(k)
        for k, parts in code.own_slices.items():
            out.slices.setdefault(k, []).extend(replace(p, key=f"{attr}.{_renamed(p.key, rename)}") for p in parts)
        out.shared_ties += [(f"{attr}.{_renamed(copy, rename)}", first) for copy, first in code.own_ties]
        out.files[attr] = stem
        new_node = _new_node(stem, level, code, child, node, root_dir, cap, real) if is_new else None
        if new_node is not None:
            names.texts[stem] = _component_text(stem, level, code, node)
        uses = max(1, len(child.members) if child.kind == "module" else 1)
        draft.children.append(DraftChild(stem, names.texts[stem], uses, new_node))
    return out


def _component_text(stem: str, level: int, code: ChildCode, node: Node) -> str:
    header = child_header(level, code.ops, list(zip(code.in_names, code.in_args, strict=False)), code.in_kwargs,
                          code.out_val)
    return ComponentText(code.body, header).text(stem, level, node.id)


def _new_node(stem: str, level: int, code: ChildCode, child: ChildPlan, node: Node, root_dir: Path, cap: Capture,
              real: list[dict[str, Any]] | None) -> Node:
    call = child.members[0] if child.kind == "module" else None
    return child_node(root_dir, node, stem, level, list(zip(code.in_names, code.in_args, strict=False)),
                      code.in_kwargs, code.out_val, code.ops, child.ops,
                      _child_in_model(child, call, (real or [cap.values]) if node.parent is None else real),
                      values=cap.values)


def _module_child_code(child: ChildPlan, model: nn.Module, cap: Capture, node: Node, used_attrs: set[str],
                       ) -> ChildCode:
    """A submodule child: the module with its recorded constructor arguments (a torch.nn container held by a
    small component class), called as the parent calls it."""
    ctx = SourceContext(user_file=node.path)
    sub = model.get_submodule(str(child.target))
    doc = f"{type(sub).__name__} with the recorded constructor arguments."
    # A torch.nn container (Sequential, ...) is held by a small component class: its items
    # must sit under a component, not be the child's own raw torch.nn submodules.
    wrap = getattr(nn, type(sub).__name__, None) is type(sub) and any(True for _ in sub.children())
    call = child.members[0]
    # the header and the tree name the inputs like the module's forward does (`hidden_states`)
    own_names = forward_parameter_names(sub, len(call.args), prefix=True)
    if own_names is not None and not all(n.isidentifier() and not keyword.iskeyword(n) and
                                         n not in ("self", "kwargs") for n in own_names):
        own_names = None
    # one value passed in several places (self-attention's `self.attn(x, x, x)`) is one input: the
    # module sees the same tensor, as in the original (MHA then runs one packed QKV projection)
    passes = None
    pattern = _repeats(call)
    if wrap and own_names is not None and pattern is not None and \
            all(_repeats(m) == pattern for m in child.members):
        child.arg_keep = sorted(set(pattern))
        passes = [own_names[i] for i in pattern]
        own_names = [own_names[i] for i in child.arg_keep]
    built = {} if wrap else _objects_built_by_child(child, own_names, ctx)
    class_src, expr = module_child_class(sub, ctx, doc, wrap=wrap, positional=own_names, passes=passes,
                                         built=built)
    problem = check_expr(expr, sub, ctx)
    if problem:
        raise NotRepresentable(problem)
    if built:   # the child's file builds them: no call of the parent passes them any more
        for member in child.members:
            member.args = tuple(a for i, a in enumerate(member.args) if i not in built)
            member.kwargs = {k: v for k, v in member.kwargs.items() if k not in built}
        own_names = [n for i, n in enumerate(own_names or []) if i not in built] or None
    inner = f"{WRAP_ATTR}." if wrap else ""
    in_args = [_value(call.args[i], cap) for i in (child.arg_keep or range(len(call.args)))]
    in_kwargs = {k: _value(v, cap) for k, v in call.kwargs.items()}
    out_val = cap.values[call.name]
    plain_args, plain_kwargs = without_plumbing_objects(sub, in_args, in_kwargs, out_val, ctx)
    # the parent's call passes None where the child's file does (verify-step checks the parent)
    positions = list(child.arg_keep or range(len(call.args)))
    dropped = {positions[i] for i, v in enumerate(plain_args) if v is None and in_args[i] is not None}
    if dropped or plain_kwargs != in_kwargs:
        call.args = tuple(None if n in dropped else a for n, a in enumerate(call.args))
        call.kwargs = {k: (None if plain_kwargs[k] is None and in_kwargs[k] is not None else v)
                       for k, v in call.kwargs.items()}
        in_args, in_kwargs = plain_args, plain_kwargs
    own_map: dict[str, str] = {}
    for alias in sorted(q for q, m in model.named_modules(remove_duplicate=False) if m is sub and q):
        for key in transferred_keys(sub):
            own_map[f"{alias}.{key}"] = f"{inner}{key}"
    ops = [type(sub).__name__]
    base = module_base_name(sub, str(child.target)) if not child.kernel else kernel_base_name(child, model, cap)
    attr = _unique_attr(child.target.replace(".", "_") if child.target else "child", used_attrs)
    child.attr = attr
    body = assemble(class_src, list(in_args), in_kwargs, out_val, ctx, ops=list(ops))
    return ChildCode(body=body, canon=body, attr=attr, base=base, ops=ops,
                     in_names=own_names or [f"arg{i}" for i in range(len(in_args))], in_args=in_args,
                     in_kwargs=in_kwargs, out_val=out_val, own_map=own_map,
                     # (a cache the parent handed on is None in the parent's call too: a layer that wrote its own
                     # slot of it computes alike with any index; twins.py)
                     expr="" if wrap or hands_objects(in_args, in_kwargs) else expr)


def _group_child_code(child: ChildPlan, model: nn.Module, cap: Capture, node: Node, used_attrs: set[str],
                      vnames: dict[fx.Node, str], weight_map: dict[str, str]) -> ChildCode:
    """A group of the graph's ops (a kernel, a fusion or a layer): a class over its nodes, holding the parent
    tensors it reads (`weight_map`: those earlier children hold, whose copies here are tied to theirs)."""
    ctx = SourceContext(user_file=node.path)
    doc = " -> ".join(child.op_names) + "."
    if child.constant:   # plan.py: a parent tensor that a submodule child is called with
        held = str(child.members[0].target).split(".")[-1]
        doc = (f"Holds the {child.op_names[0]} `{held}` and returns it: the parent passes it on to "
               "the child that reads it.")
    params: list[str] = []
    state: list[str] = []
    class_src, wm = group_child_class(child, model, cap.values, ctx, doc, rebuild_check=check_expr,
                                      value_names=vnames, params_out=params, state_out=state)
    # the workload is the file up to names (of its values and of the tensors it holds): one file
    # per workload, named like its first use
    canon_ctx = SourceContext(user_file=node.path)
    canon_src, _ = group_child_class(child, model, cap.values, canon_ctx, doc, canonical_state=True)
    code = ChildCode(body="", canon="", attr="", base="", ops=child.op_names, in_names=params,
                     in_args=[cap.values[a.name] for a in child.inputs], in_kwargs={}, out_val=None, state=state)
    for k, v in wm.items():
        if isinstance(v, WeightSlice):
            code.own_slices.setdefault(k, []).append(v)
        elif k in weight_map:   # read by an earlier child too: this copy is tied to that one
            code.own_ties.append((v, weight_map[k]))
        else:
            code.own_map[k] = v
    outs = [cap.values[o.name] for o in child.outputs]
    code.out_val = outs[0] if len(outs) == 1 else tuple(outs)
    packed = packed_objects(child.inputs, code.in_args, child.members)
    if packed:   # (the parent hands it the object: only the file's own inputs and output leave it out)
        code.out_val = without_packed(code.out_val, [code.in_args[i] for i in packed])
        code.in_args = [None if i in packed else v for i, v in enumerate(code.in_args)]
    integer = integer_work(child, cap.values)
    made = [cap.values.get(o.name) for o in child.outputs]
    float_out = any(isinstance(t, torch.Tensor) and t.is_floating_point() for t in made)
    code.base = kernel_base_name(child, model, cap) if child.kernel else \
        _group_base_name(child, model, integer, float_out)
    single = child.compute_members
    attr = (str(single[0].target).replace(".", "_") if len(single) == 1 and single[0].op in ("call_module", "get_attr")
            else code.base if child.kernel else child.role or role_of(child.op_names, integer=integer,
                                                                         float_out=float_out))
    code.attr = child.attr = _unique_attr(attr, used_attrs)
    code.body = assemble(class_src, list(code.in_args), {}, code.out_val, ctx, ops=list(code.ops))
    code.canon = assemble(canon_src, list(code.in_args), {}, code.out_val, canon_ctx, ops=list(code.ops))
    return code


def _renamed(key: str, rename: dict[str, str]) -> str:
    """A key inside a child (`n2`, `norm.weight`) with its first attribute renamed (`n2` -> `n1`)."""
    head, dot, rest = key.partition(".")
    return rename.get(head, head) + dot + rest


def kernel_base_name(child: ChildPlan, root: nn.Module, cap: Capture) -> str:
    """`{op}_{shape_signature}_{dtype}` for a kernel child, named after its first member that computes
    (`is_compute_op`), where one that computes nothing comes first. (nn.Identity calls, the case that
    needed it, are dropped before planning now: _drop_identity_calls.)"""
    members = child.compute_members
    first = next((i for i, n in enumerate(members) if is_compute_op(node_op_name(n, root))), 0)
    m = members[first]
    op = node_op_name(m, root) if first else child.op_names[0] if child.op_names else "op"
    if _standardises_a_weight(m, op):
        op = "weight_standardization"
    dtype = None
    sig = ""
    held = cap.values.get(m.name) if m.op == "get_attr" else None
    if isinstance(held, torch.Tensor):   # a constant kernel (plan.py): named after the tensor it holds
        return f"{snake(op)}_{shape_sig(held.shape)}_{dtype_short(held.dtype)}"
    if m.op == "call_module" and (held_sig := parameter_signature(root.get_submodule(str(m.target)))):
        sig, dtype = held_sig
    if dtype is None:
        vals = [cap.values.get(a.name) for a in m.all_input_nodes]
        tens = [v for v in vals if isinstance(v, torch.Tensor)]
        dtype = tens[0].dtype if tens else None
        if snake(op) not in SHAPE_FREE_OPS:
            sig = "_".join(shape_sig(t.shape) for t in tens[:2])
            if not sig:
                out = cap.values.get(m.name)
                if isinstance(out, torch.Tensor):
                    sig = shape_sig(out.shape)
    parts = [snake(op)] + ([sig] if sig else []) + [dtype_short(dtype)]
    return "_".join(parts)


def integer_work(child: ChildPlan, values: dict[str, Any]) -> bool:
    """The group reads integer or bool tensors only, and no parameter or buffer (mask, position and routing
    work, which vocab.roles.role_of names by its role; `(1 - mask.float()) * -1e4` makes a float mask from an
    integer one)."""
    if any(m.op == "get_attr" for m in child.members):
        return False
    read = []
    for a in child.inputs:   # (through the casts and views the parent keeps: `mask[:, None].float()`)
        root, chain = plumbing_root(a, is_parent_plumbing)
        kinds = [values.get(n.name) for n in [*chain, root]]
        tensors = [t for t in kinds if isinstance(t, torch.Tensor)]
        if tensors:   # (the value read, or the one it is cast from: a float mask cast to bool is mask work)
            read.append(any(not (t.is_floating_point() or t.is_complex()) for t in (tensors[0], tensors[-1])))
    return bool(read) and all(read)


def _standardises_a_weight(m: fx.Node, op: str) -> bool:
    """A norm whose normalised input is a view of a parameter (`F.batch_norm(self.weight.reshape(1, out, -1),
    ...)`, NFNet's and BiT's standardised convolutions): weight standardisation, a kernel on the weights, named
    so rather than after the norm it is written with."""
    if category(op) != "norm" or m.op != "call_function" or not m.args or not isinstance(m.args[0], fx.Node):
        return False
    root, _ = plumbing_root(m.args[0], is_parent_plumbing)
    return root.op == "get_attr"


def _group_base_name(child: ChildPlan, root: nn.Module, integer: bool = False, float_out: bool = False) -> str:
    """A fusion's or layer's file name: its role (vocab/roles.py: `conv_norm_act`, `attention_core`), then
    the signature of its first contraction module where it has one (`conv_norm_act_64x3x7x7`), so that
    groups of one role with other weights are told apart by name rather than by a `_vN`."""
    role = child.role or role_of(child.op_names, integer=integer, float_out=float_out)
    for m in child.compute_members:
        if m.op != "call_module":
            continue
        sub = root.get_submodule(str(m.target))
        if isinstance(sub, nn.Linear):
            return f"{role}_{sub.in_features}x{sub.out_features}"
        weight = getattr(sub, "weight", None)
        if category(type(sub).__name__) == "conv" and isinstance(weight, torch.Tensor):
            return f"{role}_{shape_sig(weight.shape)}"
    return role


def _objects_built_by_child(child: ChildPlan, names: list[str] | None, ctx: SourceContext) -> dict[int | str, str]:
    """The constant objects (capture.common.is_constant_object) the parent built in its forward and hands
    this submodule child (`self.block(x, Settings(2.0))`), by argument position or keyword, each as the
    code that builds it: the child's own file builds it and passes it on, and the parent's calls drop it
    (the parent only calls children). Every call of the child must hand it an object built by the same
    code; a positional one needs the forward's parameter names. The parent's step verifies the result."""
    first = child.members[0]
    slots: list[int | str] = [i for i, a in enumerate(first.args) if is_held_object(a) and names is not None]
    slots += [k for k, v in first.kwargs.items() if is_held_object(v)]
    built: dict[int | str, str] = {}
    for slot in slots:
        exprs = set()
        for call in child.members:
            value = (call.args[slot] if slot < len(call.args) else None) if isinstance(slot, int) \
                else call.kwargs.get(slot)
            if not isinstance(value, fx.Node) or not is_held_object(value):
                break
            try:
                exprs.add(literal(held_value(value), ctx))
            except NotRepresentable:
                break
        else:
            if len(exprs) == 1:
                built[slot] = exprs.pop()
    return built


def _repeats(call: Any) -> list[int] | None:
    """For each positional argument of a call, the position of its first occurrence, when some graph value
    is passed more than once; else None."""
    args = list(call.args)
    if not args or not all(isinstance(a, torch.fx.Node) for a in args):
        return None
    pattern = [next(i for i, b in enumerate(args) if b is a) for a in args]
    return pattern if len(set(pattern)) < len(pattern) else None


def forward_parameter_names(model: nn.Module, count: int, prefix: bool = False) -> list[str] | None:
    """The names of `model.forward`'s positional parameters, when there are exactly `count` of them (with
    `prefix`: the first `count`, for a call that leaves the others to their defaults)."""
    import inspect
    try:
        params = inspect.signature(model.forward).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if prefix and len(names) >= count:
        return names[:count]
    return names if len(names) == count else None


def _value(a: Any, cap: Capture | dict[str, Any]) -> Any:
    """An argument of a graph call with its recorded value (of `cap`, or of a dict of node values)."""
    values = cap if isinstance(cap, dict) else cap.values
    if isinstance(a, fx.Node):
        return values[a.name]
    if isinstance(a, (list, tuple)):
        return type(a)(_value(v, values) for v in a)
    if isinstance(a, dict):
        return {k: _value(v, values) for k, v in a.items()}
    return a


def _child_in_model(child: ChildPlan, call: Any, per_call: list[dict[str, Any]] | None,
                    ) -> list[tuple[list[Any], dict[str, Any]]]:
    """What `child` receives in the model, over every call of the parent (stepfiles.merged_in_model)."""
    return merged_in_model([_child_calls(child, call, values) for values in per_call or []])


def _child_calls(child: ChildPlan, call: Any, values: dict[str, Any],
                 ) -> list[tuple[list[Any], dict[str, Any]]]:
    """What `child` receives in one call of the parent: its call (and a loop's last) read from `values`,
    the parent's graph values where the model runs it (at the root, the recording's own: full-size
    stand-ins go back to the recorded tensors); none where the values do not hold it."""
    try:
        if call is None:   # a group of ops: its input values
            calls: list[tuple[list[Any], dict[str, Any]]] = [([values[a.name] for a in child.inputs], {})]
        else:
            members = [call] + ([child.members[-1]] if len(child.members) > 1 else [])  # a loop's last call too
            # (each call with its own arguments: a second call may pass fewer, `self.encoder(x)` after
            # `self.encoder(x, context)`)
            calls = [_called_with(m, child.arg_keep, values) for m in members]
    except KeyError:   # a value the replay does not hold
        return []
    return [real_values(a, k) for a, k in calls]


def _called_with(m: Any, keep: Any, values: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The arguments of the module call `m` as it was called, where the replay kept them (node_values), else
    read from the values of the nodes it names (positions `keep` only, where given)."""
    called = values.get(m.name + CALL_INPUTS)
    if called is not None:
        args, kwargs = called
        return [args[i] for i in (keep or range(len(args)))], dict(kwargs)
    return ([_value(m.args[i], values) for i in (keep or range(len(m.args)))],
            {k: _value(v, values) for k, v in m.kwargs.items()})


def _unique_attr(base: str, used: set[str]) -> str:
    return safe_attr(base, used)

