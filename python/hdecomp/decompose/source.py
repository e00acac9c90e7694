"""Python source for values, module constructors and carried-over user classes.

`literal(value)` writes a constant the way a person would (`float("-inf")`, `torch.float32`, `(3, 3)`);
`module_expr(module, ctx)` rebuilds a module from its recorded constructor arguments
(`nn.Conv2d(3, 64, kernel_size=3, padding=1)`); `carried_source(ctx)` collects the user classes,
functions and constants those expressions need from the component's own file.
"""

from __future__ import annotations

import ast
import builtins
import collections
import dataclasses
import enum
import functools
import inspect
import math
import operator
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from hdecomp.decompose.capture import init_call
from hdecomp.decompose.hf_configs import CONFIG_SKIP, config_dict, implementations, is_hf_config
from hdecomp.errors import DecomposeError
from hdecomp.runtime.host_values import is_number


class NotRepresentable(DecomposeError):
    """A value or module that cannot be written as source (the message says which)."""


@dataclass
class SourceContext:
    """What a generated file needs besides torch: user definitions from the component's file."""

    user_file: Path | None
    user_names: set[str] = field(default_factory=set)   # module-level names of user_file to carry over
    needs_math: bool = False
    needs_functional: bool = False   # the code names `F.<function>` (a file that does not always import F)
    # names bound by imports from installed packages (a transformers block, its config): name -> import line
    imports: dict[str, str] = field(default_factory=dict)
    # the local variable names of the code being written: an import never takes one (a local named after
    # its op, `shifted_window_attention = shifted_window_attention(...)`, would shadow the function)
    locals: set[str] = field(default_factory=set)

    def need(self, name: str) -> None:
        self.user_names.add(name)

    def import_name(self, module: str, name: str) -> str:
        """The name generated code uses for `module.name`, imported at the top of the file (aliased when the
        plain name is taken by another import, a user definition or a name generated files define)."""
        line = f"from {module} import {name}"
        bound = name
        n = 1
        while bound in _RESERVED_NAMES or bound in self.user_names or bound in self.locals or \
                (bound in self.imports and self.imports[bound] != (line if bound == name else f"{line} as {bound}")):
            n += 1
            bound = f"{name}_{n}"
        self.imports[bound] = line if bound == name else f"{line} as {bound}"
        return bound

    def import_lines(self) -> list[str]:
        return sorted(set(self.imports.values()))


# Names every generated file binds itself: an import must never shadow them.
_RESERVED_NAMES = {"Model", "RefactoredModel", "torch", "nn", "F", "math", "get_inputs", "get_init_inputs",
                   "get_input_kwargs", "batch_size", "EXPECTED_OUTPUTS"}


# numpy arrays up to this many elements are written as literals (a plan of block indices, a lookup table)
ARRAY_LITERAL_LIMIT = 1 << 14


def literal(value: Any, ctx: SourceContext) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if type(value).__module__ == "numpy" and getattr(value, "ndim", 0) > 0:   # an array the forward built
        # (BigBird's random-block plan): numpy's own array of the values, same dtype, when small
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        if kind not in ("b", "i", "u", "f") or value.size > ARRAY_LITERAL_LIMIT:
            raise NotRepresentable(f"a numpy array of shape {tuple(value.shape)} ({value.dtype})")
        array, dtype = ctx.import_name("numpy", "array"), ctx.import_name("numpy", str(value.dtype))
        return f"{array}({value.tolist()!r}, dtype={dtype})"
    if type(value).__module__ == "numpy" and hasattr(value, "item"):   # np.float64(8.0), np.int64(3)
        value = value.item()
        if not isinstance(value, (bool, int, float, complex)):
            raise NotRepresentable(f"a numpy {type(value).__name__} value")
        return literal(value, ctx)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(float(value))
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, torch.Size):
        return literal(tuple(value), ctx)
    if isinstance(value, torch.Tensor) and is_number(value):   # a number kept in a tensor: `torch.tensor(7)`
        dtype = "" if value.dtype in (torch.int64, torch.bool) else f", dtype={value.dtype}"
        return f"torch.tensor({value.item()!r}{dtype})"
    if isinstance(value, tuple):
        items = [literal(v, ctx) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        if value and all(isinstance(v, torch.Tensor) and v.numel() <= _LIST_TENSOR_LIMIT for v in value):
            # a list of small tensors a module keeps (torchvision's AnchorGenerator.cell_anchors): each with
            # its exact values
            return "[" + ", ".join(exact_tensor_literal(v) for v in value) + "]"
        return "[" + ", ".join(literal(v, ctx) for v in value) + "]"
    if isinstance(value, dict) and type(value) not in (dict, collections.OrderedDict) and \
            not dataclasses.is_dataclass(value):
        return dict_subclass_literal(value, ctx)
    if isinstance(value, collections.OrderedDict):   # nn.Sequential(OrderedDict(...)): a dict would be a module
        pairs = ", ".join(f"({literal(k, ctx)}, {literal(v, ctx)})" for k, v in value.items())
        return f"{ctx.import_name('collections', 'OrderedDict')}([{pairs}])"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k, ctx)}: {literal(v, ctx)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({literal(value.start, ctx)}, {literal(value.stop, ctx)}, {literal(value.step, ctx)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, (torch.memory_format, torch.layout)):
        return str(value)
    if isinstance(value, complex):
        return repr(value)
    if isinstance(value, nn.Module):
        return module_expr(value, ctx)
    if isinstance(value, torch.Tensor):
        if value.numel() <= 16 and value.dim() <= 1:
            return tensor_literal(value)
        raise NotRepresentable(f"tensor argument of shape {tuple(value.shape)}")
    if isinstance(value, functools.partial):   # a layer factory (`partial(nn.BatchNorm2d, eps=0.001)`)
        parts = [qualified_name(value.func, ctx)] + [literal(a, ctx) for a in value.args] + \
            [f"{k}={literal(v, ctx)}" for k, v in value.keywords.items()]
        return f"{ctx.import_name('functools', 'partial')}({', '.join(parts)})"
    if isinstance(value, enum.Enum):
        return f"{qualified_name(type(value), ctx)}.{value.name}"
    if isinstance(value, type):
        return qualified_name(value, ctx)
    if callable(value) and getattr(value, "__name__", None) is not None:
        made = factory_call(value, ctx)
        return made if made is not None else qualified_name(value, ctx)
    # (a callable instance, diffusers' attention processors, is an object like any other: built below)
    config = config_literal(value, ctx)
    if config is not None:
        return config
    if init_call(value) is not None:   # an object built with the model: its class with the recorded arguments
        return constructor_expr(value, ctx)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls_name = qualified_name(type(value), ctx)
        args = ", ".join(f"{f.name}={literal(getattr(value, f.name), ctx)}"
                         for f in dataclasses.fields(value) if f.init)
        return f"{cls_name}({args})"
    rebuilt = plain_object_literal(value, ctx)
    if rebuilt is not None:
        return rebuilt
    raise NotRepresentable(f"a {type(value).__name__} value")


def dict_subclass_literal(value: dict[Any, Any], ctx: SourceContext) -> str:
    """A dict of a subclass (diffusers' FrozenDict `config`, which reads its keys as attributes:
    `self.config.patch_size`) as its class called on its items, `FrozenDict([('patch_size', None), ...])`,
    where that call gives an equal object (the same items in the same order, the same attributes): a plain
    dict or OrderedDict in its place would lose what the subclass adds."""
    cls = type(value)
    pairs = list(value.items())
    try:
        rebuilt = cls(pairs)
        same = type(rebuilt) is cls and list(rebuilt.items()) == pairs and vars(rebuilt) == vars(value)
    except Exception:   # a constructor that takes something else, attributes without ==
        same = False
    if not same:
        raise NotRepresentable(f"a {cls.__name__} value (a dict its class does not rebuild from its items)")
    items = ", ".join(f"({literal(k, ctx)}, {literal(v, ctx)})" for k, v in pairs)
    return f"{qualified_name(cls, ctx)}([{items}])"


def plain_object_literal(value: Any, ctx: SourceContext) -> str | None:
    """An object of a plain class that keeps its constructor's arguments as attributes of the same names
    (`self.scale = scale`), built in a forward (no recorded constructor call): `Settings(scale=2.0)`, where
    building it so gives an object with the same attributes. None otherwise."""
    from hdecomp.decompose.capture.common import is_constant_object
    if not is_constant_object(value, callables=True):   # (a processor object: a class with __call__)
        return None
    cls, state = type(value), vars(value)
    try:
        params = [p for p in inspect.signature(cls).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in inspect.signature(cls).parameters.values()):
            return None
        if any(p.name not in state and p.default is p.empty for p in params):
            return None
        given = {p.name: state[p.name] for p in params if p.name in state}
        if vars(cls(**given)) != state:
            return None
    except Exception:   # no signature, a constructor that needs something else, attributes without ==
        return None
    args = ", ".join(f"{k}={literal(v, ctx)}" for k, v in given.items())
    return f"{qualified_name(cls, ctx)}({args})"


_PREFERRED_HOMES: list[tuple[str, Any]] = [
    ("nn", nn), ("F", F), ("torch", torch), ("torch.special", torch.special), ("torch.linalg", torch.linalg),
    ("torch.fft", torch.fft), ("operator", operator), ("math", math),
]


def factory_call(fn: Any, ctx: SourceContext) -> str | None:
    """A function a module-level factory made and returned (timm's `act_with_gamma('gelu', gamma=1.7)`
    returns its local `_create`, which no import reaches) as the factory's call with the values it closed
    over (`act_with_gamma(act_type='gelu', gamma=1.7)`), where each of them is a parameter of the factory and
    that call makes the same code closing over equal values; else None."""
    if not isinstance(fn, types.FunctionType) or not fn.__closure__:
        return None
    outer, sep, inner = fn.__qualname__.partition(".<locals>.")
    if not sep or "." in outer or ".<locals>." in inner:
        return None
    factory = getattr(sys.modules.get(fn.__module__), outer, None)
    if not isinstance(factory, types.FunctionType):
        return None
    try:
        params = inspect.signature(factory).parameters
        closed = {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, fn.__closure__,
                                                                 strict=True)}
    except (TypeError, ValueError):   # (an empty cell, a signature it cannot tell)
        return None
    if not closed or any(params.get(n) is None or params[n].kind in (inspect.Parameter.VAR_POSITIONAL,
                                                                    inspect.Parameter.VAR_KEYWORD,
                                                                    inspect.Parameter.POSITIONAL_ONLY)
                         for n in closed):
        return None
    try:
        again = factory(**closed)
        same = isinstance(again, types.FunctionType) and again.__code__ is fn.__code__ and again.__closure__ and \
            all(c.cell_contents == closed[n] for n, c in zip(again.__code__.co_freevars, again.__closure__,
                                                              strict=True))
    except Exception:   # the user's factory: it does not make this function again
        return None
    if not same:
        return None
    args = ", ".join(f"{n}={literal(v, ctx)}" for n, v in closed.items())
    return f"{qualified_name(factory, ctx)}({args})"


def qualified_name(obj: Any, ctx: SourceContext) -> str:
    """How generated code refers to a function or class (`nn.Conv2d`, `F.gelu`, `torch.relu`, `MyBlock`)."""
    name = getattr(obj, "__name__", None)
    if name is None:
        raise NotRepresentable(f"{obj!r} has no name")
    for prefix, home in _PREFERRED_HOMES:
        if getattr(home, name, None) is obj:
            if prefix == "math":
                ctx.needs_math = True
            elif prefix == "F":
                ctx.needs_functional = True
            elif prefix == "operator":
                ctx.imports["operator"] = "import operator"
            return f"{prefix}.{name}"
    if getattr(builtins, name, None) is obj:
        return name
    if isinstance(obj, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        return _custom_op_name(obj, ctx)
    mod = getattr(obj, "__module__", "") or ""
    if mod == "torch" or mod.startswith("torch."):
        # e.g. torch._C._nn.gelu, nn.modules.activation.X: reachable through its module path
        target: Any = torch
        for part in mod.split(".")[1:]:
            target = getattr(target, part, None)
        if target is not None and getattr(target, name, None) is obj:
            return f"{mod}.{name}"
        raise NotRepresentable(f"{mod}.{name} is not importable")
    owner = _owning_class(obj)
    if owner is not None:   # a classmethod or staticmethod held as a value (`LambdaLayer(self.domain_map)`)
        return f"{qualified_name(owner, ctx)}.{name}"
    # (a definition a step's child file carries, `children.c0_transform.Batch`, is the model file's own)
    if mod.startswith(("_hdecomp_component_", "children.")) or mod == "__main__":
        if "." in getattr(obj, "__qualname__", name):
            raise NotRepresentable(f"nested definition {obj.__qualname__}")
        ctx.need(name)
        return name
    home = import_home(obj)
    if home is None:
        raise NotRepresentable(f"{mod}.{name} cannot be imported by its name (defined inside a function, "
                               "or made at run time)")
    return ctx.import_name(home, name)


def _owning_class(obj: Any) -> type | None:
    """The class through which `obj` is reached as an attribute: a method bound to a class (a classmethod:
    transformers' `StudentTOutput.domain_map`), or a function whose qualified name is `Class.name` (a
    staticmethod); None otherwise (an instance's bound method, a function defined inside a function)."""
    name = getattr(obj, "__name__", None)
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, type):
        qual = getattr(obj, "__qualname__", "") or ""
        parts = qual.split(".")
        if len(parts) != 2 or "<" in qual:
            return None
        home = sys.modules.get(getattr(obj, "__module__", "") or "")
        owner = getattr(home, parts[0], None) if home is not None else \
            (getattr(obj, "__globals__", None) or {}).get(parts[0])   # (a model file loaded by path)
        if not isinstance(owner, type):
            return None
    try:
        same = getattr(owner, name) == obj if name else False
    except Exception:   # (a descriptor that raises on the class)
        return None
    return owner if same else None


def _custom_op_name(op: Any, ctx: SourceContext) -> str:
    """A registered operator as code reaches it (`torch.ops.torchvision.nms`, an overload with `.default`),
    the package that registers its namespace imported (torchvision's ops exist once torchvision is)."""
    schema = op._schema if isinstance(op, torch._ops.OpOverload) else None
    qualified = schema.name if schema is not None else op._qualified_op_name
    namespace, _, name = qualified.partition("::")
    text = f"torch.ops.{namespace}.{name}"
    if schema is not None:
        text += f".{schema.overload_name or 'default'}"
    if namespace not in ("aten", "prims", "prim", "quantized") and namespace in sys.modules:
        ctx.imports[namespace] = f"import {namespace}"
    return text


def import_home(obj: Any) -> str | None:
    """The shortest importable module path that gives `obj` under its own name (`transformers` for
    GPT2Model, `transformers.models.gpt2.modeling_gpt2` for GPT2Block), or None (a class made at run time,
    a nested definition). Only modules already imported are consulted (the object's own and its parents)."""
    import importlib
    name = getattr(obj, "__name__", None)
    mod = getattr(obj, "__module__", None)
    if not name or not mod or "." in getattr(obj, "__qualname__", name) or mod == "builtins":
        return None
    parts = mod.split(".")
    for i in range(1, len(parts) + 1):
        path = ".".join(parts[:i])
        if path not in sys.modules and i < len(parts):
            continue
        try:
            home = importlib.import_module(path)
            if getattr(home, name, None) is obj:
                return path
        except Exception:
            continue
    return None




def config_literal(value: Any, ctx: SourceContext) -> str | None:
    """A HuggingFace config written as code with its non-default fields only (`GPT2Config(n_layer=2)`),
    sub-configs as nested calls, the attention implementation kept; checked by rebuilding it. None for a
    value that is not such a config."""
    if not is_hf_config(value):
        return None
    cls = type(value)
    try:
        default = cls()
    except Exception as exc:
        raise NotRepresentable(f"{cls.__name__} cannot be built with its defaults ({exc})") from exc
    current, base = value.to_dict(), default.to_dict()
    # the implementations the model chose at build time (attention: sdpa / eager; MoE experts: grouped_mm /
    # eager), which the config's defaults leave unset: written as the constructor's `X_implementation=` below,
    # once (a config that also lists the field among its own, SuperPoint's, is not written it twice)
    chosen = implementations(value)
    parts = []
    for key in current:
        if key in CONFIG_SKIP or key in {f"{kind}_implementation" for kind in chosen}:
            continue
        if key.startswith("_"):
            # a field kept private behind a property of the public name (SmolVLM's `_pad_token_id`, set by
            # the constructor's `pad_token_id=`): written by that name
            public = key.lstrip("_")
            prop = getattr(cls, public, None)
            if isinstance(prop, property) and prop.fset is not None and public not in current and \
                    not _same_value(current[key], base.get(key)):
                parts.append(f"{public}={literal(current[key], ctx)}")
            continue
        try:
            mine = getattr(value, key, current[key])
        except Exception:   # (a field the config refuses to read globally, NeoMME's per-layer sliding_window)
            mine = current[key]
        if is_hf_config(mine):
            if current[key] != base.get(key):
                parts.append(f"{key}={config_literal(mine, ctx)}")
            continue
        if key in base and _same_value(current[key], base[key]):
            continue
        try:
            parts.append(f"{key}={literal(mine, ctx)}")
        except NotRepresentable:   # (a view the attribute gives, NeoMME's `per_layer_config`: its serialized
            parts.append(f"{key}={literal(current[key], ctx)}")   # form, which the rebuild below checks)
    for kind, impl in chosen.items():
        parts.append(f"{kind}_implementation={impl!r}")
    home = import_home(cls)
    if home is None:
        raise NotRepresentable(f"{cls.__name__} cannot be imported by its name")
    text = f"{ctx.import_name(home, cls.__name__)}({', '.join(parts)})"
    same = _rebuilds(text, value, chosen, ctx)
    if not same and getattr(value, "is_heterogeneous", None) is False and "per_layer_config" not in current:
        # one layer's view of a heterogeneous config (Step-3.7-Flash's `config.per_layer_config[3]`: the global
        # fields with that layer's overrides set) rebuilt by a constructor that derives the per-layer overrides
        # again from a legacy field: written with none
        text = f"{text[:-1]}{', ' if parts else ''}per_layer_config={{}})"
        same = _rebuilds(text, value, chosen, ctx)
    if not same:
        raise NotRepresentable(f"{cls.__name__} written as {text} rebuilds to a different config")
    return text


def _rebuilds(text: str, value: Any, chosen: dict[str, Any], ctx: SourceContext) -> bool:
    """The config `text` builds is `value`'s (the fields and the implementations chosen)."""
    try:
        ns: dict[str, Any] = {"torch": torch}
        exec("\n".join(ctx.import_lines()), ns)
        rebuilt = eval(text, ns)
        return config_dict(rebuilt) == config_dict(value) and implementations(rebuilt) == chosen
    except Exception as exc:
        raise NotRepresentable(f"{type(value).__name__} written as {text} does not rebuild ({exc})") from exc


def _same_value(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


PARAMETRIZED = "\0module\0"   # where the module goes in a parametrization call (parametrization_calls)


def module_expr(module: nn.Module, ctx: SourceContext) -> str:
    """Source that rebuilds `module` from its recorded constructor arguments (checked by the caller); a
    parametrized module (weight_norm, spectral_norm, ...) as its plain module with the parametrizations
    applied: `weight_norm(nn.Conv1d(8, 16, 3), name='weight', dim=0)`."""
    expr = constructor_expr(module, ctx)
    for call in parametrization_calls(module, ctx):
        expr = call.replace(PARAMETRIZED, expr)
    return expr


def plain_class(module: nn.Module) -> type:
    """The module's own class: for a parametrized module, the class torch.nn.utils.parametrize derived its
    `Parametrized<Class>` from."""
    from torch.nn.utils import parametrize
    cls = type(module)
    return cls.__bases__[0] if parametrize.is_parametrized(module) else cls


def parametrization_calls(module: nn.Module, ctx: SourceContext) -> list[str]:
    """The calls that parametrize the plain module as `module` is (PARAMETRIZED marks the module), in the
    order they were registered: torch's own weight_norm / spectral_norm / orthogonal where recognised,
    else `register_parametrization(m, name, <the parametrization module>)`."""
    from torch.nn.utils import parametrize
    calls = hooked_reparametrizations(module, ctx)
    if not parametrize.is_parametrized(module):
        return calls
    table: Any = module.parametrizations
    for tname, plist in table.items():
        for p in plist:
            kind = type(p).__name__
            if kind == "_WeightNorm":
                fn = ctx.import_name("torch.nn.utils.parametrizations", "weight_norm")
                calls.append(f"{fn}({PARAMETRIZED}, name={tname!r}, dim={literal(getattr(p, 'dim', 0), ctx)})")
            elif kind == "_SpectralNorm":
                fn = ctx.import_name("torch.nn.utils.parametrizations", "spectral_norm")
                calls.append(f"{fn}({PARAMETRIZED}, name={tname!r}, "
                             f"n_power_iterations={getattr(p, 'n_power_iterations', 1)}, "
                             f"eps={literal(getattr(p, 'eps', 1e-12), ctx)}, dim={literal(getattr(p, 'dim', 0), ctx)})")
            else:
                fn = ctx.import_name("torch.nn.utils.parametrize", "register_parametrization")
                calls.append(f"{fn}({PARAMETRIZED}, {tname!r}, {module_expr(p, ctx)})")
    return calls


def hooked_reparametrizations(module: nn.Module, ctx: SourceContext) -> list[str]:
    """torch's older, hook-based `torch.nn.utils.weight_norm` / `spectral_norm` applied to `module` (a
    forward pre-hook recomputes the weight before each call), as the calls that apply them again."""
    from torch.nn.utils.spectral_norm import SpectralNorm
    from torch.nn.utils.weight_norm import WeightNorm
    calls = []
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm):
            fn = ctx.import_name("torch.nn.utils", "weight_norm")
            calls.append(f"{fn}({PARAMETRIZED}, name={hook.name!r}, dim={literal(hook.dim, ctx)})")
        elif isinstance(hook, SpectralNorm):
            fn = ctx.import_name("torch.nn.utils", "spectral_norm")
            calls.append(f"{fn}({PARAMETRIZED}, name={hook.name!r}, n_power_iterations={hook.n_power_iterations}, "
                         f"eps={literal(hook.eps, ctx)}, dim={literal(hook.dim, ctx)})")
    return calls


def hook_registrations(module: nn.Module, target: str, ctx: SourceContext) -> list[str]:
    """The forward hooks and pre-hooks registered on `module` itself, as the lines that register them on
    `target` again (`self.a.register_forward_hook(halve_output)`): a hook is part of what its module
    computes. Only module-level functions are carried; a lambda, a closure or a bound method (a
    feature-capturing hook writing into its parent) is left out, and verification decides whether the
    module's output needed it. torch's hook-based weight_norm / spectral_norm (hook objects, not functions)
    are applied by `hooked_reparametrizations` instead."""
    lines = []
    tables: tuple[tuple[str, dict[int, Any], dict[int, bool], dict[int, bool]], ...] = (
        ("register_forward_pre_hook", module._forward_pre_hooks, module._forward_pre_hooks_with_kwargs, {}),
        ("register_forward_hook", module._forward_hooks, module._forward_hooks_with_kwargs,
         module._forward_hooks_always_called))
    for method, hooks, with_kwargs, always in tables:
        for key, hook in hooks.items():
            if not isinstance(hook, types.FunctionType) or hook.__closure__ or hook.__name__ == "<lambda>":
                continue
            try:
                fn = qualified_name(hook, ctx)
            except NotRepresentable:
                continue
            flags = (", with_kwargs=True" if key in with_kwargs else "") + (", always_call=True" if key in always else "")
            lines.append(f"{target}.{method}({fn}{flags})")
    return lines


def constructor_expr(module: Any, ctx: SourceContext) -> str:
    """`module`'s class called with its recorded constructor arguments (parametrizations left out), then
    changed as the model's constructor changed it (constructor_call's patches); also for other objects built
    while the model was (a torchvision InvertedResidualConfig handed to a block)."""
    expr, patches = constructor_call(module, ctx)
    if patches:   # built, then changed as the model's own constructor did (`self.norm.bias = None`, MPT)
        sets = ", ".join(p.statement("_m") for p in patches)
        expr = f"(_m := {expr}, {sets})[0]"
    return expr


def constructor_call(module: Any, ctx: SourceContext, named: frozenset[str] = frozenset()) -> tuple[str, list[Patch]]:
    """(`module`'s class called with its recorded constructor arguments, the changes the model's constructor
    made after that call: construction_patches, less a cast of the whole module that the call's `dtype=`
    makes already, `nn.Linear(4, 4).double()` as `nn.Linear(4, 4, dtype=torch.float64)`). `named`: parameters
    passed as the variable of their own name (`layer_idx=layer_idx`, a shared file's constructor parameter)
    rather than their recorded value."""
    cls = plain_class(module) if isinstance(module, nn.Module) else type(module)
    if cls in (nn.Sequential, nn.ModuleList, nn.ModuleDict):
        return container_expr(module, ctx), []
    call = init_call(module)
    cls_name = qualified_name(cls, ctx)
    if call is None and not isinstance(module, nn.Module):
        raise NotRepresentable(f"a {cls.__name__} value")
    if call is None:
        if not any(True for _ in module.children()) and not any(True for _ in module.parameters(recurse=False)):
            try:
                return (f"{cls_name}()" if _same_module(cls(), module) else _raise(cls)), []
            except Exception as exc:
                raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown") from exc
        raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown")
    try:
        sig = inspect.signature(getattr(cls, "__init__"))  # noqa: B009 (the class's, not an instance's)
        defaults = {p.name: p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty}
    except (TypeError, ValueError):
        defaults = {}
    has_varargs = any(kind == "varargs" and value for _, value, kind in call.params)
    parts: list[str] = []
    positional_run = True
    for i, (name, value, kind) in enumerate(call.params):
        if kind == "varargs":
            parts.extend(literal(v, ctx) for v in value)
            positional_run = False
            continue
        if kind == "varkw":
            parts.extend(f"{k}={literal(v, ctx)}" for k, v in value.items())
            continue
        if name in named and kind in ("arg", "kwonly") and not has_varargs:
            parts.append(name if positional_run and kind == "arg" and i < 2 and name not in defaults
                         else f"{name}={name}")
            positional_run = positional_run and parts[-1] == name
            continue
        if kind == "posonly" or (has_varargs and kind != "kwonly"):
            # by position: a positional-only parameter has no name to pass, and before a non-empty *args
            # every positional parameter must be given
            parts.append(literal(value, ctx))
            continue
        if kind == "kwonly":
            if not _default_placement(name, value, defaults) and \
                    not (name in defaults and _equal_default(defaults[name], value)):
                parts.append(f"{name}={literal(value, ctx)}")
            positional_run = False
            continue
        if _default_placement(name, value, defaults):
            positional_run = False
            continue
        if name in defaults and _equal_default(defaults[name], value):
            positional_run = False
            continue
        # The first arguments without defaults read best positionally (nn.Linear(64, 256)).
        if positional_run and name not in defaults and i < 2:
            parts.append(literal(value, ctx))
        else:
            positional_run = False
            parts.append(f"{name}={literal(value, ctx)}")
    dtypes = {t.dtype for t in list(module.parameters()) + list(module.buffers()) if t.is_floating_point()} \
        if isinstance(module, nn.Module) else set()
    cast_by_argument = None
    if len(dtypes) == 1 and torch.float32 not in dtypes and "dtype" in defaults and \
            not any(p.startswith("dtype=") for p in parts):
        cast_by_argument = str(next(iter(dtypes)))
        parts.append(f"dtype={cast_by_argument}")
    patches = construction_patches(module, ctx) if isinstance(module, nn.Module) else []
    return (f"{cls_name}({', '.join(parts)})",
            [p for p in patches if not (p.cast and not p.name and p.value == cast_by_argument)])


def _default_placement(name: str, value: Any, defaults: dict[str, Any]) -> bool:
    """`device=None` / `dtype=None` passed where leaving it out means the same (torch's default placement).
    Not where the parameter's own default is another dtype: transformers' xIELU defaults to bfloat16, and
    Apertus builds it with `dtype=config.dtype`, None, for float32 parameters."""
    return name in ("device", "dtype") and value is None and defaults.get(name) is None


class Patch(NamedTuple):
    """One change the model's constructor made on a module after building it: `path` below the module
    (`.embedder`, `[0]`), the attribute, its value's source; `persistent` is set for a buffer registered
    afterwards (Falcon-H1's `layer.mamba.register_buffer("mup_vector", ..., persistent=False)`)."""

    path: str
    name: str
    value: str
    persistent: bool | None = None
    cast: bool = False   # `value` is a dtype the tensor `name` was cast to (the whole module's where `name` is "")

    def statement(self, obj: str) -> str:
        if self.cast:
            if not self.name:
                return f"{obj}{self.path}.to({self.value})"
            return f"setattr({obj}{self.path}.{self.name}, 'data', {obj}{self.path}.{self.name}.data.to({self.value}))"
        if self.persistent is None:
            return f"setattr({obj}{self.path}, {self.name!r}, {self.value})"
        return f"{obj}{self.path}.register_buffer({self.name!r}, {self.value}, persistent={self.persistent})"


# a buffer registered after construction is written with its values up to this many elements (its parent's
# weight map fills it in a step; a file of its own must compute with the model's values), else zeros (no
# leftover memory, which may hold NaN)
_BUFFER_VALUES_LIMIT = 1 << 14


def _parameter_expr(p: nn.Parameter) -> str:
    """A parameter of `p`'s shape, dtype and requires_grad, its values zero (the weights bring them)."""
    grad = "" if p.requires_grad else ", requires_grad=False"
    return f"nn.Parameter(torch.zeros({list(p.shape)}, dtype={p.dtype}){grad})"


def _tensor_values(t: torch.Tensor) -> str:
    """A tensor set after construction, as source: its values up to _BUFFER_VALUES_LIMIT elements, else zeros."""
    if t.numel() <= _BUFFER_VALUES_LIMIT and t.device.type != "meta":
        return exact_tensor_literal(t)
    return f"torch.zeros({list(t.shape)}, dtype={t.dtype})"


def construction_patches(module: nn.Module, ctx: SourceContext) -> list[Patch]:
    """What the model's constructor changed on `module` after building it from its recorded arguments, as
    (path below the module, attribute, value source): `[("", "bias", "None")]` for MPT's bias-free norm,
    `[(".embedder", "normalization", "DetrFrozenBatchNorm2d(16)")]` for DETR's swapped BatchNorm, a submodule
    added afterwards (Mask R-CNN's `roi_heads.mask_head`) likewise, buffers registered afterwards, and casts."""
    call = init_call(module)
    if call is None or type(module) in (nn.Sequential, nn.ModuleList, nn.ModuleDict):
        return []
    return _set_after_construction(module, plain_class(module), call, ctx)


def _set_after_construction(module: nn.Module, cls: type, call: Any, ctx: SourceContext) -> list[Patch]:
    """What the model's constructor changed on `module` after building it from the recorded arguments
    (MPT's `self.norm_1.bias = None` on a LayerNorm; a plain attribute set afterwards), as (path below the
    module, attribute, value source); [] where a build from the arguments is already the module, or where
    the differences are not of those kinds (the caller's rebuild check then says what differs)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, value, kind in call.params:
        if kind == "varargs":
            args.extend(value)
        elif kind == "varkw":
            kwargs.update(value)
        elif kind == "posonly":
            args.append(value)
        else:
            kwargs[name] = value
    try:
        with torch.device("meta"):
            rebuilt = cls(*args, **kwargs)
    except Exception:
        return []
    out: list[Patch] = []
    casts: list[Patch] = []
    mine = dict(module.named_modules())
    theirs_all = dict(rebuilt.named_modules())
    swapped: list[str] = []

    def path_of(qual: str) -> str:
        return "".join(f"[{int(p)}]" if p.isdigit() else f".{p}" for p in qual.split(".")) if qual else ""

    for qual, sub in rebuilt.named_modules():
        if any(qual.startswith(s + ".") for s in swapped):
            continue
        target = mine.get(qual)
        if target is None:
            # a submodule the model's constructor removed afterwards (Conditional DETR: every decoder layer
            # but the first gets `encoder_attn.q_pos_proj = None`)
            parent, _, leaf = qual.rpartition(".")
            holder = mine.get(parent)
            if not qual or holder is None or leaf not in holder._modules or holder._modules[leaf] is not None:
                return []
            out.append(Patch(path_of(parent), leaf, "None"))
            swapped.append(qual)
            continue
        if type(target) is not type(sub):
            # a submodule the constructor swapped afterwards (DETR's frozen BatchNorm for torchvision's)
            if not qual:
                return []
            parent, _, leaf = qual.rpartition(".")
            try:
                out.append(Patch(path_of(parent), leaf, module_expr(target, ctx)))
            except NotRepresentable:
                return []
            swapped.append(qual)
            continue
        path = path_of(qual)
        for table in ("_parameters", "_buffers"):
            theirs, ours = getattr(sub, table), getattr(target, table)
            for name, t in theirs.items():
                if t is not None and name in ours and ours[name] is None:
                    out.append(Patch(path, name, "None"))
                elif t is None and table == "_parameters" and isinstance(ours.get(name), nn.Parameter):
                    # a parameter set afterwards where the build left None (BLIP-2's `self.qkv.bias =
                    # nn.Parameter(cat(q_bias, 0, v_bias))` on a Linear built with bias=False): its
                    # values come with the weights
                    out.append(Patch(path, name, _parameter_expr(ours[name])))
                elif (t is None) != (ours.get(name) is None) or name not in ours:
                    return []
                elif table == "_buffers" and t is not None and t.shape != ours[name].shape:
                    # a buffer the model rebuilt at another size after building the module (timm ConViT's
                    # `rel_indices`, made for the patch count): registered again at its size, values as for one
                    # registered afterwards
                    out.append(Patch(path, name, _tensor_values(ours[name]),
                                     name not in target._non_persistent_buffers_set))
                elif t is not None and t.dtype != ours[name].dtype and t.shape == ours[name].shape:
                    # cast after it was built (the model's `.to(dtype)` or `.half()` after building its layers)
                    casts.append(Patch(path, name, str(ours[name].dtype), cast=True))
            for name, t in ours.items():
                if name in theirs or t is None:
                    continue
                if table == "_parameters":
                    if not isinstance(t, nn.Parameter):
                        return []
                    out.append(Patch(path, name, _parameter_expr(t)))   # registered afterwards
                    continue
                # a buffer registered afterwards
                out.append(Patch(path, name, _tensor_values(t), name not in target._non_persistent_buffers_set))
        for name, value in vars(target).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                # a plain tensor attribute the build leaves empty or otherwise (a cache a property filled once,
                # Mimi's codebook `self._embed`): the rebuilt module holds one of its shape (weights bring it)
                theirs_tensor = vars(sub).get(name)
                if not isinstance(theirs_tensor, torch.Tensor) or theirs_tensor.shape != value.shape \
                        or theirs_tensor.dtype != value.dtype:
                    out.append(Patch(path, name, _tensor_values(value)))
                continue
            if name.startswith("_") or name == "training" or isinstance(value, (torch.Tensor, nn.Module)):
                continue
            theirs_value = vars(sub).get(name, _MISSING)
            if theirs_value is _MISSING or not _equal_default(theirs_value, value):
                if isinstance(value, (bool, int, float, str, type(None))) or \
                        (isinstance(value, tuple) and all(isinstance(v, (bool, int, float, str)) for v in value)):
                    out.append(Patch(path, name, literal(value, ctx)))
    for qual, target in mine.items():
        if qual in theirs_all or any(qual.startswith(s + ".") for s in swapped):
            continue
        # a submodule the constructor added afterwards (torchvision's Mask R-CNN: `self.roi_heads.mask_head =
        # mask_head` after building RoIHeads without one), where its parent is one the build made
        parent, _, leaf = qual.rpartition(".")
        if not qual or parent not in theirs_all or not leaf.isidentifier():
            return []
        try:
            out.append(Patch(path_of(parent), leaf, module_expr(target, ctx)))
        except NotRepresentable:
            return []
        swapped.append(qual)
    if casts:
        floating = {t.dtype for t in [*module.parameters(), *module.buffers()] if t.is_floating_point()}
        # the whole module cast to one dtype: one `.to(dtype)`, else each tensor cast apart
        out += [Patch("", "", casts[0].value, cast=True)] if len(floating) == 1 else casts
    return out


_MISSING = object()


def container_expr(module: nn.Module, ctx: SourceContext) -> str:
    """A torch.nn container (Sequential, ModuleList, ModuleDict) written from the modules it holds now, not from
    its constructor's arguments: a container is often built empty and filled afterwards (timm's
    `self.query = nn.Sequential(); self.query.add_module('down_conv', ...)`, `layers.append(...)`)."""
    # (every slot, a module held twice included: named_children() yields a shared instance once, diffusers'
    # AutoencoderTiny holds one ReLU at two places of a Sequential; held again, a stateless one is written
    # again, and one with tensors is refused by check_rebuild's state_dict comparison)
    items = [(k, m) for k, m in module._modules.items() if m is not None]
    if isinstance(module, nn.ModuleDict):
        return "nn.ModuleDict({" + ", ".join(f"{k!r}: {module_expr(m, ctx)}" for k, m in items) + "})"
    if isinstance(module, nn.ModuleList):
        return "nn.ModuleList([" + ", ".join(module_expr(m, ctx) for _, m in items) + "])"
    if [k for k, _ in items] == [str(i) for i in range(len(items))]:
        return "nn.Sequential(" + ", ".join(module_expr(m, ctx) for _, m in items) + ")"
    return "nn.Sequential(" + literal(collections.OrderedDict(items), ctx) + ")"


_LIST_TENSOR_LIMIT = 256


def exact_tensor_literal(t: torch.Tensor) -> str:
    """`torch.tensor([[...]], dtype=...)` with every value exactly as the tensor holds it (a float32 value's
    shortest double repr rebuilds the same float32)."""
    vals = t.detach().cpu().tolist()
    return f"torch.tensor({vals!r}, dtype={t.dtype})"


def tensor_literal(t: torch.Tensor) -> str:
    """`torch.tensor([0.1, 0.2], dtype=torch.float32)` with float32 values written shortest."""
    vals = t.detach().cpu().tolist()
    if t.is_floating_point():
        vals = [float(f"{v:.8g}") for v in (vals if isinstance(vals, list) else [vals])]
        if t.dim() == 0:
            vals = vals[0]
    return f"torch.tensor({vals!r}, dtype={t.dtype})"


def _raise(cls: type) -> str:
    raise NotRepresentable(f"{cls.__name__}: constructor arguments unknown")


def _equal_default(default: Any, value: Any) -> bool:
    try:
        return type(default) is type(value) and bool(default == value)
    except Exception:
        return False


def _same_module(a: nn.Module, b: nn.Module) -> bool:
    return repr(a) == repr(b)


def check_rebuild(expr: str, module: nn.Module, namespace: dict[str, Any]) -> str | None:
    """Build `expr` and compare with `module` (repr, parameter/buffer names, shapes, dtypes). None = same.
    Built on the meta device where its constructor allows (a transformer of 2.7 B parameters is not built
    a second time for real, nor initialised, only to be compared)."""
    try:
        try:
            with torch.device("meta"):
                rebuilt = eval(expr, namespace)  # the expression we generated ourselves
        except Exception:
            rebuilt = eval(expr, namespace)
    except Exception as exc:
        return f"rebuilding {type(module).__name__} failed ({type(exc).__name__}: {exc})"
    if repr(rebuilt) != repr(module):
        return f"{type(module).__name__} rebuilt from its constructor arguments differs ({expr})"
    sa = {k: (tuple(v.shape), v.dtype) for k, v in rebuilt.state_dict().items()}
    sb = {k: (tuple(v.shape), v.dtype) for k, v in module.state_dict().items()}
    if sa != sb:
        return f"{type(module).__name__} rebuilt has different parameters/buffers ({expr})"
    return None


# ---- carrying over user definitions ---------------------------------------------------------------------


def _top_level_defs(tree: ast.Module) -> dict[str, ast.stmt]:
    defs: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defs[n.id] = stmt
    return defs


def carried_names(ctx: SourceContext) -> set[str]:
    """The module-level names a file written with `ctx` defines by carrying user definitions: the user names
    and every definition they need (a function `setup` that builds a `Mapper`: both), which no other name
    of the file may take."""
    if not ctx.user_names or ctx.user_file is None:
        return set(ctx.user_names)
    try:
        tree = ast.parse(ctx.user_file.read_text(encoding="utf-8"))
        return _needed(ctx, _top_level_defs(tree))
    except (OSError, SyntaxError, NotRepresentable):
        return set(ctx.user_names)


def _needed(ctx: SourceContext, defs: dict[str, ast.stmt]) -> set[str]:
    needed: set[str] = set()
    todo = sorted(ctx.user_names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        if name not in defs:
            where = ctx.user_file.name if ctx.user_file is not None else "the model file"
            raise NotRepresentable(f"definition of {name} not found in {where}")
        needed.add(name)
        for n in ast.walk(defs[name]):
            if isinstance(n, ast.Name) and n.id in defs and n.id not in needed and n.id != "Model":
                todo.append(n.id)
            if isinstance(n, ast.Name) and n.id == "Model" and name != "Model":
                raise NotRepresentable(f"{name} refers to the file's Model class")
    if "Model" in needed:
        raise NotRepresentable("a submodule is an instance of the file's own Model class")
    return needed


def carried_source(ctx: SourceContext) -> tuple[list[str], str]:
    """(import lines, definitions) for every user name in ctx and what those need, in file order."""
    if not ctx.user_names:
        return [], ""
    if ctx.user_file is None:
        raise NotRepresentable("user definitions needed but the source file is unknown")
    source = ctx.user_file.read_text(encoding="utf-8")
    tree = ast.parse(source)
    defs = _top_level_defs(tree)
    needed = _needed(ctx, defs)
    imports: list[str] = []
    blocks: list[str] = []
    emitted: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").split(".")[0] == "children":
                continue
            imports.append(ast.get_source_segment(source, stmt) or ast.unparse(stmt))
            continue
        names = {n for n, s in defs.items() if s is stmt}
        if names & needed and id(stmt) not in emitted:
            emitted.add(id(stmt))
            seg = _segment_with_decorators(source, stmt)
            blocks.append(seg)
    return imports, "\n\n\n".join(blocks)


def _segment_with_decorators(source: str, stmt: ast.stmt) -> str:
    lines = source.splitlines()
    start = stmt.lineno
    for dec in getattr(stmt, "decorator_list", []):
        start = min(start, dec.lineno)
    end = stmt.end_lineno or stmt.lineno
    return "\n".join(lines[start - 1:end])
