"""Static anti-cheat: read refactored.py (pure `ast`, no torch, no user code) and report every place where the
parent does compute instead of calling children.

The editor runs this on every keystroke, so it is one parse plus a small abstract interpretation (and the
language server passes an `AnalysisMemo` to `analyze_tree`, which replays the unchanged statements of
forward() and the unchanged whole-file checks from the previous version; same results, less work):
  1. module level: imports, globals, classes and functions are bound to abstract values (`Val`);
  2. the model class: its attributes (children, aliases, raw modules, own tensors) from __init__ & co;
  3. forward(): every expression is evaluated over those values; calls, operators and method calls are
     judged by what they resolve to, however they are spelled (aliases, getattr, helpers, lambdas...);
  4. the rest of the file: construction, own state, hooks, monkeypatching, dynamic code, forbidden imports.
Anything not proven to be a child call or plumbing is reported (allow-list semantics for calls).

Decisions (what counts as plumbing):
  - `tensor + tensor` and `+=` between tensors are residuals; `tensor + constant` (or + a tensor kept as
    state) is compute; `-`, `*`, `/`, `//`, `%`, `**`, `@`, comparisons, unary `-` and `~` on a tensor are
    compute; named ops (`torch.add`, `x.add`, `x.add_`) are compute too: write a residual as `a + b`.
  - Ints are inferred locally: literals, `.shape` / `.size()` / `.dim()` / `.numel()` / `len()`, loop
    ranges, int/float/bool/str-annotated or -defaulted forward arguments, __init__ arguments and module
    constants. Arithmetic on ints (and shape-based control flow) is plumbing. `x.item()`, `x.tolist()`,
    `float(x)` are the tensor's values: arithmetic on them is compute.
  - Data movement is plumbing (cat/stack/split/chunk/unbind, views and reshapes, indexing and slicing,
    writes into slices, casts, `.to()`, clones, tensor creation such as torch.zeros / arange), kept in step
    with hdecomp.runtime.ops.PLUMBING_OPS so that the editor and `verify-step` agree.
  - `sum(list_of_tensors)` is a chain of residuals when the list is written out or holds children's outputs;
    over slices of a tensor (`sum(x[:, t] for t in ...)`, `sum(x.unbind(1))`) it is a reduction (HD116), as
    is a loop-carried accumulation (`total = total + x[:, t]`, `acc += h[:, t]` in a for/while loop): inside a
    loop, `t = t + e` is a residual only when `e` is the output of a child called in the same iteration
    (`for blk in self.blocks: x = x + blk(x)`); a child's output is tracked through plumbing with the loops
    it was made in (`Val.ctx`). Builtin abs/max/min/pow/round on tensors is compute.
  - A child is constructed with plain data only (numbers, strings, bools, tuples, dtypes, shapes): a
    function, callable, module (class or instance), child or namespace handed to a child's constructor
    lets the parent choose the child's op (HD214; verify-step also records it at run time, HD313).
  - sys.path may get the step's own folder or a folder under its children/ (resolved statically from
    `__file__`, os.path and pathlib spellings): the imports are then judged by where they land.
  - Every nn module built outside children/ is reported, nn.Identity / nn.Flatten included (the structural
    check rejects them too); nn.ModuleList / ModuleDict / Sequential holding children are fine.
  - Helpers (functions, methods, static/class methods, properties, lambdas, decorators) may be called from
    forward() when their body is plumbing; compute inside is reported at the call, with the helper as
    `related`. A module handed to a child (`self.a(x, self.b)`) is reported: the child could run it.
Columns are UTF-8 byte offsets, as in `ast` (SourceRange's contract).
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import sys
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hdecomp.anticheat.rules import RULES, AntiCheatViolation, RelatedLocation, SourceRange
from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import dumps_json


def _names_children_folder_expr(arg: ast.expr) -> bool:
    """A sys.path entry that could not be resolved but names a `children` folder (a "children" string
    constant last, no ".." anywhere): the original workspace's spelling, accepted as before."""
    consts = [n.value for n in ast.walk(arg) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return bool(consts) and consts[-1].rstrip("/\\").split("/")[-1] == "children" and ".." not in "".join(consts)


# Path spellings that keep the path (os.path.abspath(p), str(p), Path(p), p.resolve()) and pathlib classes.
_PATH_SAME_FUNCS = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.normcase",
                              "posixpath.abspath", "posixpath.realpath", "posixpath.normpath", "ntpath.abspath",
                              "ntpath.realpath", "ntpath.normpath", "os.fspath", "builtins.str"})
_PATH_CLASSES = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath"})
_PATH_SAME_METHODS = frozenset({"resolve", "absolute", "as_posix", "__str__", "__fspath__"})


def _join(base: tuple[str, ...], more: tuple[str, ...]) -> tuple[str, ...] | None:
    """Path parts joined and normalised ("." dropped, ".." applied); an absolute part replaces the base."""
    if more[:1] == ("<abs>",):
        return more
    if base[:1] == ("<abs>",):
        return base  # still absolute: somewhere outside the step
    if more[:1] == ("<cwd>",):  # a relative string joined onto a base is relative to that base
        more = more[1:]
    parts = list(base)
    for p in more:
        if parts and parts[-1] == "<file>":
            if p != "..":
                return None  # refactored.py/x: not a folder
            parts.pop()
            continue
        if p == "..":
            if parts and parts[-1] not in ("..", "<cwd>"):
                parts.pop()
            else:
                parts.append("..")
        elif p not in ("", "."):
            parts.append(p)
    return tuple(parts)


def _join_parts(base: tuple[str, ...], text: str, glued: bool = False) -> tuple[str, ...] | None:
    """`base` joined with a path string (`"../x"`, `"/children"` glued to an f-string or `+`)."""
    if glued:
        if not text.startswith(("/", "\\")):
            return None  # "dir" + "name" without a separator: another folder name
        text = text.lstrip("/\\")
    elif text.startswith(("/", "\\", "~")) or (len(text) > 1 and text[1] == ":"):
        return ("<abs>",)
    return _join(base, tuple(text.replace("\\", "/").split("/")))


__all__ = ["AnalysisMemo", "UnreadableFileError", "analyze_file", "analyze_source", "analyze_tree", "cli_check",
           "has_errors", "parse_source"]

# ---------------------------------------------------------------------------------------------------------
# Vocabulary: what is plumbing, what only asks about shapes, what is harmless. Everything else under torch
# is compute (allow-list semantics: a torch function nobody listed here is treated as compute).
# ---------------------------------------------------------------------------------------------------------

PLUMBING_OPS = frozenset("""
cat concat concatenate stack hstack vstack dstack column_stack row_stack split tensor_split split_with_sizes
chunk unbind hsplit vsplit dsplit unsafe_chunk unsafe_split unsafe_split_with_sizes
reshape view view_as reshape_as permute transpose swapaxes swapdims movedim moveaxis t adjoint flatten
unflatten ravel squeeze unsqueeze contiguous expand expand_as broadcast_to broadcast_tensors repeat tile
repeat_interleave narrow select unfold as_strided diagonal flip fliplr flipud roll rot90 atleast_1d atleast_2d
atleast_3d squeeze_ unsqueeze_ t_ transpose_ swapaxes_ swapdims_ as_strided_
clone detach detach_ to type type_as float double half bfloat16 int long short bool byte char cpu cuda
cfloat cdouble chalf requires_grad_ pin_memory share_memory_ resolve_conj resolve_neg copy_ numpy tolist
zeros ones empty full zeros_like ones_like empty_like full_like arange new_zeros new_ones new_empty new_full
new_tensor tensor as_tensor empty_strided new_empty_strided from_numpy
index_select index_put index_put_ slice_scatter select_scatter linspace meshgrid scalar_tensor narrow_copy
view_as_real view_as_complex fill_ zero_ split_with_sizes_copy unbind_copy conj resize resize_ resize_as
resize_as_ fill range real imag complex empty_permuted alias_copy as_strided_copy detach_copy diagonal_copy
expand_copy permute_copy select_copy slice_copy split_copy squeeze_copy t_copy transpose_copy unsqueeze_copy
view_copy is_inference
""".split())
# Kept in step with hdecomp.runtime.ops.PLUMBING_OPS (the runtime check's list), so that the editor and
# `verify-step` agree on what is plumbing; this module cannot import ops.py (it imports torch).

SHAPE_QUERIES = frozenset("""
size dim ndimension numel nelement stride element_size storage_offset is_contiguous is_floating_point
is_complex get_device item is_same_size data_ptr is_signed is_tensor is_nonzero __len__ dim_order
""".split())

# Tensor attributes (not calls): shape-like ones give ints, view-like ones give tensors.
TENSOR_SCALAR_ATTRS = frozenset("""
shape ndim dtype device is_cuda is_sparse is_quantized is_meta layout requires_grad is_leaf names grad_fn
itemsize nbytes
""".split())
TENSOR_VIEW_ATTRS = frozenset("T mT H mH data real imag grad".split())

# Every public method of torch.Tensor (torch 2.x); those not listed as plumbing or shape queries are compute.
TENSOR_METHODS = frozenset("""
abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_ addcmul addcmul_
addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle any apply_ arccos arccos_
arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax
argmin argsort argwhere as_strided as_strided_ as_strided_scatter asin asin_ asinh asinh_ atan atan2 atan2_
atan_ atanh atanh_ baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and bitwise_and_
bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte cauchy_ ceil ceil_ cfloat chalf char
cholesky cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip
clip_ clone conj conj_physical conj_physical_ contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_
count_nonzero cov cpu cross cuda cummax cummin cumprod cumprod_ cumsum cumsum_ deg2rad deg2rad_ dequantize det
detach detach_ diag diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim dist div div_
divide divide_ dot double dsplit eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand
expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float
float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gather
gcd gcd_ ge ge_ geometric_ geqrf ger greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink
heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ index_add
index_add_ index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce index_reduce_
index_select inner int inverse isclose isfinite isinf isnan isneginf isposinf isreal istft kron kthvalue lcm
lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p
log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp
long lstsq lt lt_ lu lu_solve map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select
matmul matrix_exp matrix_power max maximum mean median min minimum mm mode moveaxis movedim msort mul mul_
multinomial multiply multiply_ mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean nanmedian nanquantile
nansum narrow narrow_copy ne ne_ neg neg_ negative negative_ nextafter nextafter_ nonzero nonzero_static norm
normal_ not_equal not_equal_ orgqr ormqr outer permute pinverse polygamma polygamma_ positive pow pow_ prelu
prod put put_ quantile rad2deg rad2deg_ random_ ravel reciprocal reciprocal_ relu relu_ remainder remainder_
renorm renorm_ repeat repeat_interleave reshape reshape_as resize resize_ resize_as resize_as_ roll rot90
round round_ rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select
select_scatter sgn sgn_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ slice_scatter
slogdet smm softmax solve sort split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std
stft sub sub_ subtract subtract_ sum sum_to_size svd swapaxes swapaxes_ swapdims swapdims_ t t_ take
take_along_dim tan tan_ tanh tanh_ tensor_split tile to trace transpose transpose_ triangular_solve tril tril_
triu triu_ true_divide true_divide_ trunc trunc_ type_as unbind unflatten unfold uniform_ unique
unique_consecutive unsafe_chunk unsafe_split unsqueeze unsqueeze_ var vdot view view_as vsplit where xlogy
xlogy_ zero_ softplus gelu silu hardtanh elu selu celu mish leaky_relu hardswish hardsigmoid logsigmoid
""".split())

# Dunder spellings of operators: `x.__mul__(y)` is judged like `x * y`.
DUNDER_BINOPS: dict[str, type[ast.operator]] = {
    "__add__": ast.Add, "__radd__": ast.Add, "__iadd__": ast.Add, "__sub__": ast.Sub, "__rsub__": ast.Sub,
    "__isub__": ast.Sub, "__mul__": ast.Mult, "__rmul__": ast.Mult, "__imul__": ast.Mult,
    "__truediv__": ast.Div, "__rtruediv__": ast.Div, "__itruediv__": ast.Div, "__div__": ast.Div,
    "__floordiv__": ast.FloorDiv, "__mod__": ast.Mod, "__pow__": ast.Pow, "__rpow__": ast.Pow,
    "__matmul__": ast.MatMult, "__rmatmul__": ast.MatMult, "__and__": ast.BitAnd, "__or__": ast.BitOr,
    "__xor__": ast.BitXor, "__lshift__": ast.LShift, "__rshift__": ast.RShift,
}
DUNDER_COMPUTE = frozenset("__neg__ __abs__ __invert__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__".split())

TORCH_DTYPES_CONSTS = frozenset("""
float float32 float64 double float16 half bfloat16 int int8 int16 int32 int64 long short uint8 uint16 uint32
uint64 bool complex32 complex64 complex128 cfloat cdouble chalf float8_e4m3fn float8_e5m2 qint8 quint8 qint32
pi e inf nan strided sparse_coo channels_last channels_last_3d contiguous_format preserve_format
""".split())

TORCH_NEUTRAL = frozenset("""
no_grad enable_grad inference_mode set_grad_enabled is_grad_enabled is_inference_mode_enabled autocast
is_tensor is_storage is_floating_point is_complex numel Size device dtype get_default_dtype set_default_dtype
manual_seed seed initial_seed finfo iinfo Tensor Generator jit cuda backends compiler _assert typename
set_printoptions utils testing __version__ version memory_format layout is_autocast_enabled get_device
Module Parameter
""".split())
NEUTRAL_TORCH_NAMESPACES = frozenset("cuda backends compiler jit testing version utils mps cpu distributed".split())

# torch namespaces whose every function is compute.
COMPUTE_NAMESPACES = ("torch.nn.functional", "torch.special", "torch.linalg", "torch.fft", "torch.nn.init",
                      "torch._C._nn", "torch._C._VariableFunctions", "torch._refs", "torch._prims")
TORCH_NAMESPACES = frozenset({"torch", "torch.nn", "torch.ops", "torch._C", "torch.autograd",
                              "torch.nn.modules", "torch.nn.parameter", *COMPUTE_NAMESPACES})

NN_CONTAINERS = frozenset({"ModuleList", "ModuleDict", "Sequential"})
NN_PARAMETERS = frozenset({"Parameter", "ParameterList", "ParameterDict", "UninitializedParameter",
                           "UninitializedBuffer", "Buffer"})

MATH_MODULES = frozenset({"math", "cmath", "numpy", "scipy", "jax"})
EINOPS_PLUMBING = frozenset({"rearrange", "repeat", "pack", "unpack", "parse_shape"})
OPERATOR_BINOPS: dict[str, type[ast.operator]] = {
    "add": ast.Add, "iadd": ast.Add, "__add__": ast.Add, "sub": ast.Sub, "isub": ast.Sub, "mul": ast.Mult,
    "imul": ast.Mult, "truediv": ast.Div, "itruediv": ast.Div, "floordiv": ast.FloorDiv, "mod": ast.Mod,
    "pow": ast.Pow, "ipow": ast.Pow, "matmul": ast.MatMult, "imatmul": ast.MatMult, "and_": ast.BitAnd,
    "or_": ast.BitOr, "xor": ast.BitXor, "lshift": ast.LShift, "rshift": ast.RShift,
}
OPERATOR_PLUMBING = frozenset({"getitem", "itemgetter", "attrgetter", "index", "concat", "contains",
                               "is_", "is_not", "not_", "truth", "length_hint"})

BUILTIN_NEUTRAL = frozenset("""
len range enumerate zip isinstance issubclass type int float bool str tuple list dict set frozenset print
repr format hasattr callable id hash iter next reversed sorted any all slice super object property
staticmethod classmethod NotImplementedError ValueError RuntimeError TypeError AssertionError KeyError
IndexError Exception StopIteration map filter complex bytes chr ord bin hex oct isinstance ascii
""".split())
BUILTIN_MATH = {"abs": "abs", "max": "maximum", "min": "minimum", "pow": "pow", "round": "round",
                "divmod": "divmod", "sum": "sum"}
BUILTIN_DYNAMIC = frozenset({"eval", "exec", "compile", "__import__", "breakpoint"})
DYNAMIC_MODULES = frozenset({"importlib", "runpy", "imp", "marshal", "pickle", "dill", "ctypes", "types"})
KNOWN_THIRD_PARTY_PLUMBING = frozenset({"typing", "typing_extensions", "__future__", "dataclasses"})
# Installed packages a refactored file may import: never mistaken for child files.
KNOWN_PACKAGES = frozenset({"torch", "numpy", "scipy", "jax", "einops", "triton", "timm", "transformers",
                            "torchvision", "torchaudio", "apex", "flash_attn", "xformers", "typing_extensions",
                            "functorch", "opt_einsum", "hdecomp"})

SELF_MODULE_METHODS = frozenset("""
children named_children modules named_modules parameters named_parameters buffers named_buffers state_dict
train eval to cpu cuda float double half bfloat16 type requires_grad_ zero_grad extra_repr get_submodule
get_parameter get_buffer
""".split())
PRIVATE_HOOK_ATTRS = frozenset({"_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                                "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs",
                                "_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks"})
CALL_MACHINERY = frozenset({"__call__", "_call_impl", "_wrapped_call_impl", "__getattr__", "__getattribute__"})
PATCH_ATTRS = frozenset({"forward", "__call__", "_call_impl", "_wrapped_call_impl", "__class__"})
HOOK_RE = re.compile(r"^register_(module_)?(forward|full_backward|backward|forward_pre|full_backward_pre)"
                     r"(_pre)?_hook$|^register_\w*hook$")

OP_NAMES_BINOP: dict[type[ast.AST], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floor_divide",
    ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "bitwise_left_shift",
    ast.RShift: "bitwise_right_shift", ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor", ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
    ast.GtE: "ge", ast.USub: "neg", ast.Invert: "bitwise_not",
}
OP_SYMBOLS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.USub: "-",
    ast.Invert: "~",
}

_MAX_HELPER_DEPTH = 12


# ---------------------------------------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------------------------------------

# Kinds of abstract value:
DATA = "data"            # a tensor, or a value of unknown origin (treated as a tensor)
SCALAR = "scalar"        # int/float/str/bool/None, shapes, sizes, config values
TCONST = "tconst"        # a tensor kept as state (module-level / class / self attribute): never a residual
SELF = "self"
CHILD = "child"          # a child module (instance of a class imported from children/)
CHILDREN = "children"    # ModuleList / ModuleDict / Sequential holding children
CHILD_ATTR = "child_attr"  # an attribute of a child (self.fc.weight, self.fc.method)
CHILD_CLASS = "child_class"
CHILD_MODULE = "child_module"  # a python module under children/ (or possibly so)
REF = "ref"              # a qualified name in an external namespace: torch..., math..., numpy..., third party
LOCAL_FN = "local_fn"    # a def / lambda / method of this file
LOCAL_CLASS = "local_class"
RAW_MODULE = "raw_module"  # instance of an nn module that is not a child
PLUMB_MODULE = "plumb_module"  # nn.Identity / nn.Flatten / nn.Unflatten instances
SEQ = "seq"              # list / tuple / dict / set (elts when the shape is known, else elem)
METHOD = "method"        # a bound method: recv + name
SUPER = "super"
AUTOGRAD_APPLY = "autograd_apply"

_TENSORISH = frozenset({DATA, TCONST, CHILD_ATTR})
_SUSPECT = frozenset({REF, METHOD, CHILD_ATTR, LOCAL_FN, RAW_MODULE})  # kinds value_use() must look at


@dataclass(slots=True, eq=False)
class Val:
    """An abstract value: what an expression may evaluate to, and how it got there (for messages).
    Treated as immutable (copies via `replace`); not frozen because frozen dataclasses are slow to build
    and this runs on every keystroke."""

    kind: str
    qual: str = ""                    # REF: dotted name; METHOD: method name; LOCAL_FN/CLASS: name
    via: str = ""                     # "", "alias", "dynamic", "import", "star"
    origin: tuple[RelatedLocation, ...] = ()
    node: Any = None                  # LOCAL_FN: FunctionDef/Lambda; LOCAL_CLASS: ClassDef; RAW_MODULE: ctor
    elem: Val | None = None           # SEQ: merged element; METHOD: receiver
    elts: tuple[Val, ...] | None = None
    bound: bool = False               # LOCAL_FN: a bound method (self / cls is implicit)
    closure: Any = None               # LOCAL_FN: env captured by a lambda / nested def
    ctx: Any = None                   # LOCAL_FN: the class the method belongs to

    def with_origin(self, loc: RelatedLocation, via: str = "alias") -> Val:
        return replace(self, origin=(*self.origin, loc), via=via if self.via in ("", "import") else self.via)


V_DATA = Val(DATA)
V_PYDATA = Val(DATA, qual="python-number")  # x.item(), x.tolist(), float(x): tensor values as Python numbers
# A child's output (and plumbing of it): `ctx` is the loop path where the child was called (() outside any
# loop; see _ForwardEval.loop_path), so that a loop can tell a residual of this iteration's child output
# (`x = x + blk(x)`) from a reduction over something else (`total = total + x[:, t]`).
CHILD_OUT = "child-output"
V_CHILD_OUT = Val(DATA, qual=CHILD_OUT, ctx=())
V_EMPTY = Val(DATA, qual="empty")  # the element of an empty list: merges into whatever is appended
V_SCALAR = Val(SCALAR)
V_SELF = Val(SELF)
V_CHILD = Val(CHILD)


def _merge(a: Val | None, b: Val) -> Val:
    """Join of two abstract values (flow-insensitive): keep the more suspicious one."""
    if a is None or a == b or a is V_EMPTY:
        return b
    if b is V_EMPTY:
        return a
    if a.kind == DATA and b.kind == DATA and (a.qual == CHILD_OUT or b.qual == CHILD_OUT):
        # a plain tensor beats a child's output; of two child outputs, the one from the outer loop
        if a.qual != CHILD_OUT:
            return a
        if b.qual != CHILD_OUT:
            return b
        return a if len(a.ctx or ()) <= len(b.ctx or ()) else b
    rank = {REF: 9, LOCAL_FN: 8, RAW_MODULE: 8, METHOD: 7, AUTOGRAD_APPLY: 9, TCONST: 6, DATA: 5,
            CHILD_ATTR: 5, SEQ: 4, CHILD: 3, CHILDREN: 3, SCALAR: 1}
    return a if rank.get(a.kind, 2) >= rank.get(b.kind, 2) else b


_HELPER_PATH: tuple[Any, ...] = ("helper",)
# Builtins that are data types, fine as constructor arguments (a dtype-like `float`), and the factories whose
# result is a function (functools.partial(F.gelu, ...)).
_DATA_BUILTINS = frozenset("int float bool str complex bytes None True False tuple list dict set frozenset range "
                           "slice".split())
_CALLABLE_FACTORIES = frozenset({"functools.partial", "functools.partialmethod", "functools.wraps",
                                 "functools.lru_cache", "functools.cache", "functools.singledispatch",
                                 "operator.methodcaller", "operator.attrgetter", "operator.itemgetter",
                                 "types.MethodType", "types.FunctionType"})


def _root_name(node: ast.expr) -> str | None:
    """`acc`, `acc[:, t]`, `acc.data[0]` -> "acc"; None for anything that is not a name read."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _key_kind(v: Val) -> str:
    """An argument's part of a helper-cache key: its kind, and for a child's output the loops it ran in
    (what the helper returns may be that output, fresh or not)."""
    return v.kind if v.qual != CHILD_OUT else f"{v.kind}:{CHILD_OUT}:{v.ctx}"


def _is_child_out(v: Val) -> bool:
    return v.kind == DATA and v.qual == CHILD_OUT


def _as_data(v: Val) -> Val:
    """An attribute of a tensor used as a value, not called (`out.values`, `res.indices`): data."""
    if v.kind == METHOD and v.elem is not None and v.elem.kind in _TENSORISH:
        return V_DATA
    return v


def _seq(elem: Val | None = None, elts: Iterable[Val] | None = None) -> Val:
    el = tuple(elts) if elts is not None else None
    merged = elem
    if el:
        for e in el:
            merged = _merge(merged, e)
    return Val(SEQ, elem=merged or V_DATA, elts=el)


def _camel_to_op(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.lower().replace("re_l_u", "relu")


def _canon_op(name: str) -> str:
    if name.startswith("__") and name.endswith("__"):
        return name.strip("_")
    return name.strip("_") or name


def _rng(node: Any) -> SourceRange:
    line = getattr(node, "lineno", 1) or 1
    col = getattr(node, "col_offset", 0) or 0
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    if end_col is None:
        end_col = col + 1
    return SourceRange(line, col, end_line, end_col)


def _dotted(node: ast.AST) -> str | None:
    """`torch.nn.functional.relu` -> that string; None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def spelled_of(an: Any, node: ast.AST) -> str:
    return str(an.snippet(node))


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


# ---------------------------------------------------------------------------------------------------------
# Classification of qualified names
# ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RefClass:
    """What calling a qualified name does: compute / plumb / shape / neutral / nn_class / container /
    plumb_module / parameter / autograd / math / operator / external / const, and the op name."""

    what: str
    op: str = ""


@functools.lru_cache(maxsize=4096)
def classify_method(name: str) -> RefClass:
    """A method called on a tensor."""
    if name in DUNDER_BINOPS:
        return RefClass("binop", name)
    if name in SHAPE_QUERIES or name in ("tolist",):
        return RefClass("shape", name)
    if name in PLUMBING_OPS:
        return RefClass("plumb", name)
    if name in DUNDER_COMPUTE:
        return RefClass("compute", _canon_op(name))
    if name in TENSOR_METHODS:
        return RefClass("compute", _canon_op(name))
    return RefClass("other", name)


@functools.lru_cache(maxsize=4096)
def classify_ref(qual: str) -> RefClass:
    parts = qual.split(".")
    root, last = parts[0], parts[-1]
    if root == "torch":
        if qual in TORCH_NAMESPACES:
            return RefClass("namespace", last)
        if len(parts) >= 2 and parts[1] == "ops":
            if len(parts) < 4:
                return RefClass("namespace", last)
            op = parts[3]
            return RefClass("plumb" if op in PLUMBING_OPS else "compute", _canon_op(op))
        if len(parts) >= 3 and parts[1] == "Tensor":
            rc = classify_method(parts[2])
            return rc if rc.what != "other" else RefClass("neutral", parts[2])
        if parts[1:2] == ["autograd"] and last == "Function":
            return RefClass("autograd", last)
        for ns in COMPUTE_NAMESPACES:
            if qual.startswith(ns + "."):
                return RefClass("compute", _canon_op(parts[len(ns.split("."))]))
        if len(parts) >= 2 and parts[1] == "nn":
            if last in NN_PARAMETERS:
                return RefClass("parameter", last)
            if last in NN_CONTAINERS:
                return RefClass("container", last)
            if last == "Module":
                return RefClass("neutral", last)
            if last[:1].isupper():
                return RefClass("nn_class", last)
            if parts[-2:-1] == ["functional"]:
                return RefClass("compute", _canon_op(last))
            return RefClass("compute", _canon_op(last))
        if len(parts) == 2:
            if last in TORCH_DTYPES_CONSTS:
                return RefClass("const", last)
            if last in TORCH_NEUTRAL:
                return RefClass("neutral", last)
            if last in SHAPE_QUERIES:
                return RefClass("shape", last)
            if last in PLUMBING_OPS:
                return RefClass("plumb", last)
            if last[:1].isupper():
                return RefClass("neutral", last)
            return RefClass("compute", _canon_op(last))
        if parts[1] in NEUTRAL_TORCH_NAMESPACES:
            return RefClass("neutral", last)
        return RefClass("compute", _canon_op(last))
    if root in MATH_MODULES:
        if len(parts) == 1:
            return RefClass("namespace", last)
        if last in ("pi", "e", "inf", "nan", "tau", "newaxis") or last[:1].isupper() or last in (
                "float32", "float64", "float16", "int32", "int64", "int8", "uint8", "bool_", "ndarray"):
            return RefClass("const", last)
        return RefClass("math", _canon_op(last))
    if "[]" in qual:
        return RefClass("external", last)  # something fetched out of a module by subscript: unknown
    if qual in ("copy.copy", "copy.deepcopy"):
        return RefClass("copy", last)
    if root == "operator":
        if last == "methodcaller":
            return RefClass("dynamic", last)
        if last in OPERATOR_BINOPS:
            return RefClass("operator", last)
        if last in OPERATOR_PLUMBING or len(parts) == 1:
            return RefClass("neutral", last)
        return RefClass("math", _canon_op(last))
    if root == "einops":
        if len(parts) == 1:
            return RefClass("namespace", last)
        return RefClass("plumb" if last in EINOPS_PLUMBING else "compute", last)
    if root in DYNAMIC_MODULES and len(parts) >= 2:
        return RefClass("dynamic", last)
    if root in sys.stdlib_module_names or root in KNOWN_THIRD_PARTY_PLUMBING:
        return RefClass("neutral", last)
    return RefClass("external", _canon_op(last))


# ---------------------------------------------------------------------------------------------------------
# The analysis
# ---------------------------------------------------------------------------------------------------------

@dataclass
class _HelperResult:
    ret: Val
    violations: list[AntiCheatViolation]


@dataclass
class _ClassInfo:
    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    attrs: dict[str, Val] = field(default_factory=dict)        # class-level attributes
    bases: list[_ClassInfo] = field(default_factory=list)      # local base classes (for method lookup)
    is_module: bool = False
    is_autograd: bool = False


_HelperKey = tuple[int, tuple[str, ...]]


@dataclass(slots=True)
class _StmtRecord:
    """What analysing one statement of forward() did (see _Analyzer.run_forward_memoized)."""

    env_before: dict[str, Val]
    ret_before: Val | None
    reports: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]]
    helper_reads: list[tuple[_HelperKey, _HelperResult]]
    helper_news: list[tuple[_HelperKey, Any, _HelperResult]]
    env_after: dict[str, Val]
    ret_after: Val | None
    max_line: int = -1  # the last line any position in the record refers to (computed when needed)

    def last_line(self) -> int:
        if self.max_line < 0:
            found = [0]
            for _key, v in self.reports:
                _violation_lines(v, found)
            for _hkey, _node, res in self.helper_news:
                _val_lines(res.ret, found, set())
                for v in res.violations:
                    _violation_lines(v, found)
            seen: set[int] = set()
            for env in (self.env_before, self.env_after):
                for val in env.values():
                    _val_lines(val, found, seen)
            _val_lines(self.ret_before, found, seen)
            _val_lines(self.ret_after, found, seen)
            self.max_line = found[0]
        return self.max_line


def _violation_lines(v: AntiCheatViolation, found: list[int]) -> None:
    for r in (v.range, *(rel.range for rel in v.related)):
        if r is not None and r.end_line > found[0]:
            found[0] = r.end_line


def _val_lines(v: Val | None, found: list[int], seen: set[int]) -> None:
    """The last line an abstract value refers to: its origins and its node (deeply)."""
    if v is None or id(v) in seen:
        return
    seen.add(id(v))
    for loc in v.origin:
        found[0] = max(found[0], loc.range.end_line)
    if v.node is not None:
        found[0] = max(found[0], getattr(v.node, "end_lineno", 0) or 0)
    if v.qual == CHILD_OUT and v.ctx:
        for pos in v.ctx:  # the loops the child ran in
            if isinstance(pos, tuple):
                found[0] = max(found[0], pos[0])
    _val_lines(v.elem, found, seen)
    for e in v.elts or ():
        _val_lines(e, found, seen)
    for c in (v.closure or {}).values():
        _val_lines(c, found, seen)


@dataclass(slots=True)
class _ScanRecord:
    """What scan_file() reported (before de-duplication) and the import lookups it made."""

    reports: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]]
    child_lookups: list[tuple[str, int, bool | None]]


class AnalysisMemo:
    """Per-document memory between analyses of successive versions of one file (the language server keeps
    one per open document): the result of each statement of forward(), valid while the rest of the file
    is unchanged. Results are identical to a fresh analysis; only the time differs."""

    def __init__(self) -> None:
        self.context: tuple[Any, ...] | None = None
        self.records: dict[tuple[int, int, str], _StmtRecord] = {}
        self.scan: _ScanRecord | None = None
        self.body_end = 0
        self.lines: list[str] = []


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _first_line(s: ast.stmt) -> int:
    """A statement's first line, decorators included."""
    if type(s) not in _DEFS or not s.decorator_list:  # type: ignore[attr-defined]
        return s.lineno
    return min(s.lineno, *(d.lineno for d in s.decorator_list))  # type: ignore[attr-defined]


def _same_val(a: Val | None, b: Val | None) -> bool:
    """Structural equality of abstract values (Val compares by identity); AST nodes by identity."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return (a.kind == b.kind and a.qual == b.qual and a.via == b.via and a.bound == b.bound
            and a.ctx == b.ctx and a.node is b.node and a.origin == b.origin and _same_val(a.elem, b.elem)
            and (a.elts is b.elts or (a.elts is not None and b.elts is not None and len(a.elts) == len(b.elts)
                                      and all(_same_val(x, y) for x, y in zip(a.elts, b.elts, strict=True))))
            and (a.closure is b.closure or (a.closure is not None and b.closure is not None
                                            and _same_env(a.closure, b.closure))))


def _same_env(a: dict[str, Val], b: dict[str, Val]) -> bool:
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for k, v in a.items():
        w = b.get(k)
        if w is not v and not _same_val(v, w):
            return False
    return True


class _Analyzer:
    """One analysis of one file. Violations are appended to `self.out`; helper bodies are analysed into
    their own lists and summarised at the call site."""

    def __init__(self, source: str, tree: ast.Module, path: str | None, memo: AnalysisMemo | None = None) -> None:
        self.source = source
        self.tree = tree
        self.path = path
        self.lines = source.splitlines()
        self.out: list[AntiCheatViolation] = []
        self.globals: dict[str, Val] = {}
        self.star_roots: list[str] = []        # `from torch import *` and friends
        self.classes: dict[str, _ClassInfo] = {}
        self.target: _ClassInfo | None = None
        self.self_attrs: dict[str, Val] = {}
        self.dynamic_self_attr: Val | None = None
        self.helper_cache: dict[_HelperKey, _HelperResult] = {}
        self.helper_stack: list[int] = []
        self.reported: set[tuple[str, int, int, int, int]] = set()
        self.forward_node: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        self.base_dir = Path(path).resolve().parent if path else None
        self.top_level_stmts: set[int] = set()
        self.memo = memo
        self.memo_lines: list[str] = []
        self.context_key: tuple[Any, ...] | None = None
        self.body_end = 0
        # forward() statement memo (see AnalysisMemo): every report to `out` while a statement runs, before
        # de-duplication, and a count of the changes forward() made to analyzer-wide state
        self.recording: list[tuple[tuple[str, int, int, int, int], AntiCheatViolation]] | None = None
        self.helper_reads: list[tuple[_HelperKey, _HelperResult]] = []   # cache hits while recording
        self.helper_news: list[tuple[_HelperKey, Any, _HelperResult]] = []  # entries added while recording
        self.mutations = 0
        self.child_lookups: list[tuple[str, int, bool | None]] | None = None  # is_child_module_name calls
        self.reads_forward = False  # forward()'s body analysed as a helper (from module level, __init__...)
        self.new_records: dict[tuple[int, int, str], _StmtRecord] = {}
        self.new_scan: _ScanRecord | None = None
        self._single_assignments: dict[str, ast.expr] | None = None

    # -- reporting ------------------------------------------------------------------------------------

    def line_text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def loc(self, node: Any, message: str) -> RelatedLocation:
        return RelatedLocation(message, _rng(node), self.path)

    def report(self, rule: str, node: Any, message: str, op: str | None = None,
               related: Iterable[RelatedLocation] = (), details: dict[str, Any] | None = None,
               sink: list[AntiCheatViolation] | None = None, rng: SourceRange | None = None) -> None:
        r = rng or _rng(node)
        key = (rule, r.line, r.col, r.end_line, r.end_col)
        target = self.out if sink is None else sink
        if target is self.out:
            if self.recording is None and key in self.reported:
                return
        spec = RULES[rule]
        v = AntiCheatViolation(
            rule=rule, message=message, kind="static", severity=spec.severity, file=self.path, range=r,
            line_text=self.line_text(r.line), allowed_instead=spec.instead(op), op=op,
            related=list(related), details=dict(details or {}))
        if target is self.out:
            if self.recording is not None:
                self.recording.append((key, v))  # recorded before de-duplication, so that a replay is exact
            self.report_once(key, v)
        else:
            target.append(v)

    def report_once(self, key: tuple[str, int, int, int, int], v: AntiCheatViolation) -> None:
        if key not in self.reported:
            self.reported.add(key)
            self.out.append(v)

    # -- module level ---------------------------------------------------------------------------------

    def run(self) -> list[AntiCheatViolation]:
        self.top_level_stmts = {id(s) for s in self.tree.body}
        self.bind_module(self.tree.body)
        self.pick_target()
        if self.target is not None:
            self.collect_self_attrs(self.target)
        context = self.context_key = self.memo_context()
        if context is None:
            self.scan_file()
        else:
            self.scan_file_memoized(context)
        if self.target is not None and self.forward_node is not None:
            self.analyse_forward(self.target, self.forward_node)
        if self.memo is not None:
            # a file whose module level runs forward() (quietly) depends on forward's body everywhere
            self.memo.context = None if self.reads_forward else context
            self.memo.records = self.new_records
            self.memo.scan = self.new_scan
            self.memo.body_end, self.memo.lines = self.body_end, self.memo_lines
        self.out.sort(key=lambda v: (v.line, v.range.col if v.range else 0, v.rule))
        return self.out

    def memo_context(self) -> tuple[Any, ...] | None:
        """What everything but forward()'s own statements depends on, for the memo: the text around
        forward's body and how the imports resolved (they look at the disk). Where the body ends is
        `body_end`: the text after it may have moved (lines added or removed inside forward)."""
        fwd = self.forward_node
        if self.memo is None or fwd is None or not fwd.body or \
                self.source.count("\r") != self.source.count("\r\n"):  # lone CRs: `ast` and the keys disagree
            return None
        lines = self.source.split("\n")
        self.memo_lines = lines
        first = _first_line(fwd.body[0])
        last = self.body_end = fwd.body[-1].end_lineno or fwd.body[-1].lineno
        return ("\n".join(lines[: first - 1]), "\n".join(lines[last:]), self.path,
                tuple((k, v.kind, v.qual) for k, v in self.globals.items()))

    def unchanged_lines(self, memo: AnalysisMemo) -> int:
        """How many leading lines the memo's version and this one share."""
        old, new = memo.lines, self.memo_lines
        return next((n for n, (x, y) in enumerate(zip(old, new, strict=False)) if x != y), min(len(old), len(new)))

    def scan_file_memoized(self, context: tuple[Any, ...]) -> None:
        """scan_file() never looks inside forward(): while the text around forward() is unchanged, so are
        its reports (replayed, before de-duplication, as they were made)."""
        memo = self.memo
        assert memo is not None
        old = memo.scan if memo.context == context and not self.reads_forward else None
        if old is not None and memo.body_end != self.body_end:
            # lines added or removed inside forward(): the reports are still good if none lies below the edit
            unchanged = self.unchanged_lines(memo)
            found = [0]
            for _key, v in old.reports:
                _violation_lines(v, found)
            if found[0] > unchanged:
                old = None
        if old is not None and all(self.is_child_module_name(m, lv) == r for m, lv, r in old.child_lookups):
            for key, v in old.reports:
                self.report_once(key, v)
            self.new_scan = old
            return
        self.recording, self.child_lookups, self.helper_reads, self.helper_news = [], [], [], []
        try:
            self.scan_file()
            # helper analyses made here would be missing from the helper cache after a replay
            if not self.helper_reads and not self.helper_news:
                self.new_scan = _ScanRecord(self.recording, self.child_lookups)
        finally:
            self.recording, self.child_lookups, self.helper_reads, self.helper_news = None, None, [], []

    def is_child_module_name(self, module: str, level: int = 0) -> bool | None:
        """True: under children/. False: known not to be (stdlib, torch, third party, helper file).
        None: a local helper file outside children/."""
        found = self._is_child_module_name(module, level)
        if self.child_lookups is not None:
            self.child_lookups.append((module, level, found))
        return found

    def _is_child_module_name(self, module: str, level: int) -> bool | None:
        top = module.split(".")[0]
        if level > 0:
            return True if top == "children" else None
        if top == "children":
            return True
        if top in KNOWN_PACKAGES or top in sys.stdlib_module_names:
            return False
        if self.base_dir is not None:
            child_dir = self.base_dir / "children"
            try:
                if (child_dir / f"{top}.py").is_file() or (child_dir / top).is_dir():
                    return True
                if (self.base_dir / f"{top}.py").is_file() or (self.base_dir / top).is_dir():
                    return None
            except OSError:
                return False
        # Not found (an unsaved buffer, a child not written yet): a bare module name is most likely a
        # child file on sys.path; its functions are still never accepted as plumbing in forward().
        return True

    def bind_import(self, node: ast.Import | ast.ImportFrom, env: dict[str, Val]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                loc = self.loc(node, f"`{name}` imported here")
                child = self.is_child_module_name(name)
                if alias.asname:
                    val = Val(CHILD_MODULE, qual=name, origin=(loc,)) if child else Val(REF, qual=name)
                    env[alias.asname] = val
                else:
                    top = name.split(".")[0]
                    env[top] = Val(CHILD_MODULE, qual=top) if child else Val(REF, qual=top)
            return
        module = node.module or ""
        child = self.is_child_module_name(module, node.level)
        for alias in node.names:
            local = alias.asname or alias.name
            loc = self.loc(node, f"`{local}` imported from `{'.' * node.level}{module}` here")
            if alias.name == "*":
                if not child and child is not None:
                    self.star_roots.append(module)
                continue
            if child:
                kind = CHILD_CLASS if alias.name[:1].isupper() else CHILD_MODULE
                env[local] = Val(kind, qual=f"{module}.{alias.name}", origin=(loc,))
            elif child is None:
                # helper file outside children/: reported at the import; its names are unknown code
                env[local] = Val(REF, qual=f"<helper:{module}>.{alias.name}", origin=(loc,), via="import")
            else:
                env[local] = Val(REF, qual=f"{module}.{alias.name}" if module else alias.name,
                                 origin=(loc,) if alias.asname or module.startswith("torch") else (),
                                 via="import")

    def bind_module(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.bind_import(stmt, self.globals)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.globals[stmt.name] = Val(LOCAL_FN, qual=stmt.name, node=stmt)
            elif isinstance(stmt, ast.ClassDef):
                self.bind_class(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                value = stmt.value
                if value is None:
                    continue
                val = self.eval_quiet(value, self.globals)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    self.bind_target_quiet(t, val, self.globals, value)
            elif isinstance(stmt, ast.If):
                if self._is_main_guard(stmt.test):
                    continue
                self.bind_module(stmt.body)
                self.bind_module(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                self.bind_module(stmt.body)
                for h in stmt.handlers:
                    self.bind_module(h.body)
                self.bind_module(stmt.orelse)
                self.bind_module(stmt.finalbody)
            elif isinstance(stmt, ast.With):
                self.bind_module(stmt.body)

    @staticmethod
    def _is_main_guard(test: ast.expr) -> bool:
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id == "__name__")

    @staticmethod
    def _fn_kind(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> str:
        if isinstance(fn, ast.Lambda):
            return "function"
        for d in fn.decorator_list:
            name = _dotted(d) or ""
            if name.endswith("staticmethod"):
                return "staticmethod"
            if name.endswith("classmethod"):
                return "classmethod"
            if name.endswith("property") or name.endswith("cached_property"):
                return "property"
        return "function"

    def bind_target_quiet(self, target: ast.expr, val: Val, env: dict[str, Val], value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST, METHOD):
                val = val.with_origin(self.loc(value, f"`{target.id}` bound to `{self.snippet(value)}` here"))
            env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, t in enumerate(target.elts):
                self.bind_target_quiet(t, self.unpack(val, i), env, value)

    def snippet(self, node: ast.AST, limit: int = 60) -> str:
        """The source text of a node, on one line (from the line cache: get_source_segment re-splits the
        whole file on every call, which made big files quadratic)."""
        line, end_line = getattr(node, "lineno", 0), getattr(node, "end_lineno", None)
        col, end_col = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None)
        if not line or end_line is None or end_col is None or end_line - line > 20 or \
                end_line > len(self.lines):
            return "..."
        if line == end_line:
            text = self.lines[line - 1].encode()[col:end_col].decode(errors="replace")
        else:
            parts = [self.lines[line - 1].encode()[col:].decode(errors="replace"),
                     *self.lines[line:end_line - 1],
                     self.lines[end_line - 1].encode()[:end_col].decode(errors="replace")]
            text = "\n".join(parts)
        text = " ".join(text.split()) or "..."
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def bind_class(self, cls: ast.ClassDef) -> None:
        info = _ClassInfo(cls)
        self.classes[cls.name] = info
        self.globals[cls.name] = Val(LOCAL_CLASS, qual=cls.name, node=cls)
        for b in cls.bases:
            name = _dotted(b) or ""
            bval = self.eval_quiet(b, self.globals)
            if bval.kind == LOCAL_CLASS and bval.qual in self.classes:
                base = self.classes[bval.qual]
                info.bases.append(base)
                info.is_module |= base.is_module
                info.is_autograd |= base.is_autograd
            elif bval.kind == REF:
                rc = classify_ref(bval.qual)
                if rc.what == "autograd" or bval.qual.endswith("autograd.Function"):
                    info.is_autograd = True
                elif bval.qual.startswith("torch.nn") or name.endswith("Module"):
                    info.is_module = True
            elif bval.kind == CHILD_CLASS or name.endswith("Module"):
                info.is_module = True
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.methods[stmt.name] = stmt
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                self.top_level_stmts.add(id(stmt))
                val = self.eval_quiet(stmt.value, self.globals)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST):
                            val = val.with_origin(self.loc(stmt.value, f"class attribute `{t.id}` bound to "
                                                                       f"`{self.snippet(stmt.value)}` here"))
                        info.attrs[t.id] = val

    def find_method(self, info: _ClassInfo, name: str, seen: set[int] | None = None) -> tuple[
            ast.FunctionDef | ast.AsyncFunctionDef | None, _ClassInfo | None]:
        seen = seen or set()
        if id(info) in seen:
            return None, None
        seen.add(id(info))
        if name in info.methods:
            return info.methods[name], info
        for b in info.bases:
            m, owner = self.find_method(b, name, seen)
            if m is not None:
                return m, owner
        return None, None

    def find_class_attr(self, info: _ClassInfo, name: str, seen: set[int] | None = None) -> Val | None:
        seen = seen or set()
        if id(info) in seen:
            return None
        seen.add(id(info))
        if name in info.attrs:
            return info.attrs[name]
        for b in info.bases:
            v = self.find_class_attr(b, name, seen)
            if v is not None:
                return v
        return None

    def pick_target(self) -> None:
        info = self.classes.get("RefactoredModel")
        fallback = False
        if info is None:
            for c in self.classes.values():
                if c.is_module and self.find_method(c, "forward")[0] is not None:
                    info, fallback = c, True
                    break
        if info is None:
            self.report("HD002", None,
                        "no `RefactoredModel` class (nor any nn.Module subclass with a forward()) in this file",
                        rng=SourceRange(1, 0, 1, len(self.lines[0]) if self.lines else 0))
            return
        self.target = info
        fwd, _ = self.find_method(info, "forward")
        if fwd is None:
            self.report("HD002", info.node, f"class `{info.node.name}` has no forward() method",
                        rng=self.header_range(info.node))
            return
        self.forward_node = fwd
        if fallback:
            self.report("HD003", info.node, f"no class named `RefactoredModel`; checked `{info.node.name}`",
                        rng=self.header_range(info.node))

    def header_range(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> SourceRange:
        """The `class Name` / `def name` part of a definition (not its whole body)."""
        text = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
        col = node.col_offset
        idx = text.find(node.name, col)
        end = idx + len(node.name) if idx >= 0 else col + 1
        return SourceRange(node.lineno, col, node.lineno, end)

    # -- the model's attributes -----------------------------------------------------------------------

    def collect_self_attrs(self, info: _ClassInfo) -> None:
        """Attributes set on `self` in every method but forward (children, aliases, raw modules, state)."""
        classes = [info]
        i = 0
        while i < len(classes):
            for b in classes[i].bases:
                if b not in classes:
                    classes.append(b)
            i += 1
        for c in reversed(classes):
            methods = sorted(c.methods.values(), key=lambda m: (m.name != "__init__", m.lineno))
            for m in methods:
                if m is self.forward_node:
                    continue
                env = dict(self.globals)
                args = m.args.posonlyargs + m.args.args
                if args and self._fn_kind(m) == "function":
                    env[args[0].arg] = V_SELF
                    defaults: list[ast.expr | None] = [None] * (len(args) - len(m.args.defaults))
                    defaults += m.args.defaults
                    for a, d in zip(args[1:], defaults[1:], strict=False):
                        # constructor arguments come from get_init_inputs() (numbers); a default that is a
                        # class or function (act_layer=nn.GELU) is what will be used
                        dv = self.eval_quiet(d, self.globals) if d is not None else V_SCALAR
                        env[a.arg] = dv.with_origin(self.loc(d, f"default `{a.arg}={self.snippet(d)}`")) \
                            if d is not None and dv.kind in (REF, LOCAL_FN, LOCAL_CLASS) else V_SCALAR
                self.collect_attrs_in(m.body, env)

    def collect_attrs_in(self, body: list[ast.stmt], env: dict[str, Val]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                val = self.eval_quiet(stmt.value, env)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    self.collect_target(t, val, env, stmt.value)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                f = call.func
                fname = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")
                owner_is_self = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    env.get(f.value.id) is V_SELF
                if fname in ("add_module", "register_module", "register_buffer", "register_parameter",
                             "setattr") and len(call.args) >= 2:
                    if fname == "setattr":
                        if not (isinstance(call.args[0], ast.Name) and env.get(call.args[0].id) is V_SELF):
                            continue
                        name_node, value_node = call.args[1], call.args[2] if len(call.args) > 2 else None
                    elif owner_is_self:
                        name_node, value_node = call.args[0], call.args[1]
                    else:
                        continue
                    if value_node is None:
                        continue
                    val = self.eval_quiet(value_node, env)
                    if fname in ("register_buffer", "register_parameter"):
                        val = Val(TCONST, origin=(self.loc(call, "registered here"),))
                    name = _const_str(name_node)
                    if name is not None:
                        self.set_self_attr(name, val, value_node)
                    else:
                        self.dynamic_self_attr = _merge(self.dynamic_self_attr, val)
                else:
                    # self.layers.append(Block(...)): children built here are checked (HD214) too
                    self.eval_quiet(call, env)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                it = self.eval_quiet(stmt.iter, env)
                self.bind_target_quiet(stmt.target, self.iter_elem(it), env, stmt.iter)
                self.collect_attrs_in(stmt.body, env)
                self.collect_attrs_in(stmt.orelse, env)
            elif isinstance(stmt, (ast.If, ast.While)):
                self.collect_attrs_in(stmt.body, env)
                self.collect_attrs_in(stmt.orelse, env)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                self.collect_attrs_in(stmt.body, env)
            elif isinstance(stmt, ast.Try):
                self.collect_attrs_in(stmt.body, env)
                for h in stmt.handlers:
                    self.collect_attrs_in(h.body, env)
                self.collect_attrs_in(stmt.orelse, env)
                self.collect_attrs_in(stmt.finalbody, env)

    def collect_target(self, t: ast.expr, val: Val, env: dict[str, Val], value: ast.expr) -> None:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and env.get(t.value.id) is V_SELF:
            self.set_self_attr(t.attr, val, value)
        elif isinstance(t, (ast.Tuple, ast.List)):  # self.a, self.b = a, b
            for i, el in enumerate(t.elts):
                self.collect_target(el.value if isinstance(el, ast.Starred) else el, self.unpack(val, i), env, value)
        elif isinstance(t, ast.Name):
            self.bind_target_quiet(t, val, env, value)

    def set_self_attr(self, name: str, val: Val, value: ast.expr) -> None:
        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, TCONST, METHOD, PLUMB_MODULE):
            val = val.with_origin(self.loc(value, f"`self.{name}` bound to `{self.snippet(value)}` here"))
        self.self_attrs[name] = _merge(self.self_attrs.get(name), val)

    # -- quiet evaluation (module level, __init__): kinds only, no forward rules --------------------------

    def eval_quiet(self, node: ast.expr, env: dict[str, Val]) -> Val:
        ev = _ForwardEval(self, env, sink=[], quiet=True)
        try:
            return ev.ev(node)
        except RecursionError:
            return V_DATA

    def iter_elem(self, it: Val) -> Val:
        if it.kind == SEQ:
            return it.elem or V_DATA
        if it.kind == CHILDREN:
            return V_CHILD
        if it.kind == SCALAR:
            return V_SCALAR
        return V_DATA

    def unpack(self, val: Val, i: int) -> Val:
        if val.kind == SEQ:
            if val.elts is not None and i < len(val.elts):
                return val.elts[i]
            return val.elem or V_DATA
        if val.kind in (SCALAR, CHILDREN):
            return V_SCALAR if val.kind == SCALAR else V_CHILD
        if val.kind == DATA and val.qual == CHILD_OUT:
            return val  # `y, state = self.cell(x, state)`: still the child's output
        return V_DATA

    # -- whole-file checks (everything but forward itself) -----------------------------------------------

    def scan_file(self) -> None:
        """Whole-file checks on every node except forward() itself (forward is judged by _ForwardEval)."""
        stack: list[ast.AST] = [self.tree]
        skip = self.forward_node
        ast_type = ast.AST
        while stack:
            node = stack.pop()
            t = type(node)
            if t is ast.Import or t is ast.ImportFrom:
                self.check_import(node)  # type: ignore[arg-type]
            elif t is ast.Call:
                self.check_call_anywhere(node)  # type: ignore[arg-type]
            elif t is ast.Assign or t is ast.AugAssign or t is ast.AnnAssign:
                self.check_assign_anywhere(node)  # type: ignore[arg-type]
            elif t is ast.ClassDef:
                self.check_class(node)  # type: ignore[arg-type]
            elif t is ast.Name:
                ident = node.id  # type: ignore[attr-defined]
                if ident in BUILTIN_DYNAMIC and ident not in self.globals:
                    self.report("HD209", node, f"`{ident}` runs code that static analysis cannot see", op=ident)
                continue
            elif t is ast.Constant:
                continue
            elif t is ast.Attribute and node.attr in PRIVATE_HOOK_ATTRS:  # type: ignore[attr-defined]
                self.report("HD206", node, f"touches `{node.attr}`, a module's private hook table")  # type: ignore[attr-defined]
            # children by hand: ast.iter_child_nodes is twice as slow on big files
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast_type) and item is not skip:
                            stack.append(item)
                elif isinstance(value, ast_type) and value is not skip:
                    stack.append(value)

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            mods = [(a.name, 0) for a in node.names]
        else:
            mods = [(node.module or "", node.level)]
            if node.module is None:
                mods = [(a.name, node.level) for a in node.names]
        for mod, level in mods:
            top = mod.split(".")[0]
            if top == "original" or mod.endswith(".original") or (level and mod == "original"):
                self.report("HD210", node, f"imports `{mod}`: the parent being decomposed")
            elif top in DYNAMIC_MODULES and top in ("importlib", "runpy", "imp", "marshal", "ctypes"):
                self.report("HD209", node, f"imports `{mod}`, which loads or runs code dynamically", op=top)
            elif self.is_child_module_name(mod, level) is None:
                where = "a relative import" if level else f"the local file `{top}.py`"
                self.report("HD211", node, f"imports {where} outside children/ (`{'.' * level}{mod}`)")

    def resolve_quiet(self, node: ast.expr) -> Val:
        return self.eval_quiet(node, self.globals)

    def check_call_anywhere(self, call: ast.Call) -> None:
        f = call.func
        if isinstance(f, ast.Attribute):
            if HOOK_RE.match(f.attr):
                self.report("HD206", call, f"`{f.attr}` installs a hook that runs code around modules",
                            op=f.attr)
                return
            if f.attr in ("register_buffer", "register_parameter"):
                self.report("HD204", call, f"`{f.attr}` gives the model its own state outside any child")
                return
            if f.attr in ("insert", "append", "extend") and self.is_sys_path(f.value):
                # the original workspace's refactored files put their own children/ folder on sys.path
                # (`sys.path.insert(0, str(Path(__file__).parent / "children"))`), agents their step folder
                # (`from children.x import Model` then lands in children/): both are allowed
                if call.args:
                    entries = [call.args[-1]]
                    if f.attr == "extend":
                        entries = self.listed_entries(call.args[-1])
                    self.check_sys_path_entries(call, entries)
                return
        name = f.id if isinstance(f, ast.Name) else None
        if name is not None and name in self.globals:
            g = self.globals[name]
            if g.kind == REF and HOOK_RE.match(g.qual.rsplit(".", 1)[-1]):
                self.report("HD206", call, f"`{name}` (`{g.qual}`) installs a hook that runs code around modules",
                            op=g.qual.rsplit(".", 1)[-1])
                return
        if name in ("setattr", "delattr") and call.args and name not in self.globals:
            tv = self.resolve_quiet(call.args[0]) if self._root_is_global(call.args[0]) else V_DATA
            attr = _const_str(call.args[1]) if len(call.args) > 1 else None
            if tv.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or attr in PATCH_ATTRS or \
                    self._is_class_of_self(call.args[0]):
                self.report("HD207", call, f"`{name}` rebinds `{self.snippet(call.args[0])}."
                                           f"{attr or '<name>'}` (monkeypatching)")
            return
        fv = self.resolve_quiet(f)
        if fv.kind == REF:
            rc = classify_ref(fv.qual)
            if rc.what == "nn_class":
                self.report("HD202", call, f"constructs the raw module `{self.snippet(f)}` outside children/",
                            op=_camel_to_op(rc.op))
            elif rc.what == "parameter":
                rule = "HD204" if rc.op in ("Buffer", "UninitializedBuffer") else "HD203"
                self.report(rule, call, f"creates its own `{rc.op}`: every parameter must live in a child")
            elif rc.what == "dynamic" and fv.qual.split(".")[0] in ("importlib", "runpy", "types", "marshal"):
                self.report("HD209", call, f"`{self.snippet(f)}` loads or builds code dynamically", op=rc.op)
        elif fv.kind == LOCAL_CLASS:
            info = self.classes.get(fv.qual)
            if info is not None and info.is_module and info is not self.target:
                self.report("HD212", call, f"instantiates `{fv.qual}`, a module class defined in this file, "
                                           f"not a child component under children/", op=_camel_to_op(fv.qual))

    # -- sys.path changes: where do they point? -----------------------------------------------------------

    def is_sys_path(self, node: ast.expr) -> bool:
        if _dotted(node) == "sys.path":
            return True
        if isinstance(node, (ast.Name, ast.Attribute)) and self._root_is_global(node):
            v = self.resolve_quiet(node)
            return v.kind == REF and v.qual == "sys.path"
        return False

    def listed_entries(self, node: ast.expr) -> list[ast.expr]:
        """The entries a list/tuple expression (or `[a] + sys.path`) adds to sys.path; [node] if unknown."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return [e for e in node.elts if not self.is_sys_path(e)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [e for side in (node.left, node.right) if not self.is_sys_path(side)
                    for e in self.listed_entries(side)]
        return [node]

    def check_sys_path_entries(self, node: ast.AST, entries: list[ast.expr]) -> None:
        """HD211 unless every entry resolves (statically) to the step's own folder or its children/."""
        for entry in entries:
            verdict = self.sys_path_verdict(entry)
            if verdict is not None:
                self.report("HD211", node, f"changes sys.path to import code from outside children/ "
                                           f"(`{self.snippet(entry)}` {verdict})")
                return

    def sys_path_verdict(self, entry: ast.expr) -> str | None:
        """None when `entry` is the step's folder or a folder under its children/; else why not."""
        parts = self.path_of(entry, 0)
        if parts is None:
            # not resolvable: the legacy spelling (a path whose last folder name is "children") is accepted
            if _names_children_folder_expr(entry):
                return None
            return "cannot be resolved to the step's folder or its children/"
        if parts == ("<abs>",):
            return "is an absolute path"
        if parts and parts[-1] == "<file>":
            return "is a file, not the step's folder"
        if parts[:1] == ("<cwd>",):
            if parts[1:] == ("children",):
                return None  # the original workspace's `sys.path.insert(0, "children")`
            return "is relative to the working directory, not to this file"
        if self.base_dir is not None:
            where = Path(os.path.normpath(os.path.join(str(self.base_dir), *parts))) if parts else self.base_dir
            try:
                rel = where.relative_to(self.base_dir).parts
            except ValueError:
                return "points outside the step's folder"
        else:
            if ".." in parts:
                return "points outside the step's folder"
            rel = parts
        if not rel or rel[0] == "children":
            return None
        return f"is the folder `{'/'.join(rel)}`, not children/"

    def path_of(self, node: ast.expr, depth: int) -> tuple[str, ...] | None:
        """A path expression as parts relative to the step folder (`<file>` last for refactored.py itself,
        ("<abs>",) for an absolute path); None when it cannot be resolved without running the code."""
        if depth > 12:
            return None
        t = type(node)
        if t is ast.Name:
            ident = node.id  # type: ignore[attr-defined]
            if ident == "__file__":
                return ("<file>",)
            values = self.single_assignments().get(ident)
            return self.path_of(values, depth + 1) if values is not None else None
        if t is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if not isinstance(value, str):
                return None
            rel = _join_parts((), value)
            # a relative path on its own is relative to the working directory, not to this file
            return rel if rel is None or rel[:1] == ("<abs>",) else ("<cwd>", *rel)
        if t is ast.JoinedStr:
            acc: tuple[str, ...] | None = ()
            for i, piece in enumerate(node.values):  # type: ignore[attr-defined]
                if i == 0:
                    acc = self.path_of(piece.value if isinstance(piece, ast.FormattedValue) else piece, depth + 1)
                elif isinstance(piece, ast.Constant) and isinstance(piece.value, str) and acc is not None:
                    acc = _join_parts(acc, piece.value, glued=True)
                else:
                    return None
                if acc is None:
                    return None
            return acc
        if t is ast.BinOp:
            left = self.path_of(node.left, depth + 1)  # type: ignore[attr-defined]
            right = node.right  # type: ignore[attr-defined]
            if left is None:
                return None
            if isinstance(node.op, ast.Div):  # type: ignore[attr-defined]
                rs = self.path_of(right, depth + 1)
                return _join(left, rs) if rs is not None else None
            if isinstance(node.op, ast.Add) and isinstance(right, ast.Constant) and isinstance(right.value, str):  # type: ignore[attr-defined]
                return _join_parts(left, right.value, glued=True)
            return None
        if t is ast.Attribute:
            attr = node.attr  # type: ignore[attr-defined]
            if attr == "parent":
                base = self.path_of(node.value, depth + 1)  # type: ignore[attr-defined]
                return _join(base, ("..",)) if base is not None else None
            return None
        if t is ast.Subscript:  # Path(__file__).parents[1]
            value, index = node.value, node.slice  # type: ignore[attr-defined]
            if isinstance(value, ast.Attribute) and value.attr == "parents" and isinstance(index, ast.Constant) \
                    and isinstance(index.value, int) and index.value >= 0:
                base = self.path_of(value.value, depth + 1)
                return _join(base, ("..",) * (index.value + 1)) if base is not None else None
            return None
        if t is ast.Call:
            call = node
            assert isinstance(call, ast.Call)
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr in _PATH_SAME_METHODS and not call.args:
                qual = self._call_qual(f)
                if qual is None or not qual.startswith(("os", "posixpath", "ntpath")):
                    return self.path_of(f.value, depth + 1)  # Path(...).resolve()
            if isinstance(f, ast.Attribute) and f.attr == "joinpath":
                acc2 = self.path_of(f.value, depth + 1)
                for a in call.args:
                    part = self.path_of(a, depth + 1) if acc2 is not None else None
                    acc2 = _join(acc2, part) if acc2 is not None and part is not None else None
                return acc2
            qual = self._call_qual(f)
            if qual is None or call.keywords:
                return None
            name = qual.rsplit(".", 1)[-1]
            if qual in _PATH_SAME_FUNCS or (qual.startswith("pathlib.") and name in _PATH_CLASSES):
                if not call.args:
                    return None
                acc3 = self.path_of(call.args[0], depth + 1)
                for a in call.args[1:]:
                    part = self.path_of(a, depth + 1) if acc3 is not None else None
                    acc3 = _join(acc3, part) if acc3 is not None and part is not None else None
                return acc3
            if qual in ("os.path.dirname", "posixpath.dirname", "ntpath.dirname") and len(call.args) == 1:
                base = self.path_of(call.args[0], depth + 1)
                return _join(base, ("..",)) if base is not None else None
            if qual in ("os.path.join", "posixpath.join", "ntpath.join") and call.args:
                acc4 = self.path_of(call.args[0], depth + 1)
                for a in call.args[1:]:
                    part = self.path_of(a, depth + 1) if acc4 is not None else None
                    acc4 = _join(acc4, part) if acc4 is not None and part is not None else None
                return acc4
        return None

    def _call_qual(self, f: ast.expr) -> str | None:
        if isinstance(f, ast.Name) and f.id == "str" and "str" not in self.globals:
            return "builtins.str"
        if not self._root_is_global(f):
            return None
        v = self.resolve_quiet(f)
        return v.qual if v.kind == REF else None

    def single_assignments(self) -> dict[str, ast.expr]:
        """Names assigned exactly once in the file outside forward() (`HERE = Path(__file__).parent`)."""
        if self._single_assignments is None:
            seen: dict[str, list[ast.expr]] = {}
            stack: list[ast.AST] = [self.tree]
            while stack:
                n = stack.pop()
                if n is self.forward_node:
                    continue
                if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    for tgt in targets:
                        for name in ast.walk(tgt):
                            if isinstance(name, ast.Name):
                                value = n.value if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) \
                                    and isinstance(tgt, ast.Name) and not isinstance(n, ast.AugAssign) else None
                                seen.setdefault(name.id, []).append(value)  # type: ignore[arg-type]
                elif isinstance(n, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)):
                    tgts = [n.target] if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) else \
                        [i.optional_vars for i in n.items if i.optional_vars is not None]
                    for tgt in tgts:
                        for name in ast.walk(tgt):
                            if isinstance(name, ast.Name):
                                seen.setdefault(name.id, []).extend([None, None])  # type: ignore[list-item]
                stack.extend(ast.iter_child_nodes(n))
            self._single_assignments = {k: v[0] for k, v in seen.items() if len(v) == 1 and v[0] is not None}
        return self._single_assignments

    def _root_is_global(self, node: ast.expr) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self.globals

    @staticmethod
    def _is_class_of_self(node: ast.expr) -> bool:
        if isinstance(node, ast.Attribute) and node.attr == "__class__":
            return True
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"

    def check_assign_anywhere(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        flat: list[ast.expr] = []
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                flat.extend(t.elts)
            else:
                flat.append(t)
        for t in flat:
            if node.value is not None and (self.is_sys_path(t) or (
                    isinstance(t, ast.Subscript) and self.is_sys_path(t.value))):
                self.check_sys_path_entries(node, self.listed_entries(node.value))
                continue
            if not isinstance(t, ast.Attribute):
                continue
            base = self.resolve_quiet(t.value) if self._root_is_global(t.value) else V_DATA
            if base.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or t.attr in PATCH_ATTRS or \
                    self._is_class_of_self(t.value):
                if base.kind == REF and classify_ref(base.qual).what == "external" and \
                        t.attr not in PATCH_ATTRS:
                    continue
                self.report("HD207", t, f"rebinds `{self.snippet(t)}` (monkeypatching)")
        # tensors kept as state: module level, class level, self.<x> = torch.ones(...)
        value = node.value
        if value is None or not isinstance(value, ast.Call):
            return
        on_self = any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                      for t in flat)
        top_level = id(node) in self.top_level_stmts and any(isinstance(t, ast.Name) for t in flat)
        if (on_self or top_level) and self._creates_tensor(value):
            self.report("HD205", value, f"keeps the tensor `{self.snippet(value)}` as state outside any child")

    def _creates_tensor(self, call: ast.Call) -> bool:
        fv = self.resolve_quiet(call.func)
        if fv.kind != REF:
            return False
        rc = classify_ref(fv.qual)
        return fv.qual.startswith("torch") and rc.what in ("compute", "plumb")

    def check_class(self, cls: ast.ClassDef) -> None:
        info = self.classes.get(cls.name)
        if info is None:
            return
        if info.is_autograd and info.node is cls:
            self.report("HD213", cls, f"`{cls.name}` is a torch.autograd.Function: its forward() does compute "
                                      f"outside children", op=_camel_to_op(cls.name),
                        rng=self.header_range(cls))
        if info is self.target:
            for kw in cls.keywords:
                if kw.arg == "metaclass":
                    self.report("HD208", kw, f"`{cls.name}` uses a metaclass, which can rewrite forward()",
                                rng=_rng(kw.value))
            for base in info.bases:
                hook = base.methods.get("__init_subclass__")
                if hook is not None:
                    self.report("HD208", hook, f"`{base.node.name}.__init_subclass__` runs on `{cls.name}` "
                                               f"and can rewrite its forward()", rng=self.header_range(hook))
            for name in CALL_MACHINERY:
                m = info.methods.get(name)
                if m is not None:
                    self.report("HD208", m, f"`{cls.name}` overrides `{name}`, so forward() is not what runs",
                                rng=self.header_range(m))

    # -- forward ----------------------------------------------------------------------------------------

    def analyse_forward(self, info: _ClassInfo, fwd: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        env: dict[str, Val] = {}
        ev = _ForwardEval(self, env, sink=self.out, quiet=False)
        # decorators on forward() and on the class run around forward: judge them like helpers
        for deco in [*fwd.decorator_list, *info.node.decorator_list]:
            dv = ev.ev(deco)
            if dv.kind == LOCAL_FN and dv.node is not None:
                ev.call_helper(deco, dv, [Val(LOCAL_FN, qual=fwd.name, node=fwd, bound=True)], {},
                               what="decorator")
            elif dv.kind == REF and classify_ref(dv.qual).what not in ("neutral", "namespace", "const"):
                ev.value_use(deco, dv)
        ev.bind_params(fwd, [], {}, self_val=V_SELF, kind="function")
        context = self.context_key
        if context is None or self.memo is None or self.reads_forward:
            ev.run_body(fwd.body)
        else:
            self.run_forward_memoized(ev, fwd.body, self.memo, context)

    def run_forward_memoized(self, ev: _ForwardEval, body: list[ast.stmt], memo: AnalysisMemo,
                             context: tuple[Any, ...]) -> None:
        """forward()'s statements, reusing the previous analysis's result for each statement whose text,
        position and incoming state are unchanged (the editor re-analyses on every keystroke).

        A statement's result depends on its text and position, the abstract values of the locals before it
        (`env`, `ret`), the helper-cache entries it read, and the rest of the file (the memo's context key).
        Replaying a record re-applies exactly what running it did: its reports (before de-duplication),
        its helper-cache entries and the locals after it. A statement that changed analyzer-wide state
        (self attributes, classes, imports) is not recorded, and nothing after it is reused."""
        lines = self.memo_lines
        old = memo.records if memo.context == context else {}
        # Lines added or removed inside forward() move everything below: a record is still good if every
        # position it holds is above the first changed line (statements below have new keys anyway).
        unchanged = self.unchanged_lines(memo) if old and memo.body_end != self.body_end else len(lines)
        new = self.new_records
        reusable = True
        cache = self.helper_cache
        # After a replay the locals are those of the record (`snapshot`); ev.env catches up lazily, before
        # the next statement that really runs. Consecutive records share their env dicts, so that checking
        # a record after a replay is one identity test.
        snapshot: dict[str, Val] | None = None
        for s in body:
            first, end = _first_line(s), s.end_lineno or s.lineno
            key = (s.lineno, s.col_offset, lines[first - 1] if first == end else "\n".join(lines[first - 1: end]))
            rec = old.get(key) if reusable else None
            if rec is not None and unchanged < len(lines) and rec.last_line() > unchanged:
                rec = None
            if rec is not None and (rec.env_before is snapshot or _same_env(rec.env_before, ev.env if snapshot is None else snapshot)) \
                    and (rec.ret_before is ev.ret or _same_val(rec.ret_before, ev.ret)) \
                    and (not rec.helper_reads or all(cache.get(k) is r for k, r in rec.helper_reads)) \
                    and (not rec.helper_news or not any(k in cache for k, _n, _r in rec.helper_news)):
                for rkey, v in rec.reports:
                    self.report_once(rkey, v)
                for hkey, _node, res in rec.helper_news:
                    cache[hkey] = res
                snapshot, ev.ret = rec.env_after, rec.ret_after
                new[key] = rec
                continue
            if snapshot is not None:
                ev.env.clear()
                ev.env.update(snapshot)
            env_before = snapshot if snapshot is not None else dict(ev.env)
            ret_before, mutations = ev.ret, self.mutations
            self.recording, self.helper_reads, self.helper_news = [], [], []
            try:
                ev.stmt(s)
                reports, reads, news = self.recording, self.helper_reads, self.helper_news
            finally:
                self.recording, self.helper_reads, self.helper_news = None, [], []
            snapshot = dict(ev.env)
            if reusable and self.mutations == mutations:
                new[key] = _StmtRecord(env_before, ret_before, reports, reads, news, snapshot, ev.ret)
            else:
                reusable = False
        if snapshot is not None:
            ev.env.clear()
            ev.env.update(snapshot)

    def analyse_helper(self, fn: Val, args: list[Val], kwargs: dict[str, Val],
                       quiet: bool = False) -> _HelperResult:
        """Run a helper's body with the call's argument kinds: its violations (forward context) or, in
        quiet mode (__init__, module level), only the kind of what it returns (`self.layer1 =
        self._make_layer(...)` returning an nn.Sequential of children)."""
        node = fn.node
        key = (id(node), (*(_key_kind(a) for a in args), *sorted(kwargs), "quiet" if quiet else ""))
        cached = self.helper_cache.get(key)
        if cached is not None:
            if self.recording is not None:
                self.helper_reads.append((key, cached))
            return cached
        if id(node) in self.helper_stack or len(self.helper_stack) >= _MAX_HELPER_DEPTH:
            return _HelperResult(V_DATA, [])
        if node is self.forward_node:
            self.reads_forward = True
        self.helper_stack.append(id(node))
        try:
            env: dict[str, Val] = dict(fn.closure) if fn.closure is not None else {}
            sink: list[AntiCheatViolation] = []
            ev = _ForwardEval(self, env, sink=sink, quiet=quiet)
            ev.loop_path = _HELPER_PATH  # a child's output made in the helper is fresh where it is called
            kind = self._fn_kind(node)
            self_val = None
            if fn.bound:
                self_val = V_SELF if kind != "classmethod" else Val(LOCAL_CLASS, qual=fn.ctx or "")
            ev.bind_params(node, args, kwargs, self_val=self_val, kind=kind)
            if isinstance(node, ast.Lambda):
                ret = ev.ev(node.body)
            else:
                ev.run_body(node.body)
                ret = ev.ret or Val(SCALAR)
            if not quiet and ret.kind == LOCAL_FN and ret.node is not None and ret.node is not node:
                # a helper that returns a function (closure factory, decorator): that function runs too
                inner = self.analyse_helper(ret, [V_DATA] * 4, {})
                sink.extend(inner.violations)
            result = _HelperResult(ret, sink)
        finally:
            self.helper_stack.pop()
        self.helper_cache[key] = result
        if self.recording is not None:
            self.helper_news.append((key, node, result))  # the node keeps its id from being reused
        return result


class _ForwardEval:
    """Evaluates statements and expressions of forward() (and of helpers it reaches) over abstract values,
    reporting compute into `sink`. In quiet mode (module level, __init__) it only infers kinds."""

    def __init__(self, an: _Analyzer, env: dict[str, Val], sink: list[AntiCheatViolation],
                 quiet: bool) -> None:
        self.an = an
        self.env = env
        self.sink = sink
        self.quiet = quiet
        self.ret: Val | None = None
        self.loop_depth = 0
        # the loops being run, outermost first (their positions); a helper's start with _HELPER_PATH
        self.loop_path: tuple[Any, ...] = ()
        # per loop being run: the names bound so far in the current pass over its body
        self.pass_bound: list[set[str]] = []
        self.loop_kind: list[str] = []

    # -- reporting ------------------------------------------------------------------------------------

    def report(self, rule: str, node: Any, message: str, op: str | None = None,
               related: Iterable[RelatedLocation] = (), details: dict[str, Any] | None = None) -> None:
        if self.quiet:
            return
        self.an.report(rule, node, message, op=op, related=related, details=details,
                       sink=None if self.sink is self.an.out else self.sink)

    # -- statements -------------------------------------------------------------------------------------

    def bind_params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, args: list[Val],
                    kwargs: dict[str, Val], self_val: Val | None, kind: str) -> None:
        a = fn.args
        positional = a.posonlyargs + a.args
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        given = list(args)
        if self_val is not None and positional and kind != "staticmethod":
            self.env[positional[0].arg] = self_val
            positional, defaults = positional[1:], defaults[1:]
        for i, p in enumerate(positional):
            if i < len(given):
                self.env[p.arg] = given[i]
            elif p.arg in kwargs:
                self.env[p.arg] = kwargs[p.arg]
            else:
                self.env[p.arg] = self.param_default(p, defaults[i])
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False):
            self.env[p.arg] = kwargs.get(p.arg) or self.param_default(p, d)
        if a.vararg is not None:
            self.env[a.vararg.arg] = _seq(V_DATA)
        if a.kwarg is not None:
            self.env[a.kwarg.arg] = _seq(V_DATA)

    def param_default(self, p: ast.arg, default: ast.expr | None) -> Val:
        ann = _dotted(p.annotation) if p.annotation is not None else None
        if ann in ("int", "float", "bool", "str"):
            return V_SCALAR
        if default is None:
            return V_DATA
        if isinstance(default, ast.Constant):
            return V_SCALAR if default.value is not None else V_DATA
        val = self.an.eval_quiet(default, self.an.globals)
        if val.kind in (REF, LOCAL_FN, RAW_MODULE, SEQ, METHOD):
            return val.with_origin(self.an.loc(default, f"default argument `{p.arg}={self.an.snippet(default)}`"))
        return val

    def run_body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, s: ast.stmt) -> None:
        handler = _STMT_DISPATCH.get(type(s))
        if handler is not None:
            handler(self, s)
        # Pass / Break / Continue / Global / Nonlocal / Raise / Delete: nothing to check

    def st_assign(self, s: ast.Assign) -> None:
        if self.pass_bound and len(s.targets) == 1 and type(s.value) is ast.BinOp and \
                type(s.value.op) is ast.Add and not self.quiet:
            val = self.accumulation(s, s.targets[0], s.value, None)
        else:
            val = self.ev(s.value)
        for target in s.targets:
            self.bind(target, val, s.value)

    def st_return(self, s: ast.Return) -> None:
        if s.value is not None:
            val = self.ev(s.value)
            if val.kind in _SUSPECT:
                self.value_use(s.value, val)
            self.ret = _merge(self.ret, val)
        else:
            self.ret = _merge(self.ret, V_SCALAR)

    def st_expr(self, s: ast.Expr) -> None:
        self.ev(s.value)

    def st_augassign(self, s: ast.AugAssign) -> None:
        if self.pass_bound and type(s.op) is ast.Add and not self.quiet:
            res = self.accumulation(s, s.target, s.value, s)
        else:
            cur = self.ev(s.target)
            val = self.ev(s.value)
            res = self.binop(s, s.op, cur, val, s.target, s.value)
        self.bind(s.target, res, s.value)

    # -- loop-carried accumulation: a reduction written as additions -------------------------------------

    def add_terms(self, node: ast.expr, leaves: list[tuple[ast.expr, Val]]) -> Val:
        """Evaluate a chain of `+` exactly as ev_binop does, collecting its operands (the leaves)."""
        if type(node) is ast.BinOp and type(node.op) is ast.Add:
            left = self.add_terms(node.left, leaves)
            right = self.add_terms(node.right, leaves)
            if left.kind is SCALAR and right.kind is SCALAR:
                return V_SCALAR
            return self.binop(node, node.op, left, right, node.left, node.right)
        v = self.ev(node)
        leaves.append((node, v))
        return v

    def accumulation(self, s: ast.Assign | ast.AugAssign, target: ast.expr, value: ast.expr,
                     aug: ast.AugAssign | None) -> Val:
        """`t = t + e` / `t += e` inside a loop, where `t` carries over from the previous iteration: a
        residual when every added `e` is the output of a child called in this iteration (`x = x + blk(x)`),
        otherwise a reduction (`total = total + x[:, t]`), reported as HD116."""
        leaves: list[tuple[ast.expr, Val]] = []
        if aug is not None:
            cur = self.ev(target)
            leaves.append((target, cur))
            val = self.add_terms(value, leaves)
            res = self.binop(aug, aug.op, cur, val, target, value)
        else:
            res = self.add_terms(value, leaves)
        root = _root_name(target)
        if root is None or res.kind not in _TENSORISH or root in self.pass_bound[-1]:
            return res  # not a tensor, or `t` was set earlier in this iteration: nothing carried over
        carried = [n for n, _v in leaves if _root_name(n) == root]
        others = [(n, v) for n, v in leaves if _root_name(n) != root]
        if not carried or not others or any(v.kind not in _TENSORISH or v.kind == TCONST for _n, v in others):
            return res  # constants and state are reported by binop already
        stale = [(n, v) for n, v in others if not self.fresh(v)]
        if not stale:
            return self.child_out()  # x = x + blk(x): the new stream state is as fresh as the child's output
        node, _v = stale[0]
        where = "while" if self.loop_kind and self.loop_kind[-1] == "while" else "for"
        self.report("HD116", s if aug is not None else value,
                    f"`{self.an.snippet(s if aug is not None else value)}` adds `{self.an.snippet(node)}` into "
                    f"`{self.an.snippet(target)}`, which carries over from one `{where}` iteration to the next: "
                    f"a reduction (`sum`), not a residual (the added value is not the output of a child called "
                    f"in this iteration)", op="sum")
        return V_DATA

    def child_out(self) -> Val:
        return V_CHILD_OUT if not self.loop_path else Val(DATA, qual=CHILD_OUT, ctx=self.loop_path)

    def fresh(self, v: Val) -> bool:
        """v is the output of a child called in the current iteration of the innermost loop."""
        if v.kind != DATA or v.qual != CHILD_OUT or not self.loop_path:
            return False
        n = len(self.loop_path)
        return v.ctx is not None and len(v.ctx) >= n and v.ctx[:n] == self.loop_path

    def st_annassign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            val = self.ev(s.value)
            ann = _dotted(s.annotation) if s.annotation is not None else None
            if ann in ("int", "float", "bool", "str") and val.kind not in _TENSORISH:
                val = V_SCALAR
            self.bind(s.target, val, s.value)

    def st_if(self, s: ast.If | ast.While) -> None:
        self.ev(s.test)
        self.run_body(s.body)
        self.run_body(s.orelse)

    def st_for(self, s: ast.For | ast.AsyncFor) -> None:
        it = self.ev(s.iter)
        self.run_loop(s, lambda: self.bind(s.target, self.an.iter_elem(it), s.iter), "for")

    def st_while(self, s: ast.While) -> None:
        self.run_loop(s, lambda: self.ev(s.test), "while")

    def run_loop(self, s: ast.For | ast.AsyncFor | ast.While, head: Any, kind: str) -> None:
        self.loop_depth += 1
        saved_path = self.loop_path
        self.loop_path = (*saved_path, (s.lineno, s.col_offset))
        self.loop_kind.append(kind)
        try:
            for _pass in range(2 if self.loop_depth <= 2 else 1):
                # loop-carried values: a second pass sees what the first bound (e.g. a list appended to);
                # only for shallow nests, so that deeply nested loops stay linear
                self.pass_bound.append(set())
                try:
                    head()  # the loop variable (or the while test) belongs to the pass
                    self.run_body(s.body)
                finally:
                    self.pass_bound.pop()
        finally:
            self.loop_depth -= 1
            self.loop_path = saved_path
            self.loop_kind.pop()
        self.run_body(s.orelse)

    def st_with(self, s: ast.With | ast.AsyncWith) -> None:
        for item in s.items:
            v = self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, v, item.context_expr)
        self.run_body(s.body)

    def st_try(self, s: ast.Try) -> None:
        self.run_body(s.body)
        for h in s.handlers:
            if h.name:
                self.env[h.name] = V_SCALAR
            self.run_body(h.body)
        self.run_body(s.orelse)
        self.run_body(s.finalbody)

    def st_def(self, s: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.env[s.name] = Val(LOCAL_FN, qual=s.name, node=s, closure=dict(self.env))

    def st_assert(self, s: ast.Assert) -> None:
        self.ev(s.test)

    def st_import(self, s: ast.Import | ast.ImportFrom) -> None:
        self.an.mutations += 1  # star imports change analyzer state; child lookup reads the disk
        self.an.bind_import(s, self.env)
        self.an.check_import(s)

    def st_class(self, s: ast.ClassDef) -> None:
        self.an.mutations += 1
        self.an.bind_class(s)
        self.env[s.name] = self.an.globals[s.name]
        self.an.check_class(s)

    def st_match(self, s: ast.Match) -> None:
        self.ev(s.subject)
        for case in s.cases:
            self.run_body(case.body)

    def bind(self, target: ast.expr, val: Val, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            for bound in self.pass_bound:
                bound.add(target.id)
            if val.kind in (REF, LOCAL_FN, RAW_MODULE, METHOD) and not self.quiet:
                val = val.with_origin(self.an.loc(value, f"`{target.id}` bound to `{self.an.snippet(value)}` "
                                                         f"here"), via="alias")
            self.env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = None
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Starred):
                    starred = i
                    self.bind(t.value, _seq(self.an.unpack(val, i)), value)
                else:
                    self.bind(t, self.an.unpack(val, i if starred is None else -1), value)
        elif isinstance(target, ast.Attribute):
            base = self.ev(target.value)
            self.check_patch(target, base)
            if base.kind == SELF and not self.quiet and target.attr not in self.an.self_attrs:
                self.an.mutations += 1
                self.an.self_attrs[target.attr] = val
        elif isinstance(target, ast.Subscript):
            # writing into a slice of a buffer (out[:, :c] = y) is plumbing, like cat
            base = self.ev(target.value)
            self.ev(target.slice)
            if base.kind == SEQ and base.elem is not None:
                self.env_update_seq(target.value, val)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, _seq(val), value)

    def env_update_seq(self, node: ast.expr, val: Val) -> None:
        if isinstance(node, ast.Name) and node.id in self.env:
            cur = self.env[node.id]
            if cur.kind == SEQ:
                self.env[node.id] = replace(cur, elem=_merge(cur.elem, val), elts=None)

    def check_patch(self, target: ast.Attribute, base: Val) -> None:
        if base.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or target.attr in PATCH_ATTRS:
            self.report("HD207", target, f"rebinds `{self.an.snippet(target)}` (monkeypatching)")

    # -- expressions ------------------------------------------------------------------------------------

    def ev(self, node: ast.expr) -> Val:
        t = type(node)
        if t is ast.Name:  # the hot cases inline: this runs for every node of forward()
            ident = node.id  # type: ignore[attr-defined]
            v = self.env.get(ident) or self.an.globals.get(ident)
            return v if v is not None else self.name(node)  # type: ignore[arg-type]
        if t is ast.Constant:
            return V_SCALAR
        handler = _EV_DISPATCH.get(t)
        return handler(self, node) if handler is not None else V_DATA

    def ev_attribute(self, node: ast.Attribute) -> Val:
        return self.attribute(node, self.ev(node.value), node.attr, via="")

    def ev_constant(self, node: ast.Constant) -> Val:
        return V_SCALAR

    def ev_binop(self, node: ast.BinOp) -> Val:
        left, right = self.ev(node.left), self.ev(node.right)
        if left.kind is SCALAR and right.kind is SCALAR:
            return V_SCALAR  # shape arithmetic, the common case
        return self.binop(node, node.op, left, right, node.left, node.right)

    def ev_sequence(self, node: ast.Tuple | ast.List | ast.Set) -> Val:
        vals = []
        has_star = False
        for e in node.elts:
            v = self.ev(e)
            if v.kind in _SUSPECT:
                self.value_use(e, v)
            if type(e) is ast.Starred:
                has_star = True
                v = self.an.iter_elem(v)
            vals.append(v)
        if not vals:
            return _seq(V_EMPTY, elts=())
        return _seq(elts=None if has_star else vals, elem=None)

    def ev_dict(self, node: ast.Dict) -> Val:
        merged: Val | None = None
        for k, v in zip(node.keys, node.values, strict=False):
            if k is not None:
                self.ev(k)
            vv = self.ev(v)
            if vv.kind in _SUSPECT:
                self.value_use(v, vv)
            merged = _merge(merged, vv if k is not None else (vv.elem or V_DATA))
        return Val(SEQ, elem=merged or V_DATA, qual="dict")

    def ev_unary(self, node: ast.UnaryOp) -> Val:
        v = _as_data(self.ev(node.operand))
        if isinstance(node.op, ast.Not):
            return V_SCALAR
        if isinstance(node.op, ast.UAdd):
            return v
        if v.kind in _TENSORISH:
            op = OP_NAMES_BINOP[type(node.op)]
            self.report("HD106", node, f"unary `{OP_SYMBOLS[type(node.op)]}` on a tensor is compute "
                                       f"(`{op}`)", op=op)
            return V_DATA
        return V_SCALAR if v.kind == SCALAR else v

    def ev_boolop(self, node: ast.BoolOp) -> Val:
        res: Val | None = None
        for v in node.values:
            res = _merge(res, self.ev(v))
        return res or V_SCALAR

    def ev_ifexp(self, node: ast.IfExp) -> Val:
        self.ev(node.test)
        return _merge(self.ev(node.body), self.ev(node.orelse))

    def ev_joinedstr(self, node: ast.JoinedStr) -> Val:
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                self.ev(v.value)
        return V_SCALAR

    def ev_formatted(self, node: ast.FormattedValue) -> Val:
        self.ev(node.value)
        return V_SCALAR

    def ev_lambda(self, node: ast.Lambda) -> Val:
        return Val(LOCAL_FN, qual="<lambda>", node=node, closure=dict(self.env) if not self.quiet else None)

    def ev_comp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Val:
        saved = dict(self.env)
        self.comprehension(node.generators)
        elt = self.ev(node.elt)
        self.value_use(node.elt, elt)
        self.env = saved
        return _seq(elt)

    def ev_dictcomp(self, node: ast.DictComp) -> Val:
        saved = dict(self.env)
        self.comprehension(node.generators)
        self.ev(node.key)
        elt = self.ev(node.value)
        self.value_use(node.value, elt)
        self.env = saved
        return Val(SEQ, elem=elt, qual="dict")

    def ev_starred(self, node: ast.Starred) -> Val:
        return self.ev(node.value)

    def ev_namedexpr(self, node: ast.NamedExpr) -> Val:
        v = self.ev(node.value)
        self.bind(node.target, v, node.value)
        return v

    def ev_slice(self, node: ast.Slice) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part)
        return V_SCALAR

    def ev_await(self, node: ast.Await | ast.Yield | ast.YieldFrom) -> Val:
        return self.ev(node.value) if node.value is not None else V_SCALAR

    def comprehension(self, gens: list[ast.comprehension]) -> None:
        for g in gens:
            it = self.ev(g.iter)
            self.bind(g.target, self.an.iter_elem(it), g.iter)
            for cond in g.ifs:
                self.ev(cond)

    def name(self, node: ast.Name) -> Val:
        ident = node.id
        v = self.env.get(ident)
        if v is not None:
            return v
        v = self.an.globals.get(ident)
        if v is not None:
            return v
        if ident in BUILTIN_NEUTRAL or ident in BUILTIN_MATH or ident in BUILTIN_DYNAMIC or ident in (
                "getattr", "setattr", "delattr", "vars", "globals", "locals", "open", "True", "False", "None"):
            return Val(REF, qual=f"builtins.{ident}")
        if self.an.star_roots:
            root = self.an.star_roots[-1]
            return Val(REF, qual=f"{root}.{ident}", via="star",
                       origin=(RelatedLocation(f"`{ident}` comes from `from {root} import *`",
                                               _rng(node), self.an.path),))
        return V_DATA

    def attribute(self, node: ast.expr, base: Val, attr: str, via: str) -> Val:
        k = base.kind
        if k == REF:
            if attr == "__dict__":
                return Val(REF, qual=f"{base.qual}.__dict__", origin=base.origin, via="dynamic")
            return Val(REF, qual=f"{base.qual}.{attr}", origin=base.origin, via=via or base.via)
        if k == SELF:
            return self.self_attr(node, attr)
        if k == CHILD:
            if attr in ("forward", "__call__"):
                return V_CHILD
            return Val(CHILD_ATTR, qual=attr)
        if k == CHILDREN:
            return Val(METHOD, qual=attr, elem=base)
        if k == CHILD_ATTR and attr not in TENSOR_METHODS and attr not in PLUMBING_OPS and \
                attr not in SHAPE_QUERIES and attr not in TENSOR_SCALAR_ATTRS and attr not in DUNDER_BINOPS:
            return Val(CHILD_ATTR, qual=attr)  # self.fc.linear.weight: still something of a child
        if k in _TENSORISH:
            if attr == "__class__":
                return Val(REF, qual="torch.Tensor")
            if attr in TENSOR_SCALAR_ATTRS:
                return V_SCALAR
            if attr in TENSOR_VIEW_ATTRS:
                return base
            return Val(METHOD, qual=attr, elem=base, via=via)
        if k == SCALAR:
            return V_SCALAR  # cfg.n_head, "sep".join, ...: calling a scalar gives a scalar
        if k == SEQ:
            return Val(METHOD, qual=attr, elem=base)
        if k == LOCAL_CLASS:
            info = self.an.classes.get(base.qual)
            if info is None:
                return V_DATA
            if attr == "apply" and info.is_autograd:
                return Val(AUTOGRAD_APPLY, qual=base.qual, node=info.node)
            m, _owner = self.an.find_method(info, attr)
            if m is not None:
                kind = self.an._fn_kind(m)
                return Val(LOCAL_FN, qual=f"{base.qual}.{attr}", node=m, bound=kind == "classmethod",
                           ctx=base.qual)
            cv = self.an.find_class_attr(info, attr)
            return cv if cv is not None else V_DATA
        if k == CHILD_MODULE:
            return Val(CHILD_CLASS if attr[:1].isupper() else CHILD_MODULE, qual=f"{base.qual}.{attr}")
        if k == SUPER:
            if self.an.target is not None:
                for b in self.an.target.bases:
                    m, _ = self.an.find_method(b, attr)
                    if m is not None:
                        return Val(LOCAL_FN, qual=attr, node=m, bound=True, ctx=b.node.name)
            return Val(REF, qual=f"torch.nn.Module.{attr}")
        if k == METHOD:
            data = _as_data(base)
            return self.attribute(node, data, attr, via) if data is not base else V_DATA
        return V_DATA

    def self_attr(self, node: ast.expr, attr: str) -> Val:
        an = self.an
        v = an.self_attrs.get(attr)
        if v is not None:
            return v
        info = an.target
        if info is not None:
            m, owner = an.find_method(info, attr)
            if m is not None:
                kind = an._fn_kind(m)
                fn = Val(LOCAL_FN, qual=attr, node=m, bound=kind != "staticmethod",
                         ctx=owner.node.name if owner else "")
                if kind == "property":
                    return self.call_helper(node, fn, [], {}, what="property")
                return fn
            cv = an.find_class_attr(info, attr)
            if cv is not None:
                return cv
        if attr in ("training",):
            return V_SCALAR
        if attr in SELF_MODULE_METHODS or attr in ("apply", "register_buffer", "register_parameter",
                                                   "add_module"):
            return Val(METHOD, qual=attr, elem=V_SELF)
        if attr == "forward":
            return Val(METHOD, qual=attr, elem=V_SELF)
        if an.dynamic_self_attr is not None:
            return an.dynamic_self_attr
        return V_DATA

    def subscript(self, node: ast.Subscript) -> Val:
        base = self.ev(node.value)
        idx = self.ev(node.slice)
        if base.kind == REF:
            key = _const_str(node.slice)
            if base.qual.endswith(".__dict__"):
                root = base.qual[: -len(".__dict__")]
                return Val(REF, qual=f"{root}.{key or '<name>'}", via="dynamic", origin=base.origin)
            if base.qual == "builtins.<globals>":
                if key is not None:
                    got = self.an.globals.get(key) or Val(REF, qual=key)
                    return replace(got, via="dynamic") if got.kind == REF else got
                return Val(REF, qual="<globals>.<name>", via="dynamic")
            if base.qual == "sys.modules":  # sys.modules["torch"].relu
                return Val(REF, qual=key or "<module>", via="dynamic", origin=base.origin)
            return Val(REF, qual=f"{base.qual}[]", via=base.via, origin=base.origin)
        if base.kind == SEQ:
            if base.elts is not None and isinstance(node.slice, ast.Constant) and \
                    isinstance(node.slice.value, int) and -len(base.elts) <= node.slice.value < len(base.elts):
                return base.elts[node.slice.value]
            if isinstance(node.slice, ast.Slice):
                return base
            el = base.elem or V_DATA
            if el.kind in (REF, LOCAL_FN, RAW_MODULE) and base.origin:
                el = replace(el, origin=(*el.origin, *base.origin), via="alias" if el.via != "dynamic" else el.via)
            return el
        if base.kind == CHILDREN:
            return base if isinstance(node.slice, ast.Slice) else V_CHILD  # self.layers[1:] is a container
        if base.kind == SCALAR:
            return V_SCALAR
        if base.kind in (TCONST, CHILD_ATTR) or (base.kind == DATA and base.qual == CHILD_OUT):
            return base
        del idx
        return V_DATA

    # -- operators ------------------------------------------------------------------------------------

    def binop(self, node: ast.AST, op: ast.operator, left: Val, right: Val, lnode: ast.expr,
              rnode: ast.expr) -> Val:
        left, right = _as_data(left), _as_data(right)
        lt, rt = left.kind in _TENSORISH, right.kind in _TENSORISH
        sym = OP_SYMBOLS.get(type(op), "?")
        opname = OP_NAMES_BINOP.get(type(op), "op")
        if not lt and not rt:
            if left.kind == SEQ or right.kind == SEQ:
                return left if left.kind == SEQ else right
            for side, snode in ((left, lnode), (right, rnode)):
                self.value_use(snode, side)
            return V_SCALAR
        if isinstance(op, ast.Add) and lt and rt and left.kind != TCONST and right.kind != TCONST:
            return V_DATA  # residual: tensor + tensor
        if isinstance(op, ast.Add):
            other = right if lt else left
            what = "a tensor kept as state" if TCONST in (left.kind, right.kind) else (
                f"a {'number' if other.kind == SCALAR else 'non-tensor value'}")
            related = [*left.origin, *right.origin] if TCONST in (left.kind, right.kind) else []
            self.report("HD106", node, f"`+` with {what} is compute (`add`); only `tensor + tensor` is a "
                                       f"residual", op="add", related=related)
            return V_DATA
        self.report("HD106", node, f"`{sym}` on a tensor is compute (`{opname}`)", op=opname,
                    related=[*left.origin, *right.origin])
        return V_DATA

    def compare(self, node: ast.Compare) -> Val:
        vals = [_as_data(self.ev(node.left))] + [_as_data(self.ev(c)) for c in node.comparators]
        for i, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                continue
            a, b = vals[i], vals[i + 1]
            if a.kind in _TENSORISH or b.kind in _TENSORISH:
                opname = OP_NAMES_BINOP[type(op)]
                self.report("HD106", node, f"comparison `{OP_SYMBOLS[type(op)]}` on a tensor computes a mask "
                                           f"(`{opname}`)", op=opname)
                return V_DATA
        return V_SCALAR

    # -- calls ----------------------------------------------------------------------------------------

    def eval_args(self, call: ast.Call) -> tuple[list[Val], dict[str, Val]]:
        args: list[Val] = []
        for a in call.args:
            v = self.ev(a)
            if v.kind in _SUSPECT:
                self.value_use(a, v)
            if type(a) is ast.Starred:
                args.append(self.an.iter_elem(v))
            else:
                args.append(v)
        kwargs: dict[str, Val] = {}
        for kw in call.keywords:
            v = self.ev(kw.value)
            if v.kind in _SUSPECT:
                self.value_use(kw.value, v)
            if kw.arg is not None:
                kwargs[kw.arg] = v
        return args, kwargs

    def value_use(self, node: ast.expr, val: Val) -> None:
        """A value flows somewhere (argument, return, container): a compute function must not."""
        if self.quiet:
            return
        k = val.kind
        if k == REF:
            rc = classify_ref(val.qual)
            if rc.what in ("compute", "math", "operator") and not val.qual.startswith("builtins."):
                if rc.what == "operator" and OPERATOR_BINOPS.get(rc.op) is ast.Add:
                    return
                self.report("HD113", node, f"passes the compute function `{self.an.snippet(node)}` "
                                           f"(`{val.qual}`) as a value", op=rc.op,
                            related=val.origin)
            elif rc.what == "namespace" and val.qual in ("torch", "torch.nn.functional", "torch.special",
                                                         "torch.linalg", "torch.fft", "math", "numpy"):
                self.report("HD113", node, f"passes the compute namespace `{self.an.snippet(node)}` as a value",
                            related=val.origin)
        elif k == METHOD and val.elem is not None and val.elem.kind in _TENSORISH:
            rc = classify_method(val.qual)
            if rc.what == "compute":
                self.report("HD113", node, f"passes the tensor method `{val.qual}` as a value", op=rc.op)
        elif k == CHILD_ATTR:
            self.report("HD114", node, f"reads `{self.an.snippet(node)}`, a child's own tensor, in forward()")
        elif k == LOCAL_FN and val.node is not None:
            res = self.an.analyse_helper(val, [V_DATA] * 4, {})
            if res.violations:
                self.summarise_helper(node, val, res.violations, what="passed as a value")
        elif k == RAW_MODULE:
            self.report("HD109", node, f"passes `{self.an.snippet(node)}`, a module that is not a child",
                        related=val.origin)

    def call(self, call: ast.Call) -> Val:
        f = call.func
        # getattr(obj, "name") is judged like obj.name, but marked as a dynamic lookup
        if isinstance(f, ast.Name) and f.id == "getattr" and "getattr" not in self.env and \
                "getattr" not in self.an.globals and len(call.args) >= 2:
            base = self.ev(call.args[0])
            key = _const_str(call.args[1])
            for extra in call.args[1:]:
                self.ev(extra)
            if key is not None:
                return self.attribute(call, base, key, via="dynamic")
            if base.kind == REF:
                return Val(REF, qual=f"{base.qual}.<name>", via="dynamic", origin=base.origin)
            if base.kind == SELF:
                return self.an.dynamic_self_attr or self.dynamic_self_lookup()
            if base.kind in _TENSORISH:
                return Val(METHOD, qual="<name>", elem=base, via="dynamic")
            return V_DATA
        fv = self.ev(f)
        args, kwargs = self.eval_args(call)
        return self.apply(call, f, fv, args, kwargs)

    def check_module_arguments(self, call: ast.Call, f: ast.expr, args: list[Val], kwargs: dict[str, Val]) -> None:
        """A child handed another module can run it inside its own forward: the parent's wiring, and the
        compute attributed to each child, are then not what the step shows."""
        nodes: list[tuple[ast.expr, Val]] = list(zip(call.args, args, strict=False))
        nodes += [(kw.value, kwargs[kw.arg]) for kw in call.keywords if kw.arg is not None and kw.arg in kwargs]
        for node, val in nodes:
            if val.kind in (CHILD, CHILDREN, RAW_MODULE):
                self.report("HD115", node, f"passes the module `{self.an.snippet(node)}` to "
                                           f"`{self.an.snippet(f)}`, which can run it inside its own forward")

    # -- HD214: what a child is constructed with (quiet mode: __init__, module level, helpers they call) -----

    def check_child_constructor(self, call: ast.Call, f: ast.expr, fv: Val) -> None:
        """A child built with a function, callable or module as an argument runs whatever the parent chose
        (Pointwise(torch.sigmoid)): reported at the argument. Plain data (numbers, strings, bools, tuples of
        them, dtypes, shapes) is fine."""
        module = fv.qual.rsplit(".", 1)[0] if "." in fv.qual else fv.qual
        for node in [*call.args, *(kw.value for kw in call.keywords)]:
            found = self.ctor_arg_suspect(node, 0)
            if found is None:
                continue
            where, what, op = found
            origin = self.ev(where).origin if isinstance(where, (ast.Name, ast.Attribute, ast.Subscript)) else ()
            self.an.report(
                "HD214", where,
                f"passes {what} to the child `{self.an.snippet(f)}`: the child runs an op chosen by the parent, so "
                f"`{module}` is not a standalone test of any kernel; move the op into the child", op=op,
                related=[*origin, self.an.loc(call, f"the child `{self.an.snippet(f)}` is constructed here")])

    def ctor_arg_suspect(self, node: ast.expr, depth: int) -> tuple[ast.expr, str, str | None] | None:
        """(node, what it is, op) when a constructor argument is (or holds) a callable or a module."""
        t = type(node)
        if depth > 8 or t is ast.Constant or t is ast.JoinedStr or t is ast.Compare:
            return None
        snip = self.an.snippet(node)
        if t is ast.Lambda:
            return node, f"the lambda `{snip}`", None
        parts: list[ast.expr] = []
        if t in (ast.Tuple, ast.List, ast.Set):
            parts = list(node.elts)  # type: ignore[attr-defined]
        elif t is ast.Dict:
            parts = [v for v in node.values]  # type: ignore[attr-defined]
        elif t is ast.Starred:
            parts = [node.value]  # type: ignore[attr-defined]
        elif t is ast.IfExp:
            parts = [node.body, node.orelse]  # type: ignore[attr-defined]
        elif t is ast.BinOp:
            parts = [node.left, node.right]  # type: ignore[attr-defined]
        elif t is ast.UnaryOp:
            parts = [node.operand]  # type: ignore[attr-defined]
        elif t is ast.BoolOp:
            parts = list(node.values)  # type: ignore[attr-defined]
        if parts or t in (ast.Tuple, ast.List, ast.Set, ast.Dict):
            for part in parts:
                found = self.ctor_arg_suspect(part, depth + 1)
                if found is not None:
                    return found
            return None
        if t is ast.Call:
            call = node
            assert isinstance(call, ast.Call)
            fv = self.ev(call.func)
            if fv.kind == CHILD_CLASS:
                return node, f"the child module `{snip}`", None
            if fv.kind == LOCAL_CLASS:
                info = self.an.classes.get(fv.qual)
                if info is not None and (info.is_module or self.an.find_method(info, "__call__")[0] is not None):
                    return node, f"`{snip}`, a callable `{fv.qual}` defined in this file", _camel_to_op(fv.qual)
            if fv.kind == REF:
                rc = classify_ref(fv.qual)
                if rc.what in ("nn_class", "container", "plumb_module"):
                    return node, f"the module `{snip}`", _camel_to_op(rc.op)
                if fv.qual in _CALLABLE_FACTORIES:
                    inner = next((x for x in (self.ctor_arg_suspect(a, depth + 1) for a in call.args) if x), None)
                    return node, f"the function `{snip}`", inner[2] if inner else None
            found = self.ctor_val_suspect(node, snip, self.ev(node), depth)  # getattr(torch, "tanh"), a helper
            if found is not None:
                return found
            for a in [*call.args, *(kw.value for kw in call.keywords)]:
                found = self.ctor_arg_suspect(a, depth + 1)
                if found is not None:
                    return found
            return None
        return self.ctor_val_suspect(node, snip, self.ev(node), depth)

    def ctor_val_suspect(self, node: ast.expr, snip: str, val: Val, depth: int) -> tuple[ast.expr, str, str | None] | None:
        k = val.kind
        if k == REF:
            qual = val.qual
            if qual.startswith("builtins."):
                name = qual[len("builtins."):]
                return None if name in _DATA_BUILTINS else (node, f"the builtin `{name}`", None)
            rc = classify_ref(qual)
            named = f"`{snip}`" + (f" (`{qual}`)" if snip != qual else "")
            if rc.what in ("const", "neutral"):
                return None
            if rc.what in ("compute", "plumb", "shape"):
                return node, f"the torch function {named}", rc.op
            if rc.what in ("math", "operator"):
                return node, f"the function {named}", rc.op
            if rc.what in ("nn_class", "container", "plumb_module", "parameter"):
                return node, f"the module class {named}", _camel_to_op(rc.op)
            if rc.what == "namespace":
                return node, f"the namespace {named} (the child can look any op up in it)", None
            return node, f"{named}, code from outside children/", None
        if k == LOCAL_FN:
            return node, (f"the lambda `{snip}`" if isinstance(val.node, ast.Lambda) else f"the function `{snip}`"), None
        if k == LOCAL_CLASS:
            return node, f"the class `{val.qual}` defined in this file", _camel_to_op(val.qual)
        if k in (RAW_MODULE, PLUMB_MODULE):
            return node, f"the module `{snip}`", _camel_to_op(val.qual) if val.qual else None
        if k in (CHILD, CHILDREN):
            return node, f"the child module `{snip}`", None
        if k in (CHILD_CLASS, CHILD_MODULE):
            return node, f"`{snip}` from `{val.qual}`", None
        if k in (METHOD, AUTOGRAD_APPLY):
            return node, f"the method `{snip}`", None
        if k == SELF:
            return node, "`self` (the parent itself)", None
        if k == CHILD_ATTR:
            return node, f"`{snip}`, a part of another child", None
        if k == SEQ and depth < 8:
            for e in (val.elts if val.elts is not None else (val.elem,)):
                if e is None:
                    continue
                found = self.ctor_val_suspect(node, snip, e, depth + 1)
                if found is not None:
                    return node, f"`{snip}`, which holds {found[1]}", found[2]
        return None

    def dynamic_self_lookup(self) -> Val:
        """getattr(self, name) with a computed name: any attribute could come back; the worst one counts."""
        worst: Val | None = None
        for v in self.an.self_attrs.values():
            worst = _merge(worst, v)
        return worst or V_CHILD

    def apply(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        k = fv.kind
        if k == CHILD or k == CHILDREN:  # CHILDREN: an nn.Sequential of children
            self.check_module_arguments(call, f, args, kwargs)
            return V_DATA if self.quiet else self.child_out()
        if k == PLUMB_MODULE:
            return V_DATA
        if k == REF:
            return self.call_ref(call, f, fv, args, kwargs)
        if k == METHOD:
            return self.call_method(call, fv, args, kwargs)
        if k == LOCAL_FN:
            return self.call_helper(call, fv, args, kwargs, what="helper")
        if k == LOCAL_CLASS:
            info = self.an.classes.get(fv.qual)
            if info is not None and info.is_module and not self.quiet:
                self.report("HD201", call, f"constructs the module `{fv.qual}` inside forward()",
                            op=_camel_to_op(fv.qual))
                return Val(RAW_MODULE, qual=fv.qual, node=call)
            if info is not None and info.is_module:
                return Val(RAW_MODULE, qual=fv.qual, node=call,
                           origin=(self.an.loc(call, f"`{fv.qual}` (defined in this file) built here"),))
            return V_SCALAR
        if k == CHILD_CLASS:
            if not self.quiet:
                self.report("HD201", call, f"constructs the child `{self.an.snippet(f)}` inside forward() "
                                           "(fresh weights on every call)", op=_camel_to_op(fv.qual.split('.')[-1]))
            else:
                self.check_child_constructor(call, f, fv)
            return V_CHILD
        if k == CHILD_MODULE:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}`, a function imported from "
                                       f"`{fv.qual.rsplit('.', 1)[0]}`, not a child module: only a child "
                                       f"module's forward is verified", op=fv.qual.split(".")[-1])
            return V_DATA
        if k == RAW_MODULE:
            op = _camel_to_op(fv.qual) if fv.qual else "module"
            self.report("HD109", call, f"calls `{self.an.snippet(f)}`, a `{fv.qual or 'module'}` that is not "
                                       f"a child component", op=op, related=fv.origin)
            return V_DATA
        if k == AUTOGRAD_APPLY:
            self.report("HD110", call, f"runs the autograd.Function `{fv.qual}`", op=_camel_to_op(fv.qual),
                        related=[self.an.loc(fv.node, f"`{fv.qual}` defined here")] if fv.node else [])
            return V_DATA
        if k == SUPER:
            return V_DATA
        if k == SCALAR:
            if any(a.kind in _TENSORISH for a in args) and not (
                    isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant)):  # "{}".format(x) is fine
                self.report("HD112", call, f"calls `{self.an.snippet(f)}` on a tensor; it is not a child module",
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if k == SEQ:
            self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                        related=fv.origin)
            return V_DATA
        if k == CHILD_ATTR:
            self.report("HD111", call, f"calls `{self.an.snippet(f)}` on a child instead of the child itself",
                        op=fv.qual)
            return V_DATA
        # DATA / TCONST called: a value of unknown origin
        self.report("HD112", call, f"calls `{self.an.snippet(f)}`, which is not a child module",
                    related=fv.origin)
        return V_DATA

    def call_ref(self, call: ast.Call, f: ast.expr, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        qual = fv.qual
        if qual.startswith("builtins."):
            name = qual[len("builtins."):]
            if "." in name:
                if name.rsplit(".", 1)[1].startswith("__"):  # object.__getattribute__(x, "relu") & co
                    self.report("HD103", call, f"`{spelled_of(self.an, f)}` reaches attributes by name at run time")
                    return V_DATA
                return V_SCALAR
            return self.call_builtin(call, name, args, kwargs)
        if qual in ("functools.reduce", "_functools.reduce") and len(args) >= 2 and args[1].kind == SEQ and \
                self.is_addition(call.args[0], args[0]):
            self.check_sum_of_sequence(call, call.args[1], args[1], f"`{self.an.snippet(f)}` with an addition")
            return V_DATA
        rc = classify_ref(qual)
        w = rc.what

        def spelled() -> str:  # only built when a violation is reported: it is the costly part
            return self.an.snippet(f)

        any_tensor = any(a.kind in _TENSORISH for a in args) or any(
            v.kind in _TENSORISH for v in kwargs.values()) if w in ("neutral", "const", "namespace", "math") else False
        if self.quiet and w in ("compute", "plumb") and qual.startswith("torch"):
            return Val(TCONST, qual=rc.op)
        if w == "compute":
            if fv.via == "dynamic":
                self.report("HD103", call, f"`{spelled()}` looks up `{qual}` by name at run time: compute "
                                           f"(`{rc.op}`)", op=rc.op, related=fv.origin)
            elif fv.via == "alias" or (fv.origin and fv.via not in ("import", "star")):
                self.report("HD102", call, f"`{spelled()}` is an alias of `{qual}`: compute (`{rc.op}`)",
                            op=rc.op, related=fv.origin)
            else:
                what = f"`{spelled()}`" + (f" (`{qual}`)" if spelled() != qual else "")
                self.report("HD101", call, f"{what} is compute (`{rc.op}`)", op=rc.op, related=fv.origin)
            return V_DATA
        if w == "plumb":
            if rc.op in ("split", "chunk", "unbind", "tensor_split", "split_with_sizes", "hsplit",
                         "vsplit", "dsplit", "unsafe_chunk", "unsafe_split", "broadcast_tensors", "unpack"):
                return _seq(V_DATA)
            first = args[0] if args else V_DATA
            if first.kind == SEQ:  # torch.cat([a, b]): a child's output if every part is
                first = first.elem or V_DATA
            return first if _is_child_out(first) else V_DATA
        if w == "shape":
            return V_SCALAR
        if w in ("neutral", "const", "namespace"):
            if rc.op in ("no_grad", "enable_grad", "inference_mode", "autocast"):
                return V_SCALAR
            return V_SCALAR if not any_tensor else V_DATA
        if w in ("nn_class", "container", "parameter", "plumb_module"):
            if self.quiet:
                if w == "container":
                    return Val(CHILDREN)
                if w == "plumb_module":
                    return Val(PLUMB_MODULE, qual=rc.op)
                if w == "parameter":
                    return Val(TCONST, qual=rc.op)
                return Val(RAW_MODULE, qual=rc.op, node=call)
            self.report("HD201", call, f"constructs `{spelled()}` inside forward()", op=_camel_to_op(rc.op))
            return Val(RAW_MODULE, qual=rc.op, node=call)
        if w == "autograd":
            return V_DATA
        if w == "copy":  # copy.deepcopy(self.block) is another instance of the same child
            return args[0] if args else V_DATA
        if w == "math":
            if any_tensor:
                self.report("HD107", call, f"`{spelled()}` applied to a tensor is compute (`{rc.op}`)", op=rc.op,
                            related=fv.origin)
                return V_DATA
            return V_SCALAR
        if w == "operator":
            opcls = OPERATOR_BINOPS[rc.op]
            if len(args) >= 2:
                return self.binop(call, opcls(), args[0], args[1], call.args[0], call.args[1])
            return V_DATA
        if w == "dynamic":
            if qual == "operator.methodcaller":
                self.report("HD103", call, f"`{spelled()}` calls a method chosen by name at run time")
                return V_SCALAR
            if qual.endswith("import_module") and call.args:
                mod = _const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        # external (third party / helper file) code
        if self.quiet:
            return V_DATA
        where = "a helper file outside children/" if qual.startswith("<helper:") else "outside torch"
        self.report("HD112", call, f"calls `{spelled()}` ({where}): it cannot be proven to be plumbing",
                    op=rc.op, related=fv.origin)
        return V_DATA

    def call_builtin(self, call: ast.Call, name: str, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if name in BUILTIN_DYNAMIC:
            self.report("HD209", call, f"`{name}` runs code that static analysis cannot see", op=name)
            if name == "__import__" and call.args:
                mod = _const_str(call.args[0])
                if mod:
                    return Val(REF, qual=mod, via="dynamic")
            return V_DATA
        if name in ("globals", "locals", "vars"):
            if name == "vars" and args and args[0].kind == REF:
                return Val(REF, qual=f"{args[0].qual}.__dict__", via="dynamic")
            return Val(REF, qual="builtins.<globals>", via="dynamic")
        if name in ("setattr", "delattr"):
            if call.args:
                tv = args[0] if args else V_DATA
                attr = _const_str(call.args[1]) if len(call.args) > 1 else None
                if tv.kind in (REF, CHILD_CLASS, CHILD_MODULE, LOCAL_CLASS) or attr in PATCH_ATTRS:
                    self.report("HD207", call, f"`{name}` rebinds an attribute of "
                                               f"`{self.an.snippet(call.args[0])}` (monkeypatching)")
            return V_SCALAR
        if name in BUILTIN_MATH:
            op = BUILTIN_MATH[name]
            if name == "sum" and args and args[0].kind == SEQ and (args[0].elem or V_DATA).qual != "python-number":
                # sum of a list of tensors: a chain of residual adds, when the list is written out or holds
                # children's outputs; over slices of a tensor (a generator, unbind, a list filled in a
                # loop) it is a reduction
                elem = args[0].elem or V_DATA
                if elem.kind not in _TENSORISH:
                    return V_SCALAR
                self.check_sum_of_sequence(call, call.args[0], args[0], "builtin `sum`")
                return elem if elem.kind == TCONST else V_DATA
            if any(a.kind in _TENSORISH for a in args) or (args and args[0].kind == SEQ and args[0].elem is not None
                                                           and args[0].elem.kind in _TENSORISH):
                self.report("HD107", call, f"builtin `{name}` applied to a tensor is compute (`{op}`)", op=op)
                return V_DATA
            return V_SCALAR
        if name in ("map", "filter") and args:
            rest = args[1] if len(args) > 1 else V_DATA
            return _seq(V_DATA if name == "map" else self.an.iter_elem(rest))
        if name == "len":
            return V_SCALAR
        if name == "range":
            return _seq(V_SCALAR)
        if name == "enumerate":
            return _seq(Val(SEQ, elts=(V_SCALAR, self.an.iter_elem(args[0] if args else V_DATA)),
                            elem=V_DATA))
        if name == "zip":
            return _seq(_seq(elts=[self.an.iter_elem(a) for a in args]))
        if name in ("list", "tuple", "sorted", "reversed", "set", "frozenset", "iter"):
            if not args:
                return _seq(V_EMPTY, elts=())
            a = args[0]
            if a.kind == SEQ:
                return a
            return _seq(self.an.iter_elem(a))
        if name == "dict":
            return Val(SEQ, elem=_merge(None, args[0].elem or V_DATA) if args and args[0].kind == SEQ else V_DATA,
                       qual="dict")
        if name == "next":
            return self.an.iter_elem(args[0]) if args else V_DATA
        if name == "super":
            return Val(SUPER)
        if name in ("int", "float", "bool", "complex"):
            return V_PYDATA if args and args[0].kind in _TENSORISH else V_SCALAR
        if name == "str":
            return V_SCALAR
        if name == "type" and len(args) == 1 and args[0].kind in _TENSORISH:
            return Val(REF, qual="torch.Tensor")  # type(x).relu(x) is torch.Tensor.relu(x)
        return V_SCALAR

    @staticmethod
    def is_addition(node: ast.expr, fn: Val) -> bool:
        """operator.add / operator.iadd / `lambda a, b: a + b`: a reduce() with it is a sum."""
        if fn.kind == REF and fn.qual in ("operator.add", "operator.iadd", "operator.__add__", "_operator.add"):
            return True
        fnode = fn.node if fn.kind == LOCAL_FN else node
        if isinstance(fnode, ast.Lambda):
            return type(fnode.body) is ast.BinOp and type(fnode.body.op) is ast.Add
        return False

    def check_sum_of_sequence(self, call: ast.Call, seq_node: ast.expr, seq: Val, what: str) -> None:
        """HD116 for a sum over a sequence of tensors that are not all children's outputs (unless the
        sequence is written out, `sum([a, b])`, which is `a + b`)."""
        elem = seq.elem or V_DATA
        if seq.elts is not None or elem.kind == TCONST or _is_child_out(elem) or elem is V_EMPTY:
            return
        self.report("HD116", call, f"{what} over `{self.an.snippet(seq_node)}` adds up slices or values that are "
                                   f"not children's outputs: a reduction (`sum`), not a residual", op="sum")

    def call_method(self, call: ast.Call, fv: Val, args: list[Val], kwargs: dict[str, Val]) -> Val:
        recv = fv.elem or V_DATA
        name = fv.qual
        rk = recv.kind
        if rk in _TENSORISH:
            if name == "<name>":
                self.report("HD103", call, "calls a tensor method chosen by name at run time", op=None)
                return V_DATA
            rc = classify_method(name)
            if rc.what == "binop":
                other = args[0] if args else V_DATA
                return self.binop(call, DUNDER_BINOPS[name](), recv, other, call, call)
            if name in ("item", "tolist"):
                # the tensor's values as Python numbers: arithmetic on them is still compute
                return _seq(V_PYDATA) if name == "tolist" else V_PYDATA
            if rc.what == "shape":
                return V_SCALAR
            if rc.what == "plumb":
                if name in ("split", "chunk", "unbind", "tensor_split", "split_with_sizes", "hsplit",
                            "vsplit", "dsplit", "unsafe_chunk", "unsafe_split"):
                    return _seq(V_DATA)
                return recv if rk == TCONST or recv.qual == CHILD_OUT else V_DATA
            if rc.what == "compute":
                spelled = self.an.snippet(call.func)
                if fv.via == "dynamic":
                    self.report("HD103", call, f"`{spelled}` looks up the tensor method `{name}` by name: "
                                               f"compute (`{rc.op}`)", op=rc.op)
                elif name.endswith("_") and not name.endswith("__"):
                    self.report("HD105", call, f"`.{name}()` modifies a tensor in place with compute "
                                               f"(`{rc.op}`)", op=rc.op)
                else:
                    self.report("HD104", call, f"`.{name}()` is a tensor compute method (`{rc.op}`)", op=rc.op)
                return V_DATA
            if rk == CHILD_ATTR:
                return V_DATA
            return V_DATA
        if rk == CHILDREN:
            if name in ("items", "named_children"):
                return _seq(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("values", "children", "modules", "__iter__"):
                return _seq(V_CHILD)
            if name in ("keys",):
                return _seq(V_SCALAR)
            if name in ("get", "__getitem__", "pop"):
                return V_CHILD
            if name in ("__len__",):
                return V_SCALAR
            self.report("HD111", call, f"calls `.{name}()` on a container of children", op=name)
            return V_DATA
        if rk == SELF:
            if name in ("children", "modules"):
                return _seq(V_CHILD)
            if name in ("named_children", "named_modules"):
                return _seq(Val(SEQ, elts=(V_SCALAR, V_CHILD), elem=V_CHILD))
            if name in ("parameters", "buffers"):
                return _seq(Val(CHILD_ATTR, qual="parameter"))
            if name in ("named_parameters", "named_buffers", "state_dict"):
                return _seq(Val(SEQ, elts=(V_SCALAR, Val(CHILD_ATTR)), elem=V_DATA))
            if name == "forward":
                return V_DATA
            if name in ("register_buffer", "register_parameter"):
                self.report("HD204", call, f"`self.{name}` inside forward() gives the model its own state")
                return V_SCALAR
            if name == "apply":
                self.report("HD112", call, "`self.apply(fn)` runs a function over modules from forward()")
                return V_DATA
            return V_SCALAR
        if rk == SEQ:
            if name in ("append", "insert", "add") and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, args[-1])
                return V_SCALAR
            if name == "extend" and args:
                if isinstance(call.func, ast.Attribute):
                    self.env_update_seq(call.func.value, self.an.iter_elem(args[0]))
                return V_SCALAR
            if name in ("items",):
                return _seq(Val(SEQ, elts=(V_SCALAR, recv.elem or V_DATA), elem=recv.elem))
            if name in ("values",):
                return _seq(recv.elem or V_DATA)
            if name in ("keys", "index", "count"):
                return _seq(V_SCALAR) if name == "keys" else V_SCALAR
            if name in ("get", "pop", "setdefault"):
                return recv.elem or V_DATA
            if name == "copy":
                return recv
            return V_SCALAR
        if rk == SCALAR:
            return V_SCALAR
        return V_DATA

    def call_helper(self, node: ast.AST, fn: Val, args: list[Val], kwargs: dict[str, Val], what: str) -> Val:
        if self.quiet:
            # module level / __init__: only what the helper returns matters (a container of children, an
            # alias of a compute function, a raw module...); what it does is judged where it is used
            return self.an.analyse_helper(fn, args, kwargs, quiet=True).ret
        res = self.an.analyse_helper(fn, args, kwargs)
        if res.violations:
            self.summarise_helper(node, fn, res.violations, what=what)
        ret = res.ret
        if ret.kind == DATA and ret.qual == CHILD_OUT and ret.ctx and ret.ctx[0] == _HELPER_PATH[0]:
            return self.child_out()  # a child called inside the helper, during this call
        return ret

    def summarise_helper(self, node: ast.AST, fn: Val, inner: list[AntiCheatViolation], what: str) -> None:
        first = inner[0]
        name = fn.qual or "<lambda>"
        label = "lambda" if isinstance(fn.node, ast.Lambda) else {
            "property": "property", "staticmethod": "staticmethod", "classmethod": "classmethod",
        }.get(self.an._fn_kind(fn.node), what if what != "passed as a value" else "helper")
        ops = sorted({v.op for v in inner if v.op})
        where = self.an.header_range(fn.node) if isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else _rng(fn.node)
        related = [*fn.origin, RelatedLocation(f"{label} `{name}` defined here", where, self.an.path)]
        for v in inner[:5]:
            if v.range is not None:
                related.append(RelatedLocation(f"{v.rule}: {v.message}", v.range, self.an.path))
            related.extend(v.related[:2])
        msg = (f"{label} `{name}`{' (passed as a value)' if what == 'passed as a value' else ''} does "
               f"compute: {first.message}")
        self.report("HD108", node, msg, op=first.op, related=related,
                    details={"inner_rules": sorted({v.rule for v in inner}), "ops": ops})


_STMT_DISPATCH: dict[type, Any] = {
    ast.Assign: _ForwardEval.st_assign, ast.Return: _ForwardEval.st_return, ast.Expr: _ForwardEval.st_expr,
    ast.AugAssign: _ForwardEval.st_augassign, ast.AnnAssign: _ForwardEval.st_annassign,
    ast.If: _ForwardEval.st_if, ast.While: _ForwardEval.st_while, ast.For: _ForwardEval.st_for,
    ast.AsyncFor: _ForwardEval.st_for, ast.With: _ForwardEval.st_with, ast.AsyncWith: _ForwardEval.st_with,
    ast.Try: _ForwardEval.st_try, ast.FunctionDef: _ForwardEval.st_def, ast.AsyncFunctionDef: _ForwardEval.st_def,
    ast.Assert: _ForwardEval.st_assert, ast.Import: _ForwardEval.st_import,
    ast.ImportFrom: _ForwardEval.st_import, ast.ClassDef: _ForwardEval.st_class, ast.Match: _ForwardEval.st_match,
}
if hasattr(ast, "TryStar"):  # Python 3.11+: try/except*
    _STMT_DISPATCH[ast.TryStar] = _ForwardEval.st_try

_EV_DISPATCH: dict[type, Any] = {
    ast.Name: _ForwardEval.name, ast.Call: _ForwardEval.call, ast.Attribute: _ForwardEval.ev_attribute,
    ast.Constant: _ForwardEval.ev_constant, ast.BinOp: _ForwardEval.ev_binop,
    ast.Subscript: _ForwardEval.subscript, ast.Tuple: _ForwardEval.ev_sequence,
    ast.List: _ForwardEval.ev_sequence, ast.Set: _ForwardEval.ev_sequence, ast.Dict: _ForwardEval.ev_dict,
    ast.Compare: _ForwardEval.compare, ast.UnaryOp: _ForwardEval.ev_unary, ast.BoolOp: _ForwardEval.ev_boolop,
    ast.IfExp: _ForwardEval.ev_ifexp, ast.JoinedStr: _ForwardEval.ev_joinedstr,
    ast.FormattedValue: _ForwardEval.ev_formatted, ast.Lambda: _ForwardEval.ev_lambda,
    ast.ListComp: _ForwardEval.ev_comp, ast.SetComp: _ForwardEval.ev_comp, ast.GeneratorExp: _ForwardEval.ev_comp,
    ast.DictComp: _ForwardEval.ev_dictcomp, ast.Starred: _ForwardEval.ev_starred,
    ast.NamedExpr: _ForwardEval.ev_namedexpr, ast.Slice: _ForwardEval.ev_slice, ast.Await: _ForwardEval.ev_await,
    ast.Yield: _ForwardEval.ev_await, ast.YieldFrom: _ForwardEval.ev_await,
}


# ---------------------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------------------

def _syntax_violation(exc: BaseException, source: str, path: str | None) -> AntiCheatViolation:
    line = getattr(exc, "lineno", None) or 1
    offset = getattr(exc, "offset", None) or 1
    end_line = getattr(exc, "end_lineno", None) or line
    end_offset = getattr(exc, "end_offset", None) or offset + 1
    if (end_line, end_offset) <= (line, offset):
        end_line, end_offset = line, offset + 1
    lines = source.splitlines()

    def byte_col(at_line: int, char_offset: int) -> int:
        # SyntaxError counts characters; SourceRange columns are UTF-8 bytes, like every `ast` position
        raw = lines[at_line - 1] if 0 < at_line <= len(lines) else ""
        return len(raw[: max(char_offset - 1, 0)].encode("utf-8", errors="replace"))

    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    msg = getattr(exc, "msg", None) or str(exc)
    spec = RULES["HD001"]
    return AntiCheatViolation(
        rule="HD001", message=f"syntax error: {msg}", severity=spec.severity, file=path,
        range=SourceRange(line, byte_col(line, offset), end_line, byte_col(end_line, end_offset)), line_text=text,
        allowed_instead=spec.allowed_instead)


def _incomplete(reason: str, path: str | None) -> AntiCheatViolation:
    spec = RULES["HD004"]
    return AntiCheatViolation(rule="HD004", message=f"analysis incomplete: {reason}", severity=spec.severity,
                              file=path, range=SourceRange(1, 0, 1, 0), allowed_instead=spec.allowed_instead)


def analyze_tree(tree: ast.Module, source: str, path: str | None = None,
                 memo: AnalysisMemo | None = None) -> list[AntiCheatViolation]:
    """Analyse an already parsed module (the language server parses once per document version).

    With a `memo` (one per document), statements of forward() unchanged since the previous call reuse
    their results; the violations are the same as without it. The returned objects may be shared with
    the memo: callers that modify them must copy them first."""
    try:
        return _Analyzer(source, tree, path, memo).run()
    except RecursionError:
        return [_incomplete("the code is nested too deeply to analyse", path)]
    except Exception as exc:  # never let a half-typed file crash the editor; say so instead
        return [_incomplete(f"internal error {type(exc).__name__}: {exc}", path)]


_CACHE: dict[tuple[str | None, str], list[AntiCheatViolation]] = {}
_CACHE_SIZE = 16


def analyze_source(source: str, path: str | None = None) -> list[AntiCheatViolation]:
    """Static anti-cheat findings for the source of a refactored.py, sorted by position. Never raises.

    The same text is often analysed several times in a row (diagnostics, code actions, CodeLens of one
    document version), so the last few results are kept; callers get fresh copies."""
    key = (path, source)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _analyze_source(source, path)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = cached
    return [replace(v, related=list(v.related), details=dict(v.details)) for v in cached]


def _analyze_source(source: str, path: str | None) -> list[AntiCheatViolation]:
    tree = parse_source(source, path)
    return tree if isinstance(tree, list) else analyze_tree(tree, source, path)


def parse_source(source: str, path: str | None = None) -> ast.Module | list[AntiCheatViolation]:
    """The module's tree, or the one violation (HD001 syntax error, HD004) saying why there is none."""
    try:
        if "\x00" in source:
            idx = source.index("\x00")
            line = source.count("\n", 0, idx) + 1
            col = idx - (source.rfind("\n", 0, idx) + 1)
            err = SyntaxError("source contains a null byte")
            err.lineno, err.offset = line, col + 1
            return [_syntax_violation(err, source, path)]
        with warnings.catch_warnings():
            # invalid escape sequences etc. warn at parse time; the editor must stay quiet
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=path or "<source>")
    except (SyntaxError, ValueError) as exc:
        return [_syntax_violation(exc, source, path)]
    except (RecursionError, MemoryError):
        return [_incomplete("the code is nested too deeply to parse", path)]


class UnreadableFileError(HdecompError, OSError):
    """The file cannot be read as UTF-8 text (missing, a folder, no permission, not UTF-8).

    An HdecompError so that every caller (verify-step, check) reports it as one `file: cause` line with
    exit 2, and an OSError so that callers written against the old contract still catch it."""


def analyze_file(path: str | Path) -> list[AntiCheatViolation]:
    """Read a file (UTF-8) and analyse it. Raises UnreadableFileError if it cannot be read."""
    p = Path(path)
    try:
        source = p.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise UnreadableFileError("is a folder, not a Python file", p) from None
    except OSError as exc:
        raise UnreadableFileError(f"cannot read file: {exc.strerror or exc}", p) from None
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(f"cannot read file: not UTF-8 ({exc.reason} at byte {exc.start})", p) from None
    return analyze_source(source, str(p))


def has_errors(violations: Iterable[AntiCheatViolation]) -> bool:
    return any(v.severity == "error" for v in violations)


def _iter_report(path: str, violations: list[AntiCheatViolation]) -> Iterator[str]:
    for v in violations:
        yield f"{v.format()}  [{v.severity}]"
        if v.allowed_instead:
            yield f"    instead: {v.allowed_instead}"
        for r in v.related[:3]:
            yield f"    related: {r.file or path}:{r.range.line}:{r.range.col + 1}: {r.message}"


def cli_check(args: argparse.Namespace) -> int:
    """`hdecomp check FILES... [--json]`: 0 clean, 1 any error-severity violation, 2 unreadable file."""
    results: dict[str, list[AntiCheatViolation]] = {}
    for name in args.files:
        try:
            results[name] = analyze_file(name)
        except UnreadableFileError as exc:
            print(f"ERROR: {exc.headline}", file=sys.stderr)
            return 2
    failed = any(has_errors(v) for v in results.values())
    if getattr(args, "json", False):
        payload = {
            "status": "FAIL" if failed else "PASS",
            "files": [{"file": name, "status": "FAIL" if has_errors(vs) else "PASS",
                       "violations": [v.to_dict() for v in vs]} for name, vs in results.items()],
        }
        print(dumps_json(payload))
    else:
        for name, vs in results.items():
            for line in _iter_report(name, vs):
                print(line)
            n_err = sum(v.severity == "error" for v in vs)
            n_warn = len(vs) - n_err
            print(f"{name}: {'FAIL' if n_err else 'PASS'} ({n_err} error(s), {n_warn} warning(s))")
    return 1 if failed else 0
