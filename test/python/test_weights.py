"""Weight maps: explicit > names > structure; buffers; tied weights; ambiguity and unmapped reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from hdecomp.weights import (
    WeightMapError,
    apply_weight_map,
    build_weight_map,
    load_explicit_map,
    named_tensors,
    randomize_weights,
)
from torch import nn


class Wrap(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)


class Orig(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 4)


class Ref(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = Wrap(nn.Conv2d(3, 4, 3))
        self.n = Wrap(nn.BatchNorm2d(4))
        self.a = Wrap(nn.Linear(4, 4))
        self.b = Wrap(nn.Linear(4, 4))


def test_structure_maps_params_and_buffers_in_registration_order() -> None:
    wm = build_weight_map(Orig(), Ref())
    assert wm.mapping["conv.weight"] == "c.inner.weight"
    assert wm.mapping["bn.running_mean"] == "n.inner.running_mean"
    assert wm.mapping["bn.running_var"] == "n.inner.running_var"
    assert wm.mapping["bn.num_batches_tracked"] == "n.inner.num_batches_tracked"
    assert wm.mapping["fc1.weight"] == "a.inner.weight" and wm.mapping["fc2.weight"] == "b.inner.weight"
    assert set(wm.sources.values()) == {"structure"}
    assert wm.unmapped_original == [] and wm.unmapped_refactored == []
    # fc1/fc2 vs a/b: names do not tell them apart -> resolved by order, and said so
    amb = [a for a in wm.ambiguous if "fc1.weight" in a.original]
    assert amb and amb[0].resolution == "registration order"
    assert wm.status == "WARN"


def test_names_resolve_same_shape_candidates() -> None:
    class R2(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = Wrap(nn.Conv2d(3, 4, 3))
            self.bn = Wrap(nn.BatchNorm2d(4))
            self.fc2 = Wrap(nn.Linear(4, 4))  # registered first: order would swap them
            self.fc1 = Wrap(nn.Linear(4, 4))

    wm = build_weight_map(Orig(), R2())
    assert wm.mapping["fc1.weight"] == "fc1.inner.weight"
    assert wm.mapping["fc2.bias"] == "fc2.inner.bias"
    assert wm.ambiguous == []
    assert wm.status == "OK"


def test_exact_names_win() -> None:
    o, r = Orig(), Orig()
    wm = build_weight_map(o, r)
    assert set(wm.sources.values()) == {"name"}
    assert all(k == v for k, v in wm.mapping.items())


def test_unequal_candidate_counts_are_left_unmapped_and_reported() -> None:
    class Two(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.x = nn.Linear(4, 4, bias=False)
            self.y = nn.Linear(4, 4, bias=False)

    class Three(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.p = nn.Linear(4, 4, bias=False)
            self.q = nn.Linear(4, 4, bias=False)
            self.r = nn.Linear(4, 4, bias=False)

    wm = build_weight_map(Two(), Three())
    assert wm.mapping == {}
    assert wm.unmapped_original == ["x.weight", "y.weight"]
    assert wm.unmapped_refactored == ["p.weight", "q.weight", "r.weight"]
    assert any(a.resolution == "unresolved" for a in wm.ambiguous)
    assert wm.status == "WARN"


def test_tied_weights_are_mapped_once_with_aliases() -> None:
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 10, bias=False)
            self.head.weight = self.emb.weight

    class TiedRef(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.e = Wrap(nn.Embedding(10, 4))
            self.h = Wrap(nn.Linear(4, 10, bias=False))
            self.h.inner.weight = self.e.inner.weight

    o, r = Tied(), TiedRef()
    assert [e.aliases for e in named_tensors(o)] == [["head.weight"]]
    wm = build_weight_map(o, r)
    assert wm.mapping == {"emb.weight": "e.inner.weight"}
    assert wm.aliases_original == {"emb.weight": ["head.weight"]}
    apply_weight_map(o, r, wm)
    assert torch.equal(r.h.inner.weight, o.emb.weight)


def test_explicit_map_validated() -> None:
    o, r = Orig(), Ref()
    wm = build_weight_map(o, r, {"fc1.weight": "b.inner.weight", "fc2.weight": "a.inner.weight"}, "wm.json")
    assert wm.mapping["fc1.weight"] == "b.inner.weight" and wm.sources["fc1.weight"] == "explicit"
    with pytest.raises(WeightMapError, match="not a parameter or buffer of the original"):
        build_weight_map(o, r, {"fc3.weight": "a.inner.weight"})
    with pytest.raises(WeightMapError, match=r"did you mean 'a\.inner\.weight'"):
        build_weight_map(o, r, {"fc1.weight": "a.iner.weight"})
    with pytest.raises(WeightMapError, match="shapes differ"):
        build_weight_map(o, r, {"fc1.weight": "c.inner.weight"})


def test_explicit_map_two_into_one_is_a_problem() -> None:
    wm = build_weight_map(Orig(), Ref(), {"fc1.weight": "a.inner.weight", "fc2.weight": "a.inner.weight"})
    assert wm.status == "FAIL" and "both" in wm.problems[0]


def test_load_explicit_map_errors(tmp_path: Path) -> None:
    p = tmp_path / "weight_map.json"
    p.write_text("[1, 2]")
    with pytest.raises(WeightMapError, match="expected a JSON object"):
        load_explicit_map(p)
    p.write_text(json.dumps({"a": 3}))
    with pytest.raises(WeightMapError, match="expected a refactored state_dict key"):
        load_explicit_map(p)
    with pytest.raises(WeightMapError, match="not found"):
        load_explicit_map(tmp_path / "missing.json")


def test_apply_copies_values() -> None:
    o, r = Orig(), Ref()
    wm = build_weight_map(o, r)
    with torch.no_grad():
        o.bn.running_mean.fill_(3.0)
    assert apply_weight_map(o, r, wm) == len(wm.mapping)
    assert torch.equal(r.n.inner.running_mean, torch.full((4,), 3.0))
    assert torch.equal(r.a.inner.weight, o.fc1.weight)


def test_randomize_identical_through_map_and_keeps_variances_positive() -> None:
    o, r = Orig(), Ref()
    wm = build_weight_map(o, r)
    with torch.no_grad():
        o.fc1.bias.zero_()
    randomize_weights(o, r, wm, seed=7)
    assert torch.equal(o.fc1.weight, r.a.inner.weight)
    assert torch.equal(o.bn.running_var, r.n.inner.running_var)
    assert bool((o.bn.running_var > 0).all())
    assert bool((o.fc1.bias != 0).any())
    assert int(o.bn.num_batches_tracked) == 0  # ints untouched
    before = o.fc1.weight.clone()
    randomize_weights(o, r, wm, seed=8)
    assert not torch.equal(before, o.fc1.weight)
