"""Readable component files from a step's plan: children, the refactored parent, inputs and self-tests.

Everything here is pure text generation over the captured graph and its recorded values; the driver
writes the files and verifies them.
"""

from __future__ import annotations

import builtins
import inspect
import math
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.fx as fx
from torch import nn

from hdecomp.decompose.capture.common import (
    AUGMENTED_OPERATORS,
    flat_values,
    held_by_object,
    held_value,
    is_held_object,
)
from hdecomp.decompose.input_code import float_draw, input_expr
from hdecomp.decompose.naming import (
    FILE_NAMES,
    class_alias,
    is_safe_local,
    keyword_like,
    safe_attr,
    safe_local,
)
from hdecomp.decompose.node_kinds import HOST_NUMBER, HOST_NUMBER_HELD, HOST_SOURCE, WEIGHT_SIZE
from hdecomp.decompose.plan import ChildPlan, node_op_name
from hdecomp.decompose.shapes import BATCH, BatchInt, dims_source, full_batch, sample
from hdecomp.decompose.source import (
    PARAMETRIZED,
    NotRepresentable,
    SourceContext,
    carried_names,
    carried_source,
    constructor_call,
    exact_tensor_literal,
    hook_registrations,
    literal,
    module_expr,
    parametrization_calls,
    qualified_name,
    tensor_literal,
)
from hdecomp.formats.keys import access_path
from hdecomp.formats.weight_map import WeightSlice
from hdecomp.runtime.component import dataclass_fields, factory_class, holding_tensors
from hdecomp.verify.weights import transferred_keys
from hdecomp.vocab.levels import LEVEL_NAMES
from hdecomp.vocab.ops import masks_then_normalises, sizes_follow_values, snake

_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.matmul: "@", operator.pow: "**", operator.mod: "%",
           operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lt: "<", operator.le: "<=",
           operator.gt: ">", operator.ge: ">=", operator.eq: "==", operator.ne: "!="}
_UNARY = {operator.neg: "-", operator.invert: "~", operator.pos: "+"}
# one spelling per arithmetic op, so that `x.mul(y)`, `torch.mul(x, y)` and `x * y` are one workload (one file)
_METHOD_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "matmul": "@"}
_FUNCTION_OPERATORS: dict[Any, str] = {torch.add: "+", torch.sub: "-", torch.mul: "*", torch.div: "/",
                                       torch.matmul: "@"}


@dataclass
class ValueInfo:
    """Shape/dtype description of one value, for headers, the tree and get_inputs()."""

    shape: list[int] | None
    dtype: str | None


def describe(value: Any) -> ValueInfo:
    if isinstance(value, torch.Tensor):
        return ValueInfo(list(value.shape), str(value.dtype).replace("torch.", ""))
    return ValueInfo(None, "int" if isinstance(value, BatchInt) else type(value).__name__)


def flat_tensors(value: Any) -> list[torch.Tensor]:
    return [t for t in flat_values(value) if isinstance(t, torch.Tensor)]


# ---- expressions ------------------------------------------------------------------------------------


def uses_batch(ctx: SourceContext, batch: int | None) -> None:
    """The file `ctx` generates reads `batch_size` (a parameter or buffer shape scales with the batch):
    its inputs block must define it even when no input or output does (inputs_block)."""
    if batch is not None:
        setattr(ctx, "_hdecomp_batch", batch)  # noqa: B010 (SourceContext declares no such field)


def fmt(a: Any, names: dict[fx.Node, str], ctx: SourceContext) -> str:
    if isinstance(a, fx.Node):
        return names[a]
    if isinstance(a, tuple):
        items = [fmt(v, names, ctx) for v in a]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(a, list):
        return "[" + ", ".join(fmt(v, names, ctx) for v in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{literal(k, ctx)}: {fmt(v, names, ctx)}" for k, v in a.items()) + "}"
    if isinstance(a, slice):
        return f"slice({fmt(a.start, names, ctx)}, {fmt(a.stop, names, ctx)}, {fmt(a.step, names, ctx)})"
    return literal(a, ctx)


def _index(idx: Any, names: dict[fx.Node, str], ctx: SourceContext) -> str:
    def one(i: Any) -> str:
        if isinstance(i, slice):
            s = "" if i.start is None else fmt(i.start, names, ctx)
            e = "" if i.stop is None else fmt(i.stop, names, ctx)
            st = "" if i.step is None else ":" + fmt(i.step, names, ctx)
            return f"{s}:{e}{st}"
        return fmt(i, names, ctx)
    if isinstance(idx, tuple):
        return ", ".join(one(i) for i in idx) if idx else "()"
    return one(idx)


def call_args(args: tuple[Any, ...], kwargs: dict[str, Any], names: dict[fx.Node, str], ctx: SourceContext) -> str:
    parts = [fmt(a, names, ctx) for a in args]
    parts += [f"{k}={fmt(v, names, ctx)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def node_expr(n: fx.Node, names: dict[fx.Node, str], ctx: SourceContext, module_attr: dict[str, str],
              attr_of_param: dict[str, str]) -> str:
    """The right-hand side for node `n` (inside a forward; child calls are `self.<attr>(...)`)."""
    if n.op == "get_attr":
        return f"self.{attr_of_param[str(n.target)]}"
    if n.op == "call_module":
        return f"self.{module_attr[str(n.target)]}({call_args(n.args, n.kwargs, names, ctx)})"
    if n.op == "call_method":
        obj, *rest = n.args
        if n.target in _METHOD_OPERATORS and len(rest) == 1 and not n.kwargs:   # `x.mul(y)` is `x * y`: one file
            return f"{_paren(obj, names, ctx)} {_METHOD_OPERATORS[str(n.target)]} {_paren(rest[0], names, ctx)}"
        return f"{fmt(obj, names, ctx)}.{n.target}({call_args(tuple(rest), n.kwargs, names, ctx)})"
    t = n.target
    if t in _FUNCTION_OPERATORS and len(n.args) == 2 and not n.kwargs and isinstance(n.args[0], fx.Node):
        return f"{_paren(n.args[0], names, ctx)} {_FUNCTION_OPERATORS[t]} {_paren(n.args[1], names, ctx)}"
    if t is operator.getitem:
        return f"{fmt(n.args[0], names, ctx)}[{_index(n.args[1], names, ctx)}]"
    if t is builtins.getattr:
        return f"{fmt(n.args[0], names, ctx)}.{n.args[1]}"
    if t in _BINARY and len(n.args) == 2 and not n.kwargs:
        return f"{_paren(n.args[0], names, ctx)} {_BINARY[t]} {_paren(n.args[1], names, ctx)}"
    if t in _UNARY and len(n.args) == 1:
        return f"{_UNARY[t]}{_paren(n.args[0], names, ctx)}"
    return f"{qualified_name(t, ctx)}({call_args(n.args, _clean_kwargs(t, n.kwargs), names, ctx)})"


def _clean_kwargs(fn: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Drop keyword arguments a person would not write: private ones and those equal to the default."""
    import inspect
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    out = {}
    for k, v in kwargs.items():
        if k.startswith("_"):
            continue
        p = params.get(k)
        if p is not None and p.default is not inspect.Parameter.empty and not isinstance(v, fx.Node):
            try:
                if type(v) is type(p.default) and v == p.default:
                    continue
            except Exception:
                pass
        out[k] = v
    return out


def _called_function_names(nodes: Any) -> set[str]:
    """Names of the user and package functions the nodes call (`shifted_window_attention`, a helper of the
    model file): the file binds them, so no local may take them (`f = f(x)` makes `f` an unbound local)."""
    out = set()
    for n in nodes:
        if n.op != "call_function":
            continue
        module = getattr(n.target, "__module__", None) or ""
        name = getattr(n.target, "__name__", None)
        if isinstance(name, str) and module.split(".")[0] not in ("torch", "_operator", "operator", "builtins",
                                                                  "math"):
            out.add(name)
    return out


def _paren(a: Any, names: dict[fx.Node, str], ctx: SourceContext) -> str:
    s = fmt(a, names, ctx)
    return f"({s})" if s.startswith("-") else s


def statement(n: fx.Node, names: dict[fx.Node, str], ctx: SourceContext, module_attr: dict[str, str],
              attr_of_param: dict[str, str], returned: bool = False) -> str:
    if n.op == "call_function" and n.target is operator.setitem:
        obj, idx, val = n.args
        text = f"{fmt(obj, names, ctx)}[{_index(idx, names, ctx)}] = {fmt(val, names, ctx)}"
        # read afterwards (capture.thread_inplace), or what a child returns: the name is the written tensor
        if (n.users or returned) and n in names:
            text += f"\n{names[n]} = {fmt(obj, names, ctx)}"
        return text
    if n.op == "call_function" and n.target in AUGMENTED_OPERATORS and len(n.args) == 2 and not n.kwargs and \
            isinstance(n.args[0], fx.Node) and n.args[0] in names:
        # `acc += x`: in place on a tensor (the caller's tensor changes), a new value for a number
        target = names[n.args[0]]
        text = f"{target} {AUGMENTED_OPERATORS[n.target]}= {fmt(n.args[1], names, ctx)}"
        return text + (f"\n{names[n]} = {target}" if n in names and names[n] != target else "")
    made = factory_class(n.target) if n.op == "call_function" else None
    if made is not None and n in names:   # a plain object made from the graph's values (object_factory)
        cls = qualified_name(made, ctx)
        state = fmt(n.args[0], names, ctx)
        return f"{names[n]} = object.__new__({cls})\n{names[n]}.__dict__.update({state})"
    if is_held_object(n):   # a constant object the forward builds: the code that builds it
        return f"{names[n]} = {literal(held_value(n), ctx)}"
    if n.meta.get(HOST_SOURCE):   # a number a child returns, said so (node_kinds.mark_host_numbers)
        return f"{names[n]}: {n.meta[HOST_NUMBER]} = {node_expr(n, names, ctx, module_attr, attr_of_param)}"
    return f"{names[n]} = {node_expr(n, names, ctx, module_attr, attr_of_param)}"


# ---- whole files -------------------------------------------------------------------------------------


@dataclass
class ComponentText:
    """A generated component file and what the tree needs to know about it."""

    body: str                         # everything but the header (the workload: used for dedup)
    header_fields: dict[str, str] = field(default_factory=dict)

    def text(self, name: str, level: int, parent: str | None) -> str:
        lines = [f'"""{name}: {LEVEL_NAMES[level]} component (level {level}), generated by `hdecomp decompose`.',
                 ""]
        if parent:
            lines.append(f"Parent: {parent}")
        for k, v in self.header_fields.items():
            lines.append(f"{k}: {v}")
        lines.append("")
        lines.append("Run `python this_file.py`: builds the model, runs get_inputs() and checks the output "
                     "shapes/dtypes (prints PASS).")
        lines.append('"""')
        return "\n".join(lines) + "\n\n" + self.body


def self_test_block(outputs: Any, kwargs_fn: bool = True, symbolic: bool = True, ops: list[str] | None = None,
                    init_fn: bool = True) -> str:
    """The self-test appended to a model file that has none. `symbolic`: the file defines the module-level
    `batch_size` the full-size outputs' batch dimensions are written with (else they are numbers). `ops`: as
    assemble's. `kwargs_fn` / `init_fn`: the file defines get_input_kwargs() / get_init_inputs() (a model
    built with no arguments may define no get_init_inputs)."""
    text = _self_test(outputs, symbolic, value_sized=sizes_follow_values(ops or []),
                      maskable=masks_then_normalises(ops or [])).lstrip("\n")
    if not kwargs_fn:
        text = text.replace("model(*get_inputs(), **get_input_kwargs())", "model(*get_inputs())")
        text = text.replace(", **_scaled(get_input_kwargs(), scale)", "")
    if not init_fn:
        text = text.replace("model = Model(*get_init_inputs())", "model = Model()")
    return text


# The self-test's walk into an object that carries tensors, as holding_tensors decides it: plain attributes
# (tensors, numbers, strings, lists/tuples/dicts of them), at least one tensor, each tensor attribute a
# parameter of its constructor. (Generated into a file only when its outputs hold such an object.)
_HOLDING_CLAUSE = '''
    if type(value).__module__ not in ("builtins", "torch") and not isinstance(value, (nn.Module, type)) and \\
            _holds_tensors(value):
        return [t for v in vars(value).values() for t in _tensors(v)]'''
_HOLDING_HELPERS = '''


def _plain(value, depth=0):
    if isinstance(value, (torch.Tensor, int, float, bool, str, type(None), torch.dtype, torch.device, torch.Size)):
        return True
    if isinstance(value, (list, tuple)) and depth < 3:
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 3:
        return all(isinstance(k, (str, int)) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _holds_tensors(value):
    import inspect
    state = getattr(value, "__dict__", None)
    if not isinstance(state, dict) or not state or not all(_plain(v) for v in state.values()) or \\
            not _tensors(list(state.values())):
        return False
    try:
        params = inspect.signature(type(value)).parameters
    except (TypeError, ValueError):
        return False
    return all(k in params for k, v in state.items() if _tensors(v))'''


_SCALED = '''


def _scaled(value, scale):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value * scale
    if isinstance(value, (list, tuple)):
        items = [_scaled(v, scale) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _scaled(v, scale) for k, v in value.items()}
    return value'''
# outputs whose size follows the input's values (nonzero, a count above a threshold): other values tell
_VARYING_BY_DRAWS = '''    varying = set()   # outputs whose size follows the input's values (nonzero, a count above a threshold):
    if any(tuple(t.shape) != e[0] for t, e in zip(tensors, EXPECTED_OUTPUTS)):   # other values tell
        for seed, scale in ((1, 1.0), (0, 10.0)):   # a second draw; the same draw, floats scaled
            torch.manual_seed(seed)
            with torch.no_grad():
                again = _tensors(model(*_scaled(get_inputs(), scale), **_scaled(get_input_kwargs(), scale)))
            varying |= {i for i, (a, b) in enumerate(zip(tensors, again)) if a.shape != b.shape}
'''


def _holds_plain_objects(value: Any, depth: int = 0) -> bool:
    """An object that carries tensors (hdecomp.runtime.component.holding_tensors) nested in `value`."""
    if isinstance(value, torch.Tensor) or depth > 8:
        return False
    if isinstance(value, (list, tuple)):
        return any(_holds_plain_objects(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds_plain_objects(v, depth + 1) for v in value.values())
    if holding_tensors(value):
        return True
    fields = dataclass_fields(value)
    return fields is not None and any(_holds_plain_objects(v, depth + 1) for v in fields.values())


def _by_fields(value: Any) -> Any:
    """`value` with each output dataclass that is a dict (a transformers ModelOutput) as a dict of its set fields
    in the order the class declares them: SwinEncoder sets `reshaped_hidden_states` before `hidden_states` when
    called alone and after them inside its model, so the order of its keys is no order a self-test can count."""
    if isinstance(value, dict):
        keys = [k for k in getattr(value, "__dataclass_fields__", {}) if k in value] or list(value)
        return {k: _by_fields(value[k]) for k in keys}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return [_by_fields(v) for v in value]
    return value


def _self_test(outputs: Any, symbolic: bool = True, value_sized: bool = False, maskable: bool = False) -> str:
    expected = []
    for t in flat_tensors(_by_fields(outputs)):
        s = sample(t)
        finite = bool(torch.isfinite(s).all()) if (s.is_floating_point() or s.is_complex()) else True
        dims = dims_source(t) if symbolic else [str(int(d)) for d in t.shape]
        expected.append(f"    (({', '.join(dims)}{',' if t.dim() == 1 else ''}), {t.dtype}, {finite}),")
    exp = "\n".join(expected)
    # an output object that carries tensors (torchvision's ImageList): the walk reads its attributes the way
    # the recording counted them (hdecomp.runtime.component.holding_tensors); only where there is one
    scaled = "" if value_sized else _SCALED
    if value_sized:   # its ops size outputs by the values (hdecomp.vocab.ops): no draw can reproduce the count
        varying = ("    # an output whose size follows the input's values (its ops: nms, nonzero) keeps only its rank\n"
                   "    varying = {i for i, (t, e) in enumerate(zip(tensors, EXPECTED_OUTPUTS)) "
                   "if tuple(t.shape) != e[0]}\n")
    else:
        varying = _VARYING_BY_DRAWS
    if maskable:   # (hdecomp.vocab.ops.masks_then_normalises)
        nan_check = ("        if finite:   # (a draw may mask a whole row the model's inputs never did: its softmax is NaN)\n"
                     "            assert not torch.isnan(tensor).all(), \"NaN everywhere in an output that was finite "
                     "in the model\"\n")
    else:
        nan_check = ("        if finite:   # (an infinity is a value a mask writes: random inputs may mask where the "
                     "recorded ones did not)\n"
                     "            assert not torch.isnan(tensor).any(), \"NaN in an output that was finite in the model\"\n")
    held = _holds_plain_objects(outputs)
    clause, helpers = (_HOLDING_CLAUSE, _HOLDING_HELPERS) if held else ("", "")
    return f'''
EXPECTED_OUTPUTS = [  # (shape, dtype, all finite) of each output tensor, recorded from the original model
{exp}
]


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):   # (a ModelOutput by its fields: the order its keys were set in varies)
        keys = [k for k in getattr(value, "__dataclass_fields__", {{}}) if k in value] or list(value)
        return [t for k in keys for t in _tensors(value[k])]
    if hasattr(value, "__dataclass_fields__"):
        return [t for k in value.__dataclass_fields__ for t in _tensors(getattr(value, k))]{clause}
    return []{helpers}{scaled}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(*get_init_inputs())
    model.eval()
    with torch.no_grad():
        output = model(*get_inputs(), **get_input_kwargs())
    tensors = _tensors(output)
    assert len(tensors) == len(EXPECTED_OUTPUTS), f"expected {{len(EXPECTED_OUTPUTS)}} output tensors, got {{len(tensors)}}"
{varying}    for i, (tensor, (shape, dtype, finite)) in enumerate(zip(tensors, EXPECTED_OUTPUTS)):
        if i in varying:
            assert tensor.dim() == len(shape), f"output rank {{tensor.dim()}} != {{len(shape)}}"
        else:
            assert tuple(tensor.shape) == shape, f"output shape {{tuple(tensor.shape)}} != {{shape}}"
        assert tensor.dtype == dtype, f"output dtype {{tensor.dtype}} != {{dtype}}"
{nan_check}    print("PASS")
'''


def inputs_block(args: list[Any], kwargs: dict[str, Any], ctx: SourceContext, outputs: Any = None,
                  batch_line: bool = True, init_inputs: str = "[]", recorded_ints: bool = True) -> str:
    """get_inputs() / get_input_kwargs() / get_init_inputs() (returning `init_inputs`); with full-size
    stand-ins among the inputs (or `outputs`), preceded by the module-level `batch_size` they are written
    with (unless `batch_line` is False: the file defines it already). `recorded_ints`: integer inputs with
    their recorded values (a child's); a refactored parent's are the original's, drawn by its own file."""
    arg_lines = "".join(f"        {input_expr(a, ctx, recorded_ints)},\n" for a in args)
    kw_lines = "".join(f"        {k!r}: {input_expr(v, ctx, recorded_ints)},\n" for k, v in kwargs.items())
    kw_body = f"{{\n{kw_lines}    }}" if kw_lines else "{}"
    batch = full_batch([args, kwargs, outputs])
    if batch is None:   # only a parameter's or buffer's shape scales with the batch
        batch = getattr(ctx, "_hdecomp_batch", None)
    head = ""
    if batch is not None and batch_line:
        head = (f"{BATCH} = {batch}  # the original batch; `--batch-limit N` lowers it "
                "(verify-step, test, pipeline, compose)\n\n\n")
    return (f"{head}def get_inputs():\n    return [\n{arg_lines}    ]\n\n\n"
            f"def get_input_kwargs():\n    return {kw_body}\n\n\n"
            f"def get_init_inputs():\n    return {init_inputs}\n")


def assemble(class_src: str, args: list[Any], kwargs: dict[str, Any], outputs: Any, ctx: SourceContext,
             extra_imports: list[str] | None = None, ops: list[str] | None = None) -> str:
    """Imports + carried user definitions + the class + inputs + self-test (`ops`: the component's, where
    one sizes its output by the values, hdecomp.vocab.ops, the self-test checks that output's rank)."""
    # the inputs first: what they are built with (a user's class of an object they hold) is carried too
    inputs = inputs_block(args, kwargs, ctx, outputs)
    user_imports, defs = carried_source(ctx)
    # carried-over definitions may read the model file's own `batch_size` (and then define it)
    own_batch = re.search(rf"^{BATCH}\s*[:=]", defs, re.MULTILINE) is not None
    if own_batch:
        inputs = inputs_block(args, kwargs, ctx, outputs, batch_line=False)
    imports = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    if ctx.needs_math:
        imports.insert(0, "import math")
    imports += list(extra_imports or []) + ctx.import_lines()
    for line in user_imports:
        if line not in imports and line.strip() not in ("import torch", "import torch.nn as nn",
                                                         "import torch.nn.functional as F",
                                                         "from torch import nn"):
            imports.append(line)
    parts = ["\n".join(imports)]
    if defs:
        parts.append("# ---- carried over from the model file ----\n\n" + defs)
    parts.append(class_src)
    parts.append(inputs)
    return "\n\n\n".join(p.rstrip() for p in parts) + "\n\n" + _self_test(
        outputs, value_sized=sizes_follow_values(ops or []), maskable=masks_then_normalises(ops or []))


def module_child_class(module: nn.Module, ctx: SourceContext, doc: str, wrap: bool = False,
                       positional: list[str] | None = None, passes: list[str] | None = None,
                       built: dict[int | str, str] | None = None) -> tuple[str, str]:
    """`class Model(<Cls>)` with the recorded constructor arguments baked in; `wrap`: a Model holding the
    module as `self.layers` (for torch.nn containers), whose forward takes `positional` by the module's
    own names (`query, key, value`) where given, and passes `passes` on (`query, query, query`: a value the
    parent passes in several places is one input). `built`: arguments (by position in `positional`, or
    keyword) the forward builds itself from code (a settings object the parent made) instead of taking
    them. Returns (class source, expr)."""
    expr = module_expr(module, ctx)
    if wrap:
        params = ", ".join([*(positional or ["*args"]), "**kwargs"])
        call = ", ".join([*(passes or positional or ["*args"]), "**kwargs"])
        src = (f"class Model(nn.Module):\n    \"\"\"{doc}\"\"\"\n\n    def __init__(self):\n"
               f"        super().__init__()\n        self.layers = {expr}\n\n"
               f"    def forward(self, {params}):\n        return self.layers({call})\n")
        return src, expr
    # the call alone; the changes made after it are statements of the constructor below
    plain, patches = constructor_call(module, ctx)
    cls_name, _, rest = plain.partition("(")
    args = rest[:-1]
    # a parametrized module (weight_norm): the plain class, parametrized in its own constructor
    extra = "".join(f"        {call.replace(PARAMETRIZED, 'self')}\n" for call in parametrization_calls(module, ctx))
    extra += "".join(f"        {line}\n" for line in hook_registrations(module, "self", ctx))
    extra += "".join(f"        {p.statement('self')}\n" for p in patches)
    extra += initialise_text(module)
    src = (f"class Model({cls_name}):\n    \"\"\"{doc}\"\"\"\n\n{_library_flags(module, cls_name)}    def __init__(self):\n"
           f"        super().__init__({args})\n{extra}")
    if built:
        names = positional or []
        taken = [n for i, n in enumerate(names) if i not in built]
        # by name from the first built one on: a call passing it by position or by keyword is one workload
        first = min((i for i in built if isinstance(i, int)), default=len(names))
        passed = names[:first] + [f"{n}={built.get(i, n)}" for i, n in enumerate(names) if i >= first] + \
            [f"{k}={v}" for k, v in built.items() if isinstance(k, str)]
        src += (f"\n    def forward(self, {', '.join([*taken, '**kwargs'])}):\n"
                f"        return super().forward({', '.join([*passed, '**kwargs'])})\n")
    return src, expr


_CAN_SET = re.compile(r"^_can_set_\w+_implementation$")


def _library_flags(module: nn.Module, cls_name: str) -> str:
    """Class attributes a subclass of `module`'s class needs to build as the class does: transformers decides
    whether a model may be told its attention or experts implementation by reading the source of the module
    its class is defined in (`_can_set_experts_implementation`), which for `class Model(ZayaModel)` is the
    generated file; the answer for the model's own class is cached on it, which the subclass reads."""
    names = sorted(n for n in dir(type(module)) if _CAN_SET.match(n) and callable(getattr(type(module), n, None)))
    return "".join(f"    {n}_cached_value = {cls_name}.{n}()\n" for n in names) + ("\n" if names else "")


def initialise_text(module: nn.Module, prefix: str = "") -> str:
    """Lines that fill the parameters `module`'s constructor leaves as torch.empty memory (the model's
    post_init fills them: transformers' MoE experts and routers), drawn like the model's own values;
    `prefix`: where `module` sits in the class the lines go into (`mlp.` for `self.mlp`)."""
    from hdecomp.decompose.capture import uninitialised_parameters
    names = uninitialised_parameters(module)
    if not names:
        return ""
    lines = [f"        # {type(module).__name__}'s constructor leaves {', '.join(names)} uninitialised (torch.empty or a"
             " legacy torch.FloatTensor(sizes); the model's own post_init fills them): drawn like the model's values"]
    for name in names:
        p = module.get_parameter(name)
        step = max(1, p.numel() // 100_000)   # a strided sample of a multi-GB expert tensor
        std = float(p.detach().flatten()[::step].float().std()) if p.numel() > 1 and p.is_floating_point() else 0.0
        if not math.isfinite(std) or std == 0.0:
            lines.append(f"        nn.init.zeros_(self.get_parameter({prefix + name!r}))")
        else:
            # (two significant digits: a drawing scale, not a value; the instances of one layer class draw
            # alike and share a file, where four digits told their recorded spreads apart)
            lines.append(f"        nn.init.normal_(self.get_parameter({prefix + name!r}), std={std:.2g})")
    return "\n".join(lines) + "\n"


def group_child_class(child: ChildPlan, root: nn.Module, values: dict[str, Any], ctx: SourceContext,
                      doc: str, rebuild_check: Any = None, input_names: list[str] | None = None,
                      value_names: dict[fx.Node, str] | None = None, params_out: list[str] | None = None,
                      state_out: list[str] | None = None, canonical_state: bool = False,
                      ) -> tuple[str, dict[str, str | WeightSlice]]:
    """`class Model(nn.Module)` computing the group's members. Returns (source, {parent key: child key, or
    the slice of a packed parent tensor that a child weight holds}).
    `input_names`: the forward's parameter names (the model's own, for a model that is one kernel).
    `value_names`: readable names of the parent graph's values (value_names.py), which the forward's
    parameters and locals take (`q, k, v`); without them, canonical ones (x, x0, x1, ..., then op names),
    which the driver dedups workloads by. `params_out` receives the forward's parameter names, `state_out`
    the attributes of the parent's submodules, parameters and buffers it holds, in order. `canonical_state`: those
    attributes numbered (`w0`, `w1`; submodules `m0`, `m1`) instead of named like the parent's, for the
    workload key (two RMSNorm kernels of weights `n1` and `n2` are one workload)."""
    module_attr: dict[str, str] = {}
    attr_of_param: dict[str, str] = {}
    piece_attr: dict[fx.Node, str] = {}
    used: set[str] = set()
    weight_map: dict[str, str | WeightSlice] = {}
    init_lines: list[str] = []
    state = root.state_dict(keep_vars=True)

    def unique(base: str) -> str:
        return safe_attr(base, used)

    for m in child.members:
        if m.op == "call_module" and str(m.target) not in module_attr:
            target = str(m.target)
            sub = root.get_submodule(target)
            if len(child.core) == 1:   # a kernel: named after its op, so equal workloads give equal files
                attr = unique(snake(type(sub).__name__))
            elif canonical_state:   # numbered for the workload key, as the tensors are (DeBERTa's pos_key_proj
                attr = unique(f"m{len(module_attr)}")   # and pos_query_proj fusions are one workload)
            else:
                last = target.split(".")[-1]
                attr = unique(last if not last.isdigit() else target.replace(".", "_"))
            module_attr[target] = attr
            if state_out is not None:   # a later use of the same workload maps its submodules onto these
                state_out.append(attr)
            sub = root.get_submodule(target)
            expr = module_expr(sub, ctx)
            if rebuild_check is not None:
                problem = rebuild_check(expr, sub, ctx)
                if problem:
                    raise NotRepresentable(problem)
            init_lines.append(f"        self.{attr} = {expr}")
            init_lines.extend(f"        {line}" for line in hook_registrations(sub, f"self.{attr}", ctx))
            for key in transferred_keys(sub):
                for alias in _aliases(root, sub):
                    weight_map[f"{alias}.{key}"] = f"{attr}.{key}"
        elif m in child.pieces:   # a part of a packed parent tensor: a weight of its own here (packed.py)
            piece = child.pieces[m]
            attr = unique(piece.key.replace(".", "_"))
            piece_attr[m] = attr
            init_lines.append(_state_init(root, piece.key, attr, values[m.name], ctx))
            weight_map[piece.key] = replace(piece, key=attr)
        elif m.op == "get_attr" and str(m.target) not in attr_of_param:  # a buffer read twice: one tensor
            target = str(m.target)
            # a constant kernel (plan.py) names its tensor like the original's last name: one file per workload
            attr = unique(f"w{len(attr_of_param)}" if canonical_state else
                          target.split(".")[-1] if child.constant else target.replace(".", "_"))
            attr_of_param[target] = attr
            if state_out is not None:
                state_out.append(attr)
            t = values[m.name]
            init_lines.append(_state_init(root, target, attr, t, ctx))
            if not held_by_object(root, target) and (target in state or target in dict(
                    root.named_buffers(remove_duplicate=False)) or not (t.numel() <= 16 and t.dim() <= 1)):
                # a non-persistent buffer too, and a big plain tensor attribute: verification transfers it
                weight_map[target] = attr
    # Canonical variable names (x, x0.., then op names) so identical workloads give identical files.
    names: dict[fx.Node, str] = {}
    taken: set[str] = set(module_attr.values()) | set(attr_of_param.values()) | set(piece_attr.values())

    taken |= set(ctx.imports) | _called_function_names(child.members)
    ctx.locals = taken   # the names allocated below: imports made while writing the body avoid them

    def fresh(base: str) -> str:
        return safe_local(snake(base), taken)

    for i, a in enumerate(child.inputs):
        own = input_names[i] if input_names is not None and i < len(input_names) else None
        if own is not None and is_safe_local(own, taken):   # never shadow the generated file's names
            taken.add(own)
            names[a] = own
        elif value_names is not None and a in value_names:
            names[a] = fresh(value_names[a])
        else:
            names[a] = fresh("x" if len(child.inputs) == 1 else f"x{i}")
    for m in child.members:
        if value_names is not None and m in value_names and m.op != "get_attr":
            names[m] = fresh(value_names[m])
        elif m.op == "get_attr":
            target = str(m.target)
            names[m] = fresh(attr_of_param.get(target, target) if canonical_state else target.split(".")[-1])
        else:
            names[m] = fresh(node_op_name(m, root))
    if params_out is not None:
        params_out[:] = [names[a] for a in child.inputs]
    params = ", ".join(names[a] for a in child.inputs)
    body = [statement(m, names, ctx, module_attr, attr_of_param, returned=m in child.outputs) for m in child.members
            if m.op != "get_attr" and m not in piece_attr]
    getattrs = [f"        {names[m]} = self.{piece_attr[m] if m in piece_attr else attr_of_param[str(m.target)]}"
                for m in child.members if m.op == "get_attr" or m in piece_attr]
    outs = [names[o] for o in child.outputs]
    ret = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ("," if len(outs) == 1 else "") + ")"
    if not outs:
        ret = "None"
    lines = ["class Model(nn.Module):", f'    """{doc}"""', "", "    def __init__(self):",
             "        super().__init__()"]
    lines += init_lines
    lines += ["", f"    def forward(self, {params}):" if params else "    def forward(self):"]
    lines += getattrs
    lines += [f"        {line}" for b in body for line in b.split("\n")]
    lines.append(f"        return {ret}")
    return "\n".join(lines) + "\n", weight_map


def _aliases(root: nn.Module, sub: nn.Module) -> list[str]:
    return sorted(q for q, m in root.named_modules(remove_duplicate=False) if m is sub and q)


def _state_init(root: nn.Module, target: str, attr: str, t: torch.Tensor, ctx: SourceContext) -> str:
    if held_by_object(root, target):
        # a tensor a plain object computed itself (Chameleon's code-to-token table): its values, a plain
        # attribute as in the original (no weight transfer or re-randomisation reaches it on either side)
        return f"        self.{attr} = {exact_tensor_literal(t)}  # {target}, computed by a plain object"
    dims = dims_source(t)  # a buffer sized by the batch in __init__ keeps `batch_size` symbolic
    if BATCH in dims or any(d.startswith(f"{BATCH} ") for d in dims):
        uses_batch(ctx, full_batch(t))
    shape = ", ".join(dims)
    shape_t = f"({shape},)" if len(dims) == 1 else f"({shape})"
    dt = "" if t.dtype == torch.float32 else f", dtype={t.dtype}"
    t = sample(t).detach()
    # by name: the recorded value is a detached copy, never the Parameter object itself
    param = dict(root.named_parameters(remove_duplicate=False)).get(target)
    is_param = param is not None
    if t.numel() and t.is_floating_point() and bool((t == t.reshape(-1)[0]).all()):
        init = f"torch.full({shape_t}, {literal(float(t.reshape(-1)[0]), ctx)}{dt})"
    elif t.is_floating_point():
        init = float_draw(t, shape_t, dt)
    elif t.numel() <= 16 and t.dim() <= 1:
        init = tensor_literal(t)
    else:
        init = f"torch.zeros({shape_t}{dt})"
    buffers = dict(root.named_buffers(remove_duplicate=False))
    if is_param:
        assert param is not None
        frozen = "" if param.requires_grad else ", requires_grad=False"
        return f"        self.{attr} = nn.Parameter({init}{frozen})"
    persistent = target in root.state_dict()
    if target not in buffers and t.numel() <= 16 and t.dim() <= 1:
        # a small plain tensor attribute of the original (neither a parameter nor a buffer): no weight
        # transfer and no re-randomisation reaches it on either side, so the child holds the same value.
        return f"        self.{attr} = {tensor_literal(t)}  # a plain tensor attribute in the original"
    if target not in buffers:
        # a big one (VideoMAE's sinusoidal position table; an RNN state that forward overwrites): a
        # non-persistent buffer whose values the weight map transfers (hdecomp.verify.weights.named_tensors)
        return (f"        # a plain tensor attribute of the original ({target}): its values come from the parent\n"
                f"        self.register_buffer({attr!r}, {init}, persistent=False)")
    if not persistent and t.numel() <= 16 and t.dim() <= 1:
        init = tensor_literal(t)
    elif not persistent and target in buffers:
        # A table the parent computed in its constructor (RoPE cos/sin, a sinusoidal position table): its
        # values travel like a weight (weight_map.json; verify and compose transfer non-persistent buffers
        # too); standalone, the file runs on a stand-in of the same shape and dtype.
        return (f"        # non-persistent buffer of the original ({target}): its values come from the parent\n"
                f"        self.register_buffer({attr!r}, {init}, persistent=False)")
    return f"        self.register_buffer({attr!r}, {init}{'' if persistent else ', persistent=False'})"


def refactored_source(graph: fx.Graph, children: list[ChildPlan], child_files: dict[str, str],
                      ctx: SourceContext, doc: str, ties: list[tuple[str, str]] | None = None,
                      value_names: dict[fx.Node, str] | None = None, takes_kwargs: bool = False) -> str:
    """The parent rewritten to call its children: `class RefactoredModel`, forward = calls + plumbing.
    `value_names`: readable names of the graph's values (value_names.py) for its locals; `takes_kwargs`: the
    original's forward takes `**kwargs`, which the refactored one takes too (and leaves unread: the graph is
    the recorded call's, and another call of the module in the model may pass more, Step-3.7-Flash's vision
    layers handed `output_hidden_states=False` by the crops' call)."""
    nodes = list(graph.nodes)
    group_at: dict[fx.Node, ChildPlan] = {}
    member_of: dict[fx.Node, ChildPlan] = {}
    module_attr: dict[str, str] = {}
    for c in children:
        if c.kind == "group":
            group_at[c.at or max(c.members, key=nodes.index)] = c
            for m in c.members:
                member_of[m] = c
        else:
            module_attr[str(c.target)] = c.attr
    taken: set[str] = set(ctx.imports) | _called_function_names(nodes) | carried_names(ctx)
    ctx.locals = taken   # imports made while writing the body avoid the locals
    aliases: dict[str, str] = {}
    by_stem: dict[str, str] = {}   # (one file's Model, one name: children of the same file share it)
    imports: list[str] = []
    for c in children:
        stem = child_files[c.attr]
        if stem not in by_stem:
            by_stem[stem] = class_alias(stem, taken)
            taken.add(by_stem[stem])
        alias = by_stem[stem]
        aliases[c.attr] = alias
        line = f"from children.{stem} import Model as {alias}"
        if line not in imports:
            imports.append(line)
    init = [f"        self.{c.attr} = {aliases[c.attr]}()" for c in children]
    for dst, src in ties or []:
        init.append(f"        self{access_path(dst)} = self{access_path(src)}  # tied (one tensor) in the original")
    names: dict[fx.Node, str] = {}
    # builtins the forward calls (`len(x)`): a parameter named like one would shadow the call
    called = {getattr(n.target, "__name__", "") for n in nodes if n.op == "call_function" and
              getattr(builtins, getattr(n.target, "__name__", ""), None) is n.target}
    for n in nodes:
        # forward's parameters keep their names where they can (callers may pass them by keyword); fx
        # names a `**kwargs` parameter `_kwargs` (its target keeps the stars)
        own = str(n.target).lstrip("*") if n.op == "placeholder" else n.name
        keep = n.op == "placeholder" and own.isidentifier() and not keyword_like(own) and \
            own not in FILE_NAMES and own not in taken and own not in called
        if keep:
            names[n] = own
        else:
            base = value_names.get(n, n.name) if value_names is not None and n.op != "placeholder" else n.name
            names[n] = safe_local(base, taken)
        taken.add(names[n])
    placeholders = [n for n in nodes if n.op == "placeholder"]
    params = []
    for p in placeholders:
        stars = str(p.target)[:len(str(p.target)) - len(str(p.target).lstrip("*"))]   # `*args`, `**kwargs`
        if p.args:
            params.append(f"{names[p]}={fmt(p.args[0], names, ctx)}")
        elif p.meta.get(HOST_NUMBER) and not stars:   # numbers handed in, said so (node_kinds.mark_host_numbers)
            params.append(f"{names[p]}: {p.meta[HOST_NUMBER]}")
        else:
            params.append(stars + names[p])
    if takes_kwargs and not any(p.startswith("**") for p in params):
        params.append("**" + safe_local("kwargs", taken))
    # what only computed the parts of a packed tensor (its chunk): the children hold the parts
    pieces = {m for c in children for m in c.pieces}
    cut: set[fx.Node] = set()
    for n in reversed(nodes):
        if n not in member_of and n.users and all(u in cut or u in pieces for u in n.users):
            cut.add(n)
    # a submodule child called with one value in several places takes it once (driver.py)
    keep_args = {str(c.target): c.arg_keep for c in children if c.kind == "module" and c.arg_keep is not None}
    body: list[str] = []
    for n in nodes:
        if n in cut:
            continue
        if n.op == "call_module" and str(n.target) in keep_args:
            kept = tuple(n.args[i] for i in keep_args[str(n.target)])
            body.append(f"{names[n]} = self.{module_attr[str(n.target)]}({call_args(kept, n.kwargs, names, ctx)})")
            continue
        if is_held_object(n) and n not in member_of:   # built by the children that take it (step_writer)
            if n.users:
                raise NotRepresentable(f"the {type(held_value(n)).__name__} object the forward builds is used "
                                       f"where it cannot be built from code ({', '.join(u.name for u in n.users)})")
            continue
        if WEIGHT_SIZE in n.meta and n not in member_of:   # a size of the weights, fixed by the constructor
            body.append(f"{names[n]} = {literal(n.meta[WEIGHT_SIZE], ctx)}")
            continue
        if n.op == "get_attr" and HOST_NUMBER_HELD in n.meta and any(u not in member_of for u in n.users):
            # a number the original holds in a 0-dim tensor, read by the parent's host code: written out
            body.append(f"{names[n]} = {literal(n.meta[HOST_NUMBER_HELD], ctx)}")
            continue
        if n.op == "placeholder" or (n.op == "get_attr" and n not in group_at):   # not a constant kernel's
            continue
        if n.op == "output":
            body.append(f"return {fmt(n.args[0], names, ctx)}")
            continue
        if n in member_of:
            g = group_at.get(n)
            if g is None:
                continue
            args = ", ".join(names[a] for a in g.inputs)
            outs = [names[o] for o in g.outputs]
            if not outs:
                body.append(f"self.{g.attr}({args})")
            elif len(outs) == 1:
                body.append(f"{outs[0]} = self.{g.attr}({args})")
            else:
                body.append(f"{', '.join(outs)} = self.{g.attr}({args})")
            continue
        body.append(statement(n, names, ctx, module_attr, {}))
    lines = ["import torch", "import torch.nn as nn", *(["import torch.nn.functional as F"] if ctx.needs_functional
                                                         else []), ""]
    if ctx.needs_math:
        lines.insert(0, "import math")
    lines += ctx.import_lines()
    lines += imports
    lines += ["", "", "class RefactoredModel(nn.Module):", f'    """{doc}"""', "",
              "    def __init__(self, *init_inputs, **init_kwargs):",
              "        # Built like the original (its get_init_inputs(), or a parent's own constructor arguments:",
              "        # a layer sharing this file); the children have the recorded sizes.",
              "        super().__init__()"]
    lines += init
    lines += ["", f"    def forward(self, {', '.join(params)}):" if params else "    def forward(self):"]
    lines += [f"        {line}" for b in body for line in b.split("\n")]
    return "\n".join(lines) + "\n"


def takes_kwargs(module: nn.Module) -> bool:
    """The module's forward takes `**kwargs`."""
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in params)
