"""One step drafted: the component run once (step_inputs), captured (capture_for_step: fx, export or a
recording), its children chosen (choose_children, plan.py) and generated (graph_children.py, codegen.py) into a
StepDraft (step_draft.py); or, where the forward's own Python must stay, drafted at the source level
(source_write.py). Nothing enters the decomposition or the disk here: the driver writes the draft's folder
(StepFolder), gates it on its verification and commits it."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.fx as fx
from torch import nn

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
from hdecomp.decompose.capture.record import holds_state
from hdecomp.decompose.codegen import (
    ComponentText,
    assemble,
    describe,
    group_child_class,
    inputs_block,
    refactored_source,
    takes_kwargs,
)
from hdecomp.decompose.graph_children import draft_children, forward_parameter_names, kernel_base_name
from hdecomp.decompose.input_code import shape_text
from hdecomp.decompose.levels import step_caps
from hdecomp.decompose.node_kinds import (
    is_output_object_call,
    is_parent_plumbing,
    mark_host_numbers,
    mark_host_values,
    mark_number_ops,
    mark_weight_sizes,
)
from hdecomp.decompose.plan import (
    ChildPlan,
    PlanError,
    is_kernel_module,
    mark_integer_work,
    node_op_name,
    oversized_module_children,
    plan_children,
)
from hdecomp.decompose.shapes import (
    BatchBakedError,
    available_bytes,
    full_size_capture,
    graph_values_at,
    state_storages,
    tensor_bytes,
)
from hdecomp.decompose.source import NotRepresentable, SourceContext
from hdecomp.decompose.state import Decomposition, Node
from hdecomp.decompose.step_draft import DraftNames, StepDraft
from hdecomp.decompose.stepfiles import (
    check_expr,
    flag_signature,
    in_model_calls,
    init_inputs_expr,
    tie_tied_tensors,
)
from hdecomp.decompose.value_names import value_names
from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.weight_map import WeightSlice, map_value_json
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import BUILD_SEED, Component, load_component
from hdecomp.vocab.levels import LEVEL_DIRS, LEVEL_NAMES
from hdecomp.vocab.workload import is_shape_free, workload_key


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


@dataclass
class StepInputs:
    """What every way of writing a step starts from: the component built as its file builds it, its inputs
    at the cut batch and one reference run of it (its output and op counts)."""

    comp: Component
    model: nn.Module
    as_built: Any            # its plain attributes as built: the children are written from the model as built
    args: list[Any]
    kwargs: dict[str, Any]
    expected: Any            # capture.reference_run's result
    step_name: str
    step_dir: Path


def step_inputs(dec: Decomposition, node: Node, step_number: int) -> StepInputs:
    opts = dec.options
    step_name = f"step_{step_number}_{node.id}"
    comp = load_component(node.path, timeout=opts.timeout)
    with record_init_args():   # (the root's weights as its coverage draws them: BUILD_SEED)
        model = comp.build(seed=BUILD_SEED, run=opts)
    as_built = plain_attributes(model)   # the children are written from the model as built (restored below)
    args, kwargs = limited_inputs(comp, opts)
    # Forwards may change their inputs in place: every run gets its own copy of the pristine inputs.
    # One recorded run gives the reference output and the op counts (no separate counting forward).
    expected = reference_run(model, args, kwargs)
    if node.parent is None:
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
    node.op_count = expected.total
    return StepInputs(comp, model, as_built, args, kwargs, expected, step_name, dec.root / "steps" / step_name)


def write_step(dec: Decomposition, node: Node, step_number: int, avoid: list[str] | None = None,
               ) -> list[Node] | StepDraft:
    """Capture and plan `node` and draft its step (nothing of it enters the decomposition or the disk: the
    driver writes its folder, verifies it and commits it); or, where there is no step to verify, the new
    child nodes (a list: none for a leaf). `avoid`: ways already tried ("graph", "source")."""
    avoid = avoid or []
    run = step_inputs(dec, node, step_number)
    if "graph" in avoid:
        return _source_draft(dec, node, run, "the step written from a graph capture does not verify") or \
            leaf(dec, node, run.step_name, "neither a graph capture nor the source-level split verifies")
    why = None if "source" in avoid else _source_first(node, run)
    if why is not None and (done := _source_draft(dec, node, run, why)) is not None:
        return done
    try:
        cap, expand = capture_for_step(dec, node, run)
    except CaptureError as exc:
        if "source" not in avoid and \
                (done := _source_draft(dec, node, run, f"no graph capture reproduces its forward ({exc})")) is not None:
            return done
        return leaf(dec, node, run.step_name, f"cannot capture forward: {exc}")
    # The reference output (and a plain rerun's) only checked the captures: gone before the recording at
    # the second batch and code generation (a 4 GB attention score matrix in an attention fusion).
    run.expected.release()
    model, step_name = run.model, run.step_name
    _drop_identity_calls(model, cap.graph)
    for note in cap.notes:
        dec.note(step_name, "difficulty" if cap.method == "record" else "decision", f"capture of {node.id}", note,
                 "recorded the real execution instead" if cap.method == "record" else None)
    children = choose_children(node, run, cap)
    if isinstance(children, str):
        return leaf(dec, node, step_name, children, method=cap.method)
    # What each child receives where this module runs in the model (its in-model trials), before the
    # recorded values are taken to the original batch.
    other_path: list[str] = []
    real = _in_model_values(dec, node, step_name, model, cap, expand, children, other_path)
    if other_path:
        # the step's own in-model trial would run that call and fail: the Python that chose the path stays in
        # a source-level step, and where none can be written the module is left whole (never a step its
        # verifier rejects)
        held = (f"its captured graph holds for the recorded input only: at {other_path[0]} it received in the "
                "model, the module runs another graph (a Python path chosen by the values)")
        restore_plain_attributes(model, run.as_built)
        return _source_or_leaf(dec, node, run, avoid, why, held, cap.method)
    # Under --batch-limit the children are written at the original batch (hdecomp.decompose.shapes).
    opts = dec.options
    try:
        cap, args_full, kwargs_full, deviations = full_size_capture(run.comp, model, cap, opts, run.args, run.kwargs,
                                                                    expand)
    except BatchBakedError as exc:
        # (a graph of the cut batch is no step of the file at its own batch: the Python that loops over the
        # batch stays in a source-level step; where that cannot be written, the graph with its recorded sizes)
        if "source" not in avoid and (done := _source_after_capture(dec, node, run, str(exc))) is not None:
            return done
        args_full, kwargs_full = run.args, run.kwargs
        deviations = [f"{exc}: every shape keeps its recorded (batch {opts.batch_limit}) value"]
    for d in deviations:
        dec.note(step_name, "deviation", f"{node.id}: shape at the cut batch", d)
    restore_plain_attributes(model, run.as_built)   # (the recordings ran its forward: state it set lazily goes)
    as_root = _one_kernel_model(cap, model, children, run.args, run.kwargs) if node.parent is None else None
    if as_root is not None:
        # The whole model is one kernel: a model -> one-kernel step would only restate the model (a parent
        # in disguise); the tree is that kernel alone, a level-0 root (no step, no level_3_model copy).
        try:
            return _root_kernel(dec, node, model, cap, as_root)
        except (NotRepresentable, HdecompError) as exc:   # anything else is a bug: logged with its traceback
            dec.note(step_name, "difficulty", f"{node.id}: one kernel, cannot be written as a kernel file",
                     str(exc), "decomposed with a model -> kernel step instead")
    draft = StepDraft(node, step_name, run.step_dir, cap.method, DraftNames.over(dec))
    vnames = value_names(cap.graph)
    try:
        made = draft_children(draft, dec.root, node, model, cap, children, real, vnames)
    except (NotRepresentable, HdecompError) as exc:   # anything else is a bug: logged with its traceback
        return _source_or_leaf(dec, node, run, avoid, why, f"cannot generate the children: {exc}", cap.method)
    ties = tie_tied_tensors(model, made.weight_map) + made.shared_ties
    for copy, first in made.shared_ties:
        dec.note(step_name, "decision", f"{node.id}: {first} read by several children",
                 f"each reading child holds it; refactored.py ties {copy} to {first} (one tensor, as in the "
                 "original; weight_map.json maps the original key to the first only)")
    rctx = SourceContext(user_file=None)
    try:
        # the inputs first: the imports they need (a config class) go into the file's header
        inputs = inputs_block(list(args_full), dict(kwargs_full), rctx, init_inputs=init_inputs_expr(run.comp, rctx),
                              recorded_ints=node.parent is not None)
        draft.refactored = refactored_source(cap.graph, children, made.files, rctx,
                                             f"{node.id} rewritten to call its {len(children)} children.", ties,
                                             value_names=vnames, takes_kwargs=takes_kwargs(model)) + \
            "\n\n" + inputs
    except NotRepresentable as exc:
        return _source_or_leaf(dec, node, run, avoid, why, f"cannot generate refactored.py: {exc}", cap.method)
    packed: dict[str, Any] = {}
    for key, pieces in made.slices.items():
        ordered: list[WeightSlice] = sorted(pieces, key=lambda p: p.start)
        packed[key] = map_value_json(ordered)
    draft.weight_map = {**made.weight_map, **packed}
    draft.flows = _flows(node, cap, children, made.files)
    return draft


def _source_first(node: Node, run: StepInputs) -> str | None:
    """Why `node`'s step is written at the source level before a graph is tried (its forward's Python decides
    what runs, or a graph would drop what it does), None where a graph comes first."""
    if _loops_over_compute(run.model):
        return ("its forward loops over tensor compute in Python: the loop stays, its body is a child called once "
                "per iteration")
    if len({flag_signature(a, k) for a, k in in_model_calls(node)}) > 1:
        return ("the model calls it with other flags (a string, a bool or a None argument that differs): a graph "
                "would hold one call's path; the Python stays in the parent")
    if _seeds_random_state(run.model):
        return ("its forward seeds or scopes the random state (torch.manual_seed, fork_rng): a graph would hold "
                "the draws without the seed; the seeding stays in the parent")
    if run.expected.materializes:
        return (f"its forward hands tensor values to Python ({', '.join(run.expected.materializes)}): a graph would "
                "hold only the recorded path; the Python stays in the parent")
    return None


def _source_or_leaf(dec: Decomposition, node: Node, run: StepInputs, avoid: list[str], why: str | None,
                    held: str, method: str) -> list[Node] | StepDraft:
    """A graph captured that cannot be the step (`held` says why: it holds for the recorded input only, or no
    code can write it, an object the forward builds and hands its layers, Gemma 3n's KVSharingDict): the step at
    the source level, where that Python stays in the parent, unless that was tried (before the capture, `why`,
    or already, `avoid`); else the module is left whole."""
    if "source" not in avoid and why is None and (done := _source_after_capture(dec, node, run, held)) is not None:
        return done
    return leaf(dec, node, run.step_name, held, method=method)


def _source_after_capture(dec: Decomposition, node: Node, run: StepInputs, why: str) -> StepDraft | None:
    """_source_draft once a graph was captured: the model as built again, and its reference output (released
    after the capture) run again for the source-level split to check against."""
    restore_plain_attributes(run.model, run.as_built)
    run.expected = reference_run(run.model, run.args, run.kwargs)
    restore_plain_attributes(run.model, run.as_built)
    return _source_draft(dec, node, run, why)


def _source_draft(dec: Decomposition, node: Node, run: StepInputs, why: str) -> StepDraft | None:
    """The step drafted at the source level (source_write.py), None where it cannot be (said in the log)."""
    from hdecomp.decompose.source_forward import SourceStepError
    from hdecomp.decompose.source_write import draft_source_step
    restore_plain_attributes(run.model, run.as_built)
    try:
        draft, notes = draft_source_step(dec, node, run.step_name, run.step_dir, run.comp, run.model, run.args,
                                         run.kwargs, run.expected)
    except SourceStepError as exc:
        restore_plain_attributes(run.model, run.as_built)   # (its runs set lazy state: a capture must not see it)
        dec.note(run.step_name, "difficulty", f"{node.id}: not split at the source level", str(exc))
        return None
    dec.note(run.step_name, "decision", f"{node.id}: split at the source level", why)
    for n in notes:
        dec.note(run.step_name, "decision", f"{node.id}: source-level step", n)
    return draft


def capture_for_step(dec: Decomposition, node: Node, run: StepInputs) -> tuple[Capture, set[str]]:
    """The graph the step is written from, and the submodules traced through in it: a fusion's composite
    submodules, the one submodule a wrapper calls, a torch.nn container around one op, layer-sized modules
    under a model or inside a layer; sizes that follow the batch written batch-relative. Raises CaptureError."""
    model, per_module, opts = run.model, run.expected.per_module, dec.options
    # A fusion splits into kernels only: composite submodules are traced through.
    through = {q for q, m in model.named_modules() if q and not is_kernel_module(m)} if node.level == 1 else set()
    cap = _fresh_capture(model, run.as_built, run.args, run.kwargs, run.expected, through)
    if through:
        dec.note(run.step_name, "decision", f"{node.id}: split straight into kernels",
                 "a fusion's children are kernels: traced through " + ", ".join(sorted(through)))
    expand: set[str] = set(through) | cap.expanded

    def again(more: set[str] | list[str], title: str, why: str) -> Capture:
        nonlocal cap
        expand.update(more)
        del cap  # the last capture's values (every intermediate) must not sit next to the next one's
        dec.collect()
        fresh = _fresh_capture(model, run.as_built, run.args, run.kwargs, run.expected, expand)
        expand.update(fresh.expanded)   # (children whose internal tensors escape them: traced through)
        dec.note(run.step_name, "decision", f"{node.id}: {title}", why)
        return fresh

    # A forward that only calls one container/composite submodule (once, or several times with other
    # arguments: BLIP's retrieval model run with its ITM head and without): split its content here.
    while (only := _only_submodule_called(model, cap, per_module)) is not None:
        cap = again({only}, f"traced through {only}",
                    "the forward only calls this submodule; its content is split at this step instead")
    # A torch.nn container around one op (torchvision's `heads = Sequential(Linear)`) is no component of
    # its own: its op is a child of this step (a kernel, not a one-op fusion).
    one_op = sorted({str(n.target) for n in cap.graph.nodes if n.op == "call_module"
                     and str(n.target) not in expand and per_module.get(str(n.target), 0) == 1
                     and _is_nn_container(model.get_submodule(str(n.target)))})
    if one_op:
        cap = again(set(one_op), f"traced through {', '.join(one_op)}",
                    "a torch.nn container around one op: the op is a child of this step")
    # Stages of layers (under a model) and layer-sized modules inside a layer: split here (plan.py).
    for _ in range(8):
        big = [t for t in oversized_module_children(model, cap.graph, node.level, per_module, cap.child_calls)
               if t not in expand]
        if not big:
            break
        cap = again(set(big), f"split {', '.join(big)} at this step",
                    "holds layer-sized modules (under a model: they become its layers)" if node.level == 3
                    else "layer-sized (6+ ops) inside a layer: its content becomes fusions and kernels here")
    # Exported/recorded graphs hold the sizes the cut batch had: written batch-relative (batch_relative.py).
    cap, baked = relative_batch_ints(run.comp, model, cap, opts, run.args, run.kwargs, run.expected, expand)
    for d in baked:
        dec.note(run.step_name, "deviation", f"{node.id}: batch-dependent int", d)
    return cap, expand


def _only_submodule_called(model: nn.Module, cap: Capture, per_module: dict[str, int]) -> str | None:
    """The one submodule a forward calls, where it computes nothing else and that submodule is no kernel."""
    # (a submodule that computes nothing, an nn.Identity downsample, does not count)
    called = [n for n in cap.graph.nodes if n.op == "call_module" and per_module.get(str(n.target), 0) > 0]
    # (nor does packing the output, `BaseModelOutput(last_hidden_state=h)`: a wrapper all the same)
    computes = [n for n in cap.graph.nodes if n.op in ("call_function", "call_method")
                and not is_parent_plumbing(n) and not is_output_object_call(n)]
    if len({str(n.target) for n in called}) != 1 or computes or \
            is_kernel_module(model.get_submodule(str(called[0].target))):
        return None
    return str(called[0].target)


def choose_children(node: Node, run: StepInputs, cap: Capture) -> list[ChildPlan] | str:
    """The step's children (plan.py), under the tightest cap that splits it (a cap that yields a single child
    equal to the parent is lowered; a layer of 5 ops or fewer, made a layer by its contractions, still splits
    into fusions); or why there are none."""
    expected, total = run.expected, run.expected.total
    mark_host_numbers(cap.graph, cap.values)
    mark_host_values(cap.graph, cap.values)
    mark_number_ops(cap.graph, cap.values)
    mark_integer_work(cap.graph, cap.values)
    mark_weight_sizes(cap.graph, cap.values)
    children: list[ChildPlan] = []
    last_err = None
    for group_cap in step_caps(node.level, total):
        try:
            children = plan_children(run.model, cap.graph, node.level, expected.per_module, cap.child_calls,
                                     group_cap, expected.contraction_ops, expected.module_calls)
        except PlanError as exc:
            last_err = str(exc)
            children = []
            continue
        if len(children) > 1 or (children and children[0].kind == "module") or total <= 1:
            break
    if not children:
        return f"no children: {last_err or 'the forward has no compute ops'}"
    if len(children) == 1 and children[0].kind == "module" and not children[0].kernel:
        return "the forward only calls one submodule (nothing to split at this level)"
    return children



def _loops_over_compute(model: nn.Module) -> bool:
    """Whether the forward's own Python loops over tensor compute (a recurrence over time steps, chunks):
    a graph would unroll it; a source-level step keeps the loop with its body as one repeated child."""
    from hdecomp.decompose.source_reading import loops_over_compute
    return loops_over_compute(model)


def _seeds_random_state(model: nn.Module) -> bool:
    from hdecomp.decompose.source_reading import seeds_random_state
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


def _root_kernel(dec: Decomposition, node: Node, model: nn.Module, cap: Capture, child: ChildPlan) -> list[Node]:
    """Write the root's single kernel as level_0_kernel/<workload>.py and make it the tree's only node."""
    ctx = SourceContext(user_file=node.path)
    doc = " -> ".join(child.op_names) + f" (the whole of {dec.model_file.name}: one kernel)."
    # the kernel file's forward takes the model's own parameter names (`forward(self, A, s)`), not x0, x1
    in_names = forward_parameter_names(model, len(child.inputs)) or [a.name for a in child.inputs]
    class_src, _ = group_child_class(child, model, cap.values, ctx, doc, rebuild_check=check_expr,
                                     input_names=in_names)
    in_args = [cap.values[a.name] for a in child.inputs]
    outs = [cap.values[o.name] for o in child.outputs]
    out_val = outs[0] if len(outs) == 1 else tuple(outs)
    body = assemble(class_src, list(in_args), {}, out_val, ctx, ops=list(child.op_names))
    key = workload_key(body, shape_free=is_shape_free(child.kernel, child.op_names))
    stem, _ = dec.registry.name_for(kernel_base_name(child, model, cap), f"0:{key}")
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
                     expand: set[str], children: list[ChildPlan], other_path: list[str],
                     ) -> list[dict[str, Any]] | None:
    """Every value of the captured graph at each call `node` received in the model, checked against the
    module itself; None when there is no such value. The
    step was captured on its own file's random inputs: a size read from data (a count of global tokens, the
    boxes above a score) can differ there, and the children's in-model trials must hold what the model
    really hands them, or every step passes and the composition fails. At the root, the calls are the model's
    under each draw of the composition test (driver._model_runs). Where the module runs a call and its graph,
    replayed and captured again there, is another one (data-dependent Python: the experts a router picked), the
    step's own in-model trial of that call would fail: `other_path` gets the call (`the in-model call 2`), and
    None is returned."""
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
    for k, (args, kwargs) in enumerate(calls):
        why: list[str] = []
        try:
            values = graph_values_at(model, cap.graph, list(args), dict(kwargs), expand, cap.method,
                                     values_checked=True, keep=_needed_values(children), why=why)
        except (CaptureError, HdecompError):
            values = None
        if values is not None:
            found.append(values)
        elif "graph" in why:
            other_path.append(f"the in-model call {k + 1}")
            return None
    if not found:
        dec.note(step_name, "deviation", f"{node.id}: children without in-model trials",
                 "its captured graph neither replays nor is captured again at the inputs it received in the "
                 "model: its children are verified on their own inputs only")
        return None
    return found


def _flows(node: Node, cap: Capture, children: list[ChildPlan], child_files: dict[str, str]) -> list[dict[str, Any]]:
    """The data flow between the step's children: each child input, with the child (or the parent's input)
    that produced it."""
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

    flows: list[dict[str, Any]] = []
    for c in children:
        ins = c.inputs if c.kind == "group" else c.members[0].all_input_nodes
        for a in ins:
            d = describe(cap.values.get(a.name))
            flows.append({"from": source(a), "to": child_files[c.attr], "tensor_name": a.name,
                          "shape": d.shape, "dtype": d.dtype, "parent": node.id})
    return flows


def leaf(dec: Decomposition, node: Node, step_name: str, reason: str, method: str | None = None) -> list[Node]:
    """`node` kept whole (no step), with why; `method`: how it was captured, where it was."""
    if method is not None:
        node.capture_method = method
    node.decomposable = False
    node.reason = reason
    node.status = "error"
    dec.note(step_name, "difficulty", f"{node.id} kept whole", reason,
             "marked decomposable: false for manual or agent work")
    return []
