"""Parameters sized by a `batch_size` the constructor is given (KernelBench's Mamba2: `Model(batch_size, ...)`
makes `nn.Parameter(torch.randn(batch_size, ...))`), decomposed under `--batch-limit 1`: the model is built and
recorded at the cut batch, yet every generated file keeps the ORIGINAL parameter shapes, written relative to the
file's `batch_size` (`nn.Parameter(torch.randn((batch_size, 4, 6)))`, file names at the full size), so the one
batching rule cuts parameters and inputs alike and the composition test's weight map pairs equal shapes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch
from hdecomp.runtime.component import load_component
from hdecomp.runtime.settings import RunSettings

BATCH_SIZED = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Parameters sized by the batch_size the constructor is given."""

    def __init__(self, batch_size, seq, d):
        super().__init__()
        self.A = nn.Parameter(torch.randn(batch_size, seq, d))
        self.B = nn.Parameter(torch.randn(batch_size, seq, d))
        self.C = nn.Parameter(torch.randn(batch_size, d))

    def forward(self, x):
        half = int(x.shape[-1]) // 2   # a Python int from a shape: torch.fx cannot trace it
        torch.exp(self.B)              # dead code: torch.export drops it and is refused; the run is recorded
        h = torch.tanh(x * self.A).reshape(x.shape[0], 2, -1)
        y = torch.cumsum(self.B, dim=1)[..., :half] + 1.0
        c = torch.sigmoid(self.C).pow(2).mean(0)   # a batch-sized parameter reduced over the batch
        return h.sum(-1), y.mean(1).mean(-1, keepdim=True), c


batch_size = 8
seq = 4
d = 6


def get_inputs():
    return [torch.rand(batch_size, seq, d)]


def get_init_inputs():
    return [batch_size, seq, d]
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    tmp = tmp_path_factory.mktemp("batch_sized_params")
    model = tmp / "batch_sized.py"
    model.write_text(BATCH_SIZED)
    # self-tests off (a subprocess per file): the tests below load and build every file themselves
    return decompose(model, tmp / "out", DecomposeOptions(batch_limit=1, num_trials=2, self_tests=False),
                     progress=False)


def _files(dec: Any) -> list[Path]:
    return sorted(p for p in dec.root.glob("level_[012]_*/*.py"))


def test_decomposes_fully_and_composes(run: Any) -> None:
    from hdecomp.decompose.outputs import result_dict
    res = result_dict(run)
    assert res["status"] == "PASS", res
    assert all(s.status == "PASS" for s in run.steps)
    assert res["composition"]["status"] == "PASS", res["composition"]
    log = json.loads((run.root / "decomposition_log.json").read_text())
    # the second recording (batch 2) worked: no shape kept at the cut batch
    assert not [e for e in log["entries"] if "could not be recorded again" in e["description"]], log


def test_parameters_keep_the_original_batch_in_the_files(run: Any) -> None:
    texts = {p.name: p.read_text() for p in _files(run)}
    holders = {n: t for n, t in texts.items() if re.search(r"self\.[ABC] = nn\.Parameter", t)}
    assert {"A", "B", "C"} <= {m for t in holders.values() for m in re.findall(r"self\.([ABC]) = nn\.Parameter", t)}
    for name, text in holders.items():
        assert re.search(r"nn\.Parameter\(torch\.randn\(\(batch_size, (4, 6|6)\)\)\)", text), (name, text)
        assert re.search(r"^batch_size = 8\b", text, re.MULTILINE), name
    # file names carry the full shapes, never the cut ones
    assert not [n for n in texts if re.search(r"_1x\d", n)], sorted(texts)
    assert "cumsum_8x4x6_fp32.py" in texts


def test_a_file_whose_only_batch_sized_tensor_is_a_parameter_defines_batch_size(run: Any) -> None:
    """sigmoid(C).pow(2).mean(0): no input, an output of shape (d,) — only C's shape reads `batch_size`."""
    fusion = [p for p in _files(run) if "self.C = nn.Parameter" in p.read_text()
              and re.search(r"^Ops: .*mean", p.read_text(), re.MULTILINE) and "fusion" in p.parent.name]
    assert fusion, [p.name for p in _files(run)]
    text = fusion[0].read_text()
    assert "def forward(self):" in text and "((6,), torch.float32, True)," in text
    assert re.search(r"^batch_size = 8\b", text, re.MULTILINE)
    comp = load_component(fusion[0])
    assert comp.build().C.shape == (8, 6)


def test_every_file_builds_the_original_parameters_and_cuts_them_like_the_inputs(run: Any) -> None:
    for p in _files(run):
        comp = load_component(p)
        full = {k: tuple(v.shape) for k, v in comp.build().state_dict().items()}
        cut = {k: tuple(v.shape) for k, v in comp.build(batch_limit=1).state_dict().items()}
        for key, shape in full.items():
            assert shape[0] == 8, (p.name, key, shape)
            assert cut[key] == (1, *shape[1:]), (p.name, key, cut[key])


def test_weight_maps_pair_equal_shapes_at_full_size_and_at_the_cut(run: Any) -> None:
    steps = sorted(run.root.glob("steps/*/weight_map.json"))
    assert steps
    checked = 0
    for wm_file in steps:
        wm = json.loads(wm_file.read_text())
        if not wm:
            continue
        orig = load_component(wm_file.parent / "original.py")
        ref = load_component(wm_file.parent / "refactored.py")
        for limit in (None, 1):
            o = orig.build(batch_limit=limit).state_dict()
            r = ref.build(batch_limit=limit).state_dict()
            for k, v in wm.items():
                assert o[k].shape == r[v].shape, (wm_file.parent.name, limit, k, v)
                checked += 1
    assert checked >= 6    # A, B, C at both sizes


def test_second_recording_captures_the_same_way(tmp_path: Path) -> None:
    """A recorded graph with the batch baked in (`reshape(1, 2, -1)`) does not replay at batch 2; the capture
    again must be a recording too (export, refused at the cut batch only for dropping dead code, would
    succeed there with other node names) so the values at batch 2 — the parameters' too — are found."""
    from hdecomp.decompose.capture import capture, reference_run
    from hdecomp.decompose.shapes import graph_values_at, scaling_for
    from hdecomp.runtime.batch_limit import limited_inputs
    model_file = tmp_path / "batch_sized.py"
    model_file.write_text(BATCH_SIZED)
    comp = load_component(model_file)
    model = comp.build(batch_limit=1)
    args, kwargs = limited_inputs(comp, RunSettings(batch_limit=1))
    cap = capture(model, args, kwargs, reference_run(model, args, kwargs), set())
    assert cap.method == "record"
    sc, args2, kwargs2 = scaling_for(comp, RunSettings(batch_limit=1), args, kwargs)
    assert sc is not None and (sc.full, sc.b1, sc.b2) == (8, 1, 2)
    values2 = graph_values_at(comp.build(batch_limit=2), cap.graph, args2, kwargs2, set(), cap.method)
    assert values2 is not None
    params = {str(n.target): values2[n.name] for n in cap.graph.nodes if n.op == "get_attr"}
    assert {k: tuple(v.shape) for k, v in params.items()} == {"A": (2, 4, 6), "B": (2, 4, 6), "C": (2, 6)}
    assert isinstance(params["A"], torch.Tensor)


CUMSUM_NEW = '''import torch
import torch.nn as nn

batch_size = 8


class ModelNew(nn.Module):
    """cumsum over dim 1 as a lower-triangular matmul."""

    def __init__(self):
        super().__init__()
        self.B = nn.Parameter(torch.randn((batch_size, 4, 6)))

    def forward(self):
        tri = torch.tril(torch.ones(4, 4, dtype=self.B.dtype, device=self.B.device))
        return torch.einsum("ij,bjd->bid", tri, self.B)
'''


def test_a_kernel_of_a_tied_batch_sized_tensor_is_replaced_under_the_batch_limit(run: Any, tmp_path: Path) -> None:
    # `B` is read by two children: the composed model holds a whole copy in each (the composition's map lists
    # both keys); the candidate sizes its state by its own `batch_size`, lowered like the kernel's
    import shutil

    from hdecomp.toolchain.replace import ReplaceOptions, replace_kernel
    root = tmp_path / "tree"
    shutil.copytree(run.root, root)
    kernel = next(p for p in (root / "level_0_kernel").glob("cumsum_*.py"))
    new = tmp_path / "cumsum_new.py"
    new.write_text(CUMSUM_NEW)
    result = replace_kernel(root, kernel, new, ReplaceOptions(batch_limit=1, runs=3, warmup=1))
    assert result.status == "PASS", result.data.get("reason")
    steps = result.data["steps"]
    assert len(steps) >= 2 and all(r["status"] == "PASS" for r in steps), steps
    assert result.data["composition"]["status"] == "PASS"
    composed = (root / steps[-1]["composed_file"]).read_text()
    assert re.search(r'"B": \[\s*"[^"]+\.B",\s*"[^"]+\.B"\s*\]', composed), composed[-800:]
