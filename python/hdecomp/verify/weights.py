"""Weight maps: which tensor of the refactored model receives which tensor of the original.

Order of evidence: an explicit weight_map.json {original_key: refactored_key} > exact names > structure
(same shape, dtype and kind — parameter or buffer — paired in registration order). Parameters AND
buffers (BatchNorm running stats) are mapped; tied tensors (one tensor under several names) are mapped
once and their other names listed as aliases. Nothing is guessed silently: a structural match between
several same-shaped candidates is reported as ambiguous (and said to be resolved by registration order
when both sides list the candidates in the same number), and anything left over is reported unmapped.

A packed tensor (nn.MultiheadAttention's in_proj_weight, chunked into the q, k and v projections) maps to
several refactored tensors, each one slice of it along one dimension (hdecomp.formats.weight_map, the file's
one reader and writer). The slices are disjoint; each refactored tensor has exactly its slice's shape and the
original's dtype.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch
from torch import nn

from hdecomp.formats.weight_map import (
    ExplicitMap,
    Part,
    UnknownOriginalKey,
    WeightMapError,
    WeightSlice,
    WholeCopy,
    load_explicit_map,
    map_value_json,
    parse_explicit_map,
)
from hdecomp.runtime.host_values import is_number

Kind = Literal["parameter", "buffer"]
Source = Literal["explicit", "name", "structure"]


@dataclass
class TensorEntry:
    """One named tensor of a model (the first name under which it is registered)."""

    name: str
    tensor: torch.Tensor
    kind: Kind
    index: int  # registration order
    aliases: list[str] = field(default_factory=list)  # further names of the same (tied) tensor
    # a plain tensor attribute (`self.table = sinusoid(...)` in __init__: neither parameter nor buffer); it
    # travels like a non-persistent buffer where a map names it, and is no unmapped tensor where none does
    attribute: bool = False

    @property
    def signature(self) -> tuple[tuple[int, ...], torch.dtype, Kind]:
        return (tuple(self.tensor.shape), self.tensor.dtype, self.kind)

    @property
    def leaf(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def describe(self) -> str:
        return f"{self.name} {list(self.tensor.shape)} {str(self.tensor.dtype).replace('torch.', '')}"


def named_tensors(model: nn.Module, attributes: bool = False) -> list[TensorEntry]:
    """Parameters then buffers (non-persistent ones included), tied names folded into aliases; with
    `attributes`, then the plain tensor attributes of every submodule (TensorEntry.attribute)."""
    entries: list[TensorEntry] = []
    by_id: dict[int, TensorEntry] = {}
    sources: list[tuple[Kind, Any, bool]] = [
        ("parameter", model.named_parameters(remove_duplicate=False), False),
        ("buffer", model.named_buffers(remove_duplicate=False), False),
    ]
    if attributes:
        sources.append(("buffer", plain_tensor_attributes(model), True))
    for kind, items, attribute in sources:
        for name, t in items:
            if t is None:
                continue
            key = id(t)
            if key in by_id:
                by_id[key].aliases.append(name)
                continue
            entry = TensorEntry(name=name, tensor=t, kind=kind, index=len(entries), attribute=attribute)
            by_id[key] = entry
            entries.append(entry)
    return entries


def transferred_keys(module: nn.Module) -> list[str]:
    """The keys of every tensor of `module` that a weight map carries to a child built as `module`'s class: its
    state_dict, its non-persistent buffers and its plain tensor attributes (a child that rebuilds the module
    makes its own, but a re-randomised original's must reach it, and the composition's kernels get theirs
    only through the map)."""
    keys = list(module.state_dict())
    keys += [k for k, _ in module.named_buffers() if k not in keys]
    keys += [k for k, _ in plain_tensor_attributes(module) if k not in keys]
    return keys


def plain_tensor_attributes(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """(qualified name, tensor) of every plain tensor attribute of `model` and its submodules: a tensor a
    constructor stored as `self.name = ...` (VideoMAE's sinusoidal position table), neither a parameter nor
    a buffer. Private ones too: a cache a property fills once (Mimi's codebook, `self._embed`, derived from
    its buffers by the first read) is what every later forward reads, as state."""
    out = []
    for qual, mod in model.named_modules(remove_duplicate=False):
        for attr, t in vars(mod).items():
            if isinstance(t, torch.Tensor) and not isinstance(t, nn.Parameter):
                out.append((f"{qual}.{attr}" if qual else attr, t))
    return out


@dataclass
class Ambiguity:
    """Several same-signature tensors that could be swapped without any shape error."""

    original: list[str]
    refactored: list[str]
    resolution: str  # "registration order" or "unresolved"

    def to_dict(self) -> dict[str, Any]:
        return {"original": self.original, "refactored": self.refactored, "resolution": self.resolution}


@dataclass
class WeightMap:
    """original name -> refactored name, how each pair was found, and what could not be paired."""

    mapping: dict[str, str] = field(default_factory=dict)
    slices: dict[str, list[Part]] = field(default_factory=dict)   # a packed original tensor's parts (or copies)
    sources: dict[str, Source] = field(default_factory=dict)
    ambiguous: list[Ambiguity] = field(default_factory=list)
    unmapped_original: list[str] = field(default_factory=list)
    unmapped_refactored: list[str] = field(default_factory=list)
    aliases_original: dict[str, list[str]] = field(default_factory=dict)
    aliases_refactored: dict[str, list[str]] = field(default_factory=dict)
    explicit_file: str | None = None
    problems: list[str] = field(default_factory=list)  # e.g. two original tensors into one tied tensor

    @property
    def status(self) -> str:
        """"OK" | "WARN" (ambiguities resolved by order, or unmapped tensors) | "FAIL"."""
        if self.problems:
            return "FAIL"
        if self.unmapped_original or self.unmapped_refactored or \
                any(a.resolution == "unresolved" for a in self.ambiguous):
            return "WARN"
        if self.ambiguous:
            return "WARN"
        return "OK"

    def summary(self) -> str:
        by: dict[str, int] = defaultdict(int)
        for s in self.sources.values():
            by[s] += 1
        parts = [f"{len(self.mapping) + len(self.slices)} mapped"]
        if self.slices:
            parts.append(f"{len(self.slices)} packed into {sum(len(v) for v in self.slices.values())} slices")
        parts += [f"{n} by {s}" for s, n in sorted(by.items())]
        if self.ambiguous:
            parts.append(f"{len(self.ambiguous)} ambiguous")
        if self.unmapped_original:
            parts.append(f"{len(self.unmapped_original)} unmapped original")
        if self.unmapped_refactored:
            parts.append(f"{len(self.unmapped_refactored)} unmapped refactored")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        # keys of the original workspace: status, mapped_count, unmapped_original, unmapped_refactored, weight_map
        return {
            "status": self.status,
            "mapped_count": len(self.mapping) + len(self.slices),
            "unmapped_original": self.unmapped_original,
            "unmapped_refactored": self.unmapped_refactored,
            "weight_map": {**self.mapping, **{k: map_value_json(v) for k, v in self.slices.items()}},
            "sources": dict(self.sources),
            "ambiguous": [a.to_dict() for a in self.ambiguous],
            "aliases_original": self.aliases_original,
            "aliases_refactored": self.aliases_refactored,
            "explicit_file": self.explicit_file,
            "problems": self.problems,
            "summary": self.summary(),
        }


def _lookup(entries: list[TensorEntry]) -> dict[str, TensorEntry]:
    table: dict[str, TensorEntry] = {}
    for e in entries:
        table[e.name] = e
        for a in e.aliases:
            table[a] = e
    return table


def _hint(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def build_weight_map(original: nn.Module, refactored: nn.Module,
                     explicit: Mapping[str, str | list[Part]] | None = None,
                     explicit_file: str | Path | None = None) -> WeightMap:
    """Pair every tensor of `original` with one of `refactored`.

    Raises WeightMapError when the explicit map names a key that does not exist or pairs tensors of
    different shape or dtype.
    """
    # (the original's plain tensor attributes are paired by an explicit map only, and never count as unmapped)
    orig_entries = named_tensors(original, attributes=True)
    ref_entries = named_tensors(refactored, attributes=True)
    orig_by_name, ref_by_name = _lookup(orig_entries), _lookup(ref_entries)
    wm = WeightMap(explicit_file=str(explicit_file) if explicit_file else None)
    wm.aliases_original = {e.name: e.aliases for e in orig_entries if e.aliases and not e.attribute}
    wm.aliases_refactored = {e.name: e.aliases for e in ref_entries if e.aliases and not e.attribute}
    used_orig: set[int] = set()
    used_ref: set[int] = set()
    where = explicit_file

    def pair(o: TensorEntry, r: TensorEntry, source: Source) -> None:
        wm.mapping[o.name] = r.name
        wm.sources[o.name] = source
        used_orig.add(o.index)
        used_ref.add(r.index)

    # 1. explicit
    for okey, rkey in (explicit or {}).items():
        o = orig_by_name.get(okey)
        if o is None:
            raise UnknownOriginalKey(f"weight map key {okey!r} is not a parameter or buffer of the original"
                                     f"{_hint(okey, list(orig_by_name))}", where)
        if not isinstance(rkey, str):
            if o.index in used_orig:
                continue
            parts = _check_slices(o, rkey, ref_by_name, used_ref, where)
            wm.slices[o.name] = parts
            wm.sources[o.name] = "explicit"
            used_orig.add(o.index)
            used_ref.update(ref_by_name[p.key].index for p in parts)
            continue
        r = ref_by_name.get(rkey)
        if r is None:
            raise WeightMapError(f"weight map value {rkey!r} (for {okey!r}) is not a parameter or buffer of "
                                 f"the refactored model{_hint(rkey, list(ref_by_name))}", where)
        if o.tensor.shape != r.tensor.shape:
            raise WeightMapError(f"weight map pairs {okey!r} {list(o.tensor.shape)} with {rkey!r} "
                                 f"{list(r.tensor.shape)}: shapes differ", where)
        if o.tensor.dtype != r.tensor.dtype:
            raise WeightMapError(f"weight map pairs {okey!r} ({o.tensor.dtype}) with {rkey!r} "
                                 f"({r.tensor.dtype}): dtypes differ", where)
        if o.index in used_orig:
            continue  # an alias of a tensor already mapped
        if r.index in used_ref:
            other = next(k for k, v in wm.mapping.items() if ref_by_name[v].index == r.index)
            if orig_by_name[other].tensor is not o.tensor:
                wm.problems.append(f"weight map sends both {other!r} and {okey!r} into {rkey!r}")
            continue
        pair(o, r, "explicit")

    # 2. exact names (any alias counts), same shape and dtype
    used_orig.update(o.index for o in orig_entries if o.attribute)
    used_ref.update(r.index for r in ref_entries if r.attribute)
    for o in orig_entries:
        if o.index in used_orig:
            continue
        for name in [o.name, *o.aliases]:
            r = ref_by_name.get(name)
            if r is not None and r.index not in used_ref and r.signature == o.signature:
                pair(o, r, "name")
                break

    # 3. structure: same signature; first with the same leaf name (weight/bias/running_mean...), then any.
    for keyfn in (lambda e: (e.signature, e.leaf), lambda e: (e.signature, "")):
        groups_o: dict[Any, list[TensorEntry]] = defaultdict(list)
        groups_r: dict[Any, list[TensorEntry]] = defaultdict(list)
        for o in orig_entries:
            if o.index not in used_orig:
                groups_o[keyfn(o)].append(o)
        for r in ref_entries:
            if r.index not in used_ref:
                groups_r[keyfn(r)].append(r)
        for key, os_ in groups_o.items():
            rs = groups_r.get(key, [])
            if not rs:
                continue
            if len(os_) > 1 and len(rs) > 1:
                # Several same-shaped candidates: names may still tell them apart (fc2.bias ->
                # fc2.linear.bias). Pair those whose best name affinity is unique and mutual.
                for o, r in _pair_by_names(os_, rs):
                    pair(o, r, "structure")
                os_ = [o for o in os_ if o.index not in used_orig]
                rs = [r for r in rs if r.index not in used_ref]
                if not os_ or not rs:
                    continue
            if len(os_) == len(rs):
                for o, r in zip(os_, rs, strict=True):
                    pair(o, r, "structure")
                if len(os_) > 1:
                    wm.ambiguous.append(Ambiguity([o.name for o in os_], [r.name for r in rs],
                                                  "registration order"))
            elif keyfn(os_[0])[1] == "":
                # Counts differ: any pairing would be a guess. Leave them unmapped and say why.
                wm.ambiguous.append(Ambiguity([o.name for o in os_], [r.name for r in rs], "unresolved"))

    # (a number the original keeps in a non-persistent 0-dim integer buffer, EnCodec's `stride`, is written out
    # where it is read, `torch.tensor(2)`, as the int would be: nothing to map)
    state = original.state_dict(keep_vars=True)
    wm.unmapped_original = [o.name for o in orig_entries if o.index not in used_orig and not o.attribute
                            and not (is_number(o.tensor) and o.name not in state)]
    wm.unmapped_refactored = [r.name for r in ref_entries if r.index not in used_ref and not r.attribute]
    return wm


def _check_slices(o: TensorEntry, parts: list[Part], ref_by_name: dict[str, TensorEntry],
                  used_ref: set[int], where: str | Path | None) -> list[Part]:
    """The slices (and whole copies) of tensor `o`, checked: known keys, in range, slices disjoint, shapes and
    dtypes exact, no refactored tensor filled twice."""
    shape = list(o.tensor.shape)
    taken: list[Part] = []
    for p in parts:
        r = ref_by_name.get(p.key)
        if r is None:
            raise WeightMapError(f"weight map slice {p.key!r} (of {o.name!r}) is not a parameter or buffer of the "
                                 f"refactored model{_hint(p.key, list(ref_by_name))}", where)
        if isinstance(p, WholeCopy) and any(isinstance(q, WholeCopy) and ref_by_name[q.key].index == r.index
                                            for q in taken):
            continue   # another name of a tensor a copy fills already (the refactored model ties them)
        if r.index in used_ref or any(ref_by_name[q.key].index == r.index for q in taken):
            raise WeightMapError(f"weight map fills {p.key!r} twice", where)
        if isinstance(p, WholeCopy):
            if list(r.tensor.shape) != shape or r.tensor.dtype != o.tensor.dtype:
                raise WeightMapError(f"weight map copies {o.name!r} {shape} {o.tensor.dtype} whole into {p.key!r}, "
                                     f"which is {list(r.tensor.shape)} {r.tensor.dtype}", where)
            taken.append(p)
            continue
        if not 0 <= p.dim < len(shape) or p.stop > shape[p.dim]:
            raise WeightMapError(f"weight map slice {p.start}:{p.stop} of dim {p.dim} is outside {o.name!r} "
                                 f"{shape}", where)
        if any(isinstance(q, WeightSlice) and (q.dim != p.dim or (q.start < p.stop and p.start < q.stop))
               for q in taken):
            raise WeightMapError(f"weight map slices of {o.name!r} overlap or cut along different dims "
                                 f"({p.key!r})", where)
        want = list(p.of(o.tensor).shape)
        if list(r.tensor.shape) != want or r.tensor.dtype != o.tensor.dtype:
            raise WeightMapError(f"weight map slice {p.start}:{p.stop} (dim {p.dim}) of {o.name!r} is {want} "
                                 f"{o.tensor.dtype}, but {p.key!r} is {list(r.tensor.shape)} {r.tensor.dtype}",
                                 where)
        taken.append(p)
    return taken


def _affinity(o: str, r: str) -> int:
    """How many module-path components of original name `o` appear, in order, in refactored name `r`."""
    want = o.split(".")[:-1]
    have = r.split(".")[:-1]
    score, j = 0, 0
    for part in want:
        while j < len(have) and have[j] != part:
            j += 1
        if j < len(have):
            score += 1
            j += 1
    return score


def _pair_by_names(os_: list[TensorEntry], rs: list[TensorEntry]) -> list[tuple[TensorEntry, TensorEntry]]:
    best_r: dict[int, int] = {}
    for i, o in enumerate(os_):
        scores = [_affinity(o.name, r.name) for r in rs]
        top = max(scores)
        if top > 0 and scores.count(top) == 1:
            best_r[i] = scores.index(top)
    pairs = []
    for i, j in best_r.items():
        scores = [_affinity(o.name, rs[j].name) for o in os_]
        if scores.count(max(scores)) == 1 and scores.index(max(scores)) == i:
            pairs.append((os_[i], rs[j]))
    return pairs


def apply_weight_map(original: nn.Module, refactored: nn.Module, wm: WeightMap) -> int:
    """Copy the original's mapped tensors into the refactored model (in place); returns the count."""
    orig_by_name = _lookup(named_tensors(original, attributes=True))
    ref_by_name = _lookup(named_tensors(refactored, attributes=True))
    n = 0
    with torch.no_grad():
        for okey, rkey in wm.mapping.items():
            src = orig_by_name[okey].tensor
            dst = ref_by_name[rkey].tensor
            dst.copy_(src.to(dst.device))
            n += 1
        for okey, parts in wm.slices.items():
            src = orig_by_name[okey].tensor
            for p in parts:
                dst = ref_by_name[p.key].tensor
                dst.copy_(p.of(src).to(dst.device))
            n += 1
    return n


def share_weight_map(original: nn.Module, refactored: nn.Module, wm: WeightMap) -> list[torch.Tensor] | None:
    """Make every mapped tensor of `refactored` the very tensor of `original` it maps to (one storage: a
    model whose weights take half the machine's memory is held once; re-randomising the original's
    tensors re-randomises both). Returns the shared tensors, or None, changing nothing, where that cannot
    be exact: a tensor of `refactored` is unmapped (its own constructor's values would be lost when it was
    built without them), or the two sides differ in shape, dtype or kind."""
    orig_by_name = _lookup(named_tensors(original, attributes=True))
    ref_entries = named_tensors(refactored, attributes=True)
    mapped_ref = set(wm.mapping.values()) | {p.key for parts in wm.slices.values() for p in parts}
    if any(e.name not in mapped_ref for e in ref_entries):
        return None
    ref_by_name = _lookup(ref_entries)
    plan: list[tuple[nn.Module, str, str, torch.Tensor]] = []
    pairs: list[tuple[TensorEntry, TensorEntry, torch.Tensor]] = []
    for okey, rkey in wm.mapping.items():
        pairs.append((orig_by_name[okey], ref_by_name[rkey], orig_by_name[okey].tensor))
    with torch.no_grad():   # a slice of a packed tensor is a view of it: the same storage
        for okey, parts in wm.slices.items():
            src = orig_by_name[okey]
            for p in parts:
                view = p.of(src.tensor)
                if isinstance(src.tensor, nn.Parameter):
                    view = nn.Parameter(view, requires_grad=src.tensor.requires_grad)
                pairs.append((src, ref_by_name[p.key], view))
    for src, dst, tensor in pairs:
        if src.kind != dst.kind or tensor.shape != dst.tensor.shape or tensor.dtype != dst.tensor.dtype:
            return None
        for name in [dst.name, *dst.aliases]:
            owner_name, _, leaf = name.rpartition(".")
            owner = refactored.get_submodule(owner_name) if owner_name else refactored
            table = "_parameters" if dst.kind == "parameter" else "_buffers"
            if leaf not in getattr(owner, table):
                return None
            plan.append((owner, table, leaf, tensor))
    for owner, table, leaf, tensor in plan:
        getattr(owner, table)[leaf] = tensor
    return [t for *_, t in plan]


def _randomize_(name: str, t: torch.Tensor, gen: torch.Generator) -> None:
    """Fill a float tensor with random values that keep it usable, in place (a multi-GiB weight needs no
    second copy): variances stay positive, matrices get a fan-in scaled range so activations keep their
    magnitude. Drawn on the tensor's device in its own precision."""
    leaf = name.rsplit(".", 1)[-1].lower()
    if "var" in leaf:  # BatchNorm running_var and friends must stay positive
        t.uniform_(0.5, 1.5, generator=gen)
    elif t.dim() >= 2:
        fan_in = max(1, t.numel() // max(1, t.shape[0]))
        bound = 1.0 / (fan_in ** 0.5)
        t.uniform_(-bound, bound, generator=gen)
    else:
        t.uniform_(-1.0, 1.0, generator=gen)


class _Generators:
    """One seeded generator per device (random draws happen where the tensors live)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.gens: dict[str, torch.Generator] = {}

    def __call__(self, device: torch.device) -> torch.Generator:
        key = str(device)
        if key not in self.gens:
            self.gens[key] = torch.Generator(device=device).manual_seed(self.seed)
        return self.gens[key]


def has_float_state(model: nn.Module) -> bool:
    """Whether `model` holds a float parameter or buffer: weights the randomized-weights and branch trials re-draw."""
    return any(t.is_floating_point() for t in [*model.parameters(), *model.buffers()])


def randomize_weights(original: nn.Module, refactored: nn.Module, wm: WeightMap, seed: int = 1234) -> list[str]:
    """Re-randomise every float parameter and buffer, identically on both sides through the map.

    Unmapped float tensors get values of their own (so a tensor only one side has cannot hide).
    Returns the original names randomised.
    """
    gen = _Generators(seed)
    # (a plain tensor attribute is re-drawn only where the map hands it to the refactored side)
    orig_entries = [e for e in named_tensors(original, attributes=True)
                    if not e.attribute or e.name in wm.mapping or e.name in wm.slices]
    ref_by_name = _lookup(named_tensors(refactored, attributes=True))
    done: list[str] = []
    mapped_ref: set[int] = set()
    with torch.no_grad():
        for o in orig_entries:
            if not o.tensor.is_floating_point():
                continue
            _randomize_(o.name, o.tensor, gen(o.tensor.device))
            rkey = wm.mapping.get(o.name)
            if rkey is not None:
                r = ref_by_name[rkey]
                r.tensor.copy_(o.tensor)
                mapped_ref.add(id(r.tensor))
            for p in wm.slices.get(o.name, []):
                r = ref_by_name[p.key]
                part = p.of(o.tensor)
                if r.tensor.data_ptr() != part.data_ptr() or r.tensor.stride() != part.stride():
                    r.tensor.copy_(part)   # (a shared slice is that very view already)
                mapped_ref.add(id(r.tensor))
            done.append(o.name)
        for r in named_tensors(refactored):
            if r.tensor.is_floating_point() and id(r.tensor) not in mapped_ref:
                _randomize_(r.name, r.tensor, gen(r.tensor.device))
    for model in (original, refactored):
        forget_derived_state(model)
    return done


def randomize_named(original: nn.Module, names: list[str], seed: int = 1234) -> None:
    """Re-draw the original's float tensors `names`, in that order, as `randomize_weights` drew them (the names
    it returned): the same values in a process that holds the original alone."""
    gen = _Generators(seed)
    by_name = {e.name: e for e in named_tensors(original, attributes=True)}
    with torch.no_grad():
        for name in names:
            entry = by_name.get(name)
            if entry is None or not entry.tensor.is_floating_point():
                raise WeightMapError(f"the original has no float tensor {name!r} to re-randomise")
            _randomize_(name, entry.tensor, gen(entry.tensor.device))
    forget_derived_state(original)


def randomized_state(state: dict[str, torch.Tensor], seed: int = 1234) -> dict[str, torch.Tensor]:
    """A copy of `state` (a state_dict) with every float tensor re-drawn as `randomize_weights` draws it:
    what a judge in another process hands both sides (`hdecomp replace`)."""
    gen = _Generators(seed)
    out = {k: v.clone() for k, v in state.items()}
    with torch.no_grad():
        for k, t in out.items():
            if t.is_floating_point():
                _randomize_(k, t, gen(t.device))
    return out


def forget_derived_state(model: nn.Module) -> None:
    """Let modules drop what they computed from their weights before (timm's EfficientFormer caches its
    gathered attention biases per device): PyTorch's convention is to clear such caches in `_apply`, which
    `.to()` calls; an identity `_apply` changes no tensor."""
    with torch.no_grad():
        model._apply(lambda t: t)


__all__ = [
    "Ambiguity",
    "ExplicitMap",
    "Part",
    "TensorEntry",
    "WeightMap",
    "WeightMapError",
    "WeightSlice",
    "WholeCopy",
    "apply_weight_map",
    "build_weight_map",
    "has_float_state",
    "load_explicit_map",
    "map_value_json",
    "named_tensors",
    "parse_explicit_map",
    "plain_tensor_attributes",
    "randomize_weights",
    "randomized_state",
    "share_weight_map",
    "transferred_keys",
]
