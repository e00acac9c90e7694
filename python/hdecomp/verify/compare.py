"""Numerical comparison of nested model outputs, leaf by leaf, with dtype-aware tolerances.

Outputs are walked through tuples, lists, dicts and dataclass instances (namedtuples and dict
subclasses included); every tensor leaf is compared with `allclose` semantics where NaN in both at the same
places counts as equal, Inf must match Inf of the same sign, and ints/bools must be exact. A leaf that
is all NaN, all zero or constant is flagged as degenerate: a match there proves little.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.fx.immutable_collections import immutable_dict, immutable_list

from hdecomp.runtime.component import compared_state, dataclass_fields

# (rtol, atol) by dtype, used when the user gives none.
DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-9),
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1e-3, 1e-3),
    torch.complex64: (1e-5, 1e-6),
    torch.complex128: (1e-7, 1e-9),
}
# bf16 has 8 bits of mantissa: one rounding step is 2**-8 ≈ 4e-3 relative; 1e-3 is what the original
# workspace used for both half types, kept for compatibility. fp8 types fall back to 1e-1.
_FP8_TOLERANCE = (1e-1, 1e-1)
_CHUNK = 1 << 24  # elements per comparison chunk


def tolerances_for(dtype: torch.dtype, rtol: float | None = None, atol: float | None = None) -> tuple[float, float]:
    """(rtol, atol) for `dtype`; explicit values win. Integer and bool dtypes are exact (0, 0)."""
    if not (dtype.is_floating_point or dtype.is_complex):
        base = (0.0, 0.0)
    else:
        base = DEFAULT_TOLERANCES.get(dtype, _FP8_TOLERANCE if dtype.itemsize == 1 else (1e-5, 1e-6))
    return (base[0] if rtol is None else rtol, base[1] if atol is None else atol)


@dataclass
class LeafComparison:
    """The comparison of one output leaf (a tensor or a plain Python value)."""

    path: str  # `out`, `out[1]`, `out[1]['logits']`
    match: bool
    reason: str = ""  # why it does not match (or why it is flagged)
    shape: list[int] | None = None
    refactored_shape: list[int] | None = None
    dtype: str | None = None
    refactored_dtype: str | None = None
    max_diff: float = 0.0
    mean_diff: float = 0.0
    rtol: float = 0.0
    atol: float = 0.0
    mismatched: int = 0  # elements outside tolerance
    numel: int = 0
    nan_count: int = 0
    inf_count: int = 0
    degenerate: str | None = None  # "all_nan" | "all_zero" | "constant" | None
    # all NaN on both sides, NaN for NaN: the trial proves nothing either way (hdecomp.verify.step decides)
    inconclusive: bool = False

    def to_dict(self, index: int) -> dict[str, Any]:
        # keys of the original workspace (output_idx, shape_match, shape, dtype, max_diff, mean_diff,
        # matches, original_shape/refactored_shape) plus ours.
        d: dict[str, Any] = {
            "output_idx": index, "path": self.path, "matches": self.match,
            "shape_match": self.refactored_shape is None or self.refactored_shape == self.shape,
            "shape": self.shape, "dtype": self.dtype, "max_diff": self.max_diff, "mean_diff": self.mean_diff,
            "rtol": self.rtol, "atol": self.atol, "mismatched_elements": self.mismatched,
            "numel": self.numel, "nan_count": self.nan_count, "inf_count": self.inf_count,
            "degenerate": self.degenerate,
        }
        if self.reason:
            d["reason"] = self.reason
        if self.refactored_shape is not None and self.refactored_shape != self.shape:
            d["original_shape"] = self.shape
            d["refactored_shape"] = self.refactored_shape
        if self.refactored_dtype is not None and self.refactored_dtype != self.dtype:
            d["refactored_dtype"] = self.refactored_dtype
        return d


@dataclass
class OutputComparison:
    """All leaves of one trial's outputs."""

    leaves: list[LeafComparison] = field(default_factory=list)

    @property
    def match(self) -> bool:
        return all(leaf.match for leaf in self.leaves)

    @property
    def max_diff(self) -> float:
        diffs = [leaf.max_diff for leaf in self.leaves]
        return max(diffs) if diffs else 0.0

    @property
    def inconclusive(self) -> bool:
        """No match only because an output is all NaN on both sides (an input drawn outside the function's
        domain: the square root of a negative width): the trial proves nothing, either way."""
        return not self.match and all(leaf.match or leaf.inconclusive for leaf in self.leaves)

    @property
    def degenerate(self) -> bool:
        """True when every tensor leaf is degenerate (a match proves little)."""
        tensors = [leaf for leaf in self.leaves if leaf.numel > 0]
        return bool(tensors) and all(leaf.degenerate for leaf in tensors)

    def first_failure(self) -> LeafComparison | None:
        return next((leaf for leaf in self.leaves if not leaf.match), None)

    def details(self) -> list[dict[str, Any]]:
        return [leaf.to_dict(i) for i, leaf in enumerate(self.leaves)]


def _describe(obj: Any) -> str:
    if isinstance(obj, torch.Tensor):
        return f"Tensor{list(obj.shape)}"
    return type(obj).__name__


_UNKNOWN = "?"


def _finite_range(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(min, max) of a real tensor holding no NaN and no Inf: one pass, no temporaries. None when it holds
    a NaN or an Inf (or is complex or empty)."""
    if t.numel() == 0 or t.is_complex():
        return None
    mn, mx = torch.aminmax(t)
    if t.is_floating_point() and not bool(torch.isfinite(mn) & torch.isfinite(mx)):
        return None
    return mn, mx


def _kind_from_range(t: torch.Tensor, rng: tuple[torch.Tensor, torch.Tensor] | None) -> str | None:
    """degenerate_kind from a tensor's finite (min, max); _UNKNOWN without one (NaN or Inf inside)."""
    if rng is None:
        return _UNKNOWN
    if t.numel() <= 1:
        return None
    mn, mx = rng
    if not bool(mn == mx):
        return None
    return "all_zero" if not bool(mx != 0) else "constant"


def degenerate_kind(t: torch.Tensor, rng: tuple[torch.Tensor, torch.Tensor] | None = None) -> str | None:
    """"all_nan", "all_zero" or "constant" for a tensor whose values carry (almost) no information.
    `rng`: the tensor's `_finite_range`, when the caller has it."""
    if t.numel() == 0:
        return None
    if not t.is_complex():   # one min/max pass decides unless NaN or Inf is inside
        kind = _kind_from_range(t, rng if rng is not None else _finite_range(t))
        if kind != _UNKNOWN:
            return kind
    if t.numel() > _CHUNK:
        return _degenerate_kind_chunked(t)
    if t.is_floating_point() or t.is_complex():
        nan = torch.isnan(t)
        if bool(nan.all()):
            return "all_nan"
        vals = t[~nan] if bool(nan.any()) else t
    else:
        vals = t
    if vals.numel() <= 1:
        return None
    if vals.dtype == torch.bool:
        vals = vals.to(torch.uint8)
    if not bool((vals != 0).any()):
        return "all_zero"
    flat = vals.reshape(-1)
    if bool((flat == flat[0]).all()):
        return "constant"
    return None


def _count_inf(t: torch.Tensor) -> int:
    """Infinite values, chunk by chunk: torch.isinf of a float tensor computes `abs(t) == inf` over the
    whole tensor (a full-size copy: 9 GB of temporaries for a 4 GB attention score matrix)."""
    if not t.is_contiguous() or t.numel() <= _CHUNK:
        return int(torch.isinf(t).sum())
    return sum(int(torch.isinf(c).sum()) for c in t.reshape(-1).split(_CHUNK))


def _degenerate_kind_chunked(t: torch.Tensor) -> str | None:
    """degenerate_kind of a big tensor chunk by chunk (the same answer; no full-size boolean masks)."""
    flat = t.reshape(-1) if t.is_contiguous() else t.contiguous().view(-1)
    floating = t.is_floating_point() or t.is_complex()
    all_nan, n_vals, first, nonzero, constant = True, 0, None, False, True
    for chunk in flat.split(_CHUNK):
        if floating:
            nan = torch.isnan(chunk)
            if not bool(nan.all()):
                all_nan = False
            vals = chunk[~nan] if bool(nan.any()) else chunk
        else:
            all_nan = False
            vals = chunk
        if vals.numel() == 0:
            continue
        if vals.dtype == torch.bool:
            vals = vals.to(torch.uint8)
        n_vals += vals.numel()
        nonzero = nonzero or bool((vals != 0).any())
        if first is None:
            first = vals.reshape(-1)[0]
        if constant and not bool((vals == first).all()):
            constant = False
    if floating and all_nan:
        return "all_nan"
    if n_vals <= 1:
        return None
    if not nonzero:
        return "all_zero"
    return "constant" if constant else None


def _compare_tensors(path: str, a: torch.Tensor, b: torch.Tensor, rtol: float | None,
                     atol: float | None) -> LeafComparison:
    leaf = LeafComparison(path=path, match=False, shape=list(a.shape), dtype=str(a.dtype).replace("torch.", ""),
                          numel=a.numel())
    if list(b.shape) != list(a.shape):
        leaf.refactored_shape = list(b.shape)
        leaf.reason = f"shape mismatch at {path}: original {list(a.shape)}, refactored {list(b.shape)}"
        leaf.max_diff = math.inf
        return leaf
    if a.dtype != b.dtype:
        leaf.refactored_dtype = str(b.dtype).replace("torch.", "")
        leaf.reason = f"dtype mismatch at {path}: original {leaf.dtype}, refactored {leaf.refactored_dtype}"
        leaf.max_diff = math.inf
        return leaf
    leaf.rtol, leaf.atol = tolerances_for(a.dtype, rtol, atol)
    if b.device != a.device:
        b = b.to(a.device)
    rng_a = _finite_range(a)
    leaf.degenerate = degenerate_kind(a, rng_a)
    if a.numel() == 0:
        leaf.match = True
        return leaf
    exact = not (a.is_floating_point() or a.is_complex())
    if exact:
        neq = a != b
        leaf.mismatched = int(neq.sum())
        if leaf.mismatched:
            diff = (a.to(torch.float64) - b.to(torch.float64)).abs() if a.dtype != torch.bool else neq.double()
            leaf.max_diff = float(diff.max())
            leaf.mean_diff = float(diff.mean())
            leaf.reason = f"{leaf.mismatched} of {leaf.numel} values differ at {path} (exact dtype {leaf.dtype})"
        leaf.match = leaf.mismatched == 0
        return leaf
    if torch.equal(a, b):
        # Bit-identical (common: a step runs the same kernels in the same order). NaN never compares equal,
        # so there is none; every difference is 0. Same result as the loop below at a fraction of the cost
        # (the float64 loop makes ~12 passes over the data: seconds per trial on a large output).
        leaf.inf_count = 0 if rng_a is not None else _count_inf(a)
        leaf.match = True
        return leaf
    if a.dtype in _FAST_DTYPES and rng_a is not None and _finite_range(b) is not None:
        _compare_finite(leaf, a, b, path)
        return leaf
    _compare_general(leaf, a, b, path)
    if not leaf.match:
        return leaf
    if leaf.degenerate == "all_nan":
        leaf.reason = f"{path}: the original's output is all NaN; a match proves nothing"
        leaf.match = False
        leaf.inconclusive = True
        return leaf
    leaf.match = True
    return leaf


def _compare_general(leaf: LeafComparison, a: torch.Tensor, b: torch.Tensor, path: str) -> None:
    """The comparison of any two float or complex outputs (NaN and Inf included), element by element in
    float64 (complex128); sets `leaf.match` False with the reason, else True."""
    # Compare in float64 (complex128) so the difference itself does not round, chunk by chunk so a
    # multi-GiB output needs only a few chunk-sized temporaries.
    wide = torch.complex128 if a.is_complex() else torch.float64
    fa, fb = a.reshape(-1), b.reshape(-1)
    n_nan = n_inf = fin_count = 0
    diff_sum, max_diff = 0.0, 0.0
    for start in range(0, fa.numel(), _CHUNK):
        a64 = fa[start:start + _CHUNK].to(wide)
        b64 = fb[start:start + _CHUNK].to(wide)
        nan_a, nan_b = torch.isnan(a64), torch.isnan(b64)
        inf_a, inf_b = torch.isinf(a64), torch.isinf(b64)
        leaf.nan_count += int(nan_a.sum())
        leaf.inf_count += int(inf_a.sum())
        nan_mismatch = nan_a != nan_b
        inf_mismatch = (inf_a | inf_b) & ~(nan_a | nan_b) & (a64 != b64)
        finite = ~(nan_a | nan_b | inf_a | inf_b)
        diff = torch.where(finite, (a64 - b64).abs(), torch.zeros((), dtype=torch.float64, device=a64.device))
        close = diff <= leaf.atol + leaf.rtol * b64.abs()
        bad = (finite & ~close) | nan_mismatch | inf_mismatch
        leaf.mismatched += int(bad.sum())
        n_nan += int(nan_mismatch.sum())
        n_inf += int(inf_mismatch.sum())
        fin_count += int(finite.sum())
        if diff.numel():
            max_diff = max(max_diff, float(diff.max()))
            diff_sum += float(diff.sum())
        del a64, b64, diff, close, bad, finite
    leaf.max_diff = max_diff
    leaf.mean_diff = diff_sum / fin_count if fin_count else 0.0
    if n_nan or n_inf:
        leaf.max_diff = math.inf
    if leaf.mismatched:
        parts = []
        if n_nan:
            parts.append(f"NaN in only one output at {n_nan} places")
        if n_inf:
            parts.append(f"Inf differs at {n_inf} places")
        other = leaf.mismatched - n_nan - n_inf
        if other:
            parts.append(f"{other} of {leaf.numel} values outside rtol={leaf.rtol:g} atol={leaf.atol:g} "
                         f"(max diff {leaf.max_diff:.3g})")
        leaf.reason = f"{path}: " + "; ".join(parts)
        leaf.match = False
        return
    leaf.match = True


_FAST_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# A difference the float32 check calls close by this margin is close in float64 too (the float32 values
# of |a - b| and atol + rtol * |b| are within ~3e-7 of the exact ones); thresholds this small
# (subnormal) are decided in float64.
_SURE = 1.0 - 1e-5
_TINY = 1e-30


def _compare_finite(leaf: LeafComparison, a: torch.Tensor, b: torch.Tensor, path: str) -> None:
    """The comparison of two finite float outputs that are not bit-identical, in float32 on their own
    device: an element is judged in float64, as the general loop judges all of them, only when the
    float32 check cannot decide it, and the largest differences are recomputed in float64 so `max_diff`
    is the exact one. Same verdict and max_diff as the general loop, a fraction of its passes."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    mismatched, max_diff, diff_sum = 0, 0.0, 0.0
    for start in range(0, fa.numel(), _CHUNK):
        ca, cb = fa[start:start + _CHUNK].float(), fb[start:start + _CHUNK].float()
        d = (ca - cb).abs_()
        thr = cb.abs().mul_(leaf.rtol).add_(leaf.atol)
        unsure = ~((d <= thr * _SURE) & (thr > _TINY))
        if bool(unsure.any()):
            ua, ub = ca[unsure].double(), cb[unsure].double()
            mismatched += int(((ua - ub).abs() > leaf.atol + leaf.rtol * ub.abs()).sum())
        top = d.max()
        near = d >= top * _SURE
        max_diff = max(max_diff, float((ca[near].double() - cb[near].double()).abs().max()))
        diff_sum += float(d.sum(dtype=torch.float64))
        del d, thr, unsure, near
    leaf.mismatched = mismatched
    leaf.max_diff = max_diff
    leaf.mean_diff = diff_sum / leaf.numel
    if mismatched:
        leaf.reason = (f"{path}: {mismatched} of {leaf.numel} values outside rtol={leaf.rtol:g} "
                       f"atol={leaf.atol:g} (max diff {max_diff:.3g})")
    leaf.match = mismatched == 0


def compare_outputs(original: Any, refactored: Any, rtol: float | None = None, atol: float | None = None,
                    path: str = "out") -> OutputComparison:
    """Compare two (nested) outputs leaf by leaf."""
    result = OutputComparison()
    _walk(original, refactored, rtol, atol, path, result.leaves)
    return result


# (an OrderedDict reads as a dict does: `out["c1"]`, `.items()` in order; torchvision's IntermediateLayerGetter;
# and so do torch.fx's immutable containers, which a captured graph's replay returns where the code it writes
# builds a plain dict or list)
_PLAIN_CONTAINERS = (list, tuple, dict, collections.OrderedDict, immutable_dict, immutable_list)


def _same_class(a: Any, b: Any) -> bool:
    """One class, or the same definition carried into two files (a user's namedtuple or dataclass that the
    original and a child file each define): the same name and the same fields."""
    ta, tb = type(a), type(b)
    return ta is tb or (ta.__qualname__ == tb.__qualname__ and
                        getattr(ta, "_fields", None) == getattr(tb, "_fields", None) and
                        list(getattr(ta, "__dataclass_fields__", {})) == list(getattr(tb, "__dataclass_fields__", {})))


def _named_against_plain(a: Any, b: Any) -> bool:
    """A named container (a namedtuple, a transformers ModelOutput) against a plain one, or another named one:
    read by attribute (`out.logits`), the same leaves in a plain tuple or dict are not the same value."""
    return isinstance(a, _PLAIN_CONTAINERS) and isinstance(b, _PLAIN_CONTAINERS) and not _same_class(a, b) and \
        (type(a) not in _PLAIN_CONTAINERS or type(b) not in _PLAIN_CONTAINERS)


def container_mismatch(a: Any, b: Any, path: str = "out") -> str | None:
    """Where two nested outputs differ in the kind of a container, as compare_outputs reads it (a ModelOutput
    against the plain dict of its items): the first such place, described, None where there is none. The
    decomposer checks its captures with it, so that it never writes a step its verifier rejects for that."""
    if _named_against_plain(a, b):
        return f"{path}: original {type(a).__name__}, refactored {type(b).__name__}"
    if isinstance(a, dict) and isinstance(b, dict):
        pairs: list[tuple[Any, Any, str]] = [(a[k], b[k], f"{path}[{k!r}]") for k in a if k in b]
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        pairs = [(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=False))]
    else:
        return None
    for x, y, where in pairs:
        if (found := container_mismatch(x, y, where)) is not None:
            return found
    return None


def _structure_mismatch(path: str, what: str) -> LeafComparison:
    return LeafComparison(path=path, match=False, max_diff=math.inf, reason=f"structure mismatch at {path}: {what}")


def _walk(a: Any, b: Any, rtol: float | None, atol: float | None, path: str, out: list[LeafComparison]) -> None:
    if _named_against_plain(a, b):
        out.append(_structure_mismatch(path, f"original {type(a).__name__}, refactored {type(b).__name__}"))
        return
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        out.append(_compare_tensors(path, a.detach(), b.detach(), rtol, atol))
        return
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        # (a numpy array a forward made, HiDream's `bincount().cpu().numpy().cumsum(0)`: as the tensor it holds)
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.dtype == object or b.dtype == object:
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        out.append(_compare_tensors(path, torch.from_numpy(np.ascontiguousarray(a)),
                                    torch.from_numpy(np.ascontiguousarray(b)), rtol, atol))
        return
    if isinstance(a, collections.UserDict) or isinstance(b, collections.UserDict):
        # (Gemma 3n's KVSharingDict: of one class, entry by entry, as a dict)
        if not (isinstance(a, collections.UserDict) and isinstance(b, collections.UserDict) and _same_class(a, b)):
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        a, b = a.data, b.data
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        if set(a) != set(b):
            only_a = sorted(map(repr, set(a) - set(b)))
            only_b = sorted(map(repr, set(b) - set(a)))
            out.append(_structure_mismatch(path, f"keys only in original {only_a}, only in refactored {only_b}"))
            return
        for k in a:
            _walk(a[k], b[k], rtol, atol, f"{path}[{k!r}]", out)
        return
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        if len(a) != len(b):
            out.append(_structure_mismatch(path, f"original has {len(a)} items, refactored {len(b)}"))
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _walk(x, y, rtol, atol, f"{path}[{i}]", out)
        return
    fields_a, fields_b = dataclass_fields(a), dataclass_fields(b)
    if fields_a is not None or fields_b is not None:   # a dataclass output: field by field, of the same class
        if fields_a is None or fields_b is None or not _same_class(a, b):
            out.append(_structure_mismatch(path, f"original {_describe(a)}, refactored {_describe(b)}"))
            return
        for k in fields_a:
            _walk(fields_a[k], fields_b[k], rtol, atol, f"{path}.{k}", out)
        return
    state_a, state_b = compared_state(a), compared_state(b)
    if state_a is not None and state_b is not None and _same_class(a, b):
        # an object that compares by identity (torchvision's LevelMapper; diffusers' DiagonalGaussianDistribution,
        # which holds tensors; a transformers cache handed back, objects in objects): attribute by attribute
        for k in sorted(set(state_a) | set(state_b)):
            if k not in state_a or k not in state_b:
                out.append(_structure_mismatch(f"{path}.{k}", "an attribute only one side has"))
                continue
            _walk(state_a[k], state_b[k], rtol, atol, f"{path}.{k}", out)
        return
    if isinstance(a, type) and isinstance(b, type):   # a class (a cache's layer class): by name
        same = a.__qualname__ == b.__qualname__
        out.append(LeafComparison(path=path, match=same, dtype="class", max_diff=0.0 if same else math.inf,
                                  reason="" if same else f"{path}: original {a.__qualname__}, refactored "
                                  f"{b.__qualname__}"))
        return
    # plain Python values (ints, floats, None, strings)
    if isinstance(a, float) and isinstance(b, float):
        r, t = tolerances_for(torch.float64, rtol, atol)
        same = (math.isnan(a) and math.isnan(b)) or a == b or \
            (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= t + r * abs(b))
        diff = abs(a - b) if math.isfinite(a) and math.isfinite(b) else (0.0 if same else math.inf)
        out.append(LeafComparison(path=path, match=same, max_diff=diff, dtype="float",
                                  reason="" if same else f"{path}: original {a!r}, refactored {b!r}"))
        return
    same = type(a) is type(b) and a == b
    out.append(LeafComparison(path=path, match=bool(same), dtype=type(a).__name__,
                              max_diff=0.0 if same else math.inf,
                              reason="" if same else f"{path}: original {a!r}, refactored {b!r}"))


def first_float_dtype(obj: Any) -> torch.dtype | None:
    """The dtype of the first floating-point tensor nested in `obj` (the inputs' dtype)."""
    if isinstance(obj, torch.Tensor):
        return obj.dtype if obj.is_floating_point() else None
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        for o in obj:
            d = first_float_dtype(o)
            if d is not None:
                return d
    return None


__all__ = [
    "DEFAULT_TOLERANCES",
    "LeafComparison",
    "OutputComparison",
    "compare_outputs",
    "degenerate_kind",
    "first_float_dtype",
    "tolerances_for",
]
