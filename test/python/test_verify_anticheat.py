"""Structural and runtime anti-cheat on in-memory models: what counts as compute in a parent's own
code, what is plumbing, and the structural rules that need no source files."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from hdecomp.anticheat.runtime import check_runtime
from hdecomp.anticheat.structural import (
    check_call_nesting,
    check_children_called,
    check_disguise,
    check_inventory,
    check_parameters,
    component_children,
)
from hdecomp.runtime.ops import record_ops
from torch import nn


class Kernel(nn.Module):
    """Stands for a child component (its class lives in this test file, not in torch)."""

    def __init__(self, fn=torch.relu) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def root_ops(model: nn.Module, *args) -> set[str]:
    _, trace = record_ops(model.eval(), args, locations_for=lambda m: m == "")
    return {v.op for v in check_runtime(trace)}


def test_plumbing_and_residuals_allowed_in_parent() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.k = Kernel()

        def forward(self, x, idx):
            h = self.k(x)
            y = x + h  # residual
            y = torch.cat([y, h], dim=-1).reshape(2, -1).transpose(0, 1).contiguous()
            y = y[:, : y.shape[1] // 2].float().to("cpu")
            z = y.new_zeros(y.shape)
            z[0] = y[0]
            parts = torch.split(z, 1, dim=0)
            picked = torch.stack(parts)[idx]
            return picked.flatten().unsqueeze(0).squeeze(0).detach().clone()

    assert root_ops(Parent(), torch.randn(2, 4), torch.tensor([0, 1])) == set()


def test_compute_in_parent_flagged() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.k = Kernel()

        def forward(self, x):
            h = self.k(x)
            return (h + 1.0) * 2, h.softmax(-1), x @ x.t(), (x > 0), h.mean()

    assert root_ops(Parent(), torch.randn(3, 3)) == {"add", "mul", "_softmax", "mm", "gt", "mean"}


def test_dropout_in_parent_flagged_at_function_level() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.k = Kernel()

        def forward(self, x):
            return F.dropout(self.k(x), 0.1, training=self.training)

    _, trace = record_ops(Parent().eval(), (torch.randn(2, 2),))
    vs = check_runtime(trace)
    assert [(v.rule, v.op) for v in vs] == [("HD402", "dropout")]


def test_direct_forward_call_bypasses_child() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.k = Kernel()

        def forward(self, x):
            return self.k.forward(x)  # hooks do not run: the relu is the parent's

    m = Parent().eval()
    _, trace = record_ops(m, (torch.randn(2),))
    assert {v.op for v in check_runtime(trace)} == {"relu"}
    assert [v.rule for v in check_children_called(m, trace)] == ["HD306"]


def test_runtime_violation_location_and_count() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.k = Kernel()

        def forward(self, x):
            for _ in range(3):
                x = torch.tanh(self.k(x))
            return x

    _, trace = record_ops(Parent().eval(), (torch.randn(2),), locations_for=lambda m: m == "")
    (v,) = check_runtime(trace)
    assert v.details["count"] == 3 and "3×" in v.message
    assert v.related and v.related[0].file == __file__  # code outside refactored.py: related location


def test_parameters_and_buffers_must_live_under_children() -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleList([Kernel(), Kernel()])
            self.scale = nn.Parameter(torch.ones(2))
            self.register_buffer("mask", torch.ones(2))

    found = check_parameters(Parent())
    assert sorted(v.details["tensor"] for v in found) == ["mask", "scale"]
    assert {v.rule for v in found} == {"HD301"}


def test_containers_unpacked_and_raw_torch_children_flagged(tmp_path) -> None:
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.seq = nn.Sequential(Kernel(), Kernel())
            self.d = nn.ModuleDict({"a": Kernel()})
            self.raw = nn.Linear(2, 2)

    m = Parent()
    assert [qn for qn, _ in component_children(m)] == ["seq.0", "seq.1", "d.a", "raw"]
    original = tmp_path / "original.py"
    original.write_text("import torch\n")
    found = check_disguise(m, original)
    assert [(v.rule, v.message.split("'")[1]) for v in found] == [("HD311", "raw")]


def test_child_called_inside_sibling_is_flagged_but_sequential_is_not() -> None:
    class Then(nn.Module):
        def forward(self, x, other):
            return other(torch.relu(x))

    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.seq = nn.Sequential(Kernel(), Kernel(torch.tanh))
            self.a = Then()
            self.b = Kernel(torch.sigmoid)

        def forward(self, x):
            return self.a(self.seq(x), self.b)

    m = Parent().eval()
    _, trace = record_ops(m, (torch.randn(2),))
    found = check_call_nesting(m, trace)
    assert [v.details for v in found] == [{"child": "b", "inside": "a", "calls": 1}]


def test_inventory_diff_and_parent_in_disguise() -> None:
    class Orig(nn.Module):
        def forward(self, x):
            return torch.tanh(torch.relu(x))

    class Whole(nn.Module):
        def forward(self, x):
            return torch.tanh(torch.relu(x))

    class Disguised(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = Whole()

        def forward(self, x):
            return self.w(x)

    class Missing(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.r = Kernel()

        def forward(self, x):
            return self.r(x)

    x = torch.randn(3)
    _, to = record_ops(Orig(), (x,))
    d = Disguised().eval()
    _, td = record_ops(d, (x,))
    assert [v.rule for v in check_inventory(to, td, d)] == ["HD305"]
    mm = Missing().eval()
    _, tm = record_ops(mm, (x,))
    (v,) = check_inventory(to, tm, mm)
    assert v.rule == "HD307" and v.details["diff"] == ["original runs tanh×1, refactored tanh×0"]
    assert v.op == "tanh"


def test_shared_child_called_twice_is_not_a_disguise() -> None:
    class Orig(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(2, 2)

        def forward(self, x):
            return self.fc(self.fc(x))

    class Ref(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = Kernel(nn.Linear(2, 2))

        def forward(self, x):
            return self.fc(self.fc(x))

    x = torch.randn(1, 2)
    _, to = record_ops(Orig().eval(), (x,))
    r = Ref().eval()
    _, tr = record_ops(r, (x,))
    assert check_inventory(to, tr, r) == []


# ---------------------------------------------------------------------------------------------------------
# HD313: functions, callables and modules handed to a child's constructor (recorded while building)
# ---------------------------------------------------------------------------------------------------------

def _fake_children_module():
    import types

    mod = types.ModuleType("fake_children_pointwise")

    class Pointwise(nn.Module):
        def __init__(self, fn=torch.relu, scale=1.0) -> None:
            super().__init__()
            self.fn = fn
            self.inner = Inner(torch.tanh)  # the child's own file may build its parts as it likes

        def forward(self, x):
            return self.inner(self.fn(x))

    class Inner(nn.Module):
        def __init__(self, fn) -> None:
            super().__init__()
            self.fn = fn

        def forward(self, x):
            return self.fn(x)

    for cls in (Pointwise, Inner):
        cls.__module__ = mod.__name__
        setattr(mod, cls.__name__, cls)
    return mod


def test_callables_and_modules_passed_to_child_constructors_are_recorded() -> None:
    from hdecomp.anticheat.structural import check_constructor_arguments, recording_constructor_arguments

    mod = _fake_children_module()
    original_init = mod.Pointwise.__init__

    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.data = mod.Pointwise(scale=0.5)  # plain data: fine
            self.op = mod.Pointwise(torch.sigmoid)
            self.mod = mod.Pointwise(fn=nn.GELU())
            self.many = nn.ModuleList([mod.Pointwise(fn) for fn in (float, torch.float32)])  # data types

    with recording_constructor_arguments([mod]) as records:
        parent = Parent()
    assert mod.Pointwise.__init__ is original_init  # restored
    found = check_constructor_arguments(parent, records)
    assert [(v.rule, v.details["child"]) for v in found] == [("HD313", "op"), ("HD313", "mod")]
    assert "torch.sigmoid" in found[0].message or "sigmoid" in found[0].message
    assert "argument 1" in found[0].message and "the module GELU" in found[1].message
    assert "move the op into the child" in found[0].allowed_instead


# ---------------------------------------------------------------------------------------------------------
# HD304: a copy of the parent, compared by what the classes compute (not by the wrapper's shape)
# ---------------------------------------------------------------------------------------------------------

_CARRIED = '''
import torch
import torch.nn as nn


class SubBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)

    def forward(self, x):
        return torch.relu(self.dw(x))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = SubBlock(c)

    def forward(self, x):
        return x + self.a(x)


class Stage(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.b1 = Block(c)
        self.b2 = Block(c)

    def forward(self, x):
        return self.b2(self.b1(x))
'''
_SUBCLASS = '''

class Model({cls}):
    """{cls} with the recorded constructor arguments."""

    def __init__(self):
        super().__init__({args})
'''
_HOLDER = '''

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {cls}({args})

    def forward(self, x):
        return self.m(x)
'''


def _copy_of_original(original: str, child: str) -> bool:
    from hdecomp.anticheat.structural import _reachable_classes, class_keys

    want = class_keys(original)["Model"]
    keys = class_keys(child)
    return any(keys.get(name) == want for name in _reachable_classes(child, "Model"))


def test_thin_wrappers_of_different_classes_are_not_copies() -> None:
    original = _CARRIED + _SUBCLASS.format(cls="Stage", args="4")
    # what `hdecomp decompose` writes for a child: a wrapper of another carried-over class
    assert not _copy_of_original(original, _CARRIED + _SUBCLASS.format(cls="Block", args="4"))
    assert not _copy_of_original(original, _CARRIED + _HOLDER.format(cls="Block", args="4"))
    # the same name, another class (a carried-over Stage that is not the parent's)
    other_stage = _CARRIED.replace("return self.b2(self.b1(x))", "return self.b1(x)")
    assert not _copy_of_original(original, other_stage + _SUBCLASS.format(cls="Stage", args="4"))
    # the same class built otherwise (a smaller recursive instance) is not a copy either
    assert not _copy_of_original(original, _CARRIED + _SUBCLASS.format(cls="Stage", args="2"))
    # subclasses of different classes imported from a package (a transformers block and its attention),
    # built with the same arguments
    imported = "from transformers.models.gpt2.modeling_gpt2 import {cls}\n" + _SUBCLASS
    block = imported.format(cls="GPT2Block", args="GPT2Config(n_layer=2), layer_idx=0")
    attn = imported.format(cls="GPT2Attention", args="GPT2Config(n_layer=2), layer_idx=0")
    assert not _copy_of_original(block, attn)
    assert _copy_of_original(block, block.replace("import GPT2Block", "import GPT2Block, GPT2MLP"))


def test_real_copies_of_the_parent_are_still_caught() -> None:
    original = _CARRIED + _SUBCLASS.format(cls="Stage", args="4")
    assert _copy_of_original(original, _CARRIED + _SUBCLASS.format(cls="Stage", args="4"))  # verbatim
    assert _copy_of_original(original, _CARRIED + _HOLDER.format(cls="Stage", args="4"))  # holds the same class
    renamed = _CARRIED.replace("Stage", "Whole") + _SUBCLASS.format(cls="Whole", args="4")
    assert _copy_of_original(original, renamed)  # the wrapped class renamed
    # a plain (not wrapper) parent copied under another name, used by the child
    mlp = "import torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n" \
          "        self.fc = nn.Linear(2, 2)\n\n    def forward(self, x):\n        return self.fc(x).relu()\n"
    child = mlp.replace("class Model(nn.Module)", "class Whole(torch.nn.Module)") + _HOLDER.format(cls="Whole", args="")
    assert _copy_of_original(mlp, child)


# ---------------------------------------------------------------------------------------------------------
# The corpus cases of issue 12 through the full verifier (the static side is in test_anticheat_static.py)
# ---------------------------------------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parent / "corpus"


@pytest.mark.parametrize(("case", "expected"), [
    ("honest_wrapper_children", set()),  # thin wrappers of other carried-over classes: not copies (HD304)
    ("runtime_wrapper_same_class", {"HD304", "HD305"}),  # a wrapper of the parent's own class
    ("cheat_ctor_torch_fn", {"HD214", "HD313"}),
    ("cheat_ctor_module_class", {"HD214", "HD313"}),
    ("runtime_ctor_dynamic_lookup", {"HD313"}),  # only the structural check sees the function
    ("honest_ctor_plain_data", set()),
    ("honest_sys_path_step_dir", set()),
    ("honest_loop_residuals", set()),
    ("cheat_loop_sum", {"HD116"}),
    ("honest_library_host_call", set()),   # a cache object and a flag built from plain data: host code
    ("runtime_library_host_compute", {"HD401"}),   # a library call on plain data that computes: the run sees it
    ("honest_library_plumbing", set()),   # library functions read from their source: a filter, host arithmetic
    ("cheat_library_compute", {"HD112", "HD401"}),   # a library function whose source computes on the tensor
    ("honest_number_arithmetic", set()),   # `16 - count` on a count held in a 0-dim integer tensor: a number
    ("runtime_number_claim", {"HD401"}),   # a float tensor annotated `int`: the run sees its mul
    ("honest_declared_loop_numbers", set()),   # a loop's names declared numbers: `t > 1`, `start + t * hw`
    ("runtime_declared_number_claim", {"HD401"}),   # a float row declared `int`: the run sees its mul
    ("honest_host_constants", set()),   # a causal mask, an identity, a size quotient: constants of the shapes
    ("cheat_host_laundering", {"HD104"}),   # values read out as Python numbers and made a tensor again: data
    ("runtime_host_buffer_written", {"HD401"}),   # a model's tensor written into a host value through a view
])
def test_issue12_corpus_cases_through_verify_step(case: str, expected: set[str]) -> None:
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step

    d = CORPUS / case
    r = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(num_trials=1))
    found = {v.rule for v in r.violations}
    if expected:
        assert r.status == "FAIL" and expected <= found, (r.status, r.error, found)
    else:
        assert r.status == "PASS" and not found, (r.status, r.error, [v.format() for v in r.violations])


def test_a_forward_a_class_picks_in_its_init_is_no_monkeypatch() -> None:
    """timm's Partial_conv3 sets `self.forward = self.forward_split_cat` in its `__init__`: the module as its class
    builds it (HD310 stays quiet); a lambda, or an own method set from outside a class that never picks its
    forward, is a patch."""
    import importlib.util

    from hdecomp.anticheat.structural import own_forward_choice

    spec = importlib.util.spec_from_file_location(
        "forward_choice", Path(__file__).parent / "fixtures" / "reach" / "forward_choice.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    conv = mod.PartialConv(16, 4, "split_cat")
    assert own_forward_choice(conv)
    conv.forward = lambda x: x * 2
    assert not own_forward_choice(conv)
    lin = torch.nn.Linear(4, 4)
    lin.forward = lin.extra_repr
    assert not own_forward_choice(lin)
