"""Write the anti-cheat corpus (test/python/corpus/<case>/): honest and cheating decomposition steps.

Each case is a standalone step folder usable by the full verifier: original.py (a tiny KernelBench-style
Model), refactored.py (RefactoredModel), children/*.py (tiny full components), weight_map.json and
case.json {"kind", "rules", "spelling", "static_detectable", "description", "range_text"?}.
`range_text` is the exact source text that the first expected violation's range must cover.

Run: python bench/anticheat/make_corpus.py [--out test/python/corpus]   (rewrites the folder)
"""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------------------
# Children: tiny full components (class Model, get_inputs, get_init_inputs, self-test)
# ---------------------------------------------------------------------------------------------------------

_SELFTEST = '''

if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
'''


def _child(doc: str, init_args: str, init_body: str, fwd_args: str, fwd_body: str, inputs: str,
           init_inputs: str) -> str:
    return (f'"""{doc}"""\n\nimport torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n'
            f"    def __init__(self{init_args}):\n        super().__init__()\n"
            + textwrap.indent(textwrap.dedent(init_body).strip() or "pass", " " * 8) + "\n\n"
            f"    def forward(self, {fwd_args}):\n"
            + textwrap.indent(textwrap.dedent(fwd_body).strip(), " " * 8) + "\n\n\n"
            f"def get_inputs():\n    return {inputs}\n\n\ndef get_init_inputs():\n    return {init_inputs}\n"
            + _SELFTEST)


CHILDREN: dict[str, str] = {
    "linear.py": _child("Kernel: Linear.", ", in_features=8, out_features=16",
                        "self.linear = nn.Linear(in_features, out_features)", "x", "return self.linear(x)",
                        "[torch.randn(2, 8)]", "[8, 16]"),
    "relu.py": _child("Kernel: ReLU.", "", "", "x", "return torch.relu(x)", "[torch.randn(2, 16)]", "[]"),
    "gelu.py": _child("Kernel: GELU.", "", "", "x", "return torch.nn.functional.gelu(x)",
                      "[torch.randn(2, 16)]", "[]"),
    "tanh.py": _child("Kernel: Tanh.", "", "", "x", "return torch.tanh(x)", "[torch.randn(2, 16)]", "[]"),
    "sigmoid.py": _child("Kernel: Sigmoid.", "", "", "x", "return torch.sigmoid(x)", "[torch.randn(2, 16)]",
                         "[]"),
    "softmax.py": _child("Kernel: Softmax over the last dim.", ", dim=-1", "self.dim = dim", "x",
                         "return torch.softmax(x, dim=self.dim)", "[torch.randn(2, 16)]", "[-1]"),
    "layer_norm.py": _child("Kernel: LayerNorm.", ", dim=8", "self.norm = nn.LayerNorm(dim)", "x",
                            "return self.norm(x)", "[torch.randn(2, 8)]", "[8]"),
    "conv2d.py": _child("Kernel: Conv2d 3x3, padding 1.", ", cin=3, cout=4",
                        "self.conv = nn.Conv2d(cin, cout, 3, padding=1)", "x", "return self.conv(x)",
                        "[torch.randn(1, 3, 6, 6)]", "[3, 4]"),
    "bmm.py": _child("Kernel: batched matmul of two tensors.", "", "", "a, b", "return torch.matmul(a, b)",
                     "[torch.randn(2, 4, 3), torch.randn(2, 3, 4)]", "[]"),
    "scale.py": _child("Kernel: multiply by a constant.", ", factor=0.5", "self.factor = factor", "x",
                       "return x * self.factor", "[torch.randn(2, 16)]", "[0.5]"),
    "mul.py": _child("Kernel: elementwise product of two tensors.", "", "", "a, b", "return a * b",
                     "[torch.randn(2, 16), torch.randn(2, 16)]", "[]"),
    "apply_fn.py": _child("A generic child that applies whatever function it is given (a cheat vehicle).",
                          "", "", "x, fn=None", "return fn(x) if fn is not None else x",
                          "[torch.randn(2, 16)]", "[]"),
    "pointwise.py": _child("A generic pointwise child: runs the function its constructor is given (a cheat "
                           "vehicle: the parent picks the op).", ", fn=torch.relu", "self.fn = fn", "x",
                           "return self.fn(x)", "[torch.randn(2, 16)]", "[]"),
    "act_layer.py": _child("A generic activation child: builds the module class it is given (timm's act_layer=).",
                           ", act_layer=nn.ReLU", "self.act = act_layer()", "x", "return self.act(x)",
                           "[torch.randn(2, 16)]", "[]"),
    "act_cfg.py": _child("Kernel: ReLU (or tanh), configured with plain data only.",
                         ", kind=\"relu\", inplace=False, eps=1e-5, shape=(-1, 16), dtype=torch.float32",
                         "self.kind, self.inplace, self.eps = kind, inplace, eps\nself.shape, self.dtype = shape, dtype",
                         "x", "y = torch.relu(x) if self.kind == \"relu\" else torch.tanh(x)\n"
                         "return y.reshape(self.shape).to(self.dtype)", "[torch.randn(2, 16)]",
                         "[\"relu\", False, 1e-5, (-1, 16), torch.float32]"),
}

# ---------------------------------------------------------------------------------------------------------
# Originals
# ---------------------------------------------------------------------------------------------------------

_ORIG_HEAD = '"""{doc}"""\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n'


def mlp_original(act: str, doc: str = "Tiny MLP: fc1 -> act -> fc2.") -> str:
    return _ORIG_HEAD.format(doc=doc) + textwrap.dedent(f'''\
        class Model(nn.Module):
            def __init__(self, in_features=8, hidden=16, out_features=4):
                super().__init__()
                self.fc1 = nn.Linear(in_features, hidden)
                self.fc2 = nn.Linear(hidden, out_features)

            def forward(self, x):
                h = self.fc1(x)
                return self.fc2({act})


        def get_inputs():
            return [torch.randn(2, 8)]


        def get_init_inputs():
            return [8, 16, 4]
        ''')


MLP_MAP = {"fc1.weight": "fc1.linear.weight", "fc1.bias": "fc1.linear.bias",
           "fc2.weight": "fc2.linear.weight", "fc2.bias": "fc2.linear.bias"}


def mlp_refactored(forward: str, *, imports: str = "", module: str = "", class_attrs: str = "",
                   init: str = "", methods: str = "", children: tuple[str, ...] = ("linear",),
                   head_doc: str = "Refactored MLP: children only.", forward_sig: str = "self, x",
                   tail: str = "", bases: str = "nn.Module", core_init: bool = True) -> str:
    child_imports = "\n".join(f"from children.{c} import Model as {_cls(c)}" for c in children)
    parts = [f'"""{head_doc}"""\n', "import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    if imports:
        parts.append(textwrap.dedent(imports).strip())
    parts.append(child_imports)
    text = "\n".join(parts) + "\n"
    if module:
        text += "\n" + textwrap.dedent(module).strip() + "\n"
    text += f"\n\nclass RefactoredModel({bases}):\n"
    if class_attrs:
        text += textwrap.indent(textwrap.dedent(class_attrs).strip(), "    ") + "\n\n"
    text += ("    def __init__(self, in_features=8, hidden=16, out_features=4):\n"
             "        super().__init__()\n")
    if core_init:
        text += ("        self.fc1 = Linear(in_features, hidden)\n"
                 "        self.fc2 = Linear(hidden, out_features)\n")
    if init:
        text += textwrap.indent(textwrap.dedent(init).strip(), " " * 8) + "\n"
    text += "\n"
    if methods:
        text += textwrap.indent(textwrap.dedent(methods).strip(), "    ") + "\n\n"
    text += f"    def forward({forward_sig}):\n" + textwrap.indent(textwrap.dedent(forward).strip(), " " * 8)
    text += "\n\n\ndef get_inputs():\n    return [torch.randn(2, 8)]\n\n\ndef get_init_inputs():\n    return [8, 16, 4]\n"
    if tail:
        text += "\n\n" + textwrap.dedent(tail).strip() + "\n"
    return text


def _cls(child: str) -> str:
    return {"linear": "Linear", "relu": "ReLU", "gelu": "GELU", "tanh": "Tanh", "sigmoid": "Sigmoid",
            "softmax": "Softmax", "layer_norm": "LayerNorm", "conv2d": "Conv2d", "bmm": "BMM",
            "scale": "Scale", "mul": "Mul", "apply_fn": "ApplyFn", "pointwise": "Pointwise",
            "act_layer": "ActLayer", "act_cfg": "ActCfg"}[child]


# ---------------------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------------------

CASES: dict[str, dict] = {}


def case(name: str, kind: str, rules: list[str], spelling: str, description: str, original: str,
         refactored: str, children: tuple[str, ...], weight_map: dict[str, str] | None = None,
         static_detectable: bool = True, range_text: str | None = None,
         extra_files: dict[str, str] | None = None) -> None:
    assert name not in CASES, name
    CASES[name] = dict(kind=kind, rules=rules, spelling=spelling, description=description, original=original,
                       refactored=refactored, children=children, weight_map=weight_map,
                       static_detectable=static_detectable, range_text=range_text,
                       extra_files=extra_files or {})


def cheat_mlp(name: str, rules: list[str], spelling: str, description: str, forward: str, *,
              act: str = "torch.relu(h)", range_text: str | None = None,
              children: tuple[str, ...] = ("linear",), extra_files: dict[str, str] | None = None,
              static_detectable: bool = True, **kw: str) -> None:
    case(name, "cheat", rules, spelling, description, mlp_original(act),
         mlp_refactored(forward, children=children, **kw), children, MLP_MAP,
         static_detectable=static_detectable, range_text=range_text, extra_files=extra_files)


def honest_mlp(name: str, spelling: str, description: str, forward: str, *, act: str = "torch.relu(h)",
               children: tuple[str, ...] = ("linear", "relu"), **kw: str) -> None:
    case(name, "honest", [], spelling, description, mlp_original(act),
         mlp_refactored(forward, children=children, **kw), children, MLP_MAP)


def build_cases() -> None:
    # ---- cheats: compute calls, however spelled ------------------------------------------------------
    cheat_mlp("cheat_f_relu", ["HD101"], "F.*", "F.relu in forward",
              "h = self.fc1(x)\nreturn self.fc2(F.relu(h))", range_text="F.relu(h)")
    cheat_mlp("cheat_torch_relu", ["HD101"], "torch.*", "torch.relu in forward",
              "h = self.fc1(x)\nreturn self.fc2(torch.relu(h))", range_text="torch.relu(h)")
    cheat_mlp("cheat_full_dotted", ["HD101"], "full dotted path", "torch.nn.functional.gelu spelled out",
              "h = self.fc1(x)\nreturn self.fc2(torch.nn.functional.gelu(h))",
              act="F.gelu(h)", range_text="torch.nn.functional.gelu(h)")
    cheat_mlp("cheat_import_as", ["HD101"], "from-import alias", "from torch.nn.functional import relu as r",
              "h = self.fc1(x)\nreturn self.fc2(r(h))", imports="from torch.nn.functional import relu as r",
              range_text="r(h)")
    cheat_mlp("cheat_star_import", ["HD101"], "star import", "from torch import * then tanh(x)",
              "h = self.fc1(x)\nreturn self.fc2(tanh(h))", imports="from torch import *  # noqa: F403",
              act="torch.tanh(h)", range_text="tanh(h)")
    cheat_mlp("cheat_torch_ops_aten", ["HD101"], "torch.ops.aten", "torch.ops.aten.relu.default",
              "h = self.fc1(x)\nreturn self.fc2(torch.ops.aten.relu.default(h))",
              range_text="torch.ops.aten.relu.default(h)")
    cheat_mlp("cheat_tensor_relu", ["HD104"], "Tensor method", "h.relu()",
              "h = self.fc1(x)\nreturn self.fc2(h.relu())", range_text="h.relu()")
    cheat_mlp("cheat_tensor_softmax", ["HD104"], "Tensor method", "h.softmax(-1)",
              "h = self.fc1(x)\nreturn self.fc2(h.softmax(-1))", act="torch.softmax(h, dim=-1)",
              range_text="h.softmax(-1)")
    cheat_mlp("cheat_masked_fill", ["HD104", "HD106"], "Tensor method", "relu spelled as masked_fill(h < 0, 0)",
              "h = self.fc1(x)\nreturn self.fc2(h.masked_fill(h < 0, 0.0))",
              range_text="h.masked_fill(h < 0, 0.0)")
    cheat_mlp("cheat_clamp_inplace", ["HD105"], "in-place", "relu spelled as h.clamp_(min=0)",
              "h = self.fc1(x)\nh.clamp_(min=0)\nreturn self.fc2(h)", range_text="h.clamp_(min=0)")
    cheat_mlp("cheat_relu_inplace", ["HD105"], "in-place", "h.relu_()",
              "h = self.fc1(x)\nreturn self.fc2(h.relu_())", range_text="h.relu_()")
    cheat_mlp("cheat_tensor_sum", ["HD104"], "Tensor method", "a reduction in forward (h.sum)",
              "h = self.fc1(x)\nreturn self.fc2(h) + h.sum(dim=-1, keepdim=True)",
              act="h) + h.sum(dim=-1, keepdim=True", range_text="h.sum(dim=-1, keepdim=True)")
    cheat_mlp("cheat_torch_tensor_method", ["HD101"], "torch.Tensor.<method>", "torch.Tensor.relu(h)",
              "h = self.fc1(x)\nreturn self.fc2(torch.Tensor.relu(h))", range_text="torch.Tensor.relu(h)")
    # ---- aliases ------------------------------------------------------------------------------------------
    cheat_mlp("cheat_module_alias", ["HD102"], "module-level alias", "act = F.relu at module level",
              "h = self.fc1(x)\nreturn self.fc2(act(h))", module="act = F.relu", range_text="act(h)")
    cheat_mlp("cheat_init_alias", ["HD102"], "__init__ alias", "self.act = F.relu in __init__",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", init="self.act = F.relu",
              range_text="self.act(h)")
    cheat_mlp("cheat_default_arg", ["HD102"], "default argument", "def forward(self, x, f=torch.tanh)",
              "h = self.fc1(x)\nreturn self.fc2(f(h))", forward_sig="self, x, f=torch.tanh",
              act="torch.tanh(h)", range_text="f(h)")
    cheat_mlp("cheat_class_attr", ["HD102"], "class attribute", "act = torch.sigmoid as a class attribute",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", class_attrs="act = torch.sigmoid",
              act="torch.sigmoid(h)", range_text="self.act(h)")
    cheat_mlp("cheat_property", ["HD108"], "property", "a property returning F.gelu",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))",
              methods="@property\ndef act(self):\n    return F.gelu", act="F.gelu(h)")
    cheat_mlp("cheat_dict_dispatch", ["HD102"], "dict dispatch", 'OPS = {"relu": F.relu}',
              'h = self.fc1(x)\nreturn self.fc2(OPS["relu"](h))', module='OPS = {"relu": F.relu, "tanh": torch.tanh}',
              range_text='OPS["relu"](h)')
    cheat_mlp("cheat_local_alias", ["HD102"], "local alias", "act = torch.relu inside forward",
              "act = torch.relu\nh = self.fc1(x)\nreturn self.fc2(act(h))", range_text="act(h)")
    # ---- dynamic lookups ------------------------------------------------------------------------------
    cheat_mlp("cheat_getattr_const", ["HD103"], "getattr", 'getattr(torch, "tanh")',
              'h = self.fc1(x)\nreturn self.fc2(getattr(torch, "tanh")(h))', act="torch.tanh(h)",
              range_text='getattr(torch, "tanh")(h)')
    cheat_mlp("cheat_getattr_name", ["HD103"], "getattr", "getattr(F, self.act_name) with a name from __init__",
              "h = self.fc1(x)\nreturn self.fc2(getattr(F, self.act_name)(h))", init='self.act_name = "relu"',
              range_text="getattr(F, self.act_name)(h)")
    cheat_mlp("cheat_globals_lookup", ["HD103"], "globals()", 'globals()["F"].relu',
              'h = self.fc1(x)\nreturn self.fc2(globals()["F"].relu(h))', range_text='globals()["F"].relu(h)')
    cheat_mlp("cheat_torch_dict", ["HD103"], "__dict__", 'torch.__dict__["relu"]',
              'h = self.fc1(x)\nreturn self.fc2(torch.__dict__["relu"](h))',
              range_text='torch.__dict__["relu"](h)')
    cheat_mlp("cheat_getattr_method", ["HD103"], "getattr", 'getattr(h, "relu")()',
              'h = self.fc1(x)\nreturn self.fc2(getattr(h, "relu")())', range_text='getattr(h, "relu")()')
    # ---- operators ------------------------------------------------------------------------------------
    cheat_mlp("cheat_matmul_op", ["HD106"], "@ operator", "h @ W with W from a child's output",
              "h = self.fc1(x)\nw = self.fc2(h)\nreturn w @ w.transpose(0, 1)",
              act="h) @ self.fc2(h).transpose(0, 1",
              range_text="w @ w.transpose(0, 1)")
    cheat_mlp("cheat_pow_op", ["HD106"], "** operator", "h ** 2",
              "h = self.fc1(x)\nreturn self.fc2(h ** 2)", act="h ** 2", range_text="h ** 2")
    cheat_mlp("cheat_compare_mask", ["HD106"], "comparison mask", "relu spelled as h * (h > 0)",
              "h = self.fc1(x)\nreturn self.fc2(h * (h > 0))", range_text="h * (h > 0)")
    cheat_mlp("cheat_scale_mul", ["HD106"], "* operator", "scaling by a constant in the parent",
              "h = self.fc1(x)\nreturn self.fc2(h * 0.5)", act="h * 0.5", range_text="h * 0.5")
    cheat_mlp("cheat_sub_op", ["HD106"], "- operator", "subtracting in the parent",
              "h = self.fc1(x)\nreturn self.fc2(h - h.mean(dim=-1, keepdim=True))",
              act="h - h.mean(dim=-1, keepdim=True)", range_text="h - h.mean(dim=-1, keepdim=True)")
    cheat_mlp("cheat_neg_op", ["HD106"], "unary minus", "-h",
              "h = self.fc1(x)\nreturn self.fc2(-h)", act="-h", range_text="-h")
    cheat_mlp("cheat_add_const", ["HD106"], "+ constant", "h + 1.0 (bias add, not a residual)",
              "h = self.fc1(x)\nreturn self.fc2(h + 1.0)", act="h + 1.0", range_text="h + 1.0")
    cheat_mlp("cheat_imul", ["HD106"], "*= augmented", "h *= 0.5",
              "h = self.fc1(x)\nh *= 0.5\nreturn self.fc2(h)", act="h * 0.5", range_text="h *= 0.5")
    cheat_mlp("cheat_operator_mul", ["HD106"], "operator module", "operator.mul(h, h)",
              "h = self.fc1(x)\nreturn self.fc2(operator.mul(h, h))", imports="import operator", act="h * h",
              range_text="operator.mul(h, h)")
    cheat_mlp("cheat_dunder_mul", ["HD106"], "dunder method", "h.__mul__(h)",
              "h = self.fc1(x)\nreturn self.fc2(h.__mul__(h))", act="h * h", range_text="h.__mul__(h)")
    # ---- builtins / math / numpy ------------------------------------------------------------------------
    cheat_mlp("cheat_builtin_abs", ["HD107"], "builtin", "abs(h)",
              "h = self.fc1(x)\nreturn self.fc2(abs(h))", act="torch.abs(h)", range_text="abs(h)")
    cheat_mlp("cheat_builtin_pow", ["HD107"], "builtin", "pow(h, 2) (the builtin)",
              "h = self.fc1(x)\nreturn self.fc2(pow(h, 2))", act="h ** 2", range_text="pow(h, 2)")
    cheat_mlp("cheat_builtin_sum", ["HD107"], "builtin", "sum(h) reduces over the batch dimension",
              "h = self.fc1(x)\nreturn self.fc2(sum(h))", act="h.sum(0)", range_text="sum(h)")
    cheat_mlp("cheat_numpy_tanh", ["HD107"], "numpy", "np.tanh on the tensor's numpy view",
              "h = self.fc1(x)\nreturn self.fc2(torch.from_numpy(np.tanh(h.detach().numpy())))",
              imports="import numpy as np", act="torch.tanh(h)", range_text="np.tanh(h.detach().numpy())")
    cheat_mlp("cheat_math_on_tensor", ["HD107"], "math", "math.exp on a 0-d tensor",
              "h = self.fc1(x)\nreturn self.fc2(h) * math.exp(h[0, 0])", act="h) * torch.exp(h[0, 0]",
              imports="import math", range_text="math.exp(h[0, 0])")
    # ---- helpers, lambdas, staticmethods ---------------------------------------------------------------------
    cheat_mlp("cheat_helper_function", ["HD108"], "helper function", "module-level helper doing F.relu",
              "h = self.fc1(x)\nreturn self.fc2(activate(h))",
              module="def activate(t):\n    return F.relu(t)", range_text="activate(h)")
    cheat_mlp("cheat_helper_method", ["HD108"], "helper method", "self._act(h) doing torch.relu",
              "h = self.fc1(x)\nreturn self.fc2(self._act(h))",
              methods="def _act(self, t):\n    return torch.relu(t)", range_text="self._act(h)")
    cheat_mlp("cheat_lambda", ["HD108"], "lambda", "module-level lambda t: t.clamp(min=0)",
              "h = self.fc1(x)\nreturn self.fc2(act(h))", module="act = lambda t: t.clamp(min=0)  # noqa: E731",
              range_text="act(h)")
    cheat_mlp("cheat_staticmethod", ["HD108"], "staticmethod", "a staticmethod doing torch.sigmoid",
              "h = self.fc1(x)\nreturn self.fc2(self.gate(h))",
              methods="@staticmethod\ndef gate(t):\n    return torch.sigmoid(t)", act="torch.sigmoid(h)",
              range_text="self.gate(h)")
    cheat_mlp("cheat_classmethod", ["HD108"], "classmethod", "a classmethod doing F.relu",
              "h = self.fc1(x)\nreturn self.fc2(RefactoredModel.act(h))",
              methods="@classmethod\ndef act(cls, t):\n    return F.relu(t)", range_text="RefactoredModel.act(h)")
    cheat_mlp("cheat_nested_def", ["HD108"], "nested function", "a def inside forward doing compute",
              "def act(t):\n    return t.relu()\n\nh = self.fc1(x)\nreturn self.fc2(act(h))", range_text="act(h)")
    cheat_mlp("cheat_base_class_helper", ["HD108"], "inherited helper",
              "a helper inherited from a local base class",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))",
              module="class _Base(nn.Module):\n    def act(self, t):\n        return torch.relu(t)",
              range_text="self.act(h)", head_doc="Refactored MLP (inherits a helper).", bases="_Base")
    cheat_mlp("cheat_map_function", ["HD113"], "map()", "map(F.relu, [h])",
              "h = self.fc1(x)\nreturn self.fc2(list(map(F.relu, [h]))[0])", range_text="F.relu")
    cheat_mlp("cheat_pass_fn_to_child", ["HD113"], "function passed to a child",
              "a generic child applies torch.tanh handed to it",
              "h = self.fc1(x)\nreturn self.fc2(self.apply_fn(h, fn=torch.tanh))",
              children=("linear", "apply_fn"), init="self.apply_fn = ApplyFn()", act="torch.tanh(h)",
              range_text="torch.tanh")
    cheat_mlp("cheat_partial", ["HD113"], "functools.partial", "functools.partial(F.leaky_relu, negative_slope=0.0)",
              "h = self.fc1(x)\nreturn self.fc2(functools.partial(F.leaky_relu, negative_slope=0.0)(h))",
              imports="import functools", range_text="F.leaky_relu")
    # ---- autograd.Function, helper files, original ------------------------------------------------------
    cheat_mlp("cheat_autograd_function", ["HD110", "HD213"], "autograd.Function", "ReLU as autograd.Function",
              "h = self.fc1(x)\nreturn self.fc2(_ReLU.apply(h))",
              module=("class _ReLU(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, t):\n"
                      "        return t.clamp(min=0)\n\n    @staticmethod\n    def backward(ctx, g):\n        return g"),
              range_text="_ReLU.apply(h)")
    cheat_mlp("cheat_helper_file", ["HD211", "HD112"], "helper file outside children/",
              "imports its activation from helpers.py next to refactored.py",
              "h = self.fc1(x)\nreturn self.fc2(activate(h))", imports="from helpers import activate",
              extra_files={"helpers.py": "import torch\n\n\ndef activate(t):\n    return torch.relu(t)\n"},
              range_text="from helpers import activate")
    cheat_mlp("cheat_import_original", ["HD210"], "imports original.py", "wraps the original model",
              "return self.whole(x)", imports="from original import Model as Original",
              init="self.whole = Original(in_features, hidden, out_features)",
              range_text="from original import Model as Original")
    # ---- hooks, monkeypatching, call machinery, dynamic code ------------------------------------------------
    cheat_mlp("cheat_forward_hook", ["HD206"], "forward hook", "a forward hook applies relu to fc1's output",
              "return self.fc2(self.fc1(x))",
              init="self.fc1.register_forward_hook(lambda mod, inp, out: torch.relu(out))",
              range_text="self.fc1.register_forward_hook(lambda mod, inp, out: torch.relu(out))")
    cheat_mlp("cheat_forward_pre_hook", ["HD206"], "forward pre-hook", "a pre-hook applies relu to fc2's input",
              "return self.fc2(self.fc1(x))",
              init="self.fc2.register_forward_pre_hook(lambda mod, args: (torch.relu(args[0]),))",
              range_text="self.fc2.register_forward_pre_hook(lambda mod, args: (torch.relu(args[0]),))")
    cheat_mlp("cheat_hook_via_method", ["HD206"], "hook installed by a helper method",
              "__init__ calls a method that registers a bound-method hook doing relu",
              "return self.fc2(self.fc1(x))", init="self._install()",
              methods=("def _install(self):\n    self.fc1.register_forward_hook(self._hook)\n\n"
                       "def _hook(self, mod, inp, out):\n    return torch.relu(out)"),
              range_text="self.fc1.register_forward_hook(self._hook)")
    cheat_mlp("cheat_monkeypatch_torch", ["HD207"], "monkeypatch", "rebinding a child's forward at import time",
              "return self.fc2(self.fc1(x))",
              module=("_orig_forward = Linear.forward\n\n\ndef _patched(self, x):\n"
                      "    y = _orig_forward(self, x)\n    return torch.relu(y) if y.shape[-1] == 16 else y\n\n\n"
                      "Linear.forward = _patched"),
              range_text="Linear.forward")
    cheat_mlp("cheat_monkeypatch_setattr", ["HD207"], "setattr monkeypatch",
              "setattr(GELU, 'forward', ...) turns the gelu child into a relu",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "gelu"),
              init="self.act = GELU()",
              module='def _fwd(self, x):\n    return torch.relu(x)\n\n\nsetattr(GELU, "forward", _fwd)',
              range_text='setattr(GELU, "forward", _fwd)')
    cheat_mlp("cheat_call_override", ["HD208"], "__call__ override", "__call__ applies relu between children",
              "return self.fc2(self.fc1(x))",
              methods="def __call__(self, x):\n    return self.fc2(torch.relu(self.fc1(x)))", range_text="def __call__")
    cheat_mlp("cheat_patch_class_call", ["HD207"], "monkeypatch the model's __call__",
              "RefactoredModel.__call__ rebound after the class, so forward() is not what runs",
              "return self.fc2(self.fc1(x))",
              tail=("def _call(self, x):\n    return self.fc2(torch.relu(self.fc1(x)))\n\n\n"
                    "RefactoredModel.__call__ = _call"),
              range_text="RefactoredModel.__call__")
    cheat_mlp("cheat_compile", ["HD209"], "compile", "compile() + eval of a code object",
              'h = self.fc1(x)\nreturn self.fc2(eval(_CODE))', module='_CODE = compile("torch.relu(h)", "<act>", "eval")',
              range_text="compile")
    cheat_mlp("cheat_add_inplace", ["HD105"], "in-place", "h.add_(1.0): a bias add in place",
              "h = self.fc1(x)\nh.add_(1.0)\nreturn self.fc2(h)", act="h + 1.0", range_text="h.add_(1.0)")
    cheat_mlp("cheat_parameter_list", ["HD203"], "ParameterList", "own ParameterList used as a bias",
              "h = self.fc1(x)\nreturn self.fc2(h) + self.biases[0]",
              init="self.biases = nn.ParameterList([nn.Parameter(torch.zeros(out_features))])",
              act="h) + 0.0 * (1",
              range_text="nn.ParameterList([nn.Parameter(torch.zeros(out_features))])")
    cheat_mlp("cheat_eval", ["HD209"], "eval", 'eval("torch.relu(h)")',
              'h = self.fc1(x)\nreturn self.fc2(eval("torch.relu(h)"))', range_text='eval("torch.relu(h)")')
    cheat_mlp("cheat_exec_def", ["HD209"], "exec", "exec defines the activation at import time",
              "h = self.fc1(x)\nreturn self.fc2(_act(h))",
              module='_ns = {}\nexec("import torch\\ndef act(t):\\n    return torch.relu(t)", _ns)\n_act = _ns["act"]',
              range_text="exec")
    cheat_mlp("cheat_dunder_import", ["HD209", "HD103"], "__import__", '__import__("torch").relu(h)',
              'h = self.fc1(x)\nreturn self.fc2(__import__("torch").relu(h))',
              range_text='__import__("torch")')
    cheat_mlp("cheat_importlib", ["HD209", "HD103"], "importlib", 'importlib.import_module("torch.nn.functional").relu',
              'h = self.fc1(x)\nreturn self.fc2(importlib.import_module("torch.nn.functional").relu(h))',
              imports="import importlib", range_text="import importlib")
    # ---- construction and own state -------------------------------------------------------------------------
    cheat_mlp("cheat_nn_in_forward", ["HD201"], "nn module in forward", "nn.ReLU() built inside forward",
              "h = self.fc1(x)\nreturn self.fc2(nn.ReLU()(h))", range_text="nn.ReLU()")
    cheat_mlp("cheat_raw_nn_init", ["HD202", "HD109"], "raw nn module in __init__", "self.act = torch.nn.ReLU()",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", init="self.act = torch.nn.ReLU()",
              range_text="torch.nn.ReLU()")
    cheat_mlp("cheat_raw_in_sequential", ["HD202"], "nn.Sequential of raw modules",
              "nn.Sequential(child, nn.ReLU()) hides a raw ReLU",
              "return self.fc2(self.body(x))", init="self.body = nn.Sequential(Linear(in_features, hidden), nn.ReLU())",
              range_text="nn.ReLU()")
    cheat_mlp("cheat_own_parameter", ["HD203", "HD106"], "own nn.Parameter", "a learnable scale on the parent",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h)) * self.scale", children=("linear", "relu"),
              init="self.act = ReLU()\nself.scale = nn.Parameter(torch.ones(out_features))", act="torch.relu(h)) * 1.0 * (1",
              range_text="nn.Parameter(torch.ones(out_features))")
    cheat_mlp("cheat_parameter_dict", ["HD203"], "ParameterDict", "own ParameterDict",
              'h = self.fc1(x)\nreturn self.fc2(h) + self.p["bias"]',
              init='self.p = nn.ParameterDict({"bias": nn.Parameter(torch.zeros(out_features))})',
              act="h) + 0.0 * (1", range_text='nn.ParameterDict({"bias": nn.Parameter(torch.zeros(out_features))})')
    cheat_mlp("cheat_register_buffer", ["HD204"], "register_buffer", "own buffer added to the output",
              "h = self.fc1(x)\nreturn self.fc2(h) + self.offset",
              init='self.register_buffer("offset", torch.zeros(out_features))', act="h) + 0.0 * (1",
              range_text='self.register_buffer("offset", torch.zeros(out_features))')
    cheat_mlp("cheat_tensor_attr", ["HD205"], "plain tensor attribute", "self.shift = torch.zeros(...) added as a 'residual'",
              "h = self.fc1(x)\nreturn self.fc2(h) + self.shift", init="self.shift = torch.zeros(out_features)",
              act="h) + 0.0 * (1", range_text="torch.zeros(out_features)")
    cheat_mlp("cheat_local_module_class", ["HD212", "HD109"], "module class in refactored.py",
              "a local nn.Module subclass does the relu",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))",
              module="class Act(nn.Module):\n    def forward(self, t):\n        return torch.relu(t)",
              init="self.act = Act()", range_text="Act()")
    cheat_mlp("cheat_child_internals", ["HD111"], "child reached around its forward",
              "calls the child's inner nn.Linear and applies relu",
              "h = self.fc1.linear(x)\nreturn self.fc2(h.clamp(min=0))", range_text="self.fc1.linear(x)")
    cheat_mlp("cheat_torch_where", ["HD101", "HD106"], "torch.where", "relu as torch.where(h > 0, h, 0)",
              "h = self.fc1(x)\nreturn self.fc2(torch.where(h > 0, h, torch.zeros_like(h)))",
              range_text="torch.where(h > 0, h, torch.zeros_like(h))")
    cheat_mlp("cheat_einsum", ["HD101"], "torch.einsum", "a row sum spelled as einsum on a child's output",
              'h = self.fc1(x)\ny = self.fc2(h)\nreturn torch.einsum("bi->b", y)', act="h).sum(-1",
              range_text='torch.einsum("bi->b", y)')

    # ---- cheats only a runtime / structural / numerical check can catch ------------------------------------
    case("runtime_dropped_branch", "cheat", ["HD3xx"], "dropped branch",
         "the refactored forward drops a branch whose weights start at zero (layer-scale style): plain trials "
         "match, the randomised trial and the op inventory do not",
         _ORIG_HEAD.format(doc="Two-branch block: fc_main(x) + fc_branch(x) * 0-initialised weights.")
         + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8):
                    super().__init__()
                    self.fc_main = nn.Linear(dim, dim)
                    self.fc_branch = nn.Linear(dim, dim)
                    nn.init.zeros_(self.fc_branch.weight)
                    nn.init.zeros_(self.fc_branch.bias)

                def forward(self, x):
                    return self.fc_main(x) + self.fc_branch(torch.relu(x))


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8]
            '''),
         textwrap.dedent('''\
            """Refactored block that silently drops the branch (its weights are zero at init)."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.relu import Model as ReLU


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8):
                    super().__init__()
                    self.fc_main = Linear(dim, dim)
                    self.fc_branch = Linear(dim, dim)
                    self.act = ReLU()

                def forward(self, x):
                    return self.fc_main(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8]
            '''), ("linear", "relu"),
         {"fc_main.weight": "fc_main.linear.weight", "fc_main.bias": "fc_main.linear.bias",
          "fc_branch.weight": "fc_branch.linear.weight", "fc_branch.bias": "fc_branch.linear.bias"},
         static_detectable=False)
    case("runtime_parent_in_disguise", "cheat", ["HD3xx"], "child is the parent in disguise",
         "children/block.py is a verbatim copy of the parent; the refactored model just calls it",
         mlp_original("torch.relu(h)"),
         textwrap.dedent('''\
            """Refactored MLP whose only child is the whole parent."""

            import torch
            import torch.nn as nn
            from children.block import Model as Block


            class RefactoredModel(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.block = Block(in_features, hidden, out_features)

                def forward(self, x):
                    return self.block(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            '''), (), {"fc1.weight": "block.fc1.weight", "fc1.bias": "block.fc1.bias",
                       "fc2.weight": "block.fc2.weight", "fc2.bias": "block.fc2.bias"},
         static_detectable=False, extra_files={"children/block.py": mlp_original("torch.relu(h)")})
    case("runtime_child_imports_original", "cheat", ["HD3xx"], "child imports original.py",
         "children/wrapper.py imports the parent from original.py and runs it",
         mlp_original("torch.relu(h)"),
         textwrap.dedent('''\
            """Refactored MLP whose child wraps original.py."""

            import torch
            import torch.nn as nn
            from children.wrapper import Model as Wrapper


            class RefactoredModel(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.inner = Wrapper(in_features, hidden, out_features)

                def forward(self, x):
                    return self.inner(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            '''), (), {"fc1.weight": "inner.m.fc1.weight", "fc1.bias": "inner.m.fc1.bias",
                       "fc2.weight": "inner.m.fc2.weight", "fc2.bias": "inner.m.fc2.bias"},
         static_detectable=False, extra_files={"children/wrapper.py": textwrap.dedent('''\
            """Looks like a child; really the parent."""

            import torch
            import torch.nn as nn
            from original import Model as Original


            class Model(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.m = Original(in_features, hidden, out_features)

                def forward(self, x):
                    return self.m(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            ''')})
    case("runtime_parent_via_exec", "cheat", ["HD3xx"], "child defined via exec of the parent's source",
         "children/block.py execs original.py's text, so it is the parent in disguise without importing it "
         "or being a verbatim copy; the refactored file itself is clean",
         mlp_original("torch.relu(h)"),
         textwrap.dedent('''\
            """Refactored MLP whose only child is built from the parent's source at import time."""

            import torch
            import torch.nn as nn
            from children.block import Model as Block


            class RefactoredModel(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.block = Block(in_features, hidden, out_features)

                def forward(self, x):
                    return self.block(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            '''), (), {"fc1.weight": "block.fc1.weight", "fc1.bias": "block.fc1.bias",
                       "fc2.weight": "block.fc2.weight", "fc2.bias": "block.fc2.bias"},
         static_detectable=False, extra_files={"children/block.py": textwrap.dedent('''\
            """Kernel-looking child: really the parent, built from its source text."""

            from pathlib import Path

            _ns: dict = {}
            exec(compile((Path(__file__).resolve().parents[1] / "original.py").read_text(), "block", "exec"), _ns)
            Model = _ns["Model"]
            get_inputs = _ns["get_inputs"]
            get_init_inputs = _ns["get_init_inputs"]
            ''')})
    case("runtime_miswired", "cheat", ["HD3xx"], "miswired children",
         "the activation is applied after fc2 instead of between fc1 and fc2 (square layers, same op set)",
         _ORIG_HEAD.format(doc="Square MLP: fc2(relu(fc1(x))).") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8):
                    super().__init__()
                    self.fc1 = nn.Linear(dim, dim)
                    self.fc2 = nn.Linear(dim, dim)

                def forward(self, x):
                    return self.fc2(torch.relu(self.fc1(x)))


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8]
            '''),
         textwrap.dedent('''\
            """Refactored square MLP, miswired: relu after fc2."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.relu import Model as ReLU


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8):
                    super().__init__()
                    self.fc1 = Linear(dim, dim)
                    self.fc2 = Linear(dim, dim)
                    self.act = ReLU()

                def forward(self, x):
                    return self.act(self.fc2(self.fc1(x)))


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8]
            '''), ("linear", "relu"),
         {"fc1.weight": "fc1.linear.weight", "fc1.bias": "fc1.linear.bias",
          "fc2.weight": "fc2.linear.weight", "fc2.bias": "fc2.linear.bias"}, static_detectable=False)
    case("cheat_fused_child", "cheat", ["HD115"], "child that runs another child",
         "the parent hands fc2 to the relu child, whose forward runs it: all compute is inside children, but "
         "the 'relu' kernel is really relu+linear; static analysis flags the module passed as an argument",
         mlp_original("torch.relu(h)"),
         textwrap.dedent('''\
            """Refactored MLP whose 'activation child' also runs fc2 (a fused cheat hidden in a child)."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.relu_then import Model as ReluThen


            class RefactoredModel(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.fc1 = Linear(in_features, hidden)
                    self.fc2 = Linear(hidden, out_features)
                    self.act = ReluThen()

                def forward(self, x):
                    return self.act(self.fc1(x), self.fc2)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            '''), ("linear",), MLP_MAP, range_text="self.fc2",
         extra_files={"children/relu_then.py": textwrap.dedent('''\
            """Kernel: ReLU (and, secretly, whatever module it is handed)."""

            import torch
            import torch.nn as nn


            class Model(nn.Module):
                def forward(self, x, then=None):
                    y = torch.relu(x)
                    return then(y) if then is not None else y


            def get_inputs():
                return [torch.randn(2, 16)]


            def get_init_inputs():
                return []
            ''')})

    build_issue12()
    build_honest()


# ---- issue 12: sys.path to the step folder, ops chosen by the parent, loop reductions, thin wrappers --------

SEQ_ORIG = _ORIG_HEAD.format(doc="MLP over the sum of a sequence: fc2(relu(fc1(x.sum(1))))") + textwrap.dedent('''\
    class Model(nn.Module):
        def __init__(self, in_features=8, hidden=16, out_features=4):
            super().__init__()
            self.fc1 = nn.Linear(in_features, hidden)
            self.fc2 = nn.Linear(hidden, out_features)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x.sum(dim=1))))


    def get_inputs():
        return [torch.randn(2, 3, 8)]


    def get_init_inputs():
        return [8, 16, 4]
    ''')
SEQ_HIDDEN_ORIG = SEQ_ORIG.replace("self.fc1(x.sum(dim=1))", "self.fc1(x).sum(dim=1)")


def seq_refactored(forward: str, doc: str) -> str:
    return mlp_refactored(forward, children=("linear", "relu"), init="self.act = ReLU()", head_doc=doc).replace(
        "return [torch.randn(2, 8)]", "return [torch.randn(2, 3, 8)]")


# thin wrappers around carried-over classes (what `hdecomp decompose` writes for nested models)
_CARRIED_SUB = '''\
class SubBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return torch.relu(self.bn(self.dw(x)))
'''
_CARRIED_BLOCK = '''\
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = SubBlock(c)
        self.pw = nn.Conv2d(c, c, 1)

    def forward(self, x):
        return x + self.pw(self.a(x))
'''
_CARRIED_STAGE = '''\
class Stage(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.b1 = Block(c)
        self.b2 = Block(c)

    def forward(self, x):
        return self.b2(self.b1(x))
'''
_WRAP_TAIL = '''

def get_inputs():
    return [torch.randn(1, 4, 8, 8)]


def get_init_inputs():
    return []
'''


def _wrapper_file(doc: str, carried: list[str], model: str) -> str:
    return (f'"""{doc}"""\n\nimport torch\nimport torch.nn as nn\n\n\n# ---- carried over from the model file ----\n\n'
            + "\n\n".join(carried) + "\n\n" + textwrap.dedent(model) + _WRAP_TAIL)


STAGE_ORIG = _wrapper_file("stage: layer component (a thin wrapper around the carried-over Stage).",
                           [_CARRIED_SUB, _CARRIED_BLOCK, _CARRIED_STAGE], '''\
    class Model(Stage):
        """Stage with the recorded constructor arguments."""

        def __init__(self):
            super().__init__(4)
    ''')
BLOCK_SUBCLASS = _wrapper_file("block: fusion component (a thin wrapper around the carried-over Block).",
                               [_CARRIED_SUB, _CARRIED_BLOCK], '''\
    class Model(Block):
        """Block with the recorded constructor arguments."""

        def __init__(self):
            super().__init__(4)
    ''')
BLOCK_HOLDER = _wrapper_file("block: fusion component (holds the carried-over Block as self.m).",
                             [_CARRIED_SUB, _CARRIED_BLOCK], '''\
    class Model(nn.Module):
        """Block with the recorded constructor arguments."""

        def __init__(self):
            super().__init__()
            self.m = Block(4)

        def forward(self, x):
            return self.m(x)
    ''')
STAGE_HOLDER = _wrapper_file("block (really the whole stage): holds the carried-over Stage as self.m.",
                             [_CARRIED_SUB, _CARRIED_BLOCK, _CARRIED_STAGE], '''\
    class Model(nn.Module):
        """Looks like one block; wraps the same class as the parent, built the same way."""

        def __init__(self):
            super().__init__()
            self.m = Stage(4)

        def forward(self, x):
            return self.m(x)
    ''')
_BLOCK_KEYS = ("a.dw.weight", "a.dw.bias", "a.bn.weight", "a.bn.bias", "a.bn.running_mean", "a.bn.running_var",
               "a.bn.num_batches_tracked", "pw.weight", "pw.bias")


def build_issue12() -> None:
    # ---- 1. sys.path: the step's own folder is fine (imports land in children/); anywhere else is not ----
    honest_mlp("honest_sys_path_step_dir", "sys.path: the step's own folder, imports from children.",
               "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))), then `from children.linear "
               "import ...` and `import children.relu as relu_mod`: every import lands in children/",
               "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "relu"),
               imports="import os\nimport sys\n\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
                       "import children.relu as relu_mod  # noqa: E402",
               init="self.act = relu_mod.Model()")
    honest_mlp("honest_sys_path_pathlib", "sys.path: the step's own folder, pathlib spellings",
               "HERE = Path(__file__).resolve().parent; sys.path.append(str(HERE)); "
               "sys.path.insert(0, str(Path(__file__).parent)); sys.path.insert(0, os.path.dirname(__file__))",
               "h = self.fc1(x)\nreturn self.fc2(self.act(h))", init="self.act = ReLU()",
               imports="import os\nimport sys\nfrom pathlib import Path\n\nHERE = Path(__file__).resolve().parent\n"
                       "sys.path.append(str(HERE))\nsys.path.insert(0, str(Path(__file__).parent))\n"
                       "sys.path.insert(0, os.path.dirname(__file__))\nsys.path.insert(0, str(HERE / \"children\"))")
    cheat_mlp("cheat_sys_path_parent", ["HD211"], "sys.path: the folder above the step",
              "puts the folder above the step on sys.path (where the parent's files and other steps live)",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "relu"), init="self.act = ReLU()",
              imports="import sys\nfrom pathlib import Path\n\n"
                      "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))",
              range_text="sys.path.insert(0, str(Path(__file__).resolve().parents[1]))")
    cheat_mlp("cheat_sys_path_lib", ["HD211"], "sys.path: a helper folder next to children/",
              "sys.path gets lib/ (not children/), whose act.py does the relu",
              "h = self.fc1(x)\nreturn self.fc2(activate(h))",
              imports="import os\nimport sys\n\n"
                      "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), \"lib\"))\n"
                      "from act import activate  # noqa: E402",
              extra_files={"lib/act.py": "import torch\n\n\ndef activate(t):\n    return torch.relu(t)\n"},
              range_text="sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), \"lib\"))")

    # a library's call handed plain data only is host code (a cache object, a flag); one that computes is the
    # parent's compute, which only the run sees
    honest_mlp("honest_library_host_call", "a library call on plain data",
               "builds transformers' cache object and asks its compile flag, both from plain data only",
               "cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\nh = self.fc1(x)\n"
               "if not is_torchdynamo_compiling() and cache.get_seq_length() == 0:\n    h = self.act(h)\n"
               "return self.fc2(h)", init="self.act = ReLU()",
               imports="from transformers.cache_utils import DynamicCache, EncoderDecoderCache\n"
                       "from transformers.utils import is_torchdynamo_compiling")
    case("runtime_library_host_compute", "cheat", ["HD401"], "a library call on plain data that computes",
         "diffusers' get_1d_rotary_pos_embed(16, 2) builds a cos table with aten ops in the parent's own code "
         "(only its size is used)", mlp_original("torch.relu(h)"),
         mlp_refactored("rows = get_1d_rotary_pos_embed(16, 2, use_real=True)[0].shape[0]\nh = self.fc1(x)\n"
                        "return self.fc2(self.act(h))[:rows]", children=("linear", "relu"), init="self.act = ReLU()",
                        imports="from diffusers.models.embeddings import get_1d_rotary_pos_embed"),
         ("linear", "relu"), MLP_MAP, static_detectable=False)

    # constants of the shapes (host values) are host code a parent keeps; a model's tensor written into one, or
    # its values read out as Python numbers and made a tensor again, are data
    host_lines = ("n = x.shape[-1]\nkeep = torch.ones(n, n, dtype=torch.bool).tril()[-1]\n"
                  "scale = torch.div(n, 4, rounding_mode=\"floor\") * torch.eye(2)[0, 0]\n")
    case("honest_host_constants", "honest", [], "constants of the shapes",
         "a causal mask, an identity and a size quotient built from sizes alone, used as plumbing (the original "
         "builds them alike)",
         mlp_original("torch.relu(h)").replace(
             "        h = self.fc1(x)\n",
             textwrap.indent(host_lines + "h = self.fc1(x[:, keep] if int(scale) > 0 else x)\n", " " * 8)),
         mlp_refactored(host_lines + "h = self.fc1(x[:, keep] if int(scale) > 0 else x)\nreturn self.fc2(self.act(h))",
                        children=("linear", "relu"), init="self.act = ReLU()"),
         ("linear", "relu"), MLP_MAP)
    cheat_mlp("cheat_host_laundering", ["HD104"], "a model's values laundered through Python numbers",
              "torch.tensor(h.tolist()).relu(): the values read out and made a tensor again are still data",
              "h = self.fc1(x)\nreturn self.fc2(torch.tensor(h.tolist()).relu())",
              range_text="torch.tensor(h.tolist()).relu()")
    cheat_mlp("runtime_host_buffer_written", ["HD401"], "a model's tensor written into a host value",
              "a zeros buffer gets h through a view of it (v.copy_(h)), then the parent runs relu on the buffer",
              "h = self.fc1(x)\nbuf = torch.zeros(h.shape[0], h.shape[1])\nv = buf[:]\nv.copy_(h)\n"
              "return self.fc2(buf.relu())", static_detectable=False)

    # a number kept in a 0-dim integer tensor (EnCodec's `stride`, `kernel_size` buffers) is as plain as the int:
    # the parent may keep it and its padding arithmetic; a float one, or a vector, is state
    frames = ("frames = torch.ceil((x.shape[0] - self.kernel + 3) / self.stride).to(torch.int64)\n"
              "h = self.fc1(x)\n")
    case("honest_number_attributes", "honest", [], "numbers kept in tensors",
         "frames = ceil((n - kernel + 3) / stride) from two 0-dim int64 buffers of the original, kept by the "
         "parent as torch.tensor(3) and torch.tensor(2), slices the output (host code, as on ints)",
         mlp_original("torch.relu(h)").replace(
             "        self.fc2 = nn.Linear(hidden, out_features)\n",
             "        self.fc2 = nn.Linear(hidden, out_features)\n"
             "        self.register_buffer(\"stride\", torch.tensor(2), persistent=False)\n"
             "        self.kernel = nn.Buffer(torch.tensor(3), persistent=False)\n").replace(
             "        h = self.fc1(x)\n        return self.fc2(torch.relu(h))",
             textwrap.indent(frames, " " * 8) + "        return self.fc2(torch.relu(h))[:frames]"),
         mlp_refactored(frames + "return self.fc2(self.act(h))[:frames]", children=("linear", "relu"),
                        init="self.act = ReLU()\nself.stride = torch.tensor(2)\nself.kernel = torch.tensor(3)"),
         ("linear", "relu"), MLP_MAP)
    cheat_mlp("cheat_float_number_attr", ["HD205"], "a float kept in a 0-dim tensor",
              "self.gain = torch.tensor(1.0) multiplies the output: a float in a tensor is state, not a number",
              "h = self.fc1(x)\nreturn self.fc2(h) * self.gain", init="self.gain = torch.tensor(1.0)",
              act="h) * (1", range_text="torch.tensor(1.0)")

    # ---- 2. the parent picks a generic child's op through its constructor --------------------------------
    cheat_mlp("cheat_ctor_torch_fn", ["HD214"], "op passed to a child's constructor",
              "self.act = Pointwise(torch.sigmoid): the generic child runs whatever it is given",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "pointwise"),
              init="self.act = Pointwise(torch.sigmoid)", act="torch.sigmoid(h)", range_text="torch.sigmoid")
    cheat_mlp("cheat_ctor_lambda", ["HD214"], "op passed to a child's constructor",
              "Pointwise(lambda t: torch.clamp(t, min=0.0)): a lambda of the parent runs inside the child",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "pointwise"),
              init="self.act = Pointwise(lambda t: torch.clamp(t, min=0.0))", act="torch.clamp(h, min=0.0)",
              range_text="lambda t: torch.clamp(t, min=0.0)")
    cheat_mlp("cheat_ctor_partial", ["HD214"], "op passed to a child's constructor",
              "Pointwise(functools.partial(F.leaky_relu, negative_slope=0.2))",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "pointwise"),
              imports="import functools", act="F.leaky_relu(h, 0.2)",
              init="self.act = Pointwise(functools.partial(F.leaky_relu, negative_slope=0.2))",
              range_text="functools.partial(F.leaky_relu, negative_slope=0.2)")
    cheat_mlp("cheat_ctor_getattr", ["HD214"], "op passed to a child's constructor",
              "Pointwise(getattr(torch, self.act_name)) with the name set in __init__",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "pointwise"),
              init='self.act_name = "tanh"\nself.act = Pointwise(getattr(torch, self.act_name))',
              act="torch.tanh(h)", range_text="getattr(torch, self.act_name)")
    cheat_mlp("cheat_ctor_module_class", ["HD214"], "op passed to a child's constructor",
              "ActLayer(act_layer=nn.GELU): the parent picks the module class the child builds",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "act_layer"),
              init="self.act = ActLayer(act_layer=nn.GELU)", act="F.gelu(h)", range_text="nn.GELU")
    cheat_mlp("runtime_ctor_dynamic_lookup", ["HD3xx"], "op passed to a child's constructor",
              "Pointwise(vars(F).get(\"sigmoid\")): a lookup the static analysis cannot resolve; the structural "
              "check sees the function the constructor received",
              "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "pointwise"),
              init='self.act = Pointwise(vars(F).get("sigmoid"))', act="torch.sigmoid(h)",
              static_detectable=False)
    honest_mlp("honest_ctor_plain_data", "plain data constructor arguments",
               "a child configured with a string, a bool, a float, a shape tuple and a dtype",
               "h = self.fc1(x)\nreturn self.fc2(self.act(h))", children=("linear", "act_cfg"),
               init="self.act = ActCfg(\"relu\", False, 1e-5 * 2, shape=(-1, hidden), dtype=torch.float32)")

    # ---- 3. a reduction written as a loop of additions ----------------------------------------------------
    seq_map = MLP_MAP
    case("cheat_loop_sum", "cheat", ["HD116"], "loop-carried accumulation",
         "x.sum(1) written as `total = total + x[:, t]` in a for loop", SEQ_ORIG,
         seq_refactored("total = x[:, 0]\nfor t in range(1, x.shape[1]):\n    total = total + x[:, t]\n"
                        "return self.fc2(self.act(self.fc1(total)))", "Refactored MLP: the sum over time in a loop."),
         ("linear", "relu"), seq_map, range_text="total + x[:, t]")
    case("cheat_loop_iadd_child_output", "cheat", ["HD116"], "loop-carried accumulation",
         "a child's output computed before the loop, summed over time with `acc += h[:, t]`", SEQ_HIDDEN_ORIG,
         seq_refactored("h = self.fc1(x)\nacc = h[:, 0]\nfor t in range(1, h.shape[1]):\n    acc += h[:, t]\n"
                        "return self.fc2(self.act(acc))", "Refactored MLP: sums fc1's output over time."),
         ("linear", "relu"), seq_map, range_text="acc += h[:, t]")
    case("cheat_while_sum", "cheat", ["HD116"], "loop-carried accumulation",
         "x.sum(1) written as a while loop of additions", SEQ_ORIG,
         seq_refactored("total = x[:, 0]\nt = 1\nwhile t < x.shape[1]:\n    total = x[:, t] + total\n    t += 1\n"
                        "return self.fc2(self.act(self.fc1(total)))", "Refactored MLP: the sum in a while loop."),
         ("linear", "relu"), seq_map, range_text="x[:, t] + total")
    case("cheat_sum_generator", "cheat", ["HD116"], "sum() over slices",
         "x.sum(1) written as sum(x[:, t] for t in range(...))", SEQ_ORIG,
         seq_refactored("total = sum(x[:, t] for t in range(x.shape[1]))\n"
                        "return self.fc2(self.act(self.fc1(total)))", "Refactored MLP: builtin sum over slices."),
         ("linear", "relu"), seq_map, range_text="sum(x[:, t] for t in range(x.shape[1]))")
    case("honest_loop_residuals", "honest", [], "residuals and outputs collected in a loop over children",
         "x = x + h with h a child's output of this iteration; outputs appended, concatenated and added up "
         "(total = total + y, y a child's output), the stream states added up too",
         _ORIG_HEAD.format(doc="Residual tanh stack with a head per block.") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, depth=3):
                    super().__init__()
                    self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
                    self.heads = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

                def forward(self, x):
                    outs = []
                    total = torch.zeros_like(x)
                    feats = torch.zeros_like(x)
                    for blk, head in zip(self.blocks, self.heads):
                        x = x + torch.tanh(blk(x))
                        feats = feats + x
                        y = head(x)
                        outs.append(y)
                        total = total + y
                    return torch.cat(outs, dim=-1), total, feats


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 3]
            '''),
         textwrap.dedent('''\
            """Refactored residual stack: the loop adds children's outputs of the same iteration only."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.tanh import Model as Tanh


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, depth=3):
                    super().__init__()
                    self.blocks = nn.ModuleList([Linear(dim, dim) for _ in range(depth)])
                    self.heads = nn.ModuleList([Linear(dim, dim) for _ in range(depth)])
                    self.act = Tanh()

                def forward(self, x):
                    outs = []
                    total = torch.zeros_like(x)
                    feats = torch.zeros_like(x)
                    for i, blk in enumerate(self.blocks):
                        h = self.act(blk(x))
                        x = x + h
                        feats += x
                        y = self.heads[i](x)
                        outs.append(y)
                        total = total + y
                    return torch.cat(outs, dim=-1), total, feats


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 3]
            '''), ("linear", "tanh"),
         {f"{m}.{i}.{p}": f"{m}.{i}.linear.{p}" for m in ("blocks", "heads") for i in range(3)
          for p in ("weight", "bias")})

    # ---- 4. thin wrappers around different carried-over classes are not copies of each other ----------------
    wrapper_ref = textwrap.dedent('''\
        """stage rewritten to call its 2 children (as `hdecomp decompose` writes it)."""

        import torch
        import torch.nn as nn
        from children.block import Model as Block
        from children.block_holder import Model as BlockHolder


        class RefactoredModel(nn.Module):
            def __init__(self, *init_inputs):
                super().__init__()
                self.b1 = Block()
                self.b2 = BlockHolder()

            def forward(self, x):
                b1 = self.b1(x)
                b2 = self.b2(b1)
                return b2


        def get_inputs():
            return [torch.randn(1, 4, 8, 8)]


        def get_init_inputs():
            return []
        ''')
    case("honest_wrapper_children", "honest", [], "thin wrappers around different carried-over classes",
         "original.py is `class Model(Stage)` (a thin wrapper, carried-over classes above it); the children "
         "are thin wrappers around the carried-over Block (`class Model(Block)`, and `self.m = Block(4)`): "
         "not copies of the original Model", STAGE_ORIG, wrapper_ref, (),
         {**{f"b1.{k}": f"b1.{k}" for k in _BLOCK_KEYS}, **{f"b2.{k}": f"b2.m.{k}" for k in _BLOCK_KEYS}},
         extra_files={"children/block.py": BLOCK_SUBCLASS, "children/block_holder.py": BLOCK_HOLDER})
    case("runtime_wrapper_same_class", "cheat", ["HD3xx"], "child wraps the parent's own class",
         "children/block.py holds the carried-over Stage built as the parent builds it (`self.m = Stage(4)`): "
         "a wrapper of the same class, so a copy of the parent", STAGE_ORIG,
         textwrap.dedent('''\
            """stage rewritten to call its one 'child'."""

            import torch
            import torch.nn as nn
            from children.block import Model as Block


            class RefactoredModel(nn.Module):
                def __init__(self, *init_inputs):
                    super().__init__()
                    self.body = Block()

                def forward(self, x):
                    return self.body(x)


            def get_inputs():
                return [torch.randn(1, 4, 8, 8)]


            def get_init_inputs():
                return []
            '''), (),
         {f"{b}.{k}": f"body.m.{b}.{k}" for b in ("b1", "b2") for k in _BLOCK_KEYS}, static_detectable=False,
         extra_files={"children/block.py": STAGE_HOLDER})


def build_honest() -> None:
    honest_mlp("honest_mlp", "basic child calls", "fc1 -> relu child -> fc2",
               "h = self.fc1(x)\nreturn self.fc2(self.act(h))", init="self.act = ReLU()")
    honest_mlp("honest_child_called_twice", "child called twice", "the same relu child applied twice",
               "h = self.act(self.fc1(x))\nh = self.act(h)\nreturn self.fc2(h)", init="self.act = ReLU()",
               act="torch.relu(torch.relu(h))")
    honest_mlp("honest_docstrings_comments", "docstrings and comments",
               "op names in docstrings, comments and strings only",
               '"""Applies F.relu and torch.softmax ... no, it only calls children: x @ W, x ** 2."""\n'
               "# F.relu(h) would be compute; torch.tanh too; h.relu() as well\n"
               'note = "F.relu(x) * 2"  # a string, not code\n'
               "h = self.fc1(x)  # fc1: x @ W.T + b\nreturn self.fc2(self.act(h))",
               init="self.act = ReLU()  # torch.relu lives in the child")
    honest_mlp("honest_annotations_asserts", "type annotations, asserts on shapes, f-strings",
               "annotated forward, shape asserts, f-string messages",
               'assert x.dim() == 2, f"expected 2-D input, got {x.dim()}-D"\n'
               "assert x.shape[-1] == self.in_features\n"
               "h: torch.Tensor = self.fc1(x)\nout: torch.Tensor = self.fc2(self.act(h))\n"
               'assert out.shape[0] == x.shape[0], f"batch {out.shape[0]} != {x.shape[0]}"\nreturn out',
               init="self.act = ReLU()\nself.in_features: int = in_features",
               forward_sig="self, x: torch.Tensor")
    honest_mlp("honest_plumbing_helper", "plumbing-only helper method",
               "a helper that only reshapes, plus a staticmethod that only transposes",
               "h = self.fc1(self._flat(x))\nreturn self.fc2(self._ident(self.act(h)))",
               init="self.act = ReLU()",
               methods=("def _flat(self, t):\n    return t.reshape(t.shape[0], -1).contiguous()\n\n"
                        "@staticmethod\ndef _ident(t):\n    return t.transpose(0, 1).transpose(0, 1)"))
    honest_mlp("honest_shape_control_flow", "shape-based control flow and int arithmetic",
               "branches on x.shape, shape arithmetic on ints",
               "b, d = x.shape\nhalf = d // 2\nn = half * 2 + 0\nif x.shape[1] > 4 and n == d:\n"
               "    h = self.fc1(x[:, :n])\nelse:\n    h = self.fc1(x)\nif b % 2 == 0 or len(x) > 0:\n"
               "    h = self.act(h)\nreturn self.fc2(h)", init="self.act = ReLU()")
    honest_mlp("honest_casts", "dtype and device casts", ".to / .float / .double round trip",
               "h = self.fc1(x.to(torch.float32).contiguous())\nh = self.act(h.double().float())\n"
               "return self.fc2(h.to(x.device, x.dtype))", init="self.act = ReLU()")
    honest_mlp("honest_int_input", "int inputs", "an int forward argument used for slicing and repeats",
               "h = self.fc1(x)\nfor _ in range(repeats):\n    h = self.act(h)\nreturn self.fc2(h)[:, :keep]",
               init="self.act = ReLU()", forward_sig="self, x, repeats: int = 1, keep: int = 4")
    honest_mlp("honest_kwargs", "keyword arguments", "children called with keyword arguments",
               "h = self.fc1(x=x)\nreturn self.fc2(x=self.act(x=h))", init="self.act = ReLU()")
    honest_mlp("honest_dynamic_children", "getattr(self, name) over children",
               "children registered with add_module/setattr and fetched with getattr",
               'h = x\nfor name in ("fc1", "act", "fc2"):\n    h = getattr(self, name)(h)\nreturn h',
               init='self.add_module("act", ReLU())')
    case("honest_sequential_children", "honest", [], "nn.Sequential of children",
         "the whole MLP as nn.Sequential of children", mlp_original("torch.relu(h)"),
         mlp_refactored("return self.body(x)", core_init=False, children=("linear", "relu"),
                        init=("self.body = nn.Sequential(\n    Linear(in_features, hidden), ReLU(), "
                              "Linear(hidden, out_features)\n)")),
         ("linear", "relu"),
         {"fc1.weight": "body.0.linear.weight", "fc1.bias": "body.0.linear.bias",
          "fc2.weight": "body.2.linear.weight", "fc2.bias": "body.2.linear.bias"})
    honest_mlp("honest_tuple_dict_outputs", "tuple/dict building", "returns a tuple with a dict, via unpacking",
               'h = self.fc1(x)\na = self.act(h)\nout = {"logits": self.fc2(a), "hidden": h}\n'
               'pair = (out["logits"], out)\nlogits, _ = pair\nreturn logits',
               init="self.act = ReLU()")
    honest_mlp("honest_no_grad_free_slicing", "indexing and slicing", "narrow/select/index/ellipsis plumbing",
               "h = self.fc1(x[..., :])\nh = torch.cat([h[:, :8], h.narrow(1, 8, 8)], dim=1)\n"
               "h = self.act(h[0:2])\nidx = torch.arange(h.shape[1])\nreturn self.fc2(h[:, idx])",
               init="self.act = ReLU()")
    honest_mlp("honest_cat_split_chunk", "cat/split/chunk/stack/unbind", "splits the hidden state and puts it back",
               "h = self.fc1(x)\na, b = torch.chunk(h, 2, dim=-1)\nparts = torch.split(torch.cat((a, b), -1), 4, dim=1)\n"
               "h = torch.cat(list(parts), dim=1)\nh = torch.stack(torch.unbind(h, 0), 0)\n"
               "h = torch.stack([h, h]).squeeze(0)[0].unsqueeze(0).squeeze(0)\nreturn self.fc2(self.act(h))",
               init="self.act = ReLU()")
    honest_mlp("honest_expand_repeat", "expand/repeat/flatten/unflatten/permute",
               "shape plumbing round trips",
               "h = self.fc1(x)\nh = h.unflatten(1, (4, 4)).permute(0, 2, 1).permute(0, 2, 1).flatten(1)\n"
               "h = h.unsqueeze(0).expand(2, -1, -1)[0]\nh = h.repeat(1, 1)\nh = h.view(-1, 16).reshape(h.shape)\n"
               "return self.fc2(self.act(h.contiguous()))", init="self.act = ReLU()")
    honest_mlp("honest_module_constants", "module-level int constants and imports",
               "module-level ints used for shapes; children imported as modules",
               "h = self.fc1(x).view(-1, HIDDEN)\nh = self.act(h)[:, :HIDDEN]\nreturn self.fc2(h)",
               module="HIDDEN = 16\nSPLIT = HIDDEN // 2", init="self.act = relu_mod.Model()",
               imports="import children.relu as relu_mod")

    case("honest_legacy_sys_path", "honest", [], "original workspace layout (sys.path + bare imports)",
         "children imported by bare module name after sys.path.insert(children/), as the original "
         "workspace's refactored files do", mlp_original("torch.relu(h)"),
         textwrap.dedent('''\
            """Refactored MLP in the original workspace's layout."""

            import sys
            from pathlib import Path

            import torch
            import torch.nn as nn

            sys.path.insert(0, str(Path(__file__).parent / "children"))
            from linear import Model as Linear  # noqa: E402
            from relu import Model as ReLU  # noqa: E402


            class RefactoredModel(nn.Module):
                def __init__(self, in_features=8, hidden=16, out_features=4):
                    super().__init__()
                    self.fc1 = Linear(in_features, hidden)
                    self.act = ReLU()
                    self.fc2 = Linear(hidden, out_features)

                def forward(self, x):
                    x = self.fc1(x)
                    x = self.act(x)
                    return self.fc2(x)


            batch_size = 2


            def get_inputs():
                return [torch.randn(batch_size, 8)]


            def get_init_inputs():
                return [8, 16, 4]
            '''), ("linear", "relu"), MLP_MAP)

    window_helpers = textwrap.dedent('''\


        def window_partition(x, window_size: int):
            b, h, w, c = x.shape
            x = x.view(b, h // window_size, window_size, w // window_size, window_size, c)
            return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size * window_size, c)


        def window_reverse(windows, window_size, h, w):
            b = int(windows.shape[0] / (h * w / window_size / window_size))
            x = windows.view(b, h // window_size, w // window_size, window_size, window_size, -1)
            return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)
        ''')
    case("honest_window_helpers", "honest", [], "module-level plumbing helpers, torch.roll",
         "Swin-style shifted windows: roll, window partition/reverse helpers around a linear child",
         _ORIG_HEAD.format(doc="Shifted-window token mixing (Swin-like), tiny.") + window_helpers.lstrip("\n") + "\n\n"
         + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, window=2, shift=1):
                    super().__init__()
                    self.window, self.shift = window, shift
                    self.proj = nn.Linear(dim, dim)

                def forward(self, x):
                    b, h, w, c = x.shape
                    y = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
                    y = self.proj(window_partition(y, self.window))
                    y = window_reverse(y, self.window, h, w)
                    return torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2)) + x


            def get_inputs():
                return [torch.randn(2, 4, 4, 8)]


            def get_init_inputs():
                return [8, 2, 1]
            '''),
         '''"""Refactored shifted-window mixing: plumbing helpers + a linear child."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
''' + window_helpers + textwrap.dedent('''\


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, window=2, shift=1):
                    super().__init__()
                    self.window, self.shift = window, shift
                    self.proj = Linear(dim, dim)

                def forward(self, x):
                    b, h, w, c = x.shape
                    shifted = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
                    windows = self.proj(window_partition(shifted, self.window))
                    y = window_reverse(windows, self.window, h, w)
                    return torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2)) + x


            def get_inputs():
                return [torch.randn(2, 4, 4, 8)]


            def get_init_inputs():
                return [8, 2, 1]
            '''), ("linear",), {"proj.weight": "proj.linear.weight", "proj.bias": "proj.linear.bias"})

    # residual block with layer norm and gelu
    case("honest_residual_block", "honest", [], "residual +", "x + fc2(gelu(fc1(ln(x)))) with residual add",
         _ORIG_HEAD.format(doc="Pre-norm residual MLP block.") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.ln = nn.LayerNorm(dim)
                    self.fc1 = nn.Linear(dim, hidden)
                    self.fc2 = nn.Linear(hidden, dim)

                def forward(self, x):
                    return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


            def get_inputs():
                return [torch.randn(2, 3, 8)]


            def get_init_inputs():
                return [8, 16]
            '''),
         textwrap.dedent('''\
            """Refactored pre-norm residual MLP block."""

            import torch
            import torch.nn as nn
            from children.gelu import Model as GELU
            from children.layer_norm import Model as LayerNorm
            from children.linear import Model as Linear


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.ln = LayerNorm(dim)
                    self.fc1 = Linear(dim, hidden)
                    self.act = GELU()
                    self.fc2 = Linear(hidden, dim)

                def forward(self, x):
                    residual = x
                    h = self.fc2(self.act(self.fc1(self.ln(x))))
                    h += residual
                    return h


            def get_inputs():
                return [torch.randn(2, 3, 8)]


            def get_init_inputs():
                return [8, 16]
            '''), ("gelu", "layer_norm", "linear"),
         {"ln.weight": "ln.norm.weight", "ln.bias": "ln.norm.bias", "fc1.weight": "fc1.linear.weight",
          "fc1.bias": "fc1.linear.bias", "fc2.weight": "fc2.linear.weight", "fc2.bias": "fc2.linear.bias"})

    # stack of linears in a ModuleList, same child class many times
    layers_orig = _ORIG_HEAD.format(doc="Deep tanh MLP.") + textwrap.dedent('''\
        class Model(nn.Module):
            def __init__(self, dim=8, depth=3):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

            def forward(self, x):
                for layer in self.layers:
                    x = torch.tanh(layer(x))
                return x


        def get_inputs():
            return [torch.randn(2, 8)]


        def get_init_inputs():
            return [8, 3]
        ''')
    layers_map = {f"layers.{i}.{p}": f"layers.{i}.linear.{p}" for i in range(3) for p in ("weight", "bias")}
    case("honest_modulelist", "honest", [], "ModuleList of children", "the same child class used many times",
         layers_orig, textwrap.dedent('''\
            """Refactored deep tanh MLP: ModuleList of linear children, one tanh child."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.tanh import Model as Tanh


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, depth=3):
                    super().__init__()
                    self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(depth)])
                    self.act = Tanh()

                def forward(self, x):
                    for i in range(len(self.layers)):
                        x = self.act(self.layers[i](x))
                    return x


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 3]
            '''), ("linear", "tanh"), layers_map)
    case("honest_moduledict", "honest", [], "ModuleDict of children", "ModuleDict iterated with items()",
         layers_orig, textwrap.dedent('''\
            """Refactored deep tanh MLP: ModuleDict of linear children."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.tanh import Model as Tanh


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, depth=3):
                    super().__init__()
                    self.layers = nn.ModuleDict({f"l{i}": Linear(dim, dim) for i in range(depth)})
                    self.acts = nn.ModuleList([Tanh() for _ in range(depth)])

                def forward(self, x):
                    for idx, (name, layer) in enumerate(self.layers.items()):
                        x = self.acts[idx](layer(x))
                    return x


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 3]
            '''), ("linear", "tanh"),
         {f"layers.{i}.{p}": f"layers.l{i}.linear.{p}" for i in range(3) for p in ("weight", "bias")})

    # attention-like: heads plumbing + bmm + softmax + scale children
    case("honest_attention_heads", "honest", [], "view/permute/transpose heads",
         "single-head attention scores with head plumbing; matmul, scale and softmax are children",
         _ORIG_HEAD.format(doc="Tiny self-attention (2 heads, no output projection).") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, heads=2):
                    super().__init__()
                    self.heads = heads
                    self.qkv = nn.Linear(dim, 3 * dim)

                def forward(self, x):
                    b, t, d = x.shape
                    q, k, v = self.qkv(x).chunk(3, dim=-1)
                    q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                    k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                    v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                    att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5), dim=-1)
                    y = torch.matmul(att, v)
                    return y.transpose(1, 2).contiguous().view(b, t, d)


            def get_inputs():
                return [torch.randn(2, 4, 8)]


            def get_init_inputs():
                return [8, 2]
            '''),
         textwrap.dedent('''\
            """Refactored tiny self-attention: only children and head plumbing."""

            import torch
            import torch.nn as nn
            from children.bmm import Model as BMM
            from children.linear import Model as Linear
            from children.scale import Model as Scale
            from children.softmax import Model as Softmax


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, heads=2):
                    super().__init__()
                    self.heads = heads
                    self.qkv = Linear(dim, 3 * dim)
                    self.scores = BMM()
                    self.scale = Scale(1.0 / (dim // heads) ** 0.5)
                    self.softmax = Softmax(-1)
                    self.mix = BMM()

                def _split_heads(self, t, b, n):
                    return t.view(b, n, self.heads, -1).transpose(1, 2)

                def forward(self, x):
                    b, t, d = x.shape
                    q, k, v = self.qkv(x).chunk(3, dim=-1)
                    q, k, v = (self._split_heads(z, b, t) for z in (q, k, v))
                    att = self.softmax(self.scale(self.scores(q, k.transpose(-2, -1))))
                    y = self.mix(att, v)
                    return y.transpose(1, 2).contiguous().view(b, t, d)


            def get_inputs():
                return [torch.randn(2, 4, 8)]


            def get_init_inputs():
                return [8, 2]
            '''), ("bmm", "linear", "scale", "softmax"),
         {"qkv.weight": "qkv.linear.weight", "qkv.bias": "qkv.linear.bias"})

    case("honest_gated", "honest", [], "multiplication as a child", "sigmoid gate times value, product in a child",
         _ORIG_HEAD.format(doc="Gated linear unit.") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.gate = nn.Linear(dim, hidden)
                    self.value = nn.Linear(dim, hidden)

                def forward(self, x):
                    return torch.sigmoid(self.gate(x)) * self.value(x)


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16]
            '''),
         textwrap.dedent('''\
            """Refactored gated linear unit."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.mul import Model as Mul
            from children.sigmoid import Model as Sigmoid


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.gate = Linear(dim, hidden)
                    self.value = Linear(dim, hidden)
                    self.sigmoid = Sigmoid()
                    self.mul = Mul()

                def forward(self, x):
                    return self.mul(self.sigmoid(self.gate(x)), self.value(x))


            def get_inputs():
                return [torch.randn(2, 8)]


            def get_init_inputs():
                return [8, 16]
            '''), ("linear", "mul", "sigmoid"),
         {"gate.weight": "gate.linear.weight", "gate.bias": "gate.linear.bias",
          "value.weight": "value.linear.weight", "value.bias": "value.linear.bias"})

    case("honest_conv_flatten", "honest", [], "conv -> flatten -> linear", "flatten between children",
         _ORIG_HEAD.format(doc="Tiny convnet.") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, cin=3, cout=4, classes=5):
                    super().__init__()
                    self.conv = nn.Conv2d(cin, cout, 3, padding=1)
                    self.fc = nn.Linear(cout * 6 * 6, classes)

                def forward(self, x):
                    x = torch.relu(self.conv(x))
                    return self.fc(torch.flatten(x, 1))


            def get_inputs():
                return [torch.randn(1, 3, 6, 6)]


            def get_init_inputs():
                return [3, 4, 5]
            '''),
         textwrap.dedent('''\
            """Refactored tiny convnet."""

            import torch
            import torch.nn as nn
            from children.conv2d import Model as Conv2d
            from children.linear import Model as Linear
            from children.relu import Model as ReLU


            class RefactoredModel(nn.Module):
                def __init__(self, cin=3, cout=4, classes=5):
                    super().__init__()
                    self.conv = Conv2d(cin, cout)
                    self.act = ReLU()
                    self.fc = Linear(cout * 6 * 6, classes)

                def forward(self, x):
                    n, c, h, w = x.shape
                    y = self.act(self.conv(x))
                    y = torch.flatten(y, 1) if y.shape[0] == n else y.reshape(n, -1)
                    return self.fc(y)


            def get_inputs():
                return [torch.randn(1, 3, 6, 6)]


            def get_init_inputs():
                return [3, 4, 5]
            '''), ("conv2d", "linear", "relu"),
         {"conv.weight": "conv.conv.weight", "conv.bias": "conv.conv.bias", "fc.weight": "fc.linear.weight",
          "fc.bias": "fc.linear.bias"})

    case("honest_recurrent_zeros", "honest", [], "torch.zeros initial state, loop over time",
         "a tanh RNN cell unrolled over time; the initial state is torch.zeros; sum of two projections is a residual",
         _ORIG_HEAD.format(doc="Tiny tanh RNN.") + textwrap.dedent('''\
            class Model(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.hidden = hidden
                    self.ih = nn.Linear(dim, hidden)
                    self.hh = nn.Linear(hidden, hidden)

                def forward(self, x):
                    h = torch.zeros(x.shape[0], self.hidden, dtype=x.dtype)
                    outs = []
                    for t in range(x.shape[1]):
                        h = torch.tanh(self.ih(x[:, t]) + self.hh(h))
                        outs.append(h)
                    return torch.stack(outs, dim=1)


            def get_inputs():
                return [torch.randn(2, 3, 8)]


            def get_init_inputs():
                return [8, 16]
            '''),
         textwrap.dedent('''\
            """Refactored tiny tanh RNN."""

            import torch
            import torch.nn as nn
            from children.linear import Model as Linear
            from children.tanh import Model as Tanh


            class RefactoredModel(nn.Module):
                def __init__(self, dim=8, hidden=16):
                    super().__init__()
                    self.hidden = hidden
                    self.ih = Linear(dim, hidden)
                    self.hh = Linear(hidden, hidden)
                    self.act = Tanh()

                def forward(self, x):
                    h = torch.zeros(x.shape[0], self.hidden, dtype=x.dtype, device=x.device)
                    outs = []
                    steps = x.size(1)
                    for t in range(steps):
                        h = self.act(self.ih(x[:, t]) + self.hh(h))
                        outs.append(h)
                    return torch.stack(outs, dim=1)


            def get_inputs():
                return [torch.randn(2, 3, 8)]


            def get_init_inputs():
                return [8, 16]
            '''), ("linear", "tanh"),
         {"ih.weight": "ih.linear.weight", "ih.bias": "ih.linear.bias", "hh.weight": "hh.linear.weight",
          "hh.bias": "hh.linear.bias"})


# ---------------------------------------------------------------------------------------------------------

def write_corpus(out: Path) -> int:
    build_cases()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "README.md").write_text(
        "# Anti-cheat corpus\n\nGenerated by `bench/anticheat/make_corpus.py` (edit that, then re-run it).\n"
        "Each folder is a decomposition step: original.py, refactored.py, children/, weight_map.json, case.json.\n"
        "`kind` cheat/honest; `rules` the static rule ids expected (HD3xx/HD4xx: only the full verifier can "
        "tell); `static_detectable`; `range_text` the exact source text of the first expected violation.\n")
    for name, c in sorted(CASES.items()):
        d = out / name
        (d / "children").mkdir(parents=True)
        (d / "original.py").write_text(c["original"])
        (d / "refactored.py").write_text(c["refactored"])
        for ch in c["children"]:
            (d / "children" / f"{ch}.py").write_text(CHILDREN[f"{ch}.py"])
        for rel, text in c["extra_files"].items():
            p = d / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        if c["weight_map"]:
            (d / "weight_map.json").write_text(json.dumps(c["weight_map"], indent=2) + "\n")
        meta = {k: c[k] for k in ("kind", "rules", "spelling", "static_detectable", "description")}
        if not c["static_detectable"]:
            meta["caught_by"] = meta.pop("rules")
            meta["rules"] = []
        if c["range_text"]:
            meta["range_text"] = c["range_text"]
        (d / "case.json").write_text(json.dumps(meta, indent=2) + "\n")
    return len(CASES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "test" / "python" / "corpus"))
    n = write_corpus(Path(ap.parse_args().out))
    print(f"wrote {n} cases")


if __name__ == "__main__":
    main()
