"""The vocabulary of the static check: the tensor methods, namespaces, builtins and modules it knows, and
what is harmless. What is plumbing and what only asks about shapes is hdecomp.vocab.ops's (SOURCE_PLUMBING_OPS,
SHAPE_QUERIES), shared with the decomposer. Everything else under torch is compute (allow-list semantics)."""

from __future__ import annotations

import ast
import re

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
topk qr eig to_dense sparse_mask int_repr coalesce cdouble
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
manual_seed seed initial_seed get_rng_state set_rng_state finfo iinfo Tensor Generator jit cuda backends compiler _assert typename
set_printoptions utils testing __version__ version memory_format layout is_autocast_enabled get_device
Module Parameter
_check _check_with _check_tensor_all _check_tensor_all_with _check_is_size _check_value _check_index _check_type
_check_not_implemented
""".split())
# (`torch.random`: the random state, seeded, saved and scoped (fork_rng, get_rng_state, set_rng_state); no
# function of it computes)
NEUTRAL_TORCH_NAMESPACES = frozenset("cuda backends compiler jit testing version utils mps cpu distributed random"
                                     .split())

# torch namespaces whose every function is compute.
COMPUTE_NAMESPACES = ("torch.nn.functional", "torch.special", "torch.linalg", "torch.fft", "torch.nn.init",
                      "torch._C._nn", "torch._C._VariableFunctions", "torch._refs", "torch._prims")
TORCH_NAMESPACES = frozenset({"torch", "torch.nn", "torch.ops", "torch._C", "torch.autograd",
                              "torch.nn.modules", "torch.nn.parameter", *COMPUTE_NAMESPACES})

NN_CONTAINERS = frozenset({"ModuleList", "ModuleDict", "Sequential"})
NN_PARAMETERS = frozenset({"Parameter", "ParameterList", "ParameterDict", "UninitializedParameter",
                           "UninitializedBuffer", "Buffer"})

MATH_MODULES = frozenset({"math", "cmath", "numpy", "scipy", "jax"})
OPERATOR_BINOPS: dict[str, type[ast.operator]] = {
    "add": ast.Add, "iadd": ast.Add, "__add__": ast.Add, "sub": ast.Sub, "isub": ast.Sub, "mul": ast.Mult,
    "imul": ast.Mult, "truediv": ast.Div, "itruediv": ast.Div, "floordiv": ast.FloorDiv, "mod": ast.Mod,
    "pow": ast.Pow, "ipow": ast.Pow, "matmul": ast.MatMult, "imatmul": ast.MatMult, "and_": ast.BitAnd,
    "or_": ast.BitOr, "xor": ast.BitXor, "lshift": ast.LShift, "rshift": ast.RShift,
}

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
KNOWN_PACKAGES = frozenset({"torch", "numpy", "scipy", "jax", "einops", "triton", "timm", "transformers", "diffusers",
                            "torchvision", "torchaudio", "apex", "flash_attn", "xformers", "typing_extensions",
                            "functorch", "opt_einsum", "hdecomp"})
# The model libraries: a decorator of a forward bound to one of their functions (transformers'
# `@merge_with_config_defaults`, `@deprecate_kwarg`, `@capture_outputs`) maps the forward's arguments and
# outputs; a refactored parent keeps it as the original has it (hdecomp.decompose.source_step), and the
# analysis reads it as plumbing. What it runs is judged at run time like any code outside the children.
MODEL_LIBRARIES = frozenset({"transformers", "diffusers", "timm", "torchvision"})
# The libraries' output bases: dict subclasses whose dataclass subclasses pack their fields into the dict's
# keys (`__post_init__`), by name: data plumbing. A class that only declares fields on one of them is an
# output class (hdecomp.anticheat.static.external.is_output_dataclass).
OUTPUT_BASES = frozenset({"transformers.utils.generic.ModelOutput", "diffusers.utils.outputs.BaseOutput"})

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

MAX_HELPER_DEPTH = 12
