"""How a component file draws its inputs (`get_inputs()`): fresh random tensors of the recorded shapes, dtypes
and value ranges, and the recorded values themselves where a draw would break an invariant the model relies on
(indices, counts, masks, id columns); objects holding tensors rebuilt by their class."""

from __future__ import annotations

import collections
import dataclasses
import inspect
from typing import Any

import torch
from torch import nn

from hdecomp.decompose.capture.common import flat_values
from hdecomp.decompose.shapes import BATCH, BatchInt, dims_source, is_full_size, sample
from hdecomp.decompose.source import NotRepresentable, SourceContext, literal, qualified_name

# integer inputs up to this many elements (boolean ones: masks, up to RECORDED_MASK_LIMIT) are written with
# their recorded values (input_expr): indices, bucket ids and counts have invariants no random draw keeps
RECORDED_INDEX_LIMIT = 1 << 16
RECORDED_MASK_LIMIT = 256


def input_expr(value: Any, ctx: SourceContext, recorded_ints: bool = True) -> str:
    """Code that makes a fresh random input like `value` (same shape and dtype, a plausible range).
    A full-size stand-in (hdecomp.decompose.shapes) is written with its symbolic dimensions
    (`torch.rand(batch_size, 3, 224, 224)`) and the value range of the recorded tensor."""
    if isinstance(value, BatchInt):
        return value.expr
    limit = RECORDED_MASK_LIMIT if isinstance(value, torch.Tensor) and value.dtype == torch.bool \
        else RECORDED_INDEX_LIMIT
    if recorded_ints and isinstance(value, torch.Tensor) and value.dtype == torch.bool and \
            not is_full_size(value) and value.numel() > limit:
        # a mask expanded over the hidden size (`mask.unsqueeze(-1).expand_as(h)`, the image-token positions a
        # `masked_scatter` fills from a fixed number of features): its one slice, recorded, expanded back
        rec = _one_slice(value.detach().cpu(), keep=None)
        if rec is not None and rec.numel() <= limit:
            shape = ", ".join(str(n) for n in value.shape)
            return f"torch.tensor({rec.tolist()!r}, dtype=torch.bool).expand({shape}).contiguous()"
    if recorded_ints and isinstance(value, torch.Tensor) and not value.is_floating_point() and \
            not value.is_complex() and not is_full_size(value) and 0 < value.numel() <= limit:
        # integer and boolean inputs are indices, counts and masks (expert routing, a `torch.where` whose
        # output size is the count): a random draw may be invalid or change the output's shape, so the
        # recorded values themselves (offsets over the batch's rows scaled with it: shapes.full_size)
        text = f"torch.tensor({value.detach().cpu().tolist()!r}, dtype={value.dtype})"
        b1 = getattr(value, "_hdecomp_counts_of", None)
        return text if b1 is None else f"{text} * {BATCH}" if b1 == 1 else f"{text} * {BATCH} // {b1}"
    if recorded_ints and isinstance(value, torch.Tensor) and not (value.is_floating_point() or value.is_complex()):
        tiled = _tiled_recording(value)
        if tiled is not None:
            return tiled
    if isinstance(value, torch.Tensor):
        dims = dims_source(value)
        kind = getattr(value, "_hdecomp_ints", None)
        value = sample(value)
        shape = ", ".join(dims)
        shape_t = f"({shape},)" if len(dims) == 1 else f"({shape})"
        if kind == "permutation":   # invariants the recorded values keep (shapes.int_structure)
            dt = "" if value.dtype == torch.int64 else f".to({value.dtype})"
            return f"torch.randperm({shape}){dt}" if len(dims) == 1 \
                else f"torch.rand({shape}).argsort(dim=-1){dt}"
        dev = ""
        if value.dtype == torch.bool:
            if value.numel() and bool(value.all()):
                return f"torch.ones({shape_t}, dtype=torch.bool)"
            drawn = f"torch.randint(0, 2, {shape_t}).bool()"
            # (a mask over keys the model never fills or empties along its last dimension keeps that: an
            # attention row all masked is NaN, Mask2Former's masked attention unmasks such rows itself)
            if value.numel() and len(dims) >= 2 and value.shape[-1] > 1:
                rows = f"({', '.join(dims[:-1])}, 1)"
                never_full, never_empty = not bool(value.all(-1).any()), not bool((~value).all(-1).any())
                if never_full and never_empty:   # one False and one True per row, at different places
                    drawn = (f"(lambda m, i: m.scatter(-1, i, False).scatter(-1, (i + 1) % {dims[-1]}, True))"
                             f"({drawn}, torch.randint(0, {dims[-1]}, {rows}))")
                elif never_full:
                    drawn += f".scatter(-1, torch.randint(0, {dims[-1]}, {rows}), False)"
                elif never_empty:
                    drawn += f".scatter(-1, torch.randint(0, {dims[-1]}, {rows}), True)"
            return drawn
        if value.is_floating_point() and getattr(value, "_hdecomp_recorded", False):
            # (computed from the weights alone: graph_children marks it, its recorded values are the input)
            return f"torch.tensor({value.detach().cpu().tolist()!r}, dtype={value.dtype})"
        if value.is_floating_point():
            dt = "" if value.dtype == torch.float32 else f", dtype={value.dtype}"
            columns = _id_columns(value, dims, dt)
            if columns is not None:
                return columns
            along = _distribution_dim(value)
            if along is not None:
                # (rows of probabilities, a softmax's output: Nystromformer's iterative pseudo-inverse of its
                # landmark kernel converges for those and diverges to NaN for uniform draws)
                return f"torch.randn({shape}{dt}{dev}).softmax(dim={along})"
            # (a value never above zero, a log of a gate in (0, 1), stays so: RecurrentGemma's RG-LRU takes
            # sqrt(1 - exp(2 * log_a)), NaN for a positive draw)
            return float_draw(value, shape or "()", dt + dev)
        if value.is_complex():
            return f"torch.randn({shape_t}, dtype={value.dtype})"
        lo = int(value.detach().min()) if value.numel() else 0
        hi = int(value.detach().max()) + 1 if value.numel() else 1
        if hi - lo > 1 << 62:   # leftover memory (an empty_like's value): no range to keep
            lo, hi = max(lo, -(1 << 31)), min(hi, 1 << 31)
        dt = "" if value.dtype == torch.int64 else f", dtype={value.dtype}"
        if kind == "sorted":
            return f"torch.randint({lo}, {hi}, {shape_t}{dt}).sort(dim=-1).values"
        return f"torch.randint({lo}, {hi}, {shape_t}{dt})"
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        # a namedtuple (Reformer's LSHSelfAttentionOutput) is read by field: written as its own type
        try:
            cls = qualified_name(type(value), ctx)
        except NotRepresentable:
            cls = None
        if cls is not None:
            fields = ", ".join(f"{f}={input_expr(v, ctx, recorded_ints)}"
                               for f, v in zip(value._fields, value, strict=True))
            return f"{cls}({fields})"
    if isinstance(value, tuple):
        items = [input_expr(v, ctx, recorded_ints) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(input_expr(v, ctx, recorded_ints) for v in value) + "]"
    if isinstance(value, dict) and type(value) is not dict and all(isinstance(k, str) and k.isidentifier()
                                                                   for k in value):
        # a dict subclass read by attribute (a transformers ModelOutput handed to a child: `out.cache`) as
        # its own class, built from its fields by keyword
        try:
            cls = qualified_name(type(value), ctx)
        except NotRepresentable:
            cls = None
        if cls is not None:
            return f"{cls}(" + ", ".join(f"{k}={input_expr(v, ctx, recorded_ints)}" for k, v in value.items()) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k, ctx)}: {input_expr(v, ctx, recorded_ints)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, collections.UserDict) and _rebuilt_from_items(value):
        # a UserDict (transformers' KVSharingDict: the keys and values of the layers that share theirs, which
        # later layers read) as its class called on its items
        pairs = ", ".join(f"{literal(k, ctx)}: {input_expr(v, ctx, recorded_ints)}" for k, v in value.items())
        return f"{qualified_name(type(value), ctx)}({{{pairs}}})"
    built = object_input_expr(value, ctx, recorded_ints)
    if built is not None:
        return built
    return literal(value, ctx)


def float_draw(t: torch.Tensor, shape_t: str, dt: str) -> str:
    """A draw of shape `shape_t` (source) for a float input, weight or buffer of the values `t` recorded, keeping
    their sign: a variance or a scale never below zero is a `torch.rand` (CSATv2's DCT statistics: `var ** 0.5`
    of a `randn` stand-in was NaN in the file's own run), one never above zero its negation; else
    `torch.randn`."""
    t = t.detach()
    if t.numel() and not t.is_meta and float(t.min()) >= 0:
        return f"torch.rand({shape_t}{dt})"
    if t.numel() and not t.is_meta and float(t.max()) <= 0:
        return f"-torch.rand({shape_t}{dt})"
    return f"torch.randn({shape_t}{dt})"


def _rebuilt_from_items(value: collections.UserDict[Any, Any]) -> bool:
    """Whether `value`'s class called on a dict of its items gives an object of that class holding them and
    nothing else of its own (a UserDict that adds methods, no state)."""
    try:
        rebuilt = type(value)(dict(value.data))
    except Exception:   # (a constructor that takes something else)
        return False
    extra = {k: v for k, v in vars(value).items() if k != "data"}
    return type(rebuilt) is type(value) and list(rebuilt.data) == list(value.data) and \
        not extra and not {k for k in vars(rebuilt) if k != "data"}


def _id_columns(value: torch.Tensor, dims: list[str], dt: str) -> str | None:
    """A float input whose last dimension mixes columns of whole numbers with others (Pix2Struct's flattened
    patches `[row id, col id, pixels...]`, RoI boxes `[batch index, x1, y1, x2, y2]`): the whole-number columns
    are ids the model reads back as integers (`.long()` into a table), which a random draw breaks; they are
    written as recorded (repeated along the batch dimension to the file's `batch_size`), the other columns
    drawn as the rest of the tensor's range says. None: not such an input (one column, every column whole
    numbers, none that takes more than one value, or a recording too big to write)."""
    rec = value.detach().cpu()   # (the recorded tensor: `value` is shapes.sample's)
    if rec.dim() < 2 or rec.shape[-1] < 2 or not rec.numel():
        return None
    flat = rec.flatten(0, -2)
    # (an infinity is a mask's value, no id: Bamba's `-inf, ..., 0` causal columns of a log-decay mask)
    whole = ((flat == flat.round()) & flat.isfinite()).all(0)
    varied = flat.amax(0) > flat.amin(0)   # (a constant column, ALiBi's zero at position 0, holds no ids)
    if bool(whole.all()) or not bool((whole & varied).any()):
        return None
    idx = [int(i) for i in (whole & varied).nonzero().flatten()]
    ids = rec[..., idx]
    if ids.numel() > RECORDED_INDEX_LIMIT:
        return None
    scaled = [i for i, d in enumerate(dims) if BATCH in d]
    text = f"torch.tensor({ids.tolist()!r}{dt})"
    if scaled and dims[scaled[0]] != str(int(ids.shape[scaled[0]])):
        d = scaled[0]
        text += f".index_select({d}, torch.arange({dims[d]}) % {int(ids.shape[d])})"
    rest = rec[..., [i for i in range(rec.shape[-1]) if i not in idx]]
    draw = f"torch.rand({', '.join(dims)}{dt})" if float(rest.min()) >= 0 else \
        f"(-torch.rand({', '.join(dims)}{dt}))" if float(rest.max()) <= 0 else f"torch.randn({', '.join(dims)}{dt})"
    return f"{draw}.index_copy({rec.dim() - 1}, torch.tensor({idx}), {text})"


def _distribution_dim(value: torch.Tensor) -> int | None:
    """The dimension (negative) along which a recorded float tensor of non-negative values sums to one
    everywhere: probability rows, as a softmax makes them; None where there is none."""
    if value.dim() == 0 or value.numel() == 0 or float(value.detach().min()) < 0:
        return None
    v = value.detach().double()
    for d in range(v.dim() - 1, -1, -1):
        if v.shape[d] > 1 and bool(torch.allclose(v.sum(d), torch.ones((), dtype=v.dtype), atol=1e-4)):
            return d - v.dim()
    return None


def _one_slice(rec: torch.Tensor, keep: int | None) -> torch.Tensor | None:
    """`rec` narrowed to one slice along every dimension (but `keep`) it is constant along: the values of a
    tensor expanded there (`mask.unsqueeze(-1).expand_as(h)`); None where it is constant along none."""
    out = rec
    for i in range(rec.dim()):
        if i != keep and out.shape[i] > 1 and bool((out == out.narrow(i, 0, 1)).all()):
            out = out.narrow(i, 0, 1)
    return out if out is not rec else None


def _tiled_recording(value: torch.Tensor) -> str | None:
    """A full-size integer or boolean input holding values per sample (one batch-scaled dimension, the
    larger recorded batch's leading rows equal to the smaller's: shapes.full_size; a recorded sample of up to
    RECORDED_INDEX_LIMIT elements, RECORDED_MASK_LIMIT for a mask, once the dimensions it is constant along
    are dropped) as its recorded values, repeated along the batch dimension to the file's `batch_size` and
    expanded back. Token ids, positions and masks carry the workload's counts (the image-token positions a
    `masked_scatter` fills from a fixed number of image features, a padded sample's length), which a random
    draw does not keep, and the files below read them from this one. The recording at the larger of the two
    recorded batches (shapes.full_size) where it is small enough: at the original batch it is often the
    model's own (each sample's, the padded one's too). None: not such an input."""
    if not is_full_size(value) or value.is_floating_point() or value.is_complex():
        return None
    dims = dims_source(value)
    scaled = [i for i, d in enumerate(dims) if BATCH in d]
    if len(scaled) != 1:
        return None
    d = scaled[0]
    limit = RECORDED_MASK_LIMIT if value.dtype == torch.bool else RECORDED_INDEX_LIMIT
    if getattr(value, "_hdecomp_sample2", None) is None:   # not per sample (shapes.full_size)
        return None
    for rec in (value._hdecomp_sample2, sample(value)):  # type: ignore[attr-defined]
        if not isinstance(rec, torch.Tensor) or rec is value or rec.dim() != len(dims) or not rec.numel():
            continue
        rec = rec.detach().cpu()
        sliced = _one_slice(rec, keep=d)   # a mask expanded over the hidden size (`mask.expand_as(h)`)
        expanded = sliced is not None
        rec = sliced if sliced is not None else rec
        if rec.numel() > limit:
            continue
        rows = int(rec.shape[d])
        text = f"torch.tensor({rec.tolist()!r}, dtype={rec.dtype})"
        if dims[d] != str(rows):
            text += f".index_select({d}, torch.arange({dims[d]}) % {rows})"
        # (made contiguous: a kernel may write into its input in place, `gt.bitwise_or_(le)`, which an expanded
        # view refuses)
        return text + (f".expand({', '.join(dims)}).contiguous()" if expanded else "")
    return None


def object_input_expr(value: Any, ctx: SourceContext, recorded_ints: bool = True) -> str | None:
    """An object holding tensors that a child takes (torchvision's `ImageList(tensors, image_sizes)` from the
    transform to the region proposal network; a dataclass of tensors), written as its class called with its
    attributes of the names of its constructor's parameters, the tensors drawn as inputs are. None for an
    object whose constructor does not rebuild its attributes so."""
    if isinstance(value, (torch.Tensor, nn.Module, type)) or callable(value):
        return None
    state = getattr(value, "__dict__", None)
    if not isinstance(state, dict) or not any(isinstance(t, torch.Tensor) for t in flat_values(list(state.values()))):
        return None
    cls = type(value)
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) for p in params) or \
            any(p.name not in state and p.default is p.empty for p in params):
        return None
    given = {p.name: state[p.name] for p in params if p.name in state}
    if dataclasses.is_dataclass(value):
        given = {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init}
    try:
        if set(vars(cls(**given))) != set(state):
            return None
        name = qualified_name(cls, ctx)
    except Exception:
        return None
    args = ", ".join(f"{k}={input_expr(v, ctx, recorded_ints)}" for k, v in given.items())
    return f"{name}({args})"


def shape_text(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"[{', '.join(str(d) for d in value.shape)}] {str(value.dtype).replace('torch.', '')}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(shape_text(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {shape_text(v)}" for k, v in value.items()) + "}"
    return repr(value) if isinstance(value, (int, float, bool, type(None))) else type(value).__name__
