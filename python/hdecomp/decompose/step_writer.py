"""One step written: the component captured (fx, export or a recording), its children chosen (plan.py)
and generated (codegen.py), and the step folder written (original.py, children/, refactored.py,
weight_map.json); or, where the forward's own Python must stay, the source-level step (source_write.py).
The driver only queues the components and gates each step on its verification."""

from __future__ import annotations

import contextlib
import keyword
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.anticheat.static import is_compute_op
from hdecomp.decompose.batch_relative import relative_batch_ints
from hdecomp.decompose.capture import (
    Capture,
    CaptureError,
    capture,
    plain_attributes,
    record_init_args,
    reference_run,
    restore_plain_attributes,
)
from hdecomp.decompose.capture.common import CALL_INPUTS, flat_values
from hdecomp.decompose.codegen import (
    ComponentText,
    assemble,
    describe,
    flat_tensors,
    group_child_class,
    inputs_block,
    module_child_class,
    refactored_source,
    shape_text,
)
from hdecomp.decompose.levels import step_caps
from hdecomp.decompose.naming import (
    dtype_short,
    input_signature,
    module_base_name,
    shape_sig,
)
from hdecomp.decompose.plan import (
    ChildPlan,
    PlanError,
    is_kernel_module,
    is_output_object_call,
    is_parent_plumbing,
    mark_host_numbers,
    node_op_name,
    oversized_module_children,
    plan_children,
)
from hdecomp.decompose.plumbing import without_plumbing_objects
from hdecomp.decompose.shapes import (
    BatchBakedError,
    available_bytes,
    full_size_capture,
    graph_values_at,
    real_values,
    state_storages,
    tensor_bytes,
)
from hdecomp.decompose.source import NotRepresentable, SourceContext
from hdecomp.decompose.state import Decomposition, Node
from hdecomp.decompose.stepfiles import (
    check_expr,
    flag_signature,
    in_model_calls,
    init_inputs_expr,
    io_maps,
    merged_in_model,
    parameter_signature,
    tie_tied_tensors,
    write_in_model,
)
from hdecomp.decompose.value_names import value_names
from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.weight_map import WeightSlice, dump_weight_map, map_value_json
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import BUILD_SEED, load_component
from hdecomp.verify.weights import transferred_keys
from hdecomp.vocab.levels import LEVEL_DIRS, LEVEL_NAMES
from hdecomp.vocab.ops import snake
from hdecomp.vocab.roles import category, role_of
from hdecomp.vocab.workload import SHAPE_FREE_OPS, is_shape_free, workload_key

WRAP_ATTR = "layers"   # the attribute of a component class that holds a torch.nn container's items


def _renamed(key: str, rename: dict[str, str]) -> str:
    """A key inside a child (`n2`, `norm.weight`) with its first attribute renamed (`n2` -> `n1`)."""
    head, dot, rest = key.partition(".")
    return rename.get(head, head) + dot + rest


def _kernel_base_name(child: ChildPlan, root: nn.Module, cap: Capture) -> str:
    """`{op}_{shape_signature}_{dtype}` for a kernel child, named after its first member that computes
    (`is_compute_op`), where one that computes nothing comes first. (nn.Identity calls, the case that
    needed it, are dropped before planning now: _drop_identity_calls.)"""
    members = child.compute_members
    first = next((i for i, n in enumerate(members) if is_compute_op(node_op_name(n, root))), 0)
    m = members[first]
    op = node_op_name(m, root) if first else child.op_names[0] if child.op_names else "op"
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


def _drop_identity_calls(model: nn.Module, graph: fx.Graph) -> None:
    """A call of an `nn.Identity` submodule (an eval-mode drop_path, timm's `ls1`, a `norm_pre` left out) is
    its input: no kernel, no child, nothing computed (it records no op)."""
    for n in list(graph.nodes):
        if n.op == "call_module" and len(n.args) == 1 and not n.kwargs and isinstance(n.args[0], fx.Node) and \
                type(model.get_submodule(str(n.target))) is nn.Identity:
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)


def _is_nn_container(m: nn.Module) -> bool:
    """A torch.nn Sequential / ModuleList / ModuleDict itself (not a subclass: a package's block)."""
    return type(m) in (nn.Sequential, nn.ModuleList, nn.ModuleDict) and any(True for _ in m.children())


def _group_base_name(child: ChildPlan, root: nn.Module) -> str:
    """A fusion's or layer's file name: its role (vocab/roles.py: `conv_norm_act`, `attention_core`), then
    the signature of its first contraction module where it has one (`conv_norm_act_64x3x7x7`), so that
    groups of one role with other weights are told apart by name rather than by a `_vN`."""
    role = child.role or role_of(child.op_names)
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


@dataclass
class Snapshot:
    """What writing one step adds to the run (nodes, names, files, flows), to undo it for another try."""

    nodes: set[str]
    by_content: dict[str, str]
    taken: dict[str, str]
    texts: set[str]
    flows: int
    children: list[str]
    uses: dict[str, int]

    @classmethod
    def take(cls, dec: Decomposition, node: Node) -> Snapshot:
        return cls(set(dec.nodes), dict(dec.registry.by_content), dict(dec.registry.taken), set(dec.texts),
                   len(dec.data_flow), list(node.children), dict(node.uses))

    def restore(self, dec: Decomposition, node: Node) -> None:
        for nid in [n for n in dec.nodes if n not in self.nodes]:
            path = dec.nodes.pop(nid).path
            with contextlib.suppress(OSError):
                path.unlink()
        dec.registry.by_content = dict(self.by_content)
        dec.registry.taken = dict(self.taken)
        for stem in [t for t in dec.texts if t not in self.texts]:
            del dec.texts[stem]
        del dec.data_flow[self.flows:]
        node.children, node.uses = list(self.children), dict(self.uses)
        node.capture_method = None


def _objects_built_by_child(child: ChildPlan, names: list[str] | None, ctx: SourceContext) -> dict[int | str, str]:
    """The constant objects (capture.common.is_constant_object) the parent built in its forward and hands
    this submodule child (`self.block(x, Settings(2.0))`), by argument position or keyword, each as the
    code that builds it: the child's own file builds it and passes it on, and the parent's calls drop it
    (the parent only calls children). Every call of the child must hand it an object built by the same
    code; a positional one needs the forward's parameter names. The parent's step verifies the result."""
    from hdecomp.decompose.capture.common import held_value, is_held_object
    from hdecomp.decompose.source import literal
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


def write_step(dec: Decomposition, node: Node, step_number: int, avoid: list[str] | None = None,
                ) -> list[Node] | tuple[Path, str, list[Node], str]:
    """Capture and plan `node`, write its step folder; the new child nodes (a list) when there is no
    step to verify, else (step folder, step name, child nodes, capture method). `avoid`: ways already
    tried ("graph", "source")."""
    opts = dec.options
    avoid = avoid or []
    step_name = f"step_{step_number}_{node.id}"
    step_dir = dec.root / "steps" / step_name
    comp = load_component(node.path, timeout=opts.timeout)
    with record_init_args():   # (the root's weights as its coverage draws them: BUILD_SEED)
        model = comp.build(device=opts.device, timeout=opts.timeout, batch_limit=opts.batch_limit, seed=BUILD_SEED)
    as_built = plain_attributes(model)   # the children are written from the model as built (restored below)
    args, kwargs = limited_inputs(comp, opts.batch_limit, device=opts.device, timeout=opts.timeout)
    # Forwards may change their inputs in place: every run gets its own copy of the pristine inputs.
    # One recorded run gives the reference output and the op counts (no separate counting forward).
    expected = reference_run(model, args, kwargs)
    if node.parent is None:
        from hdecomp.decompose.capture.record import holds_state
        dec.output_state = holds_state(expected.output)
    if expected.settled:
        # its first forward wrote its own weights and skips that from then on (RWKV's rescale): split as it left
        # them, the state that every later forward starts from (hdecomp.runtime.settle)
        node.settles = True
        as_built = plain_attributes(model)
        expected = reference_run(model, args, kwargs)
        restore_plain_attributes(model, as_built)
        dec.note(step_name, "decision", f"{node.id}: settled by its first forward",
                 "its first forward wrote its own parameters or buffers in place: the step is written from the "
                 "model as that forward left it, and every side of its verification runs once before the "
                 "weights are handed over")
    _spill_reference(expected, opts.device)
    total, per_module = expected.total, expected.per_module
    node.op_count = total

    def source_step(why: str) -> tuple[Path, str, list[Node], str] | None:
        from hdecomp.decompose.source_step import SourceStepError
        from hdecomp.decompose.source_write import write_source_step
        snapshot = Snapshot.take(dec, node)
        restore_plain_attributes(model, as_built)
        try:
            child_nodes, notes = write_source_step(dec, node, step_name, step_dir, comp, model, args, kwargs,
                                                   expected)
        except SourceStepError as exc:
            snapshot.restore(dec, node)
            restore_plain_attributes(model, as_built)   # (its runs set lazy state: a capture must not see it)
            dec.note(step_name, "difficulty", f"{node.id}: not split at the source level", str(exc))
            return None
        node.capture_method = "source"
        dec.note(step_name, "decision", f"{node.id}: split at the source level", why)
        for n in notes:
            dec.note(step_name, "decision", f"{node.id}: source-level step", n)
        node.step = f"steps/{step_name}"
        return step_dir, step_name, child_nodes, "source"

    if "graph" in avoid:
        return source_step("the step written from a graph capture does not verify") or \
            leaf(dec, node, step_name, "neither a graph capture nor the source-level split verifies")
    if "source" not in avoid and _loops_over_compute(model):
        done = source_step("its forward loops over tensor compute in Python: the loop stays, its body is a "
                           "child called once per iteration")
        if done is not None:
            return done
    elif "source" not in avoid and len({flag_signature(a, k) for a, k in in_model_calls(node)}) > 1:
        done = source_step("the model calls it with other flags (a string, a bool or a None argument that differs): "
                           "a graph would hold one call's path; the Python stays in the parent")
        if done is not None:
            return done
    elif "source" not in avoid and _seeds_random_state(model):
        done = source_step("its forward seeds or scopes the random state (torch.manual_seed, fork_rng): a graph "
                           "would hold the draws without the seed; the seeding stays in the parent")
        if done is not None:
            return done
    elif "source" not in avoid and expected.materializes:
        done = source_step(f"its forward hands tensor values to Python ({', '.join(expected.materializes)}): "
                           "a graph would hold only the recorded path; the Python stays in the parent")
        if done is not None:
            return done
    try:
        # A fusion splits into kernels only: composite submodules are traced through.
        through = {q for q, m in model.named_modules() if q and not is_kernel_module(m)} if node.level == 1 \
            else set()
        cap = _fresh_capture(model, as_built, args, kwargs, expected, through)
        if through:
            dec.note(step_name, "decision", f"{node.id}: split straight into kernels",
                     "a fusion's children are kernels: traced through " + ", ".join(sorted(through)))
        # A forward that only calls one container/composite submodule (once, or several times with other
        # arguments: BLIP's retrieval model run with its ITM head and without): split its content here.
        expand: set[str] = set(through) | cap.expanded
        while True:
            # (a submodule that computes nothing, an nn.Identity downsample, does not count)
            called = [n for n in cap.graph.nodes if n.op == "call_module" and per_module.get(str(n.target), 0) > 0]
            # (nor does packing the output, `BaseModelOutput(last_hidden_state=h)`: a wrapper all the same)
            computes = [n for n in cap.graph.nodes if n.op in ("call_function", "call_method")
                        and not is_parent_plumbing(n) and not is_output_object_call(n)]
            if len({str(n.target) for n in called}) != 1 or computes or \
                    is_kernel_module(model.get_submodule(str(called[0].target))):
                break
            expand.add(str(called[0].target))
            del cap  # the last capture's values (every intermediate) must not sit next to the next one's
            dec.collect()
            cap = _fresh_capture(model, as_built, args, kwargs, expected, expand)
            expand |= cap.expanded   # (children whose internal tensors escape them: traced through)
            dec.note(step_name, "decision", f"{node.id}: traced through {called[0].target}",
                     "the forward only calls this submodule; its content is split at this step instead")
        # A torch.nn container around one op (torchvision's `heads = Sequential(Linear)`) is no component of
        # its own: its op is a child of this step (a kernel, not a one-op fusion).
        one_op = sorted({str(n.target) for n in cap.graph.nodes if n.op == "call_module"
                         and str(n.target) not in expand and per_module.get(str(n.target), 0) == 1
                         and _is_nn_container(model.get_submodule(str(n.target)))})
        if one_op:
            expand |= set(one_op)
            del cap
            dec.collect()
            cap = _fresh_capture(model, as_built, args, kwargs, expected, expand)
            expand |= cap.expanded   # (children whose internal tensors escape them: traced through)
            dec.note(step_name, "decision", f"{node.id}: traced through {', '.join(one_op)}",
                     "a torch.nn container around one op: the op is a child of this step")
        # Stages of layers (under a model) and layer-sized modules inside a layer: split here (plan.py).
        for _ in range(8):
            big = [t for t in oversized_module_children(model, cap.graph, node.level, per_module,
                                                        cap.child_calls) if t not in expand]
            if not big:
                break
            expand |= set(big)
            del cap
            dec.collect()
            cap = _fresh_capture(model, as_built, args, kwargs, expected, expand)
            expand |= cap.expanded   # (children whose internal tensors escape them: traced through)
            dec.note(step_name, "decision", f"{node.id}: split {', '.join(big)} at this step",
                     "holds layer-sized modules (under a model: they become its layers)" if node.level == 3
                     else "layer-sized (6+ ops) inside a layer: its content becomes fusions and kernels here")
        # Exported/recorded graphs hold the sizes the cut batch had: written batch-relative (batch_relative.py).
        cap, baked = relative_batch_ints(comp, model, cap, opts.batch_limit, args, kwargs, expected, expand,
                                         device=opts.device, timeout=opts.timeout)
        for d in baked:
            dec.note(step_name, "deviation", f"{node.id}: batch-dependent int", d)
    except CaptureError as exc:
        if "source" not in avoid:
            done = source_step(f"no graph capture reproduces its forward ({exc})")
            if done is not None:
                return done
        return leaf(dec, node, step_name, f"cannot capture forward: {exc}")
    # The reference output (and a plain rerun's) only checked the captures: gone before the recording at
    # the second batch and code generation (a 4 GB attention score matrix in an attention fusion).
    expected.release()
    _drop_identity_calls(model, cap.graph)
    node.capture_method = cap.method
    for note in cap.notes:
        dec.note(step_name, "difficulty" if cap.method == "record" else "decision",
                 f"capture of {node.id}", note,
                 "recorded the real execution instead" if cap.method == "record" else None)

    # Choose children; a cap that yields a single child equal to the parent is lowered.
    # (a layer of 5 ops or fewer, made a layer by its contractions, still splits into fusions)
    caps = step_caps(node.level, total)
    mark_host_numbers(cap.graph, cap.values)
    children: list[ChildPlan] = []
    last_err = None
    for group_cap in caps:
        try:
            children = plan_children(model, cap.graph, node.level, per_module, cap.child_calls, group_cap,
                                     expected.contraction_ops, expected.module_calls)
        except PlanError as exc:
            last_err = str(exc)
            children = []
            continue
        if len(children) > 1 or (children and children[0].kind == "module") or total <= 1:
            break
    if not children:
        return leaf(dec, node, step_name, f"no children: {last_err or 'the forward has no compute ops'}")
    if len(children) == 1 and children[0].kind == "module" and not children[0].kernel:
        return leaf(dec, node, step_name, "the forward only calls one submodule (nothing to split at this level)")
    # What each child receives where this module runs in the model (its in-model trials), before the
    # recorded values are taken to the original batch.
    real = _in_model_values(dec, node, step_name, model, cap, expand, children)
    # Under --batch-limit the children are written at the original batch (hdecomp.decompose.shapes).
    try:
        cap, args_full, kwargs_full, deviations = full_size_capture(
            comp, model, cap, opts.batch_limit, args, kwargs, expand, device=opts.device, timeout=opts.timeout)
    except BatchBakedError as exc:
        # (a graph of the cut batch is no step of the file at its own batch: the Python that loops over the
        # batch stays in a source-level step; where that cannot be written, the graph with its recorded sizes)
        if "source" not in avoid:
            restore_plain_attributes(model, as_built)
            expected = reference_run(model, args, kwargs)   # (released after the capture: the split checks it)
            restore_plain_attributes(model, as_built)
            done = source_step(str(exc))
            if done is not None:
                return done
        cap, args_full, kwargs_full = cap, args, kwargs
        deviations = [f"{exc}: every shape keeps its recorded (batch {opts.batch_limit}) value"]
    for d in deviations:
        dec.note(step_name, "deviation", f"{node.id}: shape at the cut batch", d)

    restore_plain_attributes(model, as_built)   # (the recordings ran its forward: state it set lazily goes)
    as_root = _one_kernel_model(cap, model, children, args, kwargs) if node.parent is None else None
    if as_root is not None:
        # The whole model is one kernel: a model -> one-kernel step would only restate the model (a parent
        # in disguise); the tree is that kernel alone, a level-0 root (no step, no level_3_model copy).
        try:
            return _root_kernel(dec, node, model, cap, as_root)
        except (NotRepresentable, HdecompError) as exc:   # anything else is a bug: logged with its traceback
            dec.note(step_name, "difficulty", f"{node.id}: one kernel, cannot be written as a kernel file",
                     str(exc), "decomposed with a model -> kernel step instead")

    # Generate the children.
    ctx_root = node.path
    child_files: dict[str, str] = {}
    child_nodes: list[Node] = []
    weight_map: dict[str, str] = {}
    slices: dict[str, list[WeightSlice]] = {}   # a packed tensor of the parent: the children's parts of it
    texts: dict[str, str] = {}
    used_attrs: set[str] = set()
    shared_ties: list[tuple[str, str]] = []   # (copy, first): a parent tensor several children read
    vnames = value_names(cap.graph)
    try:
        for child in children:
            ctx = SourceContext(user_file=ctx_root)
            own_map: dict[str, str] = {}                  # original key -> the key inside this child
            own_slices: dict[str, list[WeightSlice]] = {}  # a packed parent tensor -> this child's parts
            own_ties: list[tuple[str, str]] = []          # (key inside this child, the first child's key)
            state: list[str] = []                         # a group's attributes of the parent tensors it holds
            doc = ""
            if child.kind == "module":
                sub = model.get_submodule(str(child.target))
                doc = f"{type(sub).__name__} with the recorded constructor arguments."
                # A torch.nn container (Sequential, ...) is held by a small component class: its items
                # must sit under a component, not be the child's own raw torch.nn submodules.
                wrap = getattr(nn, type(sub).__name__, None) is type(sub) and any(True for _ in sub.children())
                call = child.members[0]
                # the header and the tree name the inputs like the module's forward does (`hidden_states`)
                own_names = _forward_parameter_names(sub, len(call.args), prefix=True)
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
                for alias in sorted(q for q, m in model.named_modules(remove_duplicate=False) if m is sub and q):
                    for key in transferred_keys(sub):
                        own_map[f"{alias}.{key}"] = f"{inner}{key}"
                ops = [type(sub).__name__]
                base = module_base_name(sub, str(child.target)) if not child.kernel else \
                    _kernel_base_name(child, model, cap)
                attr = child.target.replace(".", "_") if child.target else "child"
                in_names = own_names or [f"arg{i}" for i in range(len(in_args))]
            else:
                doc = " -> ".join(child.op_names) + "."
                if child.constant:   # plan.py: a parent tensor that a submodule child is called with
                    held = str(child.members[0].target).split(".")[-1]
                    doc = (f"Holds the {child.op_names[0]} `{held}` and returns it: the parent passes it on to "
                           "the child that reads it.")
                params: list[str] = []
                class_src, wm = group_child_class(child, model, cap.values, ctx, doc, rebuild_check=check_expr,
                                                  value_names=vnames, params_out=params, state_out=state)
                # the workload is the file up to names (of its values and of the tensors it holds): one file
                # per workload, named like its first use
                canon_ctx = SourceContext(user_file=ctx_root)
                canon_src, _ = group_child_class(child, model, cap.values, canon_ctx, doc, canonical_state=True)
                for k, v in wm.items():
                    if isinstance(v, WeightSlice):
                        own_slices.setdefault(k, []).append(v)
                    elif k in weight_map:   # read by an earlier child too: this copy is tied to that one
                        own_ties.append((v, weight_map[k]))
                    else:
                        own_map[k] = v
                in_args = [cap.values[a.name] for a in child.inputs]
                in_kwargs = {}
                outs = [cap.values[o.name] for o in child.outputs]
                out_val = outs[0] if len(outs) == 1 else tuple(outs)
                ops = child.op_names
                base = _kernel_base_name(child, model, cap) if child.kernel else _group_base_name(child, model)
                single = child.compute_members
                attr = (str(single[0].target).replace(".", "_")
                        if len(single) == 1 and single[0].op in ("call_module", "get_attr")
                        else base if child.kernel else child.role or role_of(child.op_names))
                in_names = params
            attr = _unique_attr(attr, used_attrs)
            child.attr = attr
            body = assemble(class_src, list(in_args), in_kwargs, out_val, ctx, ops=list(ops))
            canon = body if child.kind == "module" else assemble(canon_src, list(in_args), in_kwargs, out_val,
                                                                  canon_ctx, ops=list(ops))
            level = 0 if child.kernel else child.level
            shape_free = is_shape_free(child.kernel, ops)
            stem, is_new = dec.registry.name_for(base, f"{level}:{workload_key(canon, shape_free=shape_free)}",
                                                 "" if shape_free else
                                                 input_signature(flat_tensors(list(in_args))))
            # the file of the workload's first use names the tensors it holds its own way (`n1` where this
            # use reads `n2`): this use's tensors map onto those attributes, in the same order
            first_state = dec.state_attrs.setdefault(stem, state)
            rename = dict(zip(state, first_state, strict=False)) if not is_new else {}

            # the child's tensors, keyed from its attribute in the parent now that it is known
            weight_map.update({k: f"{attr}.{_renamed(v, rename)}" for k, v in own_map.items()})
            for k, parts in own_slices.items():
                slices.setdefault(k, []).extend(replace(p, key=f"{attr}.{_renamed(p.key, rename)}") for p in parts)
            shared_ties += [(f"{attr}.{_renamed(copy, rename)}", first) for copy, first in own_ties]
            child_files[attr] = stem
            ins, ind, outs_s, outd = io_maps(cap.values, list(zip(in_names, in_args, strict=False)) +
                                              sorted(in_kwargs.items()), out_val)
            if is_new:
                header = {
                    "Level": f"{LEVEL_NAMES[level]}",
                    "Ops": ", ".join(ops) if ops else "-",
                    "Inputs": "; ".join(f"{n}: {shape_text(v)}" for n, v in zip(in_names, in_args, strict=False)) or "none",
                    "Outputs": shape_text(out_val),
                }
                if in_kwargs:
                    header["Keyword inputs"] = "; ".join(f"{k}: {shape_text(v)}" for k, v in in_kwargs.items())
                text = ComponentText(body, header).text(stem, level, node.id)
                dec.texts[stem] = text
                path = dec.root / LEVEL_DIRS[level] / f"{stem}.py"
                write_text_atomic(path, text)
                cn = Node(id=stem, level=level, path=path, parent=node.id, inputs={"shapes": ins, "dtypes": ind},
                          outputs={"shapes": outs_s, "dtypes": outd}, ops=list(ops), op_count=child.ops,
                          depth=node.depth + 1, status="leaf" if level == 0 else "unverified",
                          in_model=_child_in_model(child, call if child.kind == "module" else None,
                                                   (real or [cap.values]) if node.parent is None else real))
                dec.nodes[stem] = cn
                if level > 0:
                    child_nodes.append(cn)
            texts[stem] = dec.texts[stem]
            if stem not in node.children:
                node.children.append(stem)
            node.uses[stem] = node.uses.get(stem, 0) + max(1, len(child.members) if child.kind == "module" else 1)
    except (NotRepresentable, HdecompError) as exc:   # anything else is a bug: logged with its traceback
        return leaf(dec, node, step_name, f"cannot generate the children: {exc}")

    # Write the step.
    if step_dir.exists():
        shutil.rmtree(step_dir)
    (step_dir / "children").mkdir(parents=True)
    write_text_atomic(step_dir / "original.py", node.path.read_text(encoding="utf-8"))
    write_in_model(dec, node, step_dir, step_name)
    for stem, text in sorted(texts.items()):
        write_text_atomic(step_dir / "children" / f"{stem}.py", text)
    ties = tie_tied_tensors(model, weight_map) + shared_ties
    for copy, first in shared_ties:
        dec.note(step_name, "decision", f"{node.id}: {first} read by several children",
                 f"each reading child holds it; refactored.py ties {copy} to {first} (one tensor, as in the "
                 "original; weight_map.json maps the original key to the first only)")
    rctx = SourceContext(user_file=None)
    try:
        # the inputs first: the imports they need (a config class) go into the file's header
        inputs = inputs_block(list(args_full), dict(kwargs_full), rctx, init_inputs=init_inputs_expr(comp, rctx),
                               recorded_ints=node.parent is not None)
        ref = refactored_source(cap.graph, children, child_files, rctx,
                                f"{node.id} rewritten to call its {len(children)} children.", ties,
                                value_names=vnames)
        ref += "\n\n" + inputs
    except NotRepresentable as exc:
        shutil.rmtree(step_dir)
        return leaf(dec, node, step_name, f"cannot generate refactored.py: {exc}")
    write_text_atomic(step_dir / "refactored.py", ref)
    packed: dict[str, Any] = {}
    for packed_key, pieces in slices.items():
        ordered: list[WeightSlice] = sorted(pieces, key=lambda p: p.start)
        packed[packed_key] = map_value_json(ordered)
    dump_weight_map(step_dir, {**weight_map, **packed})
    node.step = f"steps/{step_name}"
    _record_flow(dec, node, cap, children, child_files)

    return step_dir, step_name, child_nodes, cap.method


def _loops_over_compute(model: nn.Module) -> bool:
    """Whether the forward's own Python loops over tensor compute (a recurrence over time steps, chunks):
    a graph would unroll it; a source-level step keeps the loop with its body as one repeated child."""
    from hdecomp.decompose.source_step import loops_over_compute
    return loops_over_compute(model)


def _seeds_random_state(model: nn.Module) -> bool:
    from hdecomp.decompose.source_step import seeds_random_state
    return seeds_random_state(model)


def _spill_reference(expected: Any, device: str) -> None:
    """A big reference output (an attention fusion's 4 GB score matrix) waits memory-mapped from a file,
    read back only by the capture checks, instead of sitting in memory next to each capture's own
    intermediates. Same values; small outputs and accelerator outputs stay as they are."""
    from hdecomp.verify.trials import drop_spilled, load_spilled, spill_output
    path = spill_output(expected.output, torch.device(device))
    if path is not None:
        expected.output = load_spilled(path)
        drop_spilled(path)


def _one_kernel_model(cap: Capture, model: nn.Module, children: list[ChildPlan], args: list[Any],
                      kwargs: dict[str, Any]) -> ChildPlan | None:
    """The root model as one kernel, when it is one: its planned children are exactly one kernel (one
    call), or its whole forward is a run of primitives that is one logical kernel (RMSNorm written as
    pow/mean/add/sqrt/div: decompose/semantic.py)."""
    from hdecomp.decompose.plan import node_op_name
    from hdecomp.decompose.semantic import semantic_kernel
    if len(children) == 1 and children[0].kernel and not children[0].semantic:
        child = children[0]
        if len(child.compute_members) != 1 or (child.kind == "module" and len(child.members) != 1):
            return None
        return _root_kernel_plan(cap, list(child.compute_members), list(child.op_names), child.ops, args, kwargs)
    compute = [n for n in cap.graph.nodes if n.op in ("call_function", "call_method", "call_module")
               and not is_parent_plumbing(n)]
    if any(n.op == "call_module" for n in compute):
        return None
    name = semantic_kernel([node_op_name(n, model) for n in compute])
    if name is None:
        return None
    return _root_kernel_plan(cap, compute, [name], len(compute), args, kwargs)


def _root_kernel_plan(cap: Capture, core: list[Any], op_names: list[str], ops: int, args: list[Any],
                      kwargs: dict[str, Any]) -> ChildPlan | None:
    """The root's one kernel as a group over the WHOLE forward (its data plumbing too, e.g. the `[0]` of
    `output, h_n = self.gru(x, h0)`), so the kernel file has the model's own inputs and outputs. None when
    that cannot be exact (keyword inputs, inputs the graph does not list, outputs that are not a node or a
    flat tuple/list of nodes): the model is then decomposed with an ordinary model -> kernel step."""
    import torch.fx as fx
    if kwargs:
        return None
    nodes = list(cap.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    members = [n for n in nodes if n.op not in ("placeholder", "output")]
    out_node = next((n for n in nodes if n.op == "output"), None)
    if out_node is None or len(placeholders) != len(args) or any(p.name not in cap.values for p in placeholders):
        return None
    ret = out_node.args[0] if out_node.args else None
    outs = [ret] if isinstance(ret, fx.Node) else list(ret) if isinstance(ret, (tuple, list)) else []
    if not outs or not all(isinstance(o, fx.Node) and o in members for o in outs) or len(set(outs)) != len(outs):
        return None
    if isinstance(ret, list):   # the kernel would return a tuple: not the same Python value
        return None
    return ChildPlan(attr="kernel", kind="group", members=members, inputs=placeholders, outputs=outs,
                     ops=ops, op_names=op_names, kernel=True, level=0, core=core)


def _repeats(call: Any) -> list[int] | None:
    """For each positional argument of a call, the position of its first occurrence, when some graph value
    is passed more than once; else None."""
    args = list(call.args)
    if not args or not all(isinstance(a, torch.fx.Node) for a in args):
        return None
    pattern = [next(i for i, b in enumerate(args) if b is a) for a in args]
    return pattern if len(set(pattern)) < len(pattern) else None


def _forward_parameter_names(model: nn.Module, count: int, prefix: bool = False) -> list[str] | None:
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


def _root_kernel(dec: Decomposition, node: Node, model: nn.Module, cap: Capture, child: ChildPlan) -> list[Node]:
    """Write the root's single kernel as level_0_kernel/<workload>.py and make it the tree's only node."""
    ctx = SourceContext(user_file=node.path)
    doc = " -> ".join(child.op_names) + f" (the whole of {dec.model_file.name}: one kernel)."
    # the kernel file's forward takes the model's own parameter names (`forward(self, A, s)`), not x0, x1
    in_names = _forward_parameter_names(model, len(child.inputs)) or [a.name for a in child.inputs]
    class_src, _ = group_child_class(child, model, cap.values, ctx, doc, rebuild_check=check_expr,
                                     input_names=in_names)
    in_args = [cap.values[a.name] for a in child.inputs]
    outs = [cap.values[o.name] for o in child.outputs]
    out_val = outs[0] if len(outs) == 1 else tuple(outs)
    body = assemble(class_src, list(in_args), {}, out_val, ctx, ops=list(child.op_names))
    key = workload_key(body, shape_free=is_shape_free(child.kernel, child.op_names))
    stem, _ = dec.registry.name_for(_kernel_base_name(child, model, cap), f"0:{key}")
    header = {
        "Level": LEVEL_NAMES[0],
        "Source": str(dec.model_file),
        "Ops": ", ".join(child.op_names) or "-",
        "Inputs": "; ".join(f"{n}: {shape_text(v)}" for n, v in zip(in_names, in_args, strict=False)) or "none",
        "Outputs": shape_text(out_val),
    }
    path = dec.root / LEVEL_DIRS[0] / f"{stem}.py"
    write_text_atomic(path, ComponentText(body, header).text(stem, 0, None))
    # The model copy written at the start is not a component of this tree.
    if node.path.exists() and node.path.parent == dec.root / LEVEL_DIRS[3]:
        node.path.unlink()
        with contextlib.suppress(OSError):
            node.path.parent.rmdir()
    del dec.nodes[node.id]
    dec.nodes[stem] = Node(id=stem, level=0, path=path, parent=None, inputs=node.inputs, outputs=node.outputs,
                           ops=list(child.op_names), op_count=node.op_count, status="leaf", depth=0,
                           capture_method=cap.method)
    dec.root_id = stem
    node.status, node.reason = "leaf", f"one kernel: {LEVEL_DIRS[0]}/{stem}.py, no step"  # progress line
    plumbing = [m for m in child.members if m not in child.core and m.op != "get_attr"]
    dec.note(None, "decision", f"{dec.name} is one kernel: no step",
             f"the model's forward is a single kernel ({', '.join(child.op_names)}"
             + (", with data plumbing only" if plumbing else "") + "). A model -> one-kernel step would only "
             f"restate the model (a parent in disguise), so the tree is one level-0 root node, "
             f"{LEVEL_DIRS[0]}/{stem}.py, generated from the recorded forward; the composition test checks it "
             "against the original model.")
    return []


def _fresh_capture(model: nn.Module, as_built: Any, args: list[Any], kwargs: dict[str, Any], expected: Any,
                   expand: set[str]) -> Capture:
    """A capture of the module as built: state its earlier runs set lazily (MultiScaleRoIAlign's scales and
    LevelMapper, computed on the first call) goes first, so the graph holds the first call's work as a
    fresh build of the file runs it."""
    restore_plain_attributes(model, as_built)
    return capture(model, args, kwargs, expected, expand)


def _value(a: Any, cap: Capture | dict[str, Any]) -> Any:
    """An argument of a graph call with its recorded value (of `cap`, or of a dict of node values)."""
    import torch.fx as fx
    values = cap if isinstance(cap, dict) else cap.values
    if isinstance(a, fx.Node):
        return values[a.name]
    if isinstance(a, (list, tuple)):
        return type(a)(_value(v, values) for v in a)
    if isinstance(a, dict):
        return {k: _value(v, values) for k, v in a.items()}
    return a


def _needed_values(children: list[ChildPlan]) -> set[str]:
    """The graph values the children's calls read (a module child's first and last call, a group's inputs)."""
    names: set[str] = set()
    for child in children:
        if child.kind == "module":
            calls = [child.members[0], child.members[-1]] if child.members else []
            for m in calls:
                names |= {v.name for v in flat_values([list(m.args), dict(m.kwargs)]) if isinstance(v, fx.Node)}
                names.add(m.name + CALL_INPUTS)   # (and its arguments as it was called: lists written in place)
        else:
            names |= {a.name for a in child.inputs}
    return names


def _in_model_values(dec: Decomposition, node: Node, step_name: str, model: nn.Module, cap: Capture,
                     expand: set[str], children: list[ChildPlan]) -> list[dict[str, Any]] | None:
    """Every value of the captured graph at each call `node` received in the model, checked against the
    module itself; None when there is no such value. The
    step was captured on its own file's random inputs: a size read from data (a count of global tokens, the
    boxes above a score) can differ there, and the children's in-model trials must hold what the model
    really hands them, or every step passes and the composition fails. A call the graph does not replay
    (another path through the code) gives its children nothing: the step's own in-model trial of that
    call fails first. At the root, the calls are the model's under each draw of the composition test
    (driver._model_runs)."""
    calls = in_model_calls(node)
    if not calls:
        return None
    # (a replay holds one forward's intermediates at a time, besides the capture's: where that does not fit
    # the memory available now, the children keep the values of the step's own inputs, and say so)
    need, avail = tensor_bytes(cap.values, state_storages(model)), available_bytes()
    if avail is not None and need > avail // 2:
        dec.note(step_name, "deviation", f"{node.id}: children without in-model trials",
                 f"running it again on the inputs it received in the model needs about {need / 2**30:.1f} GiB "
                 f"({avail / 2**30:.1f} GiB available): its children are verified on their own inputs only")
        return None
    found: list[dict[str, Any]] = []
    for args, kwargs in calls:
        try:
            values = graph_values_at(model, cap.graph, list(args), dict(kwargs), expand, cap.method,
                                     values_checked=True, keep=_needed_values(children))
        except (CaptureError, HdecompError):
            values = None
        if values is not None:
            found.append(values)
    if not found:
        dec.note(step_name, "deviation", f"{node.id}: children without in-model trials",
                 "its captured graph neither replays nor is captured again at the inputs it received in the "
                 "model: its children are verified on their own inputs only")
        return None
    return found


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
    from hdecomp.decompose.naming import safe_attr
    return safe_attr(base, used)


def _record_flow(dec: Decomposition, node: Node, cap: Capture, children: list[ChildPlan],
                 child_files: dict[str, str]) -> None:
    owner: dict[Any, str] = {}
    for c in children:
        for m in c.members:
            owner[m] = child_files[c.attr]

    def source(n: Any, seen: int = 0) -> str:
        if n in owner:
            return owner[n]
        if n.op == "placeholder" or seen > 50:
            return f"{node.id}.input"
        ins = n.all_input_nodes
        return source(ins[0], seen + 1) if ins else f"{node.id}.input"

    for c in children:
        ins = c.inputs if c.kind == "group" else c.members[0].all_input_nodes
        for a in ins:
            v = cap.values.get(a.name)
            d = describe(v)
            dec.data_flow.append({"from": source(a), "to": child_files[c.attr], "tensor_name": a.name,
                                  "shape": d.shape, "dtype": d.dtype, "parent": node.id})


def leaf(dec: Decomposition, node: Node, step_name: str, reason: str) -> list[Node]:
    node.decomposable = False
    node.reason = reason
    node.status = "error"
    dec.note(step_name, "difficulty", f"{node.id} kept whole", reason,
             "marked decomposable: false for manual or agent work")
    return []
