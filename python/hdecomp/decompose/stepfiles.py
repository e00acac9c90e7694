"""Pieces every kind of step writes the same way: tensor shapes for the tree, kernel names, the rebuilt-module
check, tied tensors, a refactored file's get_init_inputs() (the dedup key is hdecomp.vocab.workload's)."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.codegen import describe
from hdecomp.decompose.source import SourceContext, check_rebuild
from hdecomp.vocab.ops import SHAPE_FREE_OPS, snake


def io_maps(values: dict[str, Any], in_vals: list[tuple[str, Any]], out_val: Any) -> tuple[dict, dict, dict, dict]:
    ins, ind, outs, outd = {}, {}, {}, {}
    for name, v in in_vals:
        d = describe(v)
        ins[name], ind[name] = d.shape, d.dtype
    flat = out_val if isinstance(out_val, (tuple, list)) else [out_val]
    if isinstance(out_val, dict):
        flat = list(out_val.values())
    for i, v in enumerate(flat):
        key = "output" if len(flat) == 1 else f"output_{i}"
        d = describe(v)
        outs[key], outd[key] = d.shape, d.dtype
    return ins, ind, outs, outd


def tie_tied_tensors(model: nn.Module, weight_map: dict[str, Any]) -> list[tuple[str, str]]:
    """Tensors shared under several names (tied weights) that land in different children: the refactored
    parent ties them again; the weight map keeps only the first name (the others are its aliases)."""
    names: dict[int, list[str]] = {}
    for n, t in list(model.named_parameters(remove_duplicate=False)) + list(model.named_buffers(remove_duplicate=False)):
        names.setdefault(id(t), []).append(n)
    ties = []
    for group in names.values():
        mapped = [n for n in group if isinstance(weight_map.get(n), str)]   # (a packed tensor's slices: no tie)
        for other in mapped[1:]:
            if weight_map[other] != weight_map[mapped[0]]:
                ties.append((weight_map[other], weight_map[mapped[0]]))
            # the alias entry stays: tools that do not fold tied names (compose) look it up
    return sorted(ties)


def init_inputs_expr(comp: Any, ctx: SourceContext) -> str:
    """What get_init_inputs() of a refactored file returns: the original's constructor arguments, when
    writable (a config object as code: `[GPT2Config(n_layer=2)]`)."""
    from hdecomp.decompose.source import literal
    try:
        init = comp.get_init_inputs()
        return literal(list(init or []), ctx)
    except Exception:
        return "[]"


def carried_namespace(ctx: SourceContext) -> tuple[dict[str, Any] | None, str]:
    """The namespace a file written with `ctx` runs its code in: its carried definitions and imports; (None,
    why) when they do not run."""
    import linecache
    import math

    from hdecomp.decompose.source import carried_source
    imports, defs = carried_source(ctx)
    source = "\n".join(imports + ctx.import_lines()) + "\n" + defs
    # run as a file would be: a module and source lines the definitions can find (`@torch.jit.script`
    # reads its function's source and module; `@dataclass` its module in sys.modules)
    name = f"_hdecomp_carried_{abs(hash(source)):x}"
    filename = f"<{name}>"
    module = types.ModuleType(name)
    ns: dict[str, Any] = module.__dict__
    ns.update({"torch": torch, "nn": nn, "F": torch.nn.functional, "math": math})
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    sys.modules[name] = module
    try:
        exec(compile(source, filename, "exec"), ns)  # the user's own definitions, carried over
    except Exception as exc:
        return None, f"carried-over definitions do not run ({type(exc).__name__}: {exc})"
    finally:
        linecache.cache.pop(filename, None)
        sys.modules.pop(name, None)
    return ns, ""


def check_expr(expr: str, sub: nn.Module, ctx: SourceContext) -> str | None:
    """None when `expr` (generated source for `sub`) rebuilds it, with the file's carried definitions and
    imports; else what differs."""
    ns, why = carried_namespace(ctx)
    return why if ns is None else check_rebuild(expr, sub, ns)


def parameter_signature(sub: nn.Module) -> tuple[str, torch.dtype] | None:
    """A kernel module's shape signature and dtype from its parameters (in x out for Linear, rows x dim
    for Embedding, else the first tensor's shape), or from its buffers; None when it holds neither."""
    from hdecomp.decompose.naming import shape_sig
    params: list[tuple[str, torch.Tensor]] = list(sub.named_parameters()) or list(sub.named_buffers())
    if not params:
        return None
    if isinstance(sub, nn.Linear):
        sig = f"{sub.in_features}x{sub.out_features}"
    elif isinstance(sub, nn.Embedding):
        sig = f"{sub.num_embeddings}x{sub.embedding_dim}"
    else:
        sig = shape_sig(params[0][1].shape)
    return sig, params[0][1].dtype


def module_kernel_name(sub: nn.Module, inputs: list[Any]) -> str:
    """`{op}_{shape_signature}_{dtype}` for a kernel module (`linear_768x3072_fp32`): the signature from its
    parameters (parameter_signature), else from its first inputs' shapes."""
    from hdecomp.decompose.naming import dtype_short, shape_sig
    op = snake(type(sub).__name__)
    held = parameter_signature(sub)
    if held is not None:
        return f"{op}_{held[0]}_{dtype_short(held[1])}"
    tens = [t for t in inputs if isinstance(t, torch.Tensor)]
    in_dtype = tens[0].dtype if tens else None
    sig = "" if op in SHAPE_FREE_OPS else "_".join(shape_sig(t.shape) for t in tens[:2])
    return "_".join(p for p in (op, sig, dtype_short(in_dtype)) if p)


def op_kernel_name(op: str, inputs: list[Any], output: Any) -> str:
    """`{op}_{shape_signature}_{dtype}` for a kernel that is one op on its inputs (`tanh_fp32`,
    `matmul_2x16x32_2x32x16_fp32`): shapes of the first two tensor inputs, none for shape-free ops."""
    from hdecomp.decompose.codegen import flat_tensors
    from hdecomp.decompose.naming import dtype_short, shape_sig
    op = snake(op)
    tens = flat_tensors(list(inputs))
    outs = flat_tensors(output)
    dtype = tens[0].dtype if tens else outs[0].dtype if outs else None
    sig = ""
    if op not in SHAPE_FREE_OPS:
        sig = "_".join(shape_sig(t.shape) for t in tens[:2]) or (shape_sig(outs[0].shape) if outs else "")
    return "_".join(p for p in (op, sig, dtype_short(dtype)) if p)


def in_model_calls(node: Any) -> list[tuple[list[Any], dict[str, Any]]]:
    """The calls `node` received in the model that hold values (none recorded on the meta device)."""
    from hdecomp.decompose.capture.common import flat_values
    return [(a, k) for a, k in node.in_model
            if not any(isinstance(t, torch.Tensor) and t.is_meta for t in flat_values([a, k]))]


def flag_signature(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The flags of a call: its string and bool arguments, and which arguments are None (by position and by
    name; tensors and sizes left out). Calls whose flags differ take other paths through a module's code
    (OmDet-Turbo's language backbone, `encode_type="class"` and `"task"`)."""
    def flag(v: Any) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (list, tuple)) and not isinstance(v, torch.Size):
            return tuple(flag(x) for x in v)
        return "-"
    return (tuple(flag(a) for a in args), tuple(sorted((str(k), flag(v)) for k, v in kwargs.items())))


_VALUE_KEYED_NUMEL = 1 << 20   # (an integer tensor up to this size is told apart by its values too)


def call_signature(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """What sets a call's path through a module's code: which arguments are None, the tensors' shapes and
    dtypes, the values of integer and bool tensors (a router's choice of experts, the positions a mask keeps:
    Python loops over them), the plain values (a flag, a count). Two calls of one signature differ in their
    float values only."""
    def sig(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            if v.is_floating_point() or v.is_complex() or v.is_meta or v.numel() > _VALUE_KEYED_NUMEL:
                return ("T", tuple(v.shape), str(v.dtype))
            digest = hashlib.sha1(v.detach().cpu().contiguous().numpy().tobytes()).hexdigest()
            return ("T", tuple(v.shape), str(v.dtype), digest)
        if v is None or isinstance(v, (bool, int, float, str, torch.dtype, torch.device)):
            return str(v) if isinstance(v, (torch.dtype, torch.device)) else v
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, tuple(sig(x) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((str(k), sig(x)) for k, x in v.items()))
        return type(v).__qualname__
    return (tuple(sig(a) for a in args), tuple((k, sig(v)) for k, v in kwargs.items()))


def merged_in_model(per_call: list[list[tuple[list[Any], dict[str, Any]]]],
                    ) -> list[tuple[list[Any], dict[str, Any]]]:
    """A child's in-model calls gathered over every call its parent received in the model: those under the
    parent's first call (the child's first and, in a loop, last), then each call under a later one whose
    signature is new (BLIP's text encoder run with the image tokens, then without: its layers' second path).
    Calls that differ in their values only are not repeated at each level, so the count stays bounded."""
    merged = list(per_call[0]) if per_call else []
    seen = {call_signature(a, k) for a, k in merged}
    for calls in per_call[1:]:
        for a, k in calls:
            key = call_signature(a, k)
            if key not in seen:
                seen.add(key)
                merged.append((a, k))
    return merged


def write_in_model(dec: Any, node: Any, step_dir: Path, step_name: str) -> None:
    """The inputs `node` received in the model, next to its step (hdecomp.verify.in_model)."""
    from hdecomp.verify.in_model import write_in_model_inputs
    if node.parent is None:   # (the root's are the model's own draws: its step's trials run them already)
        return
    why = write_in_model_inputs(step_dir, in_model_calls(node))
    if why is not None:
        dec.note(step_name, "deviation", f"{node.id}: no in-model trial", why)
