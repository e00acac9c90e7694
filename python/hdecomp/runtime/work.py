"""The work one forward does: its FLOPs, counted per aten op (torch's own formulas from
`torch.utils.flop_counter` for matmuls, convolutions and attention, ours where it has none: the CPU
attention kernel, norms, softmax, elementwise ops), and the bytes it moves (the inputs, the outputs, the
parameters and buffers, each storage once). `hdecomp profile` and `hdecomp replace` count with it."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode


def _numel(x: Any) -> int:
    return x.numel() if isinstance(x, torch.Tensor) else 0


def _sdpa_flops(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> int:
    """Q K^T and (softmax) V: 2 * B*H * L * S * (E + Ev)."""
    *batch, length, e = q.shape
    s, ev = k.shape[-2], v.shape[-1]
    bh = math.prod(batch)
    return 2 * bh * length * s * (e + ev)


# FLOPs per output element of the norms and softmax, which torch's counter has no formula for. A norm
# that computes its statistics: mean and variance (2 adds), centre, square, scale by the inverse deviation
# (3) = 5; with statistics given (batch norm in eval mode): centre and scale = 2; RMSNorm: square, add,
# scale = 3. Plus 1 per element for an affine weight and 1 for a bias. Softmax: max, subtract, exp, sum,
# divide = 5.
_SOFTMAX = {"softmax", "_softmax", "log_softmax", "_log_softmax"}
# op -> (FLOPs per element, index of its weight argument; the bias follows it)
_NORMS = {"native_layer_norm": (5, 2), "native_group_norm": (5, 1), "_native_batch_norm_legit": (5, 1),
          "_native_batch_norm_legit_no_training": (2, 1), "rms_norm": (3, 2), "_fused_rms_norm": (3, 2)}
_NO_FLOPS = {"view", "_unsafe_view", "reshape", "permute", "transpose", "t", "expand", "slice", "select",
             "unsqueeze", "squeeze", "clone", "copy_", "_to_copy", "contiguous", "detach", "alias", "empty",
             "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "arange", "cat", "stack", "split",
             "split_with_sizes", "chunk", "index", "index_select", "gather", "embedding", "lift_fresh",
             "as_strided", "new_zeros", "new_empty", "fill_", "zero_", "_reshape_alias", "unbind", "flip",
             "roll", "pad", "constant_pad_nd", "repeat", "scalar_tensor", "masked_fill", "where", "max_pool2d",
             "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool2d", "randn", "rand",
             "bernoulli_", "native_dropout", "dropout", "sym_size", "sym_numel", "_local_scalar_dense", "item",
             "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or"}


def op_flops(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int:
    """FLOPs of one aten op call: torch's registered formula when it has one, else ours; data movement
    counts nothing. (Multiply-add = 2 FLOPs, as torch counts.)"""
    from torch.utils.flop_counter import flop_registry
    packet = func._overloadpacket
    if packet in flop_registry:
        try:
            return int(flop_registry[packet](*args, **kwargs, out_val=out))
        except Exception:   # a call its formula does not take (an unusual overload): counted as ours below
            pass
    name = packet.__name__
    if name == "_scaled_dot_product_flash_attention_for_cpu" or name.startswith("_scaled_dot_product"):
        return _sdpa_flops(args[0], args[1], args[2])
    if name in _NO_FLOPS:
        return 0
    first = out[0] if isinstance(out, (tuple, list)) and out else out
    n = _numel(first)
    if name in _SOFTMAX:
        return 5 * n
    if name in _NORMS or name == "native_batch_norm":
        per, w = _NORMS.get(name, (5 if len(args) > 5 and args[5] else 2, 1))
        affine = [a for a in args[w:w + (1 if "rms" in name else 2)] if isinstance(a, torch.Tensor)]
        return n * (per + len(affine))
    if name in ("avg_pool2d", "avg_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "mean", "sum"):
        return _numel(args[0])   # one add per input element
    if n and isinstance(first, torch.Tensor) and (first.is_floating_point() or first.is_complex()):
        return n   # an elementwise op: one FLOP per output element
    return 0


class FlopCounter(TorchDispatchMode):
    """Counts FLOPs per aten op while active (op_flops)."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0
        self.by_op: dict[str, int] = {}

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        n = op_flops(func, args, kwargs, out)
        if n:
            key = func._overloadpacket.__name__
            self.total += n
            self.by_op[key] = self.by_op.get(key, 0) + n
        return out


def count_flops(model: torch.nn.Module, args: list[Any], kwargs: dict[str, Any]) -> tuple[int, dict[str, int]]:
    with torch.no_grad(), FlopCounter() as fc:
        model(*args, **kwargs)
    return fc.total, dict(sorted(fc.by_op.items()))


def _tensor_bytes(obj: Any, seen: set[int]) -> int:
    if isinstance(obj, torch.Tensor):
        key = obj.untyped_storage().data_ptr() if obj.device.type != "meta" else id(obj)
        if key in seen:
            return 0
        seen.add(key)
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        return sum(_tensor_bytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(v, seen) for v in obj)
    return 0


def bytes_moved(model: torch.nn.Module, args: list[Any], kwargs: dict[str, Any], out: Any) -> int:
    """The inputs, the outputs and the parameters and buffers, each storage once."""
    seen: set[int] = set()
    state = [*model.parameters(), *model.buffers()]
    return (_tensor_bytes(list(args), seen) + _tensor_bytes(kwargs, seen) + _tensor_bytes(out, seen)
            + _tensor_bytes(state, seen))


__all__ = ["FlopCounter", "bytes_moved", "count_flops", "op_flops"]
