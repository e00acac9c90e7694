"""Structural and runtime anti-cheat on in-memory models: what counts as compute in a parent's own
code, what is plumbing, and the structural rules that need no source files."""

from __future__ import annotations

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
from hdecomp.ops import record_ops
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
