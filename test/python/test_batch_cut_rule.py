"""`--batch-limit`'s cut rule for files without a module-level `batch_size` (hdecomp.runtime.batch_limit.choose_cut):
candidate leading sizes are tried in order (the first input's first), each cut checked by a forward of the
model; the first that runs is taken, and when none runs the inputs stay whole — a cut never breaks a model
that runs at full size (KernelBench's 18_Matmul_with_transposed_both: `A.T @ B.T` with A (K, M), B (N, K)).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from hdecomp.runtime.batch_limit import (
    batch_candidates,
    choose_cut,
    cut_batch,
    cut_for,
    forward_runs,
    limited_inputs,
    meta_first,
)
from hdecomp.runtime.component import load_component
from hdecomp.runtime.settings import RunSettings
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

TRANSPOSED_BOTH = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.T, B.T)


M = 4
K = 12
N = 6


def get_inputs():
    return [torch.rand(K, M), torch.rand(N, K)]


def get_init_inputs():
    return []
'''

# Every cut breaks it (both operands must keep their shapes), yet it runs at full size.
STACKED = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.stack([a, b.T]).sum(0)


def get_inputs():
    return [torch.rand(3, 5), torch.rand(5, 3)]


def get_init_inputs():
    return []
'''

# A matmul whose first input's leading size is the batch: the cut stays the first input's.
STANDARD = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(6, 12), torch.rand(12, 4)]


def get_init_inputs():
    return []
'''


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.py"
    p.write_text(text)
    return p


def _shapes(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return tuple(obj.shape)
    if isinstance(obj, (list, tuple)):
        return [_shapes(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _shapes(v) for k, v in obj.items()}
    return obj


def _runs(fn: Any) -> Any:
    def runs(args: list[Any], kwargs: dict[str, Any]) -> bool:
        try:
            fn(*args, **kwargs)
        except RuntimeError:
            return False
        return True
    return runs


def test_candidates_are_the_first_inputs_leading_size_then_the_others() -> None:
    a, b, c = torch.zeros(12, 4), torch.zeros(6, 12), torch.zeros(12)
    assert batch_candidates([a, b, c], {}, 1) == [12, 6]
    assert batch_candidates([a, b], {"m": torch.zeros(9, 2)}, 1) == [12, 6, 9]
    assert batch_candidates([a, b], {}, 6) == [12]          # sizes at or under the limit are no candidates
    assert batch_candidates([torch.tensor(2.0)], {}, 1) == []


def test_no_candidate_when_the_first_input_is_within_the_limit_already() -> None:
    # a kernel of a tree at batch 1 that takes a convolution's weight as an input (wav2vec2's weight-normed
    # positional conv): the weight's leading size is no batch, and a meta conv does not reject its cut
    x, w = torch.randn(1, 128, 49), torch.randn(128, 8, 128)
    assert batch_candidates([x, w], {}, 1) == []
    assert batch_candidates([torch.tensor(2.0), torch.randn(5, 2)], {}, 1) == [5]   # a 0-dim tensor has none


def test_cut_batch_cuts_every_input_of_the_given_leading_size() -> None:
    a, b, c = torch.zeros(12, 4), torch.zeros(6, 12), torch.zeros(6)
    args, _, cuts = cut_batch([a, b, c], {}, 1, batch=6)
    assert _shapes(args) == [(12, 4), (1, 12), (1,)]
    assert cuts == [{"input": "args[1]", "from": 6, "to": 1}, {"input": "args[2]", "from": 6, "to": 1}]
    args, _, _ = cut_batch([a, b, c], {}, 1)                 # default: the first input's leading size
    assert _shapes(args) == [(1, 4), (6, 12), (6,)]


def test_transposed_both_cuts_the_operand_whose_cut_still_multiplies() -> None:
    A, B = torch.rand(12, 4), torch.rand(6, 12)
    chosen = choose_cut([A, B], {}, 1, _runs(lambda a, b: a.T @ b.T))
    # K (A's leading size) cannot be cut from A alone: refused; N (B's) can
    assert chosen.refused == [12] and chosen.batch == 6 and not chosen.full_size
    assert _shapes(chosen.args) == [(12, 4), (1, 12)]
    assert torch.equal(chosen.args[1], B[:1])


def test_first_candidate_kept_where_it_runs() -> None:
    A, B = torch.rand(6, 12), torch.rand(12, 4)
    chosen = choose_cut([A, B], {}, 1, _runs(lambda a, b: a @ b))
    assert chosen.refused == [] and chosen.batch == 6
    assert _shapes(chosen.args) == [(1, 12), (12, 4)]
    # without a probe: the first candidate, unchecked (the rule's guess)
    assert _shapes(choose_cut([A, B], {}, 1).args) == [(1, 12), (12, 4)]


def test_no_cut_runs_so_the_inputs_stay_whole() -> None:
    a, b = torch.rand(3, 5), torch.rand(5, 3)
    chosen = choose_cut([a, b], {}, 1, _runs(lambda x, y: torch.stack([x, y.T])))
    assert chosen.full_size and chosen.cuts == [] and chosen.refused == [3, 5]
    assert chosen.args[0] is a and chosen.args[1] is b


def test_forward_runs_is_false_on_a_shape_error_and_leaves_the_inputs_alone() -> None:
    class Inplace(torch.nn.Module):
        def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            x.mul_(2.0)
            return x @ w
    x, w = torch.ones(2, 3), torch.ones(3, 4)
    assert forward_runs(Inplace())([x, w], {}) is True
    assert torch.equal(x, torch.ones(2, 3))                  # the probe ran on copies
    assert forward_runs(Inplace())([x, torch.ones(5, 4)], {}) is False


def test_cut_for_probes_once_per_file_and_input_shapes(tmp_path: Path) -> None:
    comp = load_component(_write(tmp_path, "tb", TRANSPOSED_BOTH))
    calls = []

    class Counting(torch.nn.Module):
        def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
            calls.append(1)
            return A.T @ B.T
    args, kwargs = comp.make_inputs(seed=0)
    first = cut_for(comp, args, kwargs, RunSettings(batch_limit=1), model=Counting())
    # the meta-device forward rejects A's cut (checked again for real: one call) and accepts B's (no call)
    assert first.batch == 6 and first.refused == [12] and len(calls) == 1
    again = cut_for(comp, args, kwargs, RunSettings(batch_limit=1), model=Counting())
    assert _shapes(again.args) == _shapes(first.args) and again.refused == [12] and len(calls) == 1
    # another limit is another question
    assert cut_for(comp, args, kwargs, RunSettings(batch_limit=2), model=Counting()).batch == 6
    assert len(calls) == 2
    # a file with `batch_size` is never probed (its get_inputs() built the cut batch)
    mod = SimpleNamespace(batch_size=1)
    with_bs = SimpleNamespace(module=mod, path=comp.path, class_name="Model",
                              batch_size_kept=lambda limit, timeout=None: None)
    assert cut_for(with_bs, args, kwargs, RunSettings(batch_limit=1), model=Counting()).cuts == []  # type: ignore[arg-type]
    assert len(calls) == 2


def test_a_cut_the_meta_forward_accepts_needs_no_real_forward(tmp_path: Path) -> None:
    comp = load_component(_write(tmp_path, "standard", STANDARD))
    calls = []

    class Counting(torch.nn.Module):
        def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
            calls.append(1)
            return A @ B
    args, kwargs = comp.make_inputs(seed=0)
    chosen = cut_for(comp, args, kwargs, RunSettings(batch_limit=1), model=Counting())
    assert chosen.batch == 6 and chosen.refused == [] and calls == []


def test_limited_inputs_builds_the_model_to_check_the_cut(tmp_path: Path) -> None:
    comp = load_component(_write(tmp_path, "tb", TRANSPOSED_BOTH))
    args, _ = limited_inputs(comp, RunSettings(batch_limit=1))
    assert _shapes(args) == [(12, 4), (1, 12)]
    comp = load_component(_write(tmp_path, "stacked", STACKED))
    args, _ = limited_inputs(comp, RunSettings(batch_limit=1))
    assert _shapes(args) == [(3, 5), (5, 3)]
    comp = load_component(_write(tmp_path, "standard", STANDARD))
    args, _ = limited_inputs(comp, RunSettings(batch_limit=1))
    assert _shapes(args) == [(1, 12), (12, 4)]


@pytest.mark.parametrize(("source", "method", "shapes", "cuts"), [
    (TRANSPOSED_BOTH, "cut", {"args[0]": [12, 4], "args[1]": [1, 12]}, [{"input": "args[1]", "from": 6, "to": 1}]),
    (STACKED, "full_size", {"args[0]": [3, 5], "args[1]": [5, 3]}, []),
    (STANDARD, "cut", {"args[0]": [1, 12], "args[1]": [12, 4]}, [{"input": "args[0]", "from": 6, "to": 1}]),
])
def test_verify_step_uses_the_cut_the_original_runs(tmp_path: Path, source: str, method: str,
                                                    shapes: dict[str, list[int]], cuts: list[Any]) -> None:
    orig = _write(tmp_path, "original", source)
    ref = _write(tmp_path, "refactored", source.replace("class Model", "class RefactoredModel"))
    r = verify_step(orig, ref, VerifyOptions(batch_limit=1, num_trials=2, skip_anticheat=True))
    assert r.status == "PASS", r.error
    assert r.data["batch_limit_method"] == method
    assert r.data["input_shapes"] == shapes
    assert r.data["batch_cuts"] == cuts


def test_scaling_follows_the_chosen_cut(tmp_path: Path) -> None:
    from hdecomp.decompose.shapes import scaling_for
    comp = load_component(_write(tmp_path, "tb", TRANSPOSED_BOTH))
    args, kwargs = limited_inputs(comp, RunSettings(batch_limit=1))
    assert kwargs == {}
    sc, a2, _ = scaling_for(comp, RunSettings(batch_limit=1), args, kwargs)
    assert sc is not None and (sc.full, sc.b1, sc.b2) == (6, 1, 2)   # N, not the first input's K
    assert _shapes(a2) == [(12, 4), (2, 12)]
    comp = load_component(_write(tmp_path, "stacked", STACKED))
    args, kwargs = limited_inputs(comp, RunSettings(batch_limit=1))
    assert kwargs == {}
    assert scaling_for(comp, RunSettings(batch_limit=1), args, kwargs)[0] is None                 # uncut: nothing to scale


def test_transposed_both_decomposes_and_composes_under_the_batch_limit(tmp_path: Path) -> None:
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    from hdecomp.decompose.outputs import result_dict
    model = _write(tmp_path, "transposed_both", TRANSPOSED_BOTH)
    dec = decompose(model, tmp_path / "out", DecomposeOptions(batch_limit=1), progress=False)
    res = result_dict(dec)
    assert res["status"] == "PASS", res
    assert res["composition"]["status"] == "PASS", res["composition"]
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    root = tree["nodes"][tree["root"]]
    assert list(root["input_shapes"].values()) == [[12, 4], [6, 12]]   # the original shapes
    kernel = next(dec.root.glob("level_0_kernel/*.py"))
    text = kernel.read_text()
    # the generated kernel keeps the full shapes, its cut dimension (N) written as `batch_size`
    assert "batch_size = 6" in text and "torch.rand(batch_size, 12)" in text
    comp = load_component(kernel)
    assert _shapes(comp.make_inputs(seed=0)[0]) == [(12, 4), (6, 12)]
    assert _shapes(comp.make_inputs(seed=0, batch_limit=1)[0]) == [(12, 4), (1, 12)]


def test_meta_first_falls_back_to_a_real_forward_when_the_meta_one_fails() -> None:
    class NoMeta(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * float(x.sum() > -1.0)     # .item() on a meta tensor raises
    real_calls = []

    def real(a: list[Any], k: dict[str, Any]) -> bool:
        real_calls.append(1)
        return forward_runs(NoMeta())(a, k)
    with torch.device("meta"):
        meta = NoMeta()
    runs = meta_first(meta, real)
    assert runs([torch.ones(2, 3)], {}) is True and real_calls == [1]
    assert meta_first(None, real)([torch.ones(2, 3)], {}) is True and real_calls == [1, 1]


GATHER = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Funnel's relative positions: rows of a table gathered by recorded indices."""

    def forward(self, table, index):
        return torch.gather(table, 0, index)


def get_inputs():
    return [torch.randn(128, 16), torch.full((8, 16), 96, dtype=torch.int64)]


def get_init_inputs():
    return []
'''


def test_a_cut_is_checked_by_a_real_forward_where_an_input_holds_indices(tmp_path: Path) -> None:
    # cutting the table to 1 row passes a meta forward (shapes only) but reads row 96: only the index's cut
    # runs; the meta check alone took the table's and broke the file (hf_funnel's coverage)
    path = tmp_path / "gather_kernel.py"
    path.write_text(GATHER)
    comp = load_component(path)
    args, kwargs = limited_inputs(comp, RunSettings(batch_limit=1))
    assert kwargs == {}
    assert [list(a.shape) for a in args] == [[128, 16], [1, 16]]
    assert comp.build()(*args).shape == (1, 16)


MASKED_SCATTER = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Molmo2's merge of image features: the image tokens' positions filled from the flattened features."""

    def forward(self, features, embeds, mask):
        return embeds.masked_scatter(mask, features)


def get_inputs():
    mask = torch.zeros(2, 32, 1, dtype=torch.bool)
    mask[:, 4:12] = True
    return [torch.randn(1024), torch.randn(2, 32, 64), mask.expand(2, 32, 64).contiguous()]


def get_init_inputs():
    return []
'''


def test_a_cut_is_checked_by_a_real_forward_where_an_input_is_a_mask(tmp_path: Path) -> None:
    # cutting the flattened features (the first input's leading size) to 1 passes a meta forward, but the mask
    # holds 1024 positions to fill: only the batch's cut runs (Molmo2's fusion, fresh set 22)
    path = tmp_path / "masked_scatter_kernel.py"
    path.write_text(MASKED_SCATTER)
    comp = load_component(path)
    args, _ = limited_inputs(comp, RunSettings(batch_limit=1))
    assert [list(a.shape) for a in args] == [[1024], [1, 32, 64], [1, 32, 64]]
    assert comp.build()(*args).shape == (1, 32, 64)


def test_rows_grouped_by_the_batch_go_with_their_samples() -> None:
    # OWLv2: `batch x queries` rows of token ids and masks beside `batch` images; a cut keeps each kept
    # image's queries (not all six on one image) and the ids are no batch of their own
    ids, mask, pixels = torch.zeros(6, 5, dtype=torch.long), torch.ones(6, 5, dtype=torch.long), torch.randn(2, 3, 8)
    assert batch_candidates([ids, mask, pixels], {}, 1) == [2]
    assert batch_candidates([ids, mask, pixels], {}, 2) == []      # the batch (2) is within the limit
    a, _, cuts = cut_batch([ids, mask, pixels], {}, 1)
    assert [tuple(t.shape) for t in a] == [(3, 5), (3, 5), (1, 3, 8)]
    assert [c["to"] for c in cuts] == [3, 3, 1]
    # float rows are data of their own: a (6, 8) float input beside (2, 8) ones is no group
    floats = torch.randn(6, 8)
    assert batch_candidates([floats, pixels], {}, 1) == [6, 2]
