"""Names for generated components: kernel files named by workload, deduplicated by content.

A kernel file is named `{op}_{shape_signature}_{dtype}` (`linear_768x3072_fp32`, `relu_fp32` for
shape-independent elementwise ops). Two workloads that would get the same name but differ in content get
`_v2`, `_v3`, ... in the order they are first met (the driver's traversal order is deterministic).
"""

from __future__ import annotations

import builtins
import keyword
from dataclasses import dataclass, field

import torch
from torch import nn

from hdecomp.vocab.ops import snake

DTYPE_SHORT = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
               torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
               torch.bool: "bool", torch.complex64: "c64", torch.complex128: "c128"}

# Names a generated file binds at module level (its imports and functions): never a local or a child's name.
FILE_NAMES = frozenset({"torch", "nn", "F", "math", "operator", "Model", "RefactoredModel", "get_inputs",
                        "get_input_kwargs", "get_init_inputs", "batch_size", "EXPECTED_OUTPUTS", "self"})
_BUILTINS = frozenset(dir(builtins))
_MODULE_ATTRS = frozenset(dir(nn.Module))


def keyword_like(name: str) -> bool:
    return keyword.iskeyword(name) or keyword.issoftkeyword(name)


def is_safe_local(name: str, taken: set[str] | frozenset[str] = frozenset()) -> bool:
    """A local variable name that compiles and shadows nothing a generated file calls: not a keyword or
    soft keyword (`and`, `match`, `type`), not a builtin (`all`, `sum`, `len`), not a name of the file."""
    return (name.isidentifier() and not keyword.iskeyword(name) and not keyword.issoftkeyword(name)
            and name not in _BUILTINS and name not in FILE_NAMES and name not in taken
            and not (name.startswith("__") and name.endswith("__")))


def is_safe_attr(name: str) -> bool:
    """A submodule attribute name: an identifier `self.<name>` can take that hides no nn.Module member
    (a child held as `self.to` or `self.float` would be shadowed by the method on every call)."""
    return (name.isidentifier() and not keyword.iskeyword(name) and name not in _MODULE_ATTRS
            and not name.startswith("_"))


def safe_local(base: str, taken: set[str]) -> str:
    """`base` as a fresh local (PEP 8's trailing underscore for a keyword or builtin: `and_`, `all_`), with
    `_2`, `_3`... while it is taken; the result is added to `taken`."""
    base = snake(base) if not base.isidentifier() else base
    if not is_safe_local(base):
        base = base + "_"
    name, n = base, 1
    while not is_safe_local(name, taken):
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def safe_attr(base: str, taken: set[str]) -> str:
    """`base` as a fresh submodule attribute (`and_`, `to_`, `m_1` for `1`), added to `taken`."""
    if not base.isidentifier() or base.startswith("_"):
        base = "m_" + snake(base).lstrip("_")
    if not is_safe_attr(base):
        base = base + "_"
    name, n = base, 1
    while name in taken or not is_safe_attr(name):
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def class_alias(stem: str, taken: set[str]) -> str:
    """The CamelCase name a child file's Model is imported as (`conv2d_fp32` -> `Conv2dFp32`), none of `taken`
    (the file's imports and the definitions it carries: a child `mapper` next to the model file's own class
    `Mapper` is `Mapper2`)."""
    alias = "".join(p.capitalize() for p in stem.split("_")) or "Child"
    if alias[0].isdigit():
        alias = "K" + alias
    if not is_safe_local(alias):
        alias = alias + "_"
    base, n = alias, 1
    while alias in taken:
        n += 1
        alias = f"{base}{n}"
    return alias


def dtype_short(dtype: torch.dtype | None) -> str:
    return DTYPE_SHORT.get(dtype, str(dtype).replace("torch.", "")) if dtype is not None else "any"


def shape_sig(shape: tuple[int, ...] | list[int]) -> str:
    return "x".join(str(int(d)) for d in shape) if len(shape) else "scalar"


@dataclass
class NameRegistry:
    """Content-addressed names: same content -> same name; same name, other content -> `_v2`."""

    by_content: dict[str, str] = field(default_factory=dict)
    taken: dict[str, str] = field(default_factory=dict)   # name -> content key
    shapes: dict[str, str] = field(default_factory=dict)  # name -> its workload's input signature
    # submodule files by their workload up to the constructor's arguments -> [(name, the constructor
    # expression)]: the files a repeated layer (another `layer_idx`) may share (twins.computing_twin)
    by_class: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # the workloads named after the file of another instance they compute as (a twin, not the same body): a
    # parent that hands the layer a live cache cannot build that file with this instance's arguments
    twinned: set[str] = field(default_factory=set)
    # the plain numbers the call a by_class file was written for was handed (twins.call_numbers), by file
    numbers: dict[str, dict[int | str, int | float]] = field(default_factory=dict)

    def copy(self) -> NameRegistry:
        return NameRegistry(dict(self.by_content), dict(self.taken), dict(self.shapes),
                            {k: list(v) for k, v in self.by_class.items()}, set(self.twinned), dict(self.numbers))

    def twin(self, content_key: str, name: str) -> None:
        """The workload `content_key` is named after `name`'s file, whose module computes as it does."""
        self.by_content[content_key] = name
        self.twinned.add(content_key)

    def name_for(self, base: str, content_key: str, shapes: str = "") -> tuple[str, bool]:
        """(name, is_new). `content_key` identifies the workload (the generated body); `shapes` is its input
        signature (`input_signature`). A new workload whose base is taken by one with other input shapes is
        named with its own (`with_signature`: a name that says how it differs), else `_v2`, `_v3`, ..."""
        if content_key in self.by_content:
            return self.by_content[content_key], False
        if keyword_like(base):   # a file `children/lambda.py` cannot be imported: PEP 8's trailing underscore
            base += "_"
        name = base
        if base in self.taken and shapes and shapes != self.shapes.get(base) and shapes not in base:
            name = with_signature(base, shapes)
        stem, n = name.rstrip("_") or name, 1   # (`lambda_` -> `lambda_v2`)
        while name in self.taken:
            n += 1
            name = f"{stem}_v{n}"
        self.taken[name] = content_key
        self.by_content[content_key] = name
        self.shapes[name] = shapes
        return name, True


def input_signature(inputs: list[torch.Tensor]) -> str:
    """The shapes of the first two tensor inputs (`1x64x56x56`, `2x16_2x16x8`); empty without tensors."""
    return "_".join(shape_sig(t.shape) for t in inputs[:2])


def with_signature(base: str, sig: str) -> str:
    """`base` with an input signature before its dtype (`batch_norm2d_64_fp32` -> `batch_norm2d_64_1x64x56x56_fp32`,
    `conv_norm_act_64x3x7x7` -> `conv_norm_act_64x3x7x7_1x3x224x224`)."""
    head, _, tail = base.rpartition("_")
    if head and (tail in DTYPE_SHORT.values() or tail == "any"):
        return f"{head}_{sig}_{tail}"
    return f"{base.rstrip('_')}_{sig}"   # (`lambda_`, a keyword's name, is a name again with a signature)


def module_base_name(sub: nn.Module, target: str) -> str:
    """A submodule child's file name base: its class (`bottleneck`, `llama_attention`), or for a torch.nn
    container (`nn.Sequential`, `nn.ModuleList`), whose class says nothing of its role, the attribute that
    holds it (`downsample`, `layer1`; `features_3` for an item of a container)."""
    if getattr(nn, type(sub).__name__, None) is type(sub) and any(True for _ in sub.children()):
        parts = [p for p in target.split(".") if p]
        while len(parts) > 1 and parts[-1].isdigit():
            parts[-2:] = [f"{parts[-2]}_{parts[-1]}"]
        if parts:
            return snake(parts[-1])
    return snake(type(sub).__name__)
