"""The eager op recorder: plumbing vs compute, attribution to modules, cleanup (the names and the plumbing
list themselves: test_vocab_ops)."""

from __future__ import annotations

import warnings
from collections import Counter

import torch
import torch.nn.functional as F
from hdecomp.runtime.ops import OpTrace, format_counter_diff, is_identity_op, record_ops, record_ops_meta
from hdecomp.vocab.ops import is_plumbing
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(F.relu(self.fc(x)))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.shared = nn.Linear(8, 8)

    def forward(self, x):
        for b in self.blocks:
            x = x + b(x)
        x = self.shared(self.shared(x))
        x.relu_()
        return torch.cat([x, x]).reshape(-1)


def test_record_attributes_ops_to_innermost_module() -> None:
    net = Net().eval()
    out, trace = record_ops(net, (torch.randn(2, 8),))
    assert out.shape == (32,)
    aten = trace.compute_inventory("aten")
    assert aten == Counter({"mm": 4, "add": 6, "relu": 3})  # addmm counted as mm + add
    assert trace.compute_inventory("aten", fold=False) == Counter({"addmm": 4, "relu": 3, "add": 2})
    assert trace.compute_inventory("aten", module="blocks.0.fc", fold=False) == Counter({"addmm": 1})
    assert trace.compute_inventory("aten", module="blocks.1") == Counter({"relu": 1})
    assert trace.compute_inventory("aten", module="") == Counter({"add": 2, "relu": 1})
    # residual adds between two tensors are marked, the in-place relu is folded and marked in-place
    root = [e for e in trace.events if e.module == "" and e.level == "aten" and e.compute]
    assert all(e.residual for e in root if e.name == "add")
    assert any(e.inplace for e in root if e.name == "relu")
    assert trace.module_calls["shared"] == 2
    assert trace.module_calls["blocks.1.drop"] == 1
    assert trace.subtree_inventory("blocks.0", fold=False) == Counter({"addmm": 1, "relu": 1})
    types = {e.module_type for e in trace.events if e.module == "blocks.0.fc"}
    assert types == {"Linear"}


def test_dropout_seen_at_function_level_only() -> None:
    net = Net().eval()
    _, trace = record_ops(net, (torch.randn(2, 8),))
    assert "dropout" not in trace.compute_inventory("aten")
    assert trace.compute_inventory("function", invisible_only=True) == Counter({"dropout": 2})
    assert trace.compute_inventory("function")["linear"] == 4


def _gelu(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5 * (1.0 + torch.erf(x / 1.41421356237))


with warnings.catch_warnings():   # (torch.jit.script is deprecated; older model code still uses it)
    warnings.simplefilter("ignore", FutureWarning)
    _scripted_gelu = torch.jit.script(_gelu)


def test_a_scripted_function_is_recorded_at_the_aten_level_by_its_ops() -> None:
    class Scripted(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _scripted_gelu(x)

    _, trace = record_ops(Scripted(), (torch.randn(2, 8),))
    assert trace.compute_inventory("aten") == Counter({"mul": 2, "div": 1, "erf": 1, "add": 1})
    # TorchScript calls its ops as aten overloads: not ops "with no aten trace" named Scalar / Tensor
    assert trace.compute_inventory("function", invisible_only=True) == Counter()


def test_hooks_and_modes_removed_after_recording_even_on_error() -> None:
    class Boom(nn.Module):
        def forward(self, x):
            raise RuntimeError("boom")

    m = nn.Sequential(nn.Linear(4, 4), Boom())
    try:
        record_ops(m, (torch.randn(1, 4),))
    except RuntimeError:
        pass
    for mod in m.modules():
        assert not mod._forward_hooks and not mod._forward_pre_hooks
    # no mode left on the stacks: a plain op is not recorded anywhere and runs normally
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
    assert _get_current_function_mode_stack() == [] and _get_current_dispatch_mode_stack() == []


def test_hook_compute_runs_inside_the_hooked_module() -> None:
    # A module's hooks are part of what it computes (the decomposer carries them into its file; a
    # refactored parent cannot install one: static HD206): a forward hook's and a pre-hook's compute count
    # as the hooked module's, not the parent's.
    class Parent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.fc.register_forward_hook(lambda mod, inp, out: torch.tanh(out))
            self.fc.register_forward_pre_hook(lambda mod, args: (torch.sigmoid(args[0]),))

        def forward(self, x):
            return self.fc(x).neg()

    _, trace = record_ops(Parent().eval(), (torch.randn(1, 4),))
    assert trace.compute_inventory("aten", module="") == Counter({"neg": 1})
    inside = trace.compute_inventory("aten", module="fc")
    assert inside["tanh"] == 1 and inside["sigmoid"] == 1, inside


def test_root_locations_recorded_on_request() -> None:
    class Root(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x)  # line recorded

    _, trace = record_ops(Root(), (torch.randn(2),), locations_for=lambda m: m == "")
    ev = next(e for e in trace.events if e.level == "aten" and e.name == "sigmoid")
    assert ev.where is not None and ev.where[0] == __file__
    _, trace = record_ops(Root(), (torch.randn(2),))
    assert all(e.where is None for e in trace.events)


def test_meta_recording_gives_same_inventory_without_data() -> None:
    torch.manual_seed(0)
    net = Net().eval()
    _, real = record_ops(net, (torch.randn(2, 8),))
    out, meta = record_ops_meta(Net().eval(), (torch.randn(2, 8),))
    assert out.device.type == "meta"
    assert meta.compute_inventory("aten") == real.compute_inventory("aten")


def test_fused_and_unfused_spellings_agree() -> None:
    lin = nn.Linear(4, 3)

    class Manual(nn.Module):
        def forward(self, x):
            return x @ lin.weight.t() + lin.bias

    x = torch.randn(2, 4)
    _, fused = record_ops(lin, (x,))
    _, manual = record_ops(Manual(), (x,))
    assert fused.compute_inventory("aten", fold=False) == Counter({"addmm": 1})
    assert fused.compute_inventory("aten") == manual.compute_inventory("aten") == Counter({"mm": 1, "add": 1})


def test_format_counter_diff() -> None:
    assert format_counter_diff(Counter(relu=2, add=1), Counter(relu=1, add=1)) == \
        ["original runs relu×2, refactored relu×1"]


def test_out_variants_fold_and_are_not_inplace() -> None:
    class OutVariant(nn.Module):
        def forward(self, a, b):
            c = torch.empty_like(a)
            torch.add(a, b, out=c)
            return c

    _, trace = record_ops(OutVariant(), (torch.randn(3), torch.randn(3)))
    (ev,) = [e for e in trace.events if e.level == "aten" and e.compute]
    assert ev.name == "add" and ev.raw.endswith(".out") and not ev.inplace


def test_fast_path_queries_are_not_compute() -> None:
    # nn.TransformerEncoderLayer asks `x.is_nested` a varying number of times depending on how its
    # fast path is reached: a query, never an op that a refactored step must reproduce (HD308).
    class Asks(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.is_nested:
                return x
            return torch.relu(x)

    _, trace = record_ops(Asks(), [torch.randn(2, 3)], {})
    assert is_plumbing("is_nested")
    assert "is_nested" not in trace.compute_inventory("function", invisible_only=True)
    assert trace.compute_inventory("aten") == Counter({"relu": 1})


def test_an_op_with_a_neutral_number_computes_nothing() -> None:
    # `acc = 0; for ...: acc = acc + y`: the first turn adds a Python 0 (timm's FocalNet modulation). It
    # computes nothing, so it is no kernel instance the tree must hold, at either level; a non-neutral
    # number (`h + 1.0`, a bias) still is.
    class Accumulates(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            acc = 0
            for k in range(3):
                acc = acc + torch.relu(x * (k + 2))
            return acc + 1.0

    _, trace = record_ops(Accumulates(), [torch.randn(2, 3)], {})
    # two accumulations of tensors (residual adds a parent may keep) and the bias; the `0 + y` is none
    assert trace.compute_inventory("aten") == Counter({"relu": 3, "mul": 3, "add": 3})
    adds = [e for e in trace.events if e.level == "aten" and e.name == "add"]
    assert [(e.compute, e.residual) for e in adds] == [(False, False), (True, True), (True, True), (True, False)]
    assert trace.compute_inventory("function", invisible_only=True) == Counter()
    assert is_identity_op("add", (torch.ones(2), 0)) and is_identity_op("mul", (torch.ones(2), 1.0))
    assert not is_identity_op("add", (torch.ones(2), 1.0)) and not is_identity_op("add", (torch.ones(2), True))
    assert not is_identity_op("mul", (torch.ones(2), torch.ones(2)))
    # `0 - x` and `1 / x` (Tensor.__rsub__ / __rtruediv__ with the number second) compute
    _, trace = record_ops(nn.Identity(), [torch.randn(3)], {}, call=lambda: (0 - torch.ones(3), 1 / torch.ones(3)))
    assert trace.compute_inventory("function") == Counter({"sub": 1, "div": 1})
    assert trace.compute_inventory("aten") == Counter({"sub": 1, "reciprocal": 1})


def test_compute_on_host_values_alone_is_marked_host() -> None:
    """Tensors built from sizes alone (a factory, `torch.tensor(n / 2)`, `torch.div(64, 8)`) and the numbers and
    masks computed from them alone are host values (runtime.host_values): a table of floats computed from
    them is none, nor a draw, nor anything that reads the model's tensors, nor a host value a model's tensor
    was written into, through a view of it too. Each recorded op says so, and the trace carries it to another
    process."""
    class Consts(nn.Module):
        def forward(self, x):
            n = x.shape[1]
            mask = torch.ones(n, n).tril()                              # tril: host
            half = torch.log2(torch.tensor(n / 2.0))                    # log2: host
            quot = torch.div(64, 8, rounding_mode="trunc") * 13         # div, mul: host
            drawn = torch.randn(n) * 3                                  # randn and its mul: no constants
            additive = torch.full((n, n), float("-inf")).triu(1)        # triu selects: host
            table = torch.cos(torch.arange(n) / n)                      # float arithmetic on a whole table: none
            buf = torch.zeros(n)
            view = buf[1:]
            view.copy_(x[0, 1:])                                        # data written through a view
            return x * mask[0] + half + quot + drawn + buf.exp() + additive[0] + table   # mul, add, exp: data

    _, trace = record_ops(Consts().eval(), (torch.randn(2, 4),))
    computed = [(e.name, e.host) for e in trace.events if e.level == "aten" and e.compute]
    assert [n for n, host in computed if host] == ["tril", "log2", "div", "mul", "triu"], computed
    assert {n for n, host in computed if not host} >= {"randn", "mul", "exp", "add", "cos"}, computed
    again = OpTrace.from_plain(trace.to_plain())
    assert [e.host for e in again.events] == [e.host for e in trace.events]


def test_a_torch_function_called_on_host_values_is_marked_host() -> None:
    """`repeat_interleave` of a host mask leaves no aten compute (HD402 would judge it by its call): the call is
    marked host where every tensor it is handed is a host value, not where one is the model's."""
    class Repeat(nn.Module):
        def forward(self, x):
            mask = torch.ones(3, dtype=torch.bool).repeat_interleave(2)
            return x[0].repeat_interleave(2), mask

    _, trace = record_ops(Repeat().eval(), (torch.randn(2, 3),))
    calls = [e.host for e in trace.events if e.level == "function" and e.name == "repeat_interleave"]
    assert calls == [True, False], calls
