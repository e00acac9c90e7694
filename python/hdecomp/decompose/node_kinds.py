"""What a node of a captured graph is to the step's parent, marked on the graph before it is split (plan): the
plumbing the parent keeps (views, indexing, assembling, copies into a tensor it made, `x + 0`, a namedtuple's
packing), and host code: the numbers a forward is handed or reads out of an integer tensor, the arithmetic on
numbers alone, the constants of the shapes (tensors made from sizes and literals, and what is computed from
them alone), the sizes of the weights. The static anti-cheat and the run read them alike (HOST values,
runtime.host_values, OpEvent.number)."""

from __future__ import annotations

import builtins
import contextvars
import operator
from typing import Any

import torch
import torch.fx as fx

from hdecomp.anticheat.static.external import is_namedtuple_class
from hdecomp.decompose.capture.common import INT_FUNCTIONS, is_held_object, is_shape_int
from hdecomp.runtime.component import factory_class, is_output_class
from hdecomp.runtime.host_values import host_result, is_number, number_annotation
from hdecomp.vocab.ops import PARENT_METHODS, RANDOM_OPS, is_compute_op, is_neutral_operand

# What may stay in a refactored forward besides the tensor methods of hdecomp.vocab.ops.PARENT_METHODS: the
# functions that index, view, assemble, create or copy.
PARENT_FUNCTIONS: set[Any] = {operator.getitem, builtins.getattr, torch.flatten, torch.reshape, torch.cat,
                              torch.stack, torch.split, torch.chunk, torch.transpose, torch.permute,
                              torch.squeeze, torch.unsqueeze, torch.unbind, torch.concat, torch.unflatten,
                              torch.movedim, torch.moveaxis, torch.swapaxes, torch.swapdims, torch.t,
                              torch.split_with_sizes, torch.tensor_split, torch.narrow, torch.broadcast_to,
                              # tensors made from sizes and literals (position ids, a mask's ones): constants
                              # are data plumbing (hdecomp.vocab.ops.SOURCE_PLUMBING_OPS), never a kernel of their own
                              torch.arange, torch.zeros, torch.ones, torch.full, torch.empty, torch.linspace,
                              torch.zeros_like, torch.ones_like, torch.full_like, torch.empty_like,
                              torch.tensor, torch.as_tensor, torch.scalar_tensor,
                              # copies: `original_x = x.clone().detach()` moves no compute
                              torch.clone, torch.detach}

# Leaf modules that are one logical op even if written as several primitives.

def is_namedtuple_call(n: fx.Node) -> bool:
    """A call of a namedtuple class (Reformer's `ReformerOutput(hidden_states, attn_output, ...)`): it packs
    values, as the anti-cheat check reads it from the class's source (anticheat/static/external.py); torch's
    own namedtuple types (PackedSequence, which checks its fields in `__new__`) pack values too."""
    t = n.target
    return n.op == "call_function" and isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields") \
        and (t.__module__.split(".")[0] == "torch" or is_namedtuple_class(f"{t.__module__}.{t.__qualname__}"))


def is_output_object_call(n: fx.Node) -> bool:
    """A call of an output class that packs values by name (transformers' ModelOutputs: dataclasses that
    are dicts), as a recording writes `BaseModelOutput(last_hidden_state=h)`; or a plain object made from the
    graph's values (object_factory: a kernel of its own that packs them, as an output class's call is)."""
    return n.op == "call_function" and ((is_output_class(n.target) and not n.args) or
                                        factory_class(n.target) is not None)


def is_host_scalar(n: fx.Node) -> bool:
    """A tensor's value read as a Python number (`t.item()`), or int arithmetic on such numbers (and on
    shape ints): host code, which computes on data (not parent plumbing) and is no kernel of its own."""
    if n.op == "call_method":
        return str(n.target) == "item"
    if n.op != "call_function":
        return False
    if getattr(n.target, "__name__", "").split(".")[0] in ("item", "_local_scalar_dense"):
        return True
    if n.target in INT_FUNCTIONS:
        ins = n.all_input_nodes
        return any(is_host_scalar(a) for a in ins) and all(is_host_scalar(a) or is_shape_int(a) for a in ins)
    return False


# methods of Python lists, none a tensor's: `levels.append(pooled)` in a module handed a list (torchvision's
# LastLevelMaxPool) mutates the caller's list, plumbing that stays in the parent
_LIST_METHODS = frozenset({"append", "extend", "insert"})


def is_parent_plumbing(n: fx.Node) -> bool:
    if HOST_VALUE in n.meta:
        return True
    if n.op == "call_method":
        return str(n.target) in PARENT_METHODS or is_shape_int(n) or is_identity_node(n) or is_local_write(n) \
            or HOST_NUMBER in n.meta or str(n.target) in _LIST_METHODS
    if n.op == "call_function":
        return n.target in PARENT_FUNCTIONS or is_shape_int(n) or is_namedtuple_call(n) or is_held_object(n) \
            or HOST_NUMBER in n.meta or is_identity_node(n) or is_local_write(n)
    return False


# tensors a forward makes from sizes or copies (plumbing, yet values of its own a write may fill)
_MADE_METHODS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "clone"})
_MADE_FUNCTIONS = {torch.empty, torch.zeros, torch.ones, torch.full, torch.empty_like, torch.zeros_like,
                   torch.ones_like, torch.full_like, torch.clone}


# the methods that read their other tensor's dtype or shape only (`c.type_as(x)`, `c.view_as(x)`)
_LIKE_METHODS = frozenset({"type_as", "view_as", "expand_as", "reshape_as"})


# the answers of one is_local_write query, node by node: a write's destination is asked again through
# is_parent_plumbing at every level of a chain of writes (a recurrence's state written step by step), which
# without them doubles the work per level
_LOCAL_WRITES: contextvars.ContextVar[dict[fx.Node, bool] | None] = contextvars.ContextVar(
    "hdecomp_local_writes", default=None)


def is_local_write(n: fx.Node) -> bool:
    """A copy of a value into a slice of a tensor the forward made itself (`q = x.new_empty(...)`, then
    `q[..., :8].copy_(q_pass)` and `q[..., 8:] = q_rot`; LED's chunks written one after another into one
    `new_zeros`) or computed (MViT's `attn[:, :, 1:, 1:] = ...` into the scores a child returned): assembling
    a tensor from its parts, as `cat` does, which moves data and computes nothing; it stays in the parent (a
    write into an input, a parameter or a buffer is a kernel). The slice is indexed by numbers and sizes only
    (a tensor index makes it a scatter)."""
    memo = _LOCAL_WRITES.get()
    if memo is None:
        token = _LOCAL_WRITES.set({})
        try:
            return is_local_write(n)
        finally:
            _LOCAL_WRITES.reset(token)
    if n not in memo:
        memo[n] = _local_write(n)
    return memo[n]


def _local_write(n: fx.Node) -> bool:
    """is_local_write, asked once per node of a query."""
    if n.op == "call_method" and str(n.target) == "copy_":
        dest = n.args[0] if n.args else None
    elif n.op == "call_function" and n.target is operator.setitem and len(n.args) == 3:
        dest = n.args[0]
        if _tensor_index(n.args[1]):
            return False
    else:
        return False
    while isinstance(dest, fx.Node):
        if dest.op not in ("call_method", "call_function", "call_module"):
            return False     # (an input of the forward, a parameter or a buffer)
        if not is_parent_plumbing(dest) or is_local_write(dest) or \
                (dest.op == "call_method" and str(dest.target) in _MADE_METHODS) or \
                (dest.op == "call_function" and dest.target in _MADE_FUNCTIONS):
            return True      # a value this forward made or computed (or wrote into before)
        if dest.op == "call_function" and dest.target is operator.getitem and _tensor_index(dest.args[1]):
            return False
        ins = [a for a in dest.all_input_nodes if not is_shape_int(a)]
        if dest.op == "call_method" and str(dest.target) in _LIKE_METHODS and isinstance(dest.args[0], fx.Node):
            ins = [dest.args[0]]   # (`c.type_as(x)`: the other tensor gives a dtype or a shape, no data)
        if len(ins) != 1:
            return False
        dest = ins[0]
    return False


def _tensor_index(index: Any) -> bool:
    """An index holding a value of the graph that is no size (a tensor: advanced indexing)."""
    found: list[bool] = []

    def seen(a: fx.Node) -> fx.Node:
        found.append(not is_shape_int(a))
        return a

    fx.node.map_arg(index, seen)
    return any(found)


_IDENTITY_NAMES = {"add": "add", "iadd": "add", "radd": "add", "mul": "mul", "imul": "mul", "rmul": "mul"}


def is_identity_node(n: fx.Node) -> bool:
    """`x + 0`, `0 + x`, `x * 1`: an op with a neutral Python number computes nothing (hdecomp.vocab.ops.
    NEUTRAL_OPERANDS, the rule the recorder and the static analysis apply too); it stays in the parent."""
    raw = str(n.target) if n.op == "call_method" else getattr(n.target, "__name__", "")
    op = _IDENTITY_NAMES.get(raw.strip("_"))
    if op is None or len(n.args) < 2 or n.kwargs.get("alpha", 1) != 1:
        return False
    a, b = n.args[0], n.args[1]
    if isinstance(a, fx.Node) != isinstance(b, fx.Node):
        return is_neutral_operand(op, b if isinstance(a, fx.Node) else a)
    return False


HOST_NUMBER = "hdecomp_host_number"   # node meta: a Python number of the forward (mark_host_numbers)
HOST_VALUE = "hdecomp_host_value"     # node meta: a tensor of constants of the shapes (mark_host_values)
HOST_NUMBER_HELD = "hdecomp_number_held"   # node meta: the number a get_attr holds (a 0-dim integer tensor)
NUMBER_OP = "hdecomp_number_op"       # node meta: an op on numbers alone (mark_number_ops)
HOST_SOURCE = "hdecomp_host_source"   # node meta: such a number read out of a child's output
WEIGHT_SIZE = "hdecomp_weight_size"   # node meta: a size of the weights (`self.rel_k.shape[0]`), its value
NUMBER_VALUE = "hdecomp_number_value"  # node meta: the Python int or bool a HOST_NUMBER node held in the run


def _child_output_part(n: fx.Node) -> bool:
    """`out[1]` (or `out[1][0]`) of a module call's output."""
    while n.op == "call_function" and n.target is operator.getitem and isinstance(n.args[0], fx.Node):
        n = n.args[0]
        if n.op == "call_module":
            return True
    return False


def mark_host_numbers(graph: fx.Graph, values: dict[str, Any]) -> None:
    """Mark the Python numbers the forward is handed (CoaT's `size=(H, W)`) and the int arithmetic on them
    and on sizes (`assert N == 1 + H * W`), and the numbers a child returns: host code, which stays in the
    parent (parent plumbing), never a kernel of constants. A parameter, or a number read out of a child's
    output, is written annotated (`size: tuple[int, int]`, `h: int = out[1]`), which is how the static
    anti-cheat knows it holds numbers."""
    for n in graph.nodes:
        ins = n.all_input_nodes
        if n.op == "call_function" and (n.target in INT_FUNCTIONS or n.target is torch._assert) and \
                any(HOST_NUMBER in a.meta for a in ins) and all(HOST_NUMBER in a.meta or is_shape_int(a) for a in ins):
            n.meta[HOST_NUMBER] = number_annotation(values.get(n.name)) or "object"
        elif n.op == "placeholder" or _child_output_part(n) or _number_read(n, values):
            # a number handed in, one a child returns (HF Swin's `input_dimensions` of its embeddings), or one
            # read out of a tensor of them (ERNIE's `t, h, w` of `image_grid_thw`: 0-dim integer tensors)
            ann = number_annotation(values.get(n.name))
            if ann is not None:
                n.meta[HOST_NUMBER] = ann
                if n.op != "placeholder":
                    n.meta[HOST_SOURCE] = True
        elif n.op in ("call_function", "call_method") and ins and _on_numbers(n, values) and \
                any(HOST_NUMBER in a.meta for a in ins) and all(HOST_NUMBER in a.meta or is_shape_int(a) for a in ins):
            # arithmetic on numbers alone (`h.gt(w)`, `t // 2`: every tensor in and out a 0-dim integer or bool),
            # which the run reads as such too (OpEvent.number)
            n.meta[HOST_NUMBER] = number_annotation(values.get(n.name)) or "object"
    for n in graph.nodes:
        value = values.get(n.name)
        if HOST_NUMBER in n.meta and isinstance(value, (int, bool)):
            n.meta[NUMBER_VALUE] = value


def _number_read(n: fx.Node, values: dict[str, Any]) -> bool:
    """`grid[1]`, `lengths.unbind()[0]`: a 0-dim integer or bool tensor indexed out of an integer tensor, or out
    of a tuple of them (PE audio-video's `lengths.unbind()`): no compute, a number read."""
    if n.op != "call_function" or n.target is not operator.getitem or not isinstance(n.args[0], fx.Node):
        return False
    base, value = values.get(n.args[0].name), values.get(n.name)
    parts = list(base) if isinstance(base, (tuple, list)) and not hasattr(base, "_fields") else [base]
    return isinstance(value, torch.Tensor) and is_number(value) and isinstance(n.args[1], int) and \
        all(isinstance(p, torch.Tensor) and not (p.is_floating_point() or p.is_complex()) for p in parts)


def _on_numbers(n: fx.Node, values: dict[str, Any]) -> bool:
    """Every tensor among the node's inputs and its value is a number (runtime.host_values.is_number)."""
    value = values.get(n.name)
    tensors = [values.get(a.name) for a in n.all_input_nodes]
    return isinstance(value, torch.Tensor) and is_number(value) and all(
        not isinstance(t, torch.Tensor) or is_number(t) for t in tensors)




def mark_host_values(graph: fx.Graph, values: dict[str, Any]) -> None:
    """Mark the tensors the forward makes from plain data alone (sizes, literals, the numbers it is handed), and
    the numbers, masks and indices it computes from such tensors and from numbers held in 0-dim integer tensors
    alone (runtime.host_values.host_result): a causal mask from `torch.ones(S, S).tril()`, `torch.div(64, 8)`,
    `torch.eye(n)`, `padding_total.ge(4800)`. They are constants of the shapes, host code that stays in the
    parent, as the run (hdecomp.runtime.host_values) and the static check (its HOST values) judge them; a
    random draw is none, nor a tensor something is written into (a conservative reading of the run's rule: its
    every use is a child's)."""
    written: set[fx.Node] = set()
    for n in graph.nodes:
        name = target_name(n)
        mutates = (n.op == "call_function" and n.target is operator.setitem) or (
            n.op == "call_method" and name.endswith("_") and not name.endswith("__"))
        dest = n.args[0] if mutates and n.args else None
        while isinstance(dest, fx.Node) and dest not in written:
            written.add(dest)
            dest = dest.args[0] if dest.args else None
    for n in graph.nodes:
        if n.op == "get_attr" and _holds_number(n, values):   # (written out where the parent reads it)
            n.meta[HOST_VALUE] = True
            n.meta[HOST_NUMBER_HELD] = values[n.name]
            continue
        if is_host_scalar(n) and all(HOST_VALUE in a.meta or is_shape_int(a) for a in n.all_input_nodes):
            n.meta[HOST_VALUE] = True   # a host value's number (`positions.max().item()`) and int arithmetic on it
            continue
        if n.op not in ("call_function", "call_method") or n in written or \
                not isinstance(values.get(n.name), torch.Tensor):
            continue
        name = target_name(n)
        home = getattr(n.target, "__module__", None) or ""
        if name in RANDOM_OPS or not (n.op == "call_method" or home.startswith(("torch", "_operator"))):
            continue
        ins = n.all_input_nodes
        made = not any(isinstance(values.get(a.name), torch.Tensor) for a in ins)   # (a factory)
        # (a number held in a tensor the forward read or computed from its data is no host value: the run
        # makes host values of Python numbers only, and arithmetic on numbers alone is its own rule)
        if all(HOST_VALUE in a.meta or is_shape_int(a) or _tensor_attribute(a) or
               (HOST_NUMBER in a.meta and HOST_SOURCE not in a.meta and
                not isinstance(values.get(a.name), torch.Tensor)) for a in ins) and \
                (made or host_result(name, is_compute_op(name), [values[n.name]])):
            n.meta[HOST_VALUE] = True
    if not any(n.op == "call_module" or (n.op in ("call_function", "call_method") and not is_parent_plumbing(n)
                                         and not is_host_scalar(n)) for n in graph.nodes):
        # (a forward that only computes constants of the shapes, a region the parent could not keep since a
        # library it calls computes them: LED's `create_causal_mask`; its compute is its children's)
        for n in graph.nodes:
            n.meta.pop(HOST_VALUE, None)


def mark_weight_sizes(graph: fx.Graph, values: dict[str, Any]) -> None:
    """Mark the sizes of parameters and buffers (`rel_k.shape[0]` of a relative-position table, with the int
    arithmetic on them) with their recorded values: fixed by the constructor, as the weight map checks them.
    Where several children read one (timm's HaloNet pads and reshapes by `rel_size - W`), the parent writes it
    out (_Grouping drops the mark where the size travels with the one op that reads it)."""
    for n in graph.nodes:
        if n.op in ("call_function", "call_method") and is_shape_int(n) and n.all_input_nodes and \
                all((a.op == "get_attr" and HOST_NUMBER_HELD not in a.meta) or WEIGHT_SIZE in a.meta
                    for a in n.all_input_nodes):
            value = values.get(n.name, _size_of(n, values))
            if isinstance(value, torch.Size):
                value = tuple(value)
            if isinstance(value, (int, tuple)) and not isinstance(value, bool):
                n.meta[WEIGHT_SIZE] = value


def _size_of(n: fx.Node, values: dict[str, Any]) -> Any:
    """A shape query's value where the capture kept none: `t.shape` or `t.size(...)` of a recorded tensor."""
    t = values.get(n.args[0].name) if n.args and isinstance(n.args[0], fx.Node) else None
    if not isinstance(t, torch.Tensor):
        return None
    if n.op == "call_function" and n.target is builtins.getattr and n.args[1] == "shape":
        return t.shape
    if n.op == "call_method" and n.target == "size" and not n.kwargs:
        return t.shape if len(n.args) == 1 else t.shape[n.args[1]] if isinstance(n.args[1], int) else None
    return None


def mark_number_ops(graph: fx.Graph, values: dict[str, Any]) -> None:
    """Mark the ops whose every tensor in and out is a number, a 0-dim integer or bool tensor (`sum_ == 64`,
    the padding check of a mask's count): arithmetic on numbers, which joins the op that made its number, as
    the run's OpEvent.number is no op of a fusion's."""
    for n in graph.nodes:
        if n.op not in ("call_function", "call_method") or not _holds_number(n, values):
            continue
        ins = [values.get(a.name) for a in n.all_input_nodes]
        tensors = [v for v in ins if isinstance(v, torch.Tensor)]
        if tensors and all(is_number(t) for t in tensors):
            n.meta[NUMBER_OP] = True


def _holds_number(n: fx.Node, values: dict[str, Any]) -> bool:
    """A 0-dim integer or bool tensor (EnCodec's `stride` buffer): a number (runtime.host_values.is_number)."""
    v = values.get(n.name)
    return isinstance(v, torch.Tensor) and is_number(v)


def target_name(n: fx.Node) -> str:
    """A call's method or function name (`tril`, `setitem`)."""
    return str(n.target) if n.op == "call_method" else getattr(n.target, "__name__", "")


def _tensor_attribute(n: fx.Node) -> bool:
    """`x.dtype`, `x.device`: a plain value of a tensor, as its sizes are."""
    return n.op == "call_function" and n.target is builtins.getattr and len(n.args) > 1 and \
        n.args[1] in ("dtype", "device", "layout")
