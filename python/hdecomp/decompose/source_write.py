"""Drafting a source-level step (source_step.py's plan) as a StepDraft (step_draft.py), with its children's
example inputs.

The children's inputs are what they really receive: the step is written once with placeholder inputs into a
scratch folder beside the step's (removed whatever happens), the refactored model is built from it with the
original's weights and run on the component's inputs while every child's first call is recorded (and its
compute ops counted: its level). Children that the recorded inputs never reach (the other branch of an `if`)
are reached with more inputs, else given the recorded value of the variable of the same name. Under
`--batch-limit` a second run at the next batch gives the original sizes (hdecomp.decompose.shapes). Then the
children are drafted for good: deduplicated by workload, named, and imported by the refactored parent by their
final names; the driver writes the step's folder and, once it keeps the step, the level folders' files.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import shutil
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.anticheat.static import analyze_source, has_errors
from hdecomp.decompose.capture.record import without_state
from hdecomp.decompose.codegen import ComponentText, assemble, flat_tensors, inputs_block
from hdecomp.decompose.levels import FUSION_MAX, child_level
from hdecomp.decompose.naming import input_signature
from hdecomp.decompose.plan import is_kernel_module, runs_one_kernel
from hdecomp.decompose.plumbing import without_plumbing_objects
from hdecomp.decompose.shapes import real_values
from hdecomp.decompose.source import SourceContext
from hdecomp.decompose.source_children import SourceChild
from hdecomp.decompose.source_forward import SourceStepError, executed_lines, number_lines, strip_self_items
from hdecomp.decompose.source_names import names_of
from hdecomp.decompose.source_regions import HOST_CLAIMS, HOST_STATEMENTS
from hdecomp.decompose.source_step import SourcePlan, computes_at, plan_source_step
from hdecomp.decompose.state import Decomposition, Node
from hdecomp.decompose.step_draft import DraftChild, DraftNames, StepDraft, child_header, child_node
from hdecomp.decompose.stepfiles import (
    flag_signature,
    in_model_calls,
    init_inputs_expr,
    merged_in_model,
    module_kernel_name,
    op_kernel_name,
    tie_tied_tensors,
)
from hdecomp.decompose.twins import (
    call_numbers,
    class_workload_key,
    computing_twin,
    constructor_overrides,
    hands_objects,
    with_constructor_parameters,
)
from hdecomp.formats.jsonio import write_text_atomic
from hdecomp.formats.weight_map import WeightSlice, dump_weight_map
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import Component, clone_nested, load_component, map_nested
from hdecomp.runtime.host_values import is_number, number_annotation
from hdecomp.verify.trials import trial_input_seeds
from hdecomp.verify.weights import apply_weight_map, build_weight_map, has_float_state
from hdecomp.vocab.ops import fusion_size, is_compute_op, snake
from hdecomp.vocab.roles import (
    FALLBACK_ROLES,
    PATTERN_ROLES,
    STRUCTURE_KINDS,
    category,
    effective_contractions,
    role_of,
)
from hdecomp.vocab.workload import is_shape_free, workload_key


@dataclass
class CallRecord:
    """A child's first call in the running refactored model, and how often it ran."""

    args: list[Any]
    kwargs: dict[str, Any]
    out: Any = None
    calls: int = 0
    ops: int = 0          # compute ops (aten) over all its calls
    last: tuple[list[Any], dict[str, Any]] | None = None   # the inputs of its last call (a loop's last iteration)
    # the inputs of each call between whose flags differ from every call kept (stepfiles.flag_signature): Wan's
    # upsampler, called once per time chunk, finds None, then the marker "Rep", then a tensor in its cache slot
    others: list[tuple[list[Any], dict[str, Any]]] = field(default_factory=list)
    flags: set[tuple[Any, ...]] = field(default_factory=set)
    structure: list[str] = field(default_factory=list)   # its contractions (and pools, means) in order
    op_names: set[str] = field(default_factory=set)      # the compute ops it ran (aten names: `nms`, `topk`)
    calls_made: int = 0   # compute calls of torch's API (`F.one_hot`, `x.sum()`) over all its calls
    numbers: int = 0      # aten ops on numbers alone it ran (OpEvent.number), which count as none of these
    twin: str = ""        # never called in the recorded runs: the calls of this item of its container are
                          # taken (_reached_twin)
    per_model_call: int | None = None   # its calls under the parent's first call in the model (the draw the
                                        # coverage counts): a loop over detections runs as often as the
                                        # model's detections, not the drawn inputs'
    objects: bool = False   # the parent hands it objects (a cache) its file takes as None (_plumbing_dropped)

    @property
    def uses(self) -> int:
        """How often one call of the parent runs it, as the tree counts instances."""
        if self.twin:
            return 1
        return max(1, self.per_model_call if self.per_model_call is not None else self.calls)


@dataclass
class Recording:
    calls: dict[str, CallRecord] = field(default_factory=dict)
    output: Any = None


def _clone(obj: Any) -> Any:
    return map_nested(obj, lambda t: t.detach().clone())


def record_children(ref: nn.Module, attrs: list[str], args: list[Any], kwargs: dict[str, Any],
                    seed: int) -> Recording:
    """Run `ref` once; every child's first call (inputs, output), its number of calls and compute ops."""
    from hdecomp.runtime.ops import recording
    rec = Recording()
    handles = []
    modules = {a: ref.get_submodule(a) for a in attrs}
    # each child call's span of the run's events (their indices): a module two children share (tied) runs under
    # the path of the first, so the ops a call ran are those inside its span, not those under its path (the
    # hooks run inside the recording below, where `trace` is bound)
    open_calls: list[tuple[str, int]] = []
    spans: list[tuple[str, int, int]] = []

    def hooks(attr: str) -> tuple[Any, Any]:
        def pre(_m: nn.Module, a: tuple[Any, ...], kw: dict[str, Any]) -> None:
            open_calls.append((attr, len(trace.events)))
            r = rec.calls.get(attr)
            flags = flag_signature(list(a), dict(kw))
            if r is None:
                rec.calls[attr] = CallRecord(args=_clone(list(a)), kwargs=_clone(dict(kw)), flags={flags})
            else:
                if r.last is not None:   # (the call before this one: kept where its flags are new)
                    before = flag_signature(*r.last)
                    if before not in r.flags and before != flags:
                        r.flags.add(before)
                        r.others.append(r.last)
                r.last = (_clone(list(a)), _clone(dict(kw)))

        def post(_m: nn.Module, _a: Any, _kw: Any, out: Any) -> None:
            while open_calls:
                name, start = open_calls.pop()
                if name == attr:
                    spans.append((attr, start, len(trace.events)))
                    break
            r = rec.calls[attr]
            if r.calls == 0:
                r.out = _clone(out)
            r.calls += 1
        return pre, post

    for attr, m in modules.items():
        pre, post = hooks(attr)
        handles.append(m.register_forward_pre_hook(pre, with_kwargs=True))
        handles.append(m.register_forward_hook(post, with_kwargs=True))
    try:
        torch.manual_seed(seed)
        with torch.no_grad(), recording(ref) as trace:
            rec.output = ref(*clone_nested(args), **clone_nested(kwargs))
    finally:
        for h in handles:
            h.remove()
    owners: dict[int, list[str]] = {}
    for attr, start, end in spans:
        for i in range(start, end):
            owners.setdefault(i, []).append(attr)
    for i, e in enumerate(trace.events):
        if not e.compute or e.level not in ("function", "aten"):
            continue
        # (in the child's own code and in the modules it calls: each call whose span holds the op, the calls of
        # another child it makes included)
        for owner in dict.fromkeys(owners.get(i, [])):
            if owner in rec.calls:
                _count(rec.calls[owner], e)
    return rec


def _count(call: CallRecord, e: Any) -> None:
    """One compute op a child's call ran (`e`, an OpEvent), counted on its record."""
    if e.number:   # (arithmetic on numbers, `max()` of two padding amounts, makes no child a fusion)
        call.numbers += 1
    elif e.level == "function":
        call.calls_made += 1
    else:
        call.ops += 1
        call.op_names.add(e.name)
        if category(e.name) in STRUCTURE_KINDS or e.name == "mean":
            call.structure.append(e.name)


def _fill_by_name(plan: SourcePlan, rec: Recording, args: list[Any], kwargs: dict[str, Any]) -> list[str]:
    """Inputs for children the runs never reached, from the recorded value of the variable of the same name
    (a region's inputs are variables; a module child's, its call site's arguments). The attrs still missing."""
    import inspect
    values: dict[str, Any] = {}
    params = [a.arg for a in plan.fs.fdef.args.args[1:]]
    for name, v in zip(params, args, strict=False):
        values[name] = v
    values.update(kwargs)
    for c in plan.children:
        r = rec.calls.get(c.attr)
        if r is None:
            continue
        if c.region is not None:
            for name, v in zip(c.region.inputs, r.args, strict=False):
                values.setdefault(name, v)
            outs = c.region.outputs
            vals = [r.out] if len(outs) == 1 else list(r.out) if isinstance(r.out, (tuple, list)) else []
            for name, v in zip(outs, vals, strict=False):
                values.setdefault(name, v)
    missing = []
    for c in plan.children:
        if c.attr in rec.calls:
            continue
        if c.region is not None:
            names = c.region.inputs
        else:
            names = [a.id if isinstance(a, ast.Name) else "" for a in c.call_args]
            if c.module is not None:
                with contextlib.suppress(TypeError, ValueError):
                    n_params = len([p for p in inspect.signature(c.module.forward).parameters.values()
                                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
                    if len(names) < n_params:
                        names = []
        if names and all(n in values for n in names):
            rec.calls[c.attr] = CallRecord(args=[values[n] for n in names], kwargs={}, calls=0)
        elif (twin := _reached_twin(plan, rec, c)) is not None:
            rec.calls[c.attr] = _as_twin(c, rec.calls[twin], twin)
        else:
            missing.append(c.attr)
    return missing


def _reached_twin(plan: SourcePlan, rec: Recording, c: SourceChild) -> str | None:
    """A reached item of the container that holds `c`, of its class and its state's shapes: the items of one
    container are called at one call site (`self.experts[i](x)`), so an expert the router never picked in the
    recorded runs takes the inputs a picked one did (_as_twin)."""
    if c.module is None:
        return None
    items = next((items for items in plan.containers.values() if c.attr in items), [])
    by_attr = {ch.attr: ch for ch in plan.children}

    def state(m: nn.Module) -> list[tuple[str, tuple[int, ...]]]:
        return [(k, tuple(v.shape)) for k, v in m.state_dict().items()]
    for a in items:
        other = by_attr[a].module
        if a in rec.calls and not rec.calls[a].twin and other is not None and type(other) is type(c.module) \
                and state(other) == state(c.module):
            return a
    return None


def _as_twin(c: SourceChild, twin: CallRecord, name: str) -> CallRecord:
    """`c`'s call: its twin's inputs, and what `c` itself gives on them. Where the twin's are --batch-limit's
    full-size stand-ins (meta tensors of an original batch no file lowers), the recorded tensors behind them:
    `c`, which no input reached, runs at the sizes its twin was recorded at."""
    assert c.module is not None
    args, kwargs = list(twin.args), dict(twin.kwargs)
    if any(t.is_meta for t in flat_tensors([args, kwargs])):
        args, kwargs = real_values(args, kwargs)
    with torch.no_grad():
        out = c.module(*clone_nested(args), **clone_nested(kwargs))
    return dataclasses.replace(twin, args=args, kwargs=kwargs, out=_clone(out), last=None, twin=name)


def _children_in_model(node: Node, model: nn.Module, ref: nn.Module, attrs: list[str], rec: Recording,
                       notes: list[str], model_ops: dict[str, set[str]] | None = None,
                       ) -> dict[str, list[tuple[list[Any], dict[str, Any]]]]:
    """Each child's calls (its first, a loop's last) where the module runs in the model: at the root the
    recording's own and `ref` run again on the model's other draws (driver._model_runs); below it, `ref` run
    again on the inputs `node` received in the model (its file's inputs
    are random: a size read from data, a count of masked tokens, can differ there), checked against the
    module itself. A child those inputs do not reach has none. Sets each child's calls under the first
    in-model call (CallRecord.per_model_call) where every in-model call was replayed, and fills `model_ops`
    with the compute ops each child ran under that call."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    from hdecomp.decompose.capture.common import same_outputs

    def calls_of(r: Recording) -> dict[str, list[tuple[list[Any], dict[str, Any]]]]:
        return {a: [(c.args, c.kwargs), *c.others, *([c.last] if c.last is not None else [])]
                for a, c in r.calls.items()}
    real = in_model_calls(node)
    per_call: list[dict[str, list[tuple[list[Any], dict[str, Any]]]]] = []
    counts: list[dict[str, int]] = []   # each child's calls under each in-model call (CallRecord.per_model_call)
    if node.parent is None:
        # the root's calls are the model's draws (driver._model_runs), the first of them the recording's own
        per_call.append(calls_of(rec))
        real = real[1:]
    for args, kwargs in real:   # every call the model made (a second one may take another path)
        try:
            with torch.no_grad():
                torch.manual_seed(CAPTURE_SEED)
                expected = model(*clone_nested(list(args)), **clone_nested(dict(kwargs)))
            rec_real = record_children(ref, attrs, list(args), dict(kwargs), CAPTURE_SEED)
        except Exception as exc:   # user code on the inputs the model handed it
            notes.append(f"its children have no in-model trials: the split forward does not run on the inputs "
                         f"the module received in the model ({type(exc).__name__}: {exc})")
            return {}
        if not same_outputs(rec_real.output, expected, rtol=1e-4, atol=1e-5):
            notes.append("its children have no in-model trials: the split forward differs from the module on "
                         "the inputs it received in the model")
            return {}
        per_call.append(calls_of(rec_real))
        counts.append({a: c.calls for a, c in rec_real.calls.items()})
        if model_ops is not None and len(counts) == 1 and node.parent is not None:   # (the root's: its own)
            model_ops.update({a: set(c.op_names) for a, c in rec_real.calls.items()})
    for a, r in rec.calls.items():
        if counts and node.parent is not None:   # (the root's recording is the model's first draw itself)
            r.per_model_call = counts[0].get(a, 0)
    return {a: merged_in_model([calls.get(a, []) for calls in per_call]) for a in attrs}


def _holds_empty(args: list[Any], kwargs: dict[str, Any]) -> bool:
    from hdecomp.decompose.capture.common import flat_values
    return any(isinstance(t, torch.Tensor) and t.numel() == 0 for t in flat_values([list(args), dict(kwargs)]))


def _workloads_from_model(ref: nn.Module, rec: Recording, in_model: dict[str, list[tuple[list[Any], dict[str, Any]]]],
                          model_ops: dict[str, set[str]], notes: list[str]) -> set[str]:
    """A child whose recorded call held an empty tensor (no detection above the threshold for the file's
    random draw: torchvision's `batched_nms` on 0 boxes returns before any op), or ran other ops than in the
    model (`batched_nms` on the 268 boxes of the draw offsets them into one `nms`; on the model's 2020 it
    runs one per level), takes the first call it got in the model that held data, as its file's inputs: the
    workload the model runs, whose ops the coverage counts. Returns those children."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    taken: set[str] = set()
    for a, r in rec.calls.items():
        other_path = a in model_ops and model_ops[a] != set(r.op_names)
        if r.twin or not (_holds_empty(r.args, r.kwargs) or other_path):
            continue
        for ia, ik in in_model.get(a, []):
            if _holds_empty(ia, ik):
                continue
            try:
                with torch.no_grad():
                    torch.manual_seed(CAPTURE_SEED)
                    out = ref.get_submodule(a)(*clone_nested(list(ia)), **clone_nested(dict(ik)))
            except Exception:   # (user code on the inputs the model handed it: the recorded call stays)
                break
            r.args, r.kwargs, r.out = list(ia), dict(ik), out
            taken.add(a)
            why = "ran other ops than in the model" if other_path else "held an empty tensor"
            notes.append(f"child {a}: its recorded call {why}; its file holds its first call in the model that "
                         "held data (at the batch the step ran at)")
            break
    return taken


def draft_source_step(dec: Decomposition, node: Node, step_name: str, step_dir: Path, comp: Component,
                      model: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                      ) -> tuple[StepDraft, list[str]]:
    """Plan and record a source-level step for `node`: (its draft, notes). Its children are recorded in a
    scratch folder beside `step_dir`, removed whatever happens. Raises SourceStepError when it cannot be
    done."""
    scratch = step_dir.with_name(f".{step_dir.name}.draft")
    runs: list[tuple[list[Any], dict[str, Any]]] | None = None
    try:
        try:
            draft, notes, plan, rec = _draft(dec, node, step_name, step_dir, scratch, comp, model, args, kwargs,
                                             expected)
        except _Unreached as again:
            runs = again.runs
            draft, notes, plan, rec = _draft(dec, node, step_name, step_dir, scratch, comp, model, args, kwargs,
                                             expected, runs=runs)
        host, claims = _numbers_only(plan, rec)
        if host:
            # children that computed on numbers alone: planned again, kept in the parent where it then reads
            # clean to the static check (else the first plan stands)
            tokens = HOST_STATEMENTS.set(host), HOST_CLAIMS.set(claims)
            try:
                again_draft, again_notes, _, _ = _draft(dec, node, step_name, step_dir, scratch, comp, model, args,
                                                        kwargs, expected, runs=runs)
                if not has_errors(analyze_source(again_draft.refactored)):
                    return again_draft, [*again_notes, f"{len(host)} statement(s) on numbers alone kept in the "
                                                       "parent (host code), not children"]
            except (SourceStepError, _Unreached):
                pass
            finally:
                HOST_STATEMENTS.reset(tokens[0])
                HOST_CLAIMS.reset(tokens[1])
        return draft, notes
    except SourceStepError:
        raise
    except Exception as exc:   # generated code that does not load or run: this way does not work here
        raise SourceStepError(f"{type(exc).__name__}: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _numbers_only(plan: SourcePlan, rec: Recording) -> tuple[frozenset[str], dict[str, str]]:
    """The statements of children that, at every call recorded, took and returned numbers alone (0-dim integer or
    bool tensors, Python numbers, None, strings: `eq = total == n`, the check handed `eq`), by their text as the
    splitter wrote them, and the kinds of the names they read ("int", "bool"). One statement each, reading none
    of the module's attributes (a parent holds no tensor)."""
    host: set[str] = set()
    claims: dict[str, str] = {}
    for c in plan.children:
        r = rec.calls.get(c.attr)
        region = c.region
        if region is None or r is None or r.calls == 0 or region.expr is not None or len(region.stmts) != 1 or \
                region.entry or names_of(region.stmts).self_attrs:
            continue
        text = region.first_line or ast.unparse(region.stmts[0])
        if "\n" in text or text != ast.unparse(region.stmts[0]).split("\n")[0]:
            continue
        calls = [(r.args, r.kwargs), *([r.last] if r.last is not None else []), *r.others]
        if not all(_numbers(v) for a, k in calls for v in [*a, *k.values()]) or not _numbers(r.out):
            continue
        host.add(text)
        for name, value in zip(region.inputs, r.args, strict=False):
            if isinstance(value, torch.Tensor) and (kind := number_annotation(value)) is not None:
                claims[name] = kind
    return frozenset(host), claims


def _numbers(value: Any, depth: int = 0) -> bool:
    if isinstance(value, torch.Tensor):
        return is_number(value)
    if isinstance(value, (tuple, list)):
        return depth < 3 and all(_numbers(v, depth + 1) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


class _Unreached(Exception):
    """Children no input the verification draws reaches, in a module without float weights: the step is planned
    again on the lines every such input runs (`runs`: those inputs)."""

    def __init__(self, runs: list[tuple[list[Any], dict[str, Any]]]) -> None:
        super().__init__("children no drawn input reaches")
        self.runs = runs


def _computing_over(model: nn.Module, runs: list[tuple[list[Any], dict[str, Any]]]) -> frozenset[tuple[str, int]]:
    """The lines where any of `runs` computes (computes_at): a path only a call in the model takes (FCOS's
    `batched_nms` offsets few boxes into one `nms`, and runs one per class on many) computes too."""
    lines: frozenset[tuple[str, int]] = frozenset()
    for a, k in runs:
        lines |= computes_at(model, a, k)
    return lines


def _executed_over(model: nn.Module, runs: list[tuple[list[Any], dict[str, Any]]], of: Any = None) -> set[int] | None:
    """The lines any of `runs` executes (executed_lines), None where one cannot be told."""
    lines: set[int] = set()
    for a, k in runs:
        got = executed_lines(model, a, k, of=of)
        if got is None:
            return None
        lines |= got
    return lines


def _draft(dec: Decomposition, node: Node, step_name: str, step_dir: Path, scratch: Path, comp: Component,
           model: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
           runs: list[tuple[list[Any], dict[str, Any]]] | None = None
           ) -> tuple[StepDraft, list[str], SourcePlan, Recording]:
    from hdecomp.decompose.shapes import full_size_io, scaling_for
    opts = dec.options
    notes: list[str] = []
    sc, args2, kwargs2 = scaling_for(comp, opts, args, kwargs)
    full_tensors = _own_tensors_full_size(comp, model, sc, opts, notes) if sc is not None else {}
    # (and every call the model makes of it: OmDet-Turbo's language backbone runs with `encode_type="class"` and
    # again with "task"; a branch only the file's own draw leaves out must not be dropped)
    every = [(list(args), dict(kwargs)), *(runs if runs is not None else in_model_calls(node))]
    plan = plan_source_step(
        model, node.path, per_statement=node.level <= 1, full_tensors=full_tensors,
        executed=_executed_over(model, every), computing=_computing_over(model, every),
        executed_of=lambda sub: _executed_over(model, every, of=sub), every_test=runs is not None,
        full_tensors_of=lambda q: _own_tensors_full_size(comp, model, sc, opts, notes, of=q) if sc is not None else {},
        numbers=number_lines(model, every), numbers_of=lambda fn: number_lines(model, every, of=fn))
    weight_map = _weight_map(plan, model)
    # the parent's own inputs at the original batch
    args_full, kwargs_full, _, deviations = full_size_io(comp, model, opts, args, kwargs, expected.output)
    notes += deviations
    inputs_text = inputs_block(list(args_full), dict(kwargs_full), plan.ctx, recorded_ints=node.parent is not None,
                               init_inputs=init_inputs_expr(comp, plan.ctx))
    doc = f"{node.id} rewritten at its source level: the control flow stays, the compute is in its children."
    # pass 1: placeholder children in the scratch folder, to run the refactored model and record what each
    # child receives
    tmp = {c.attr: f"c{i}_{snake(c.attr)}" for i, c in enumerate(plan.children)}
    shutil.rmtree(scratch, ignore_errors=True)
    (scratch / "children").mkdir(parents=True)
    for c in plan.children:
        write_text_atomic(scratch / "children" / f"{tmp[c.attr]}.py", assemble(c.class_src, [], {}, None, c.ctx))
    write_text_atomic(scratch / "refactored.py", plan.parent_source(tmp, doc) + "\n\n" + inputs_text)
    rec, in_model = _recorded_calls(dec, node, scratch, plan, comp, model, args, kwargs, expected, weight_map,
                                    runs, notes, sc, args2, kwargs2)
    # pass 2: the files for good
    draft = StepDraft(node, step_name, step_dir, "source", DraftNames.over(dec), weight_map=weight_map)
    module_children = {id(c.module) for c in plan.children if c.module is not None}
    one_kernel = {id(m) for q, m in model.named_modules() if q and id(m) in module_children and
                  runs_one_kernel(model, q, expected.per_module, expected.module_calls)}
    final: dict[str, str] = {}
    shared = _SharedLayers()
    for c in plan.children:
        r = rec.calls[_file_call(plan, rec, c)]
        stem, text, level, is_new, overrides = _final_text(draft.names, node, c, r, one_kernel, shared)
        if overrides:
            plan.init_kwargs[c.attr] = overrides
        final[c.attr] = stem
        new_node = child_node(dec.root, node, stem, level, [(f"arg{i}", v) for i, v in enumerate(r.args)], r.kwargs,
                              r.out, c.ops, max(1, r.ops // max(r.calls, 1)), in_model.get(c.attr, [])) \
            if is_new else None
        draft.children.append(DraftChild(stem, text, r.uses, new_node))
    for stem, params in shared.params.items():   # (the files later calls build with their own arguments)
        if params:
            with_params = with_constructor_parameters(draft.names.texts[stem], shared.firsts[stem], sorted(params),
                                                      SourceContext(user_file=node.path))
            if with_params is None:   # (each was checked before its call shared the file: never)
                raise SourceStepError(f"{stem}: its constructor arguments cannot be written as parameters")
            draft.names.texts[stem] = with_params
            for dc in draft.children:
                if dc.stem == stem:
                    dc.text = with_params
    draft.refactored = plan.parent_source(final, doc) + "\n\n" + inputs_text
    loops = sum(1 for c in plan.children if c.region is not None and c.region.in_loop)
    notes.insert(0, f"split at the source level: {len(plan.regions)} region(s) of compute moved into children"
                 + (f", {loops} of them inside loops (called once per iteration)" if loops else "")
                 + f"; {len([c for c in plan.children if c.kind == 'module'])} submodule(s) called by the parent")
    notes[1:1] = plan.notes
    return draft, notes, plan, rec


def _file_call(plan: SourcePlan, rec: Recording, c: SourceChild) -> str:
    """The child whose recorded call `c`'s file is written at: `c` itself, but for the instances of a region
    that each hold one entry of stacked weights (source_regions.stacked_entries), one file, written at the first
    call any of them received (as a loop body's one child is written at its first iteration): one kernel of
    one expert's weight, whatever number of tokens the router gave each expert."""
    if c.region is None or not c.region.entries:
        return c.attr
    items = plan.containers.get(c.region.attr, [c.attr])
    return next((a for a in items if a in rec.calls and rec.calls[a].calls > 0), items[0])


def _weight_map(plan: SourcePlan, model: nn.Module) -> dict[str, str | list[WeightSlice]]:
    """The step's weight map: module children keep their keys under their attribute, regions hold what they
    read (keys relative to the module whose forward was split: a wrapper's is below it, plan.key_prefix). A
    submodule the parent calls and a region reads too (Wan's upsampler's `self.resample`): each child holds it,
    the second copy tied to the first (plan.ties), one tensor as in the original. A stacked tensor whose
    entries the instances of one region hold (source_regions.stacked_entries): the list of its entries."""
    weight_map: dict[str, str | list[WeightSlice]] = {}
    for c in plan.children:
        for okey, ckey in c.weight_map.items():
            full = plan.key_prefix + strip_self_items(model, f"{c.attr}.{okey}" if c.kind == "module" else okey)
            if isinstance(ckey, WeightSlice):
                parts = weight_map.setdefault(full, [])
                assert isinstance(parts, list)
                parts.append(dataclasses.replace(ckey, key=f"{c.attr}.{ckey.key}"))
                continue
            have, target = weight_map.get(full), f"{c.attr}.{ckey}"
            if have is None:
                weight_map[full] = target
            elif isinstance(have, str) and have != target:
                plan.ties.append((target, have))
    plan.ties += tie_tied_tensors(model, weight_map)
    return weight_map


def _recorded_calls(dec: Decomposition, node: Node, scratch: Path, plan: SourcePlan, comp: Component,
                    model: nn.Module, args: list[Any], kwargs: dict[str, Any], expected: Any,
                    weight_map: dict[str, Any], runs: list[tuple[list[Any], dict[str, Any]]] | None,
                    notes: list[str], sc: Any, args2: list[Any], kwargs2: dict[str, Any],
                    ) -> tuple[Recording, dict[str, list[tuple[list[Any], dict[str, Any]]]]]:
    """The refactored model of the scratch folder, with the original's weights, run on the component's inputs:
    every child's first call (reached by more inputs where these do not reach it), at the original batch
    under --batch-limit; and what each child receives in the model."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    opts = dec.options
    dump_weight_map(scratch, weight_map)
    comp_r = load_component(scratch / "refactored.py", timeout=opts.timeout)
    ref = comp_r.build(run=opts)
    if node.settles:   # (its parent code settles it too: once, before it is given the settled weights)
        from hdecomp.runtime.settle import settle
        torch.manual_seed(CAPTURE_SEED)
        settle(ref, partial(ref, *clone_nested(args), **clone_nested(kwargs)))
    _transfer(model, ref, weight_map)
    attrs = [c.attr for c in plan.children]
    rec = record_children(ref, attrs, args, kwargs, CAPTURE_SEED)
    if not expected.matches(rec.output):
        raise SourceStepError("the forward split at its source level does not reproduce the module's output")
    _reach_every_child(dec, node, comp, ref, attrs, rec, model, runs)
    missing = _fill_by_name(plan, rec, args, kwargs)
    if missing:
        raise SourceStepError(f"no recorded input reaches child {missing[0]} (a branch never taken)")
    # what each child really receives in the model, before the inputs are written at the original batch
    model_ops: dict[str, set[str]] = {}
    in_model = _children_in_model(node, model, ref, attrs, rec, notes, model_ops)
    in_model_workload = _workloads_from_model(ref, rec, in_model, model_ops, notes)
    # at the original batch (--batch-limit): the same children at the next batch give the scaling
    if sc is not None:
        _at_original_batch(comp_r, rec, attrs, in_model_workload, sc, args2, kwargs2, opts, notes)
    by_attr = {c.attr: c for c in plan.children}
    for a, r in list(rec.calls.items()):
        if r.twin:   # (at the twin's sizes, the original batch's where it was taken there)
            rec.calls[a] = _as_twin(by_attr[a], rec.calls[r.twin], r.twin)
    for c in plan.children:
        rec.calls[c.attr] = _plumbing_dropped(dec, ref.get_submodule(c.attr), c, rec.calls[c.attr])
    return rec, in_model


def _reach_every_child(dec: Decomposition, node: Node, comp: Component, ref: nn.Module, attrs: list[str],
                       rec: Recording, model: nn.Module, runs: list[tuple[list[Any], dict[str, Any]]] | None) -> None:
    """Children the recorded inputs do not reach: reached with other inputs (the other branch of an `if`), those
    the verifier's trials draw (a child reached only by others would be one no trial calls: HD306), then the
    calls the model made (OmDet-Turbo's second call of its language backbone takes the other branch: the
    verifier's in-model trials run them). Raises _Unreached where none reaches a child of a module without
    float weights."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    opts = dec.options
    drawn: list[tuple[list[Any], dict[str, Any]]] = []
    for seed in trial_input_seeds(opts.num_trials):
        if all(a in rec.calls for a in attrs):
            break
        a2, k2 = limited_inputs(comp, opts, seed=seed)
        drawn.append((a2, k2))
        more = record_children(ref, [a for a in attrs if a not in rec.calls], a2, k2, CAPTURE_SEED)
        rec.calls.update(more.calls)
    for a2, k2 in in_model_calls(node):
        if all(a in rec.calls for a in attrs):
            break
        try:
            more = record_children(ref, [a for a in attrs if a not in rec.calls], list(a2), dict(k2), CAPTURE_SEED)
        except Exception:   # user code on the inputs the model handed it (_children_in_model says so)
            continue
        rec.calls.update(more.calls)
    if runs is None and any(a not in rec.calls for a in attrs) and not has_float_state(model):
        # no weights to re-draw: the verifier's trials run these inputs (and the model's) and nothing else, so a
        # child none of them reaches is one no trial calls (HD306): its branch is not split
        raise _Unreached([*drawn, *in_model_calls(node)])


def _at_original_batch(comp_r: Component, rec: Recording, attrs: list[str], in_model_workload: set[str], sc: Any,
                       args2: list[Any], kwargs2: dict[str, Any], opts: Any, notes: list[str]) -> None:
    """Each child's recorded call taken to the original batch (--batch-limit): the same children recorded at
    the next batch give the scaling (hdecomp.decompose.shapes)."""
    from hdecomp.decompose.capture import CAPTURE_SEED
    from hdecomp.decompose.shapes import full_size
    try:
        ref2 = comp_r.build(device=opts.device, timeout=opts.timeout, batch_limit=sc.b2, checked=False)
        rec2 = record_children(ref2, attrs, args2, kwargs2, CAPTURE_SEED)
        del ref2
        for a, r in rec.calls.items():
            r2 = rec2.calls.get(a)
            if r.twin or a in in_model_workload:
                continue   # (taken from its twin's below; a call from the model keeps its sizes)
            if r2 is None:
                notes.append(f"child {a}: not reached at batch {sc.b2}; its inputs keep the recorded sizes")
                continue
            r.args = full_size(list(r.args), list(r2.args), sc, f"{a} input", notes)
            r.kwargs = full_size(dict(r.kwargs), dict(r2.kwargs), sc, f"{a} input", notes)
            r.out = full_size(r.out, r2.out, sc, f"{a} output", notes)
    except Exception as exc:   # user code at another batch: the recorded sizes stay, said as deviation
        notes.append(f"the refactored forward does not run at batch {sc.b2} ({type(exc).__name__}: {exc}): "
                     "the children keep the recorded sizes")


def _own_tensors_full_size(comp: Component, model: nn.Module, sc: Any, opts: Any,
                           notes: list[str], of: str = "") -> dict[str, torch.Tensor]:
    """The module's own parameters and buffers at the original batch (a state sized by the batch through
    get_init_inputs, as KernelBench's Mamba2), learned from the module built at the next batch (`of`: those of
    its submodule of that qualified name)."""
    from hdecomp.decompose.shapes import full_size, second_recording_models
    mod = model.get_submodule(of)
    own = {**dict(mod.named_parameters(recurse=False)), **dict(mod.named_buffers(recurse=False))}
    if not own:
        return {}
    for model2, _on_meta in second_recording_models(comp, model, sc, 0, opts):
        mod2 = model2.get_submodule(of)
        own2 = {**dict(mod2.named_parameters(recurse=False)), **dict(mod2.named_buffers(recurse=False))}
        return {n: full_size(t.detach(), own2[n].detach(), sc, n, notes) for n, t in own.items() if n in own2}
    return {}


def _transfer(model: nn.Module, ref: nn.Module, weight_map: dict[str, Any]) -> None:
    wm = build_weight_map(model, ref, weight_map)
    if wm.problems:
        raise SourceStepError(f"weight map: {wm.problems[0]}")
    apply_weight_map(model, ref, wm)


def _plumbing_dropped(dec: Decomposition, child: nn.Module, c: SourceChild, r: CallRecord) -> CallRecord:
    """A child's record with each object no file can write that it computes the same without (a decoder's cache
    the parent hands each layer, and the region that builds its causal mask: plumbing.without_plumbing_objects)
    as None, in its first call and its in-model calls alike: its file and its step's trials. The parent's code
    still hands it on. `child`: the child as the refactored parent holds it. Not where the model's own output
    holds such an object (Decomposition.output_state): what a child writes into it would then reach the output
    through the parent's code alone, and a child decomposed without it would not compose."""
    if dec.output_state:
        return r
    args, kwargs = without_plumbing_objects(child, list(r.args), dict(r.kwargs), r.out, c.ctx)
    slots = {i for i, v in enumerate(args) if v is None and r.args[i] is not None}
    keys = {k for k, v in kwargs.items() if v is None and r.kwargs[k] is not None}
    if not slots and not keys:
        return r

    def dropped(call: tuple[list[Any], dict[str, Any]]) -> tuple[list[Any], dict[str, Any]]:
        a, kw = call
        return ([None if i in slots else v for i, v in enumerate(a)],
                {k: (None if k in keys else v) for k, v in kw.items()})
    # (the state the call hands back stands as the None a call without it hands back: LED's decoder layer)
    return dataclasses.replace(r, args=args, kwargs=kwargs, out=without_state(r.out, keep=True),
                               last=None if r.last is None else dropped(r.last), others=[dropped(o) for o in r.others],
                               objects=True)


def _region_role(c: SourceChild, r: CallRecord) -> str:
    """A region's file name base: the role its ops make with what the call read and made (vocab.roles.role_of,
    as the graph steps' groups and the quality lint read them): a region of integer or bool work with no
    weights, `(input_ids == pad).sum(-1)`, an expert mask's `greater(mask.sum(...), 0).nonzero()`, is mask,
    position or routing work, not a `reduction`; named statically (`c.base`) where its role needs no dtype."""
    if c.kind != "region" or c.base not in FALLBACK_ROLES or c.weight_map or c.region_modules:
        return c.base
    read = flat_tensors([list(r.args), dict(r.kwargs)])
    if not read or any(t.is_floating_point() or t.is_complex() for t in read):
        return c.base
    float_out = any(t.is_floating_point() for t in flat_tensors(r.out))
    return role_of(c.ops, integer=True, float_out=float_out)


@dataclass
class _SharedLayers:
    """The layer files of one step that later calls share with constructor arguments of their own: the module
    each file of the step was written for, and the constructor parameters its class takes (twins.py)."""

    firsts: dict[str, nn.Module] = field(default_factory=dict)
    params: dict[str, set[str]] = field(default_factory=dict)


# a region's ops its code names by an operator (source_children._region_ops) -> the aten ops that run it
_OPERATOR_OPS = {"add": {"add"}, "sub": {"sub", "rsub"}, "mul": {"mul"}, "div": {"div"},
                 "floordiv": {"floor_divide", "div"}, "mod": {"remainder", "fmod"}, "pow": {"pow"},
                 "matmul": {"mm", "bmm", "matmul", "addmm", "baddbmm", "dot", "mv"},
                 "compare": {"gt", "lt", "ge", "le", "eq", "ne"}, "and_": {"bitwise_and", "logical_and"},
                 "or_": {"bitwise_or", "logical_or"}}


def _tensors_in_containers(values: list[Any]) -> bool:
    """A list, tuple or dict among `values` holds a tensor (a namedtuple or a ModelOutput is one value)."""
    def holds(v: Any) -> bool:
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, (list, tuple)):
            return any(holds(x) for x in v)
        return isinstance(v, dict) and any(holds(x) for x in v.values())
    return any(isinstance(v, (list, tuple, dict)) and not hasattr(v, "_fields") and not
               hasattr(v, "__dataclass_fields__") and holds(v) for v in values)


def _final_text(names: DraftNames, node: Node, c: SourceChild, r: CallRecord, one_kernel: set[int],
                shared: _SharedLayers) -> tuple[str, str, int, bool, dict[str, int] | None]:
    """(stem, file text, level, is new, the constructor arguments the parent builds the file's class with) for
    one child with its recorded call; `one_kernel`: the ids of the submodules that run one kernel module and
    nothing else (plan.runs_one_kernel); `shared`: this step's layer files so far."""
    ops_per_call = r.ops // max(r.calls, 1) if r.calls else len(c.ops)
    if c.kind == "module":
        assert c.module is not None
        kernel = is_kernel_module(c.module) or ops_per_call <= 1 or id(c.module) in one_kernel
    else:   # (one call of torch's API is one kernel however many aten ops it runs: `F.one_hot`, an SDPA)
        kernel = ops_per_call <= 1 or (r.calls > 0 and r.calls_made // r.calls == 1 and r.calls_made % r.calls == 0)
    if kernel and r.ops and node.level > 1 and not (c.module is not None and is_kernel_module(c.module)) and \
            _tensors_in_containers([*r.args, *r.kwargs.values()]):
        # a kernel takes tensors: a call handed them in a list (torchvision's LastLevelMaxPool, appending a
        # max-pool of the last level to the list of levels; `maskrcnn_inference(mask_logits, labels)`) is a
        # fusion around its op, whose step leaves the list plumbing in it and makes the op a kernel
        kernel = False
    if kernel and c.kind == "region" and len(r.op_names) == 1 and \
            (r.numbers or len([o for o in c.ops if is_compute_op(o)]) > 1):
        # a region kernel is the one op it ran, where its code names others (`self._pad1d(x, (left, right +
        # extra))` adds two numbers, then pads; `F.pad(x, (0, self.context - remainder))` subtracts two ints):
        # named, keyed and listed by that op
        c.ops = [snake(next(iter(r.op_names)))]
        c.base = c.ops[0]
    elif c.kind == "region" and r.calls and not r.twin:
        # an operator of its code that ran on no tensor (`height * 8` of two sizes handed to a library function)
        # is Python arithmetic, none of its ops: it is neither listed nor named after (LightGlue's
        # `remove_keypoints_from_borders(...)` was a `pointwise` of it and a `mul`)
        ran = {snake(n) for n in r.op_names}
        spoken = [o for o in c.ops if o in _OPERATOR_OPS and not _OPERATOR_OPS[o] & ran]
        if spoken and len(spoken) < len(c.ops):
            c.ops = [o for o in c.ops if o not in spoken]
            c.base = c.ops[0] if len(c.ops) == 1 else role_of(c.ops)
    # a fusion's children are kernels, whatever they hold; a module holding several contractions (Reformer's
    # LocalSelfAttention: q, k, v and two matmuls) is a layer, whatever its size. A region is sized as a module
    # is where it holds more than a fusion may: one call of a library function or a method that runs a layer's
    # worth of ops (torchvision's `filter_proposals`: top-k, sigmoid, clipping, small-box removal, a threshold
    # and NMS, was a fusion of seven kernels), or more compute ops than a fusion holds (rule Q6's count); a
    # pattern kept whole (`apply_rotary_pos_emb(q, k, cos, sin)`'s rope, an attention core) stays one fusion
    contractions = effective_contractions(r.structure[:len(r.structure) // max(r.calls, 1)]) if r.calls else None
    layer_sized = c.kind == "region" and \
        ((len(c.ops) == 1 and category(c.ops[0]) == "other") or fusion_size(c.ops) > FUSION_MAX) and \
        role_of([*r.structure, *sorted(r.op_names)]) not in PATTERN_ROLES and c.base not in PATTERN_ROLES
    level = 0 if kernel or node.level <= 1 else child_level(node.level, ops_per_call, False,
                                                            module=c.kind == "module" or layer_sized,
                                                            contractions=contractions)
    # (the ops it ran, not only those its header names: a region's method calls hold a detector's nms)
    body = assemble(c.class_src, list(r.args), dict(r.kwargs), r.out, c.ctx, ops=[*c.ops, *sorted(r.op_names)])
    if c.kind == "module" and kernel and c.module is not None:
        base = module_kernel_name(c.module, r.args)
    elif kernel and c.region is not None:   # named by its workload, as a graph step's kernels
        held = [m for m in c.region_calls if is_compute_op(snake(type(m).__name__))]   # (not an nn.Identity)
        base = module_kernel_name(held[0], r.args) if len(held) == 1 and is_kernel_module(held[0]) and \
            not c.region.contexts else op_kernel_name(c.base, r.args, r.out)
    else:
        base = _region_role(c, r)
    shape_free = is_shape_free(kernel, c.ops)
    content = f"{level}:{workload_key(body, shape_free=shape_free)}"
    # a repeated layer (another `layer_idx`) that computes as one written already: that one's file (twins.py)
    class_key = f"{level}:{class_workload_key(body)}" \
        if c.kind == "module" and c.expr and not kernel and not hands_objects(r.args, r.kwargs) else None
    overrides: dict[str, int] | None = None
    if r.objects and content in names.registry.twinned:
        # (named after another instance's file where a None cache made them compute alike: this parent hands
        # the live cache on, and builds the file with no arguments of this instance's; a file of its own)
        content += ":built-as-recorded"
    if class_key is not None and content not in names.registry.by_content and c.module is not None:
        ctx = SourceContext(user_file=node.path)
        candidates = names.registry.by_class.get(class_key, [])
        own: dict[str, dict[str, int]] = {}
        if r.objects:
            # the parent's code hands the live cache on, and a layer writes its own slot of it by the index it
            # was built with: only a file of this step whose class the parent can build with this layer's own
            # constructor arguments (`DecoderLayer(layer_idx=1)`)
            for stem, _ in candidates:
                ov = constructor_overrides(shared.firsts[stem], c.module, ctx) if stem in shared.firsts else None
                params = sorted(shared.params.get(stem, set()) | set(ov or {}))
                if ov is not None and with_constructor_parameters(
                        names.texts[stem], shared.firsts[stem], params, ctx) is not None:
                    own[stem] = ov
            candidates = [(stem, e) for stem, e in candidates if stem in own]
        twin = computing_twin(list(r.args), dict(r.kwargs), r.out, c.module, candidates, ctx, names.registry.numbers)
        if twin is not None:
            names.registry.twin(content, twin)
            if r.objects:
                overrides = own[twin]
                shared.params.setdefault(twin, set()).update(overrides)
    stem, is_new = names.registry.name_for(base, content,
                                           "" if shape_free else input_signature(flat_tensors(list(r.args))))
    if is_new and class_key is not None:
        names.registry.by_class.setdefault(class_key, []).append((stem, c.expr))
        names.registry.numbers[stem] = call_numbers(list(r.args), dict(r.kwargs))
        if c.module is not None:
            shared.firsts[stem] = c.module
    header = child_header(level, c.ops, [(f"arg{i}", v) for i, v in enumerate(r.args)], r.kwargs, r.out)
    if c.region is not None and c.region.entries:
        header["Called"] = (f"once per iteration of a loop of the parent, by the one of its {c.region.entries} "
                            "instances that holds the iteration's entry of the stacked weights")
    elif c.region is not None and c.region.in_loop:
        header["Called"] = f"{r.calls} times per forward of the parent (a loop body)"
    text = ComponentText(body, header).text(stem, level, node.id)
    if is_new:
        names.texts[stem] = text
    return stem, names.texts.get(stem, text), level, is_new, overrides
