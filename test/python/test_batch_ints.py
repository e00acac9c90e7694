"""batch_ints.py: Python ints that torch.export or execution recording baked into a graph at the cut batch
(`x.view(x.size(0), -1)` recorded as `view(1, -1)`) are found by a second capture at batch N + 1 and written
batch-relative (`x.size(0)`, or `-1` in a view/reshape); what cannot be rewritten is a logged deviation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.fx as fx
from hdecomp.component import load_component
from hdecomp.compose import compose
from hdecomp.decompose.batch_ints import baked_ints, rewrite_baked_ints
from hdecomp.decompose.capture import Capture, _capture_record, node_values
from hdecomp.decompose.driver import DecomposeOptions, decompose, result_dict
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


def _record(model: nn.Module, batch: int) -> Capture:
    torch.manual_seed(0)
    x = torch.randn(batch, 3, 4)
    with torch.no_grad():
        out = model(x)
    return _capture_record(model, [x], {}, out, set())


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
