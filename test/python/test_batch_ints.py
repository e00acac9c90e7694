"""batch_relative.py: Python ints that torch.export or execution recording baked into a graph at the cut batch
(`x.view(x.size(0), -1)` recorded as `view(1, -1)`) are found by a second capture at batch N + 1 and written
batch-relative (`x.size(0)`, or `-1` in a view/reshape); what cannot be rewritten is a logged deviation."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.fx as fx
from hdecomp.decompose.batch_relative import baked_ints, rewrite_baked_ints
from hdecomp.decompose.capture import Capture, capture_record, node_values
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.outputs import result_dict
from hdecomp.runtime.component import load_component
from hdecomp.toolchain.compose import compose
from hdecomp.toolchain.selftest import run_self_tests
from torch import nn

FIXTURES = Path(__file__).parent / "fixtures" / "batch_ints"


class OffsetArange(nn.Module):
    """An int that changes with the batch but is not k * batch (batch + 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) + torch.arange(x.size(0) + 2).float().sum()


class BranchOnBatch(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2 if x.size(0) > 1 else x + 1


class NumpyBlocks(nn.Module):
    """BigBird's random attention blocks: a numpy array of block indices picks the rows a tensor gathers; the
    recorded graph holds the array as a constant argument."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        import numpy as np
        blocks = np.array([2, 0, 1])
        return x[:, blocks] * 2


def _record(model: nn.Module, batch: int) -> Capture:
    torch.manual_seed(0)
    x = torch.randn(batch, 3, 4)
    with torch.no_grad():
        out = model(x)
    return capture_record(model, [x], {}, out, set())


def _run(model: nn.Module, graph: fx.Graph, x: torch.Tensor) -> Any:
    import copy
    with torch.no_grad():
        return node_values(fx.GraphModule(model, copy.deepcopy(graph)), [x], {})[0]


def test_recorded_ints_are_found_and_written_batch_relative() -> None:
    model = load_component(FIXTURES / "branchy_views.py").build().eval()   # the fixture's model
    c1, c2 = _record(model, 1), _record(model, 2)
    baked, problem = baked_ints(c1.graph, c2.graph, 1, 2)
    assert problem is None
    assert sorted((b.v1, b.v2, b.k) for b in baked) == [(1, 2, 1), (3, 6, 3)]
    x5 = torch.randn(5, 3, 4)
    with pytest.raises(RuntimeError):  # the recorded graph is only right at the recorded batch
        _run(model, c1.graph, x5)
    graph, done, left = rewrite_baked_ints(c1.graph, baked, c1.values, c2.values, 1, 2)
    assert left == [] and len(done) == 2
    assert any("x.size(0)" in d for d in done) and any("-1 (inferred)" in d for d in done)
    with torch.no_grad():
        assert torch.allclose(_run(model, graph, x5), model(x5))
    code = fx.GraphModule(model, graph).code
    assert "size = x.size(0)" in code and "view(size, -1)" in code and ".reshape(-1, 4)" in code


def test_an_int_not_proportional_to_the_batch_is_left_and_reported() -> None:
    model = OffsetArange().eval()
    c1, c2 = _record(model, 1), _record(model, 2)
    baked, problem = baked_ints(c1.graph, c2.graph, 1, 2)
    assert problem is None and [(b.v1, b.v2, b.k) for b in baked] == [(3, 4, None)]
    _, done, left = rewrite_baked_ints(c1.graph, baked, c1.values, c2.values, 1, 2)
    assert done == [] and len(left) == 1 and "not proportional" in left[0]


def test_array_constants_of_two_recordings_compare_element_by_element() -> None:
    """A numpy array among a graph's arguments is equal to the other recording's element by element (its `!=`
    answers with an array: an internal error before), and differs where one element does."""
    import numpy as np
    from hdecomp.decompose.batch_relative import _diff
    model = NumpyBlocks()
    baked, problem = baked_ints(_record(model, 1).graph, _record(model, 2).graph, 1, 2)
    assert problem is None and baked == []
    assert list(_diff([np.array([1, 2])], [np.array([1, 2])], ())) == []
    assert [p for p, _, _ in _diff([np.array([1, 2])], [np.array([1, 3])], ())] == [(0,)]
    assert [p for p, _, _ in _diff([torch.ones(2)], [torch.zeros(2)], ())] == [(0,)]


def test_control_flow_on_the_batch_makes_the_graphs_incomparable() -> None:
    model = BranchOnBatch()
    baked, problem = baked_ints(_record(model, 1).graph, _record(model, 2).graph, 1, 2)
    assert baked == [] and problem is not None and "control flow" in problem


@pytest.fixture(scope="module")
def branchy(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("batch_ints")
    return decompose(FIXTURES / "branchy_views.py", tmp, DecomposeOptions(batch_limit=1, self_tests=False), progress=False)


def test_recorded_model_under_the_batch_limit_is_right_at_full_size(branchy: Any) -> None:
    res = result_dict(branchy)
    assert res["status"] == "PASS", res
    assert branchy.nodes[branchy.root_node].capture_method == "record"
    log = json.loads((branchy.root / "decomposition_log.json").read_text())
    texts = [e["description"] for e in log["entries"]]
    assert any("batch-dependent ints written batch-relative" in t for t in texts)
    sources = "\n".join(p.read_text() for p in branchy.root.glob("level_*/*.py"))
    sources += "\n".join(p.read_text() for p in branchy.root.glob("steps/*/refactored.py"))
    assert "x.size(0)" in sources and ".reshape(-1, 4)" in sources
    assert ".view(1, -1)" not in sources and ".reshape(3, 4)" not in sources
    # The composition at the ORIGINAL batch (4): kernel files only, wrong if a cut-batch int was baked in.
    full = compose(branchy.root, run=True)
    assert full.status == "PASS", full


@pytest.fixture(scope="module")
def grouped(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("grouped_rows")
    return decompose(FIXTURES / "grouped_rows.py", tmp, DecomposeOptions(batch_limit=1, self_tests=False),
                     progress=False)


def test_routing_ints_stay_valid_at_the_original_batch(grouped: Any) -> None:
    """MoE-style grouping under --batch-limit 1: sizes read from intermediate values (`ids.size(0)`, 2 x the
    batch) are written batch-relative, and integer inputs keep their invariants at the original batch: a
    sort's permutation is drawn as a permutation, offsets scale with the rows they count."""
    res = result_dict(grouped)
    assert res["status"] == "PASS", res
    log = json.loads((grouped.root / "decomposition_log.json").read_text())["entries"]
    assert not [e for e in log if "kept" in e["description"] and "batch" in e["title"]], log
    sources = {p.name: p.read_text() for p in grouped.root.glob("level_[01]_*/*.py")}
    assert any("torch.randperm(batch_size * 2)" in t for t in sources.values())
    assert any(re.search(r"torch\.tensor\(\[[\d, ]+\], dtype=torch\.int64\) \* batch_size", t)
               for t in sources.values()), "offsets not scaled with the batch"
    assert any(".sort(dim=-1).values" in t for t in sources.values()), "sorted ids not drawn sorted"
    # every component at the ORIGINAL batch (16): a searchsorted over unscaled offsets indexes out of range
    report = run_self_tests(grouped.root, jobs=2, write=False)
    assert [r.status for r in report.results] == ["PASS"] * len(report.results), \
        [(r.file, r.status, r.cause) for r in report.results if r.status != "PASS"]
    full = compose(grouped.root, run=True)
    assert full.status == "PASS", full


def test_integer_invariants_need_evidence_at_both_batches() -> None:
    from hdecomp.decompose.shapes import Scaling, _counts_per_batch, int_structure
    t = torch.tensor
    assert int_structure(t([1, 0]), t([2, 0, 3, 1])) == "permutation"
    assert int_structure(t([[1, 0]]), t([[1, 0], [0, 1]])) is None        # rows of 2: too little evidence
    assert int_structure(t([0]), t([1, 0])) is None                        # ids in a small range, by chance
    assert int_structure(t([1, 0]), t([2, 2, 3, 1])) is None               # a repeat: not a permutation
    assert int_structure(t([1, 3]), t([0, 1, 1, 5])) == "sorted"
    assert int_structure(t([2, 2]), t([2, 2, 2, 2])) is None               # constant: nothing to keep
    assert int_structure(t([0.0, 1.0]), t([0.0, 1.0, 2.0])) is None        # floats are not ids
    sc = Scaling(full=16, b1=1, b2=2, policy="batch_size")
    assert _counts_per_batch(t([0, 1, 1, 2]), t([1, 2, 3, 4]), sc) == 2    # offsets over 2 x the batch
    assert _counts_per_batch(t([0, 1, 1, 3]), t([1, 2, 3, 4]), sc) is None  # ends not proportional
    assert _counts_per_batch(t([2, 1, 1, 2]), t([1, 2, 3, 4]), sc) is None  # not non-decreasing
    assert _counts_per_batch(t([0, 1]), t([0, 1]), sc) is None              # the same at both: a constant


def test_values_per_sample_are_written_as_recorded_whatever_invariant_they_also_keep() -> None:
    """An image grid per sample (`[[1, 4, 4]]`, sorted by chance, whose product the features' rows must equal)
    is written as recorded, tiled over the batch: a sorted draw of its range broke the product (an index out
    of range). Expert ids sorted over the whole batch are no values per sample: a sorted draw."""
    from hdecomp.decompose.input_code import input_expr
    from hdecomp.decompose.shapes import Scaling, full_size
    from hdecomp.decompose.source import SourceContext
    sc, t = Scaling(full=2, b1=1, b2=2, policy="batch_size"), torch.tensor
    grid = full_size(t([[1, 4, 4]]), t([[1, 4, 4], [1, 4, 4]]), sc, "grid_thw", [])
    text = input_expr(grid, SourceContext(None))
    assert text.startswith("torch.tensor([[1, 4, 4], [1, 4, 4]], dtype=torch.int64)") and "randint" not in text, text
    ids = full_size(t([0, 0, 1, 3]), t([0, 0, 0, 1, 1, 2, 3, 3]), sc, "expert_ids", [])
    assert ".sort(dim=-1).values" in input_expr(ids, SourceContext(None))
    # (sorted over the batch, the larger batch's leading rows the smaller one's by chance: tiled, no longer sorted)
    ids = full_size(t([0, 0, 2, 3]), t([0, 0, 2, 3, 3, 3, 3, 3]), sc, "expert_ids", [])
    assert ".sort(dim=-1).values" in input_expr(ids, SourceContext(None))


def test_an_export_specialised_to_batch_one_is_recorded_instead(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """At batch 1 torch.export turns `inv[perm] = torch.arange(n)` into a one-element view, so the graphs
    at batch 1 and 2 differ: the forward is recorded instead, and its ints written batch-relative. (torch.fx
    traces the item assignment, and the export is what this asks of: fx is made to refuse.)"""
    from hdecomp.decompose.capture import choose
    from hdecomp.decompose.capture.common import CaptureError

    def no_fx(*_a: Any, **_k: Any) -> Any:
        raise CaptureError("trace failed (refused by the test)")
    monkeypatch.setattr(choose, "capture_fx", no_fx)
    src = tmp_path / "inverse_perm.py"
    src.write_text(INVERSE_PERM)
    dec = decompose(src, tmp_path / "out", DecomposeOptions(batch_limit=1, self_tests=False), progress=False)
    assert result_dict(dec)["status"] == "PASS"
    texts = [e["description"] for e in json.loads((dec.root / "decomposition_log.json").read_text())["entries"]]
    assert any("torch.export specialised the graph to batch 1" in t for t in texts), texts
    refactored = next(dec.root.glob("steps/step_1_*/refactored.py")).read_text()
    assert ".view([])" not in refactored and "x.size(0)" in refactored, refactored
    assert compose(dec.root, run=True).status == "PASS"


INVERSE_PERM = '''
import torch
from torch import nn

batch_size = 12


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        perm = torch.argsort(x.sum(-1))
        y = self.proj(x[perm]).relu()
        inv = torch.empty_like(perm)
        inv[perm] = torch.arange(perm.size(0))
        return y[inv] * 2.0


def get_inputs():
    return [torch.randn(batch_size, 8)]


def get_init_inputs():
    return []
'''


def test_the_second_capture_estimate_counts_activations_not_weights() -> None:
    """The memory a second capture at batch N + 1 needs is what grows with the batch: the weights a graph
    reads (and their views, a transposed expert weight) exist already and are not counted, and two views
    of one storage count once (Mixtral's 5.6 GB of experts was estimated at 21 GB, and refused)."""
    from hdecomp.decompose.shapes import state_storages, tensor_bytes
    lin = nn.Linear(256, 256)
    act = torch.randn(8, 256)
    values = {"w": lin.weight, "wt": lin.weight.t(), "x": act, "x_view": act.view(2, 4, 256), "meta":
              torch.empty(1 << 20, device="meta")}
    assert tensor_bytes(values) == lin.weight.nbytes + act.nbytes
    assert tensor_bytes(values, state_storages(lin)) == act.nbytes


class SharedKV(collections.UserDict):  # type: ignore[type-arg]
    """transformers' KVSharingDict: a UserDict of the keys and values later layers read."""


def test_a_userdict_of_tensors_is_an_input_its_class_rebuilds_at_the_original_batch() -> None:
    """Gemma 3n's decoder hands every layer a KVSharingDict (a UserDict) of the keys and values the last
    layers read: written as its class called on its items (it was "NotRepresentable", and the text model
    stayed whole), its tensors taken to the original batch like any input's."""
    from hdecomp.decompose.input_code import input_expr
    from hdecomp.decompose.shapes import Scaling, full_size
    from hdecomp.decompose.source import SourceContext
    sc = Scaling(full=4, b1=1, b2=2, policy="batch_size")
    v1 = SharedKV({"full": (torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4))})
    v2 = SharedKV({"full": (torch.randn(2, 2, 8, 4), torch.randn(2, 2, 8, 4))})
    full = full_size(v1, v2, sc, "shared_kv_states", [])
    assert type(full) is SharedKV and full["full"][0].shape == (4, 2, 8, 4)
    ctx = SourceContext(None)
    text = input_expr(full, ctx)
    assert text.startswith("SharedKV({'full': (torch.randn(batch_size, 2, 8, 4)"), text


def test_a_mask_expanded_over_the_hidden_size_is_written_as_its_recorded_slice() -> None:
    """A mask of the image tokens' positions expanded over the hidden size (Molmo2's `special_image_mask`, 2 x 32 x
    64 = 4096 values, more than a mask is recorded at) is its one recorded slice, expanded back: a random draw
    holds about 2048 positions, more than the 1024 image features a `masked_scatter` fills them from."""
    from hdecomp.decompose.input_code import input_expr
    from hdecomp.decompose.source import SourceContext
    mask = torch.zeros(2, 32, 1, dtype=torch.bool)
    mask[:, 4:12] = True
    full = mask.expand(2, 32, 64).contiguous()
    text = input_expr(full, SourceContext(None))
    assert text.endswith(".expand(2, 32, 64).contiguous()"), text
    assert torch.equal(eval(text, {"torch": torch}), full)
    noise = torch.rand(2, 32, 64) > 0.5   # (no slice to record: drawn)
    assert "randint" in input_expr(noise, SourceContext(None))
