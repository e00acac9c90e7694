"""Static state_dict keys of module constructor calls (`nn.Linear(4, 8)` -> weight, bias), read from source
without importing torch, for weight_map.json updates. Unknown modules give None (= "cannot tell")."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from pathlib import Path

# module class -> (keys, {keyword: (positional index, default) that switches keys off when False})
_AFFINE_BIAS = ["weight", "bias"]
_BN_STATS = ["running_mean", "running_var", "num_batches_tracked"]
_STATELESS = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardswish", "Hardsigmoid", "Hardtanh", "ELU",
    "SELU", "CELU", "LeakyReLU", "Softplus", "Softsign", "Tanhshrink", "Threshold", "GLU", "LogSigmoid",
    "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
    "AlphaDropout", "FeatureAlphaDropout", "Identity", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d",
    "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d",
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "ChannelShuffle", "CosineSimilarity", "PairwiseDistance", "Hardshrink", "Softshrink", "MaxUnpool2d",
}


def _flag(call: ast.Call, name: str, index: int | None, default: bool) -> bool | None:
    """Value of a boolean constructor argument; None when it is not a literal."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value.value if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool) else None
    if index is not None and len(call.args) > index:
        arg = call.args[index]
        return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, bool) else None
    return default


def _int_arg(call: ast.Call, name: str, index: int | None, default: int) -> int | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value.value if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int) else None
    if index is not None and len(call.args) > index:
        arg = call.args[index]
        return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, int) else None
    return default


def _keys_if(flag: bool | None, keys: list[str]) -> list[str] | None:
    if flag is None:
        return None
    return keys if flag else []


def call_name(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


Resolver = Callable[[str], "Path | None"]


def constructor_keys(call: ast.expr, resolve: Resolver | None = None, depth: int = 0) -> list[str] | None:
    """state_dict keys (relative to the attribute) created by one constructor expression, or None."""
    if not isinstance(call, ast.Call) or depth > 6:
        return None
    name = call_name(call)
    # a component imported from a file (a child): read its Model.__init__, whatever its name says
    if isinstance(call.func, ast.Name) and resolve is not None:
        path = resolve(call.func.id)
        if path is not None:
            return file_state_keys(path, "Model", resolve_for_file(path), depth + 1)
    if name in _STATELESS:
        return []
    if name in ("Parameter", "UninitializedParameter"):
        return [""]
    if name in ("Linear", "LazyLinear", "Bilinear"):
        idx = {"Linear": 2, "LazyLinear": 1, "Bilinear": 3}[name]
        bias = _flag(call, "bias", idx, True)
        return None if bias is None else (["weight", "bias"] if bias else ["weight"])
    if name.startswith(("Conv", "LazyConv")):
        bias = _flag(call, "bias", 7, True)
        return None if bias is None else (["weight", "bias"] if bias else ["weight"])
    if name.startswith(("BatchNorm", "SyncBatchNorm", "LazyBatchNorm")):
        affine = _flag(call, "affine", 3, True)
        track = _flag(call, "track_running_stats", 4, True)
        if affine is None or track is None:
            return None
        return (_AFFINE_BIAS if affine else []) + (_BN_STATS if track else [])
    if name.startswith("InstanceNorm"):
        affine = _flag(call, "affine", 3, False)
        track = _flag(call, "track_running_stats", 4, False)
        if affine is None or track is None:
            return None
        return (_AFFINE_BIAS if affine else []) + (["running_mean", "running_var", "num_batches_tracked"]
                                                    if track else [])
    if name == "LayerNorm":
        affine = _flag(call, "elementwise_affine", 2, True)
        bias = _flag(call, "bias", 3, True)
        if affine is None or bias is None:
            return None
        return (["weight", "bias"] if bias else ["weight"]) if affine else []
    if name == "GroupNorm":
        return _keys_if(_flag(call, "affine", 3, True), _AFFINE_BIAS)
    if name == "RMSNorm":
        return _keys_if(_flag(call, "elementwise_affine", 2, True), ["weight"])
    if name in ("Embedding", "EmbeddingBag"):
        return ["weight"]
    if name == "PReLU":
        return ["weight"]
    if name == "MultiheadAttention":
        bias = _flag(call, "bias", 3, True)
        if bias is None or any(kw.arg in ("kdim", "vdim", "add_bias_kv") for kw in call.keywords):
            return None
        return (["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"] if bias
                else ["in_proj_weight", "out_proj.weight"])
    if name in ("LSTM", "GRU", "RNN"):
        layers = _int_arg(call, "num_layers", 2, 1)
        bias = _flag(call, "bias", 3, True)
        bidir = _flag(call, "bidirectional", 6 if name != "RNN" else 7, False)
        if layers is None or bias is None or bidir is None or any(kw.arg == "proj_size" for kw in call.keywords):
            return None
        keys = []
        for layer in range(layers):
            for suffix in ([""] + (["_reverse"] if bidir else [])):
                keys += [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                if bias:
                    keys += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
        return keys
    if name == "Sequential":
        keys = []
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return None
            sub = constructor_keys(arg, resolve, depth + 1)
            if sub is None:
                return None
            keys += [f"{i}.{k}" if k else str(i) for k in sub]
        return keys
    if name == "ModuleList":
        if not call.args:
            return []
        seq = call.args[0]
        if not isinstance(seq, (ast.List, ast.Tuple)):
            return None
        keys = []
        for i, arg in enumerate(seq.elts):
            sub = constructor_keys(arg, resolve, depth + 1)
            if sub is None:
                return None
            keys += [f"{i}.{k}" if k else str(i) for k in sub]
        return keys
    return None


def class_state_keys(tree: ast.Module, class_name: str, resolve: Resolver | None, depth: int = 0) -> list[str] | None:
    """Keys created by `class_name.__init__` in `tree` (self.x = <ctor>, self.register_buffer(...))."""
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if cls is None:
        return None
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return []
    keys: list[str] = []
    for stmt in init.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if isinstance(call.func, ast.Attribute) and call.func.attr == "super":
                continue
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
                continue  # super().__init__()
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("register_buffer", "register_parameter"):
                if not (call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                    return None
                persistent = _flag(call, "persistent", 2, True)
                if call.func.attr == "register_parameter" or persistent:
                    keys.append(call.args[0].value)
                continue
            return None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            attr = self_attr_target(targets)
            value = stmt.value
            if attr is None:
                continue  # a local variable
            if isinstance(value, ast.Call):
                sub = constructor_keys(value, resolve, depth)
                if sub is None:
                    if call_name(value) in ("Tensor", "tensor", "zeros", "ones", "randn", "rand", "empty",
                                            "arange", "full", "linspace"):
                        continue  # a plain tensor attribute is not in the state_dict
                    return None
                keys += [f"{attr}.{k}" if k else attr for k in sub]
            continue
        if isinstance(stmt, (ast.Pass, ast.Expr)):
            continue
        return None  # loops, conditionals: cannot tell statically
    return keys


def self_attr_target(targets: Sequence[ast.expr]) -> str | None:
    if len(targets) == 1:
        t = targets[0]
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return t.attr
    return None


def resolve_for_file(path: Path) -> Resolver:
    """Resolve names imported in `path` from sibling or children/ files to those files."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return lambda name: None
    return make_resolver(tree, path.parent)


def make_resolver(tree: ast.Module, folder: Path) -> Resolver:
    imported: dict[str, Path] = {}
    top: list[ast.stmt] = []
    for stmt in tree.body:  # imports may sit in a try/except (children/ or children.<name>)
        top.extend([stmt, *stmt.body, *[s for h in stmt.handlers for s in h.body]]
                   if isinstance(stmt, ast.Try) else [stmt])
    for node in top:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            candidates = [folder.joinpath(*parts).with_suffix(".py"),
                          (folder / "children").joinpath(*parts).with_suffix(".py")]
            file = next((c for c in candidates if c.is_file()), None)
            if file is None:
                continue
            for alias in node.names:
                imported[alias.asname or alias.name] = file
    return imported.get


def file_state_keys(path: Path, class_name: str = "Model", resolve: Resolver | None = None,
                    depth: int = 0) -> list[str] | None:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    return class_state_keys(tree, class_name, resolve or make_resolver(tree, path.parent), depth)
