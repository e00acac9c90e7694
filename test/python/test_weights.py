"""Weight maps: explicit > names > structure; buffers; tied weights; ambiguity and unmapped reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from hdecomp.formats.weight_map import (
    Part,
    WeightMapError,
    WeightSlice,
    WholeCopy,
    load_explicit_map,
    parse_explicit_map,
)
from hdecomp.verify.weights import (
    apply_weight_map,
    build_weight_map,
    named_tensors,
    randomize_weights,
    share_weight_map,
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


class Packed(nn.Module):
    """One tensor holding three projections (nn.MultiheadAttention's in_proj_weight)."""

    def __init__(self) -> None:
        super().__init__()
        self.in_proj_weight = nn.Parameter(torch.randn(12, 4))
        self.in_proj_bias = nn.Parameter(torch.randn(12))


class Split(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)


def _slices(leaf: str) -> list[WeightSlice]:
    return [WeightSlice(f"{name}.{leaf}", 0, 4 * i, 4 * i + 4) for i, name in enumerate("qkv")]


PACKED_MAP: dict[str, str | list[WeightSlice]] = {"in_proj_weight": _slices("weight"),
                                                  "in_proj_bias": _slices("bias")}


def test_packed_tensor_maps_to_its_slices() -> None:
    o, r = Packed(), Split()
    wm = build_weight_map(o, r, PACKED_MAP)
    assert wm.status == "OK" and not wm.unmapped_original and not wm.unmapped_refactored
    assert wm.slices["in_proj_weight"] == _slices("weight")
    assert wm.to_dict()["weight_map"]["in_proj_bias"][2] == {"key": "v.bias", "dim": 0, "start": 8, "stop": 12}
    assert wm.to_dict()["mapped_count"] == 2
    apply_weight_map(o, r, wm)
    assert torch.equal(r.k.weight, o.in_proj_weight[4:8]) and torch.equal(r.v.bias, o.in_proj_bias[8:])
    randomize_weights(o, r, wm, seed=3)   # both sides re-randomised identically, slice by slice
    assert torch.equal(r.q.weight, o.in_proj_weight[:4]) and torch.equal(r.k.bias, o.in_proj_bias[4:8])


def test_packed_tensor_slices_share_the_original_storage() -> None:
    o = Packed()
    with torch.device("meta"):
        r = Split()
    wm = build_weight_map(o, r, PACKED_MAP)
    shared = share_weight_map(o, r, wm)
    assert shared is not None and isinstance(r.v.weight, nn.Parameter)
    assert r.v.weight.data_ptr() == o.in_proj_weight[8:].data_ptr()   # a view, not a copy
    randomize_weights(o, r, wm, seed=5)
    assert torch.equal(r.v.weight, o.in_proj_weight[8:]) and torch.equal(r.q.bias, o.in_proj_bias[:4])


@pytest.mark.parametrize(("value", "match"), [
    ([WeightSlice("q.weight", 0, 0, 4), WeightSlice("k.weight", 0, 2, 6)], "overlap"),
    ([WeightSlice("q.weight", 0, 0, 4), WeightSlice("k.weight", 1, 0, 4)], "different dims"),
    ([WeightSlice("q.weight", 0, 10, 14)], "outside"),
    ([WeightSlice("q.weight", 0, 0, 6)], r"is \[6, 4\]"),
    ([WeightSlice("q.bias", 0, 0, 4)], r"is \[4\]"),
    ([WeightSlice("q.wieght", 0, 0, 4)], "did you mean 'q.weight'"),
    ([WeightSlice("q.weight", 0, 0, 4), WeightSlice("q.weight", 0, 4, 8)], "twice"),
])
def test_bad_slices_are_refused_with_the_reason(value: list[WeightSlice], match: str) -> None:
    with pytest.raises(WeightMapError, match=match):
        build_weight_map(Packed(), Split(), {"in_proj_weight": value})


class Tied(nn.Module):
    """One tensor that two children of the refactored parent read (the parent ties them)."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))


class TwoCopies(nn.Module):
    """A composed model: each child holds its own copy of the tied tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(4, 4, bias=False), nn.Linear(4, 4, bias=False)
        self.c = nn.Linear(4, 2, bias=False)


COPIES: dict[str, str | list[Part]] = {"w": [WholeCopy("a.weight"), WholeCopy("b.weight")]}


def test_a_tensor_copied_whole_into_several_refactored_tensors() -> None:
    # the composition's map of a tie (`hdecomp replace` re-verifies steps through it): each copy filled,
    # re-randomised alike, and held once where the weights are shared
    o, r = Tied(), TwoCopies()
    del r.c
    wm = build_weight_map(o, r, COPIES)
    assert wm.status == "OK" and not wm.unmapped_original and not wm.unmapped_refactored, wm.to_dict()
    assert wm.to_dict()["weight_map"]["w"] == ["a.weight", "b.weight"]
    apply_weight_map(o, r, wm)
    assert torch.equal(r.a.weight, o.w) and torch.equal(r.b.weight, o.w)
    randomize_weights(o, r, wm, seed=4)
    assert torch.equal(r.a.weight, o.w) and torch.equal(r.b.weight, o.w)
    assert parse_explicit_map({"w": ["a.weight", "b.weight"]}) == COPIES
    with torch.device("meta"):
        m = TwoCopies()
    del m.c
    assert share_weight_map(o, m, build_weight_map(o, m, COPIES)) is not None
    assert m.a.weight.data_ptr() == m.b.weight.data_ptr() == o.w.data_ptr()


def test_whole_copies_into_one_tied_tensor_fill_it_once() -> None:
    r = TwoCopies()
    del r.c
    r.b.weight = r.a.weight   # the composed model keeps the tie: both copies name one tensor
    wm = build_weight_map(Tied(), r, COPIES)
    assert wm.status == "OK" and wm.to_dict()["weight_map"]["w"] == ["a.weight"], wm.to_dict()


@pytest.mark.parametrize(("value", "match"), [
    ([WholeCopy("a.weight"), WeightSlice("a.weight", 0, 0, 4)], "twice"),
    ([WholeCopy("a.weight"), WholeCopy("c.weight")], r"copies 'w' \[4, 4\] torch.float32 whole into 'c.weight'"),
    ([WholeCopy("a.wieght")], "did you mean 'a.weight'"),
])
def test_bad_whole_copies_are_refused_with_the_reason(value: list[Part], match: str) -> None:
    with pytest.raises(WeightMapError, match=match):
        build_weight_map(Tied(), TwoCopies(), {"w": value})


def test_load_explicit_map_reads_slices_and_refuses_malformed_ones(tmp_path: Path) -> None:
    p = tmp_path / "weight_map.json"
    p.write_text(json.dumps({"in_proj_weight": [s.to_dict() for s in _slices("weight")], "x": "y"}))
    assert load_explicit_map(p) == {"in_proj_weight": _slices("weight"), "x": "y"}
    for bad in ([{"key": "q.weight", "dim": 0, "start": 0}], [{"key": "q.weight", "dim": 0, "start": 4, "stop": 4}],
                [{"key": 3, "dim": 0, "start": 0, "stop": 4}], []):
        p.write_text(json.dumps({"in_proj_weight": bad}))
        with pytest.raises(WeightMapError, match=r"slice|expected"):
            load_explicit_map(p)


def test_the_format_module_writes_what_it_reads_and_an_editor_keeps_what_it_cannot_check(tmp_path: Path) -> None:
    """formats.weight_map is the file's one writer and reader: what dump_weight_map writes (keys sorted, slices,
    whole copies) load_explicit_map reads back as it was. An editor's lenient read keeps an entry the strict
    reader refuses, as the user wrote it, and weight_map_update re-points only the moved keys."""
    from hdecomp.formats.weight_map import WEIGHT_MAP_FILE, dump_weight_map, read_weight_map_json
    from hdecomp.refactor.weight_map_edit import weight_map_update
    mapping = {"z.weight": "a.weight", "in_proj_weight": _slices("weight"),
               "tied": [WholeCopy("b.w"), WholeCopy("c.w")]}
    path = dump_weight_map(tmp_path, mapping)
    assert path == tmp_path / WEIGHT_MAP_FILE
    assert list(json.loads(path.read_text())) == ["in_proj_weight", "tied", "z.weight"]
    assert load_explicit_map(path) == mapping
    bad = {"in_proj_weight": [{"key": "q.weight", "dim": 0, "start": 0}], "mlp.fc.weight": "mlp.fc.weight"}
    path.write_text(json.dumps(bad))
    with pytest.raises(WeightMapError):
        load_explicit_map(path)
    assert read_weight_map_json(path) == bad
    update = weight_map_update(tmp_path, tmp_path / "refactored.py", "child", ["mlp"], {"mlp": None})
    assert update is not None
    _, old_text, new_map = update
    assert old_text == json.dumps(bad)
    assert new_map == {"in_proj_weight": bad["in_proj_weight"], "mlp.fc.weight": "child.mlp.fc.weight"}
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / WEIGHT_MAP_FILE).write_text("{not json")
    assert read_weight_map_json(tmp_path / "broken" / WEIGHT_MAP_FILE) is None


class Stacked(nn.Module):
    """The experts' weights of a mixture of experts in one tensor (experts, out, in), as transformers 5 keeps
    them; `self.weight[i]` picks one expert's."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, 5, 4))


class PerExpert(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.experts = nn.ModuleList([nn.Linear(4, 5, bias=False) for _ in range(3)])


ENTRIES: dict[str, str | list[Part]] = {"weight": [WeightSlice.entry(f"experts.{i}.weight", 0, i) for i in range(3)]}


def test_a_stacked_tensor_maps_to_its_entries_one_per_tensor(tmp_path: Path) -> None:
    """An entry (`{"key", "dim", "index"}`) is `tensor.select(dim, index)`: each expert's linear holds one
    expert's weight. Written, read back, transferred, shared as a view and re-randomised alike, as slices are."""
    from hdecomp.formats.weight_map import dump_weight_map
    path = dump_weight_map(tmp_path, ENTRIES)
    assert json.loads(path.read_text())["weight"][2] == {"key": "experts.2.weight", "dim": 0, "index": 2}
    assert load_explicit_map(path) == ENTRIES
    o, r = Stacked(), PerExpert()
    wm = build_weight_map(o, r, ENTRIES)
    assert wm.status == "OK" and not wm.unmapped_original and not wm.unmapped_refactored
    apply_weight_map(o, r, wm)
    assert torch.equal(r.experts[1].weight, o.weight[1])
    randomize_weights(o, r, wm, seed=4)
    assert all(torch.equal(r.experts[i].weight, o.weight[i]) for i in range(3))
    with torch.device("meta"):
        r2 = PerExpert()
    assert share_weight_map(o, r2, build_weight_map(o, r2, ENTRIES)) is not None
    assert r2.experts[2].weight.data_ptr() == o.weight[2].data_ptr()   # a view, not a copy


@pytest.mark.parametrize(("value", "match"), [
    ([WeightSlice.entry("experts.0.weight", 0, 3)], "outside"),
    ([WeightSlice.entry("experts.0.weight", 1, 0)], r"is \[3, 4\]"),
    ([WeightSlice.entry("experts.0.weight", 0, 0), WeightSlice.entry("experts.1.weight", 0, 0)], "overlap"),
    ([WeightSlice.entry("experts.0.weight", 0, 0), WeightSlice("experts.1.weight", 0, 0, 1)], "overlap"),
])
def test_bad_entries_are_refused_with_the_reason(value: list[Part], match: str) -> None:
    with pytest.raises(WeightMapError, match=match):
        build_weight_map(Stacked(), PerExpert(), {"weight": value})


def test_malformed_entries_are_refused_on_reading(tmp_path: Path) -> None:
    p = tmp_path / "weight_map.json"
    for bad in ([{"key": "e.weight", "dim": 0, "index": -1}], [{"key": "e.weight", "dim": 0, "index": 1, "stop": 2}],
                [{"key": "e.weight", "dim": 0, "index": True}]):
        p.write_text(json.dumps({"weight": bad}))
        with pytest.raises(WeightMapError, match=r"entry|slice"):
            load_explicit_map(p)
