"""Memory order of verification and decomposition: what is alive at once (hdecomp memory order).

A GPU-sized attention (KernelBench 31: 16384 tokens, 4 GB score matrices at batch 1) fits a CPU machine
only when no phase keeps more than one forward's tensors alive: a trial's original output waits on disk
while the refactored model runs, the recording at the second batch runs on the meta device, and big
comparisons go chunk by chunk. Each test checks the order with a tiny model and lowered thresholds; the
verdicts and result files must not change. Memory figures themselves are in bench/memory/.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch
from hdecomp.decompose import shapes
from hdecomp.decompose.capture import common as capture_mod
from hdecomp.decompose.outputs import self_test_jobs
from hdecomp.runtime.settings import RunSettings
from hdecomp.verify import compare
from hdecomp.verify import sides as verify_sides_module
from hdecomp.verify import trials as verify
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

# The original model leaves a weak reference to its output's storage; the refactored model reports
# whether that storage is still alive while it runs (it must not be, once outputs are spilled).
_PROBE = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import weakref

    PROBE = {"storages": [], "alive_during_refactored": []}

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 64)

        def forward(self, x):
            out = torch.relu(self.lin(x))
            PROBE["storages"].append(weakref.ref(out.untyped_storage()))
            return out

    batch_size = 4

    def get_inputs():
        return [torch.randn(batch_size, 8)]

    def get_init_inputs():
        return []
''')

_REFACTORED = textwrap.dedent('''
    import sys
    import torch
    import torch.nn as nn

    class RefactoredModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 64)

        def forward(self, x):
            probe = sys.modules["hdecomp_memory_probe"].PROBE
            probe["alive_during_refactored"].append(any(r() is not None for r in probe["storages"]))
            return torch.relu(self.lin(x))

    def get_inputs():
        return [torch.randn(4, 8)]

    def get_init_inputs():
        return []
''')


def _probe_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, Any]]:
    """original.py/refactored.py sharing one PROBE dict (the original's module, registered under a fixed
    name so the refactored file finds it even though each file is imported in isolation)."""
    import importlib.util
    import sys
    orig = tmp_path / "original.py"
    ref = tmp_path / "refactored.py"
    orig.write_text(_PROBE)
    ref.write_text(_REFACTORED)
    spec = importlib.util.spec_from_file_location("hdecomp_memory_probe", orig)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(sys.modules, "hdecomp_memory_probe", mod)
    probe: dict[str, Any] = mod.PROBE
    # verify_step builds its own original from original.py: point its probe at the shared one (both models in
    # this process: the memory order of one process is what these tests check)
    import hdecomp.runtime.component as component
    real_load = component.load_component

    def load(path: Any, *a: Any, **k: Any) -> Any:
        comp = real_load(path, *a, **k)
        if Path(path).name == "original.py":
            comp.module.PROBE = probe
        return comp
    monkeypatch.setattr(verify_sides_module, "load_component", load)
    return orig, ref, probe


def test_a_big_original_output_is_not_in_memory_while_the_refactored_model_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    orig, ref, probe = _probe_step(tmp_path, monkeypatch)
    monkeypatch.setattr(verify, "SPILL_BYTES", 0)  # every output counts as big
    result = verify_step(orig, ref, VerifyOptions(isolate=False, num_trials=2, skip_anticheat=True, reference_cache=False))
    assert result.status == "PASS", result.data.get("fail_detail") or result.error
    # 2 trials + the randomized-weights trial, each checked while the refactored model ran
    assert probe["alive_during_refactored"] == [False, False, False]


def test_the_old_order_holds_the_original_output_during_the_refactored_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe can fail: with spilling off (outputs below the threshold) the output is alive."""
    orig, ref, probe = _probe_step(tmp_path, monkeypatch)
    monkeypatch.setattr(verify, "SPILL_BYTES", 1 << 62)
    result = verify_step(orig, ref, VerifyOptions(isolate=False, num_trials=1, skip_anticheat=True, reference_cache=False, randomized_trial=False))
    assert result.status == "PASS"
    assert probe["alive_during_refactored"] == [True]


def test_spilled_outputs_give_the_same_result_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    orig, ref, _ = _probe_step(tmp_path, monkeypatch)
    opts = VerifyOptions(isolate=False, num_trials=2, skip_anticheat=True, reference_cache=False)
    monkeypatch.setattr(verify, "SPILL_BYTES", 1 << 62)
    kept = verify_step(orig, ref, opts).to_dict()
    monkeypatch.setattr(verify, "SPILL_BYTES", 0)
    spilled = verify_step(orig, ref, opts).to_dict()
    for key in ("status", "numerical_comparison", "randomized_trial", "input_mutation", "degenerate_output"):
        assert spilled[key] == kept[key], key


def test_a_failed_refactored_run_leaves_no_spill_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    orig, ref, _ = _probe_step(tmp_path, monkeypatch)
    ref.write_text(_REFACTORED.replace("return torch.relu(self.lin(x))", "raise ValueError('boom')"))
    spills: list[Path] = []
    real_spill = verify.spill_output

    def spy(out: Any, device: torch.device) -> Path | None:
        p = real_spill(out, device)
        if p is not None:
            spills.append(p)
        return p
    monkeypatch.setattr(verify, "SPILL_BYTES", 0)
    monkeypatch.setattr(verify, "spill_output", spy)
    result = verify_step(orig, ref, VerifyOptions(isolate=False, num_trials=1, skip_anticheat=True, reference_cache=False))
    assert result.status == "ERROR"
    assert spills and not any(p.exists() for p in spills)


def test_chunked_degenerate_kind_agrees_with_the_whole_tensor_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    nan = float("nan")
    cases = [torch.zeros(50), torch.full((50,), nan), torch.full((50,), 3.0), torch.randn(50),
             torch.tensor([nan] * 49 + [2.0]), torch.tensor([nan] * 20 + [2.0] * 30),
             torch.tensor([0] * 40 + [1] * 10), torch.zeros(50, dtype=torch.bool),
             torch.ones(50, dtype=torch.bool), torch.tensor([0.0] * 49 + [1.0])]
    whole = [compare.degenerate_kind(t) for t in cases]
    monkeypatch.setattr(compare, "_CHUNK", 7)
    assert [compare.degenerate_kind(t) for t in cases] == whole
    assert whole[:3] == ["all_zero", "all_nan", "constant"]


def test_chunked_same_outputs_agrees_with_allclose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_mod, "_SAME_CHUNK", 5)
    a = torch.randn(3, 17)
    b = a.clone()
    assert capture_mod.same_outputs(a, b)
    b[2, 16] += 1e-3
    assert not capture_mod.same_outputs(a, b)
    c = a.clone()
    c[0, 0] = float("nan")
    d = c.clone()
    assert capture_mod.same_outputs(c, d)            # NaN at the same place counts as equal
    d[0, 0] = 0.0
    assert not capture_mod.same_outputs(c, d)


class _Sized(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x)).sum(dim=1, keepdim=True)


def _component(tmp_path: Path, body: str) -> Any:
    from hdecomp.runtime.component import load_component
    p = tmp_path / "m.py"
    p.write_text(textwrap.dedent(body))
    return load_component(p)


_MODEL = '''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.lin(x)){extra}

    batch_size = 6

    def get_inputs():
        return [torch.randn(batch_size, 4)]

    def get_init_inputs():
        return []
'''


def test_a_big_second_recording_runs_on_the_meta_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    comp = _component(tmp_path, _MODEL.format(extra=""))
    model = comp.build(batch_limit=1)
    sc = shapes.Scaling(full=6, b1=1, b2=2, policy="batch_size")
    small = list(shapes.second_recording_models(comp, model, sc, 10, RunSettings()))
    assert [on_meta for _, on_meta in small] == [False] and small[0][0] is model   # as before: no change
    monkeypatch.setattr(shapes, "META_FIRST_BYTES", 0)
    big = shapes.second_recording_models(comp, model, sc, 10, RunSettings())
    first, on_meta = next(big)
    assert on_meta and all(p.is_meta for p in first.parameters())


def test_meta_recording_gives_the_same_full_size_shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    comp = _component(tmp_path, _MODEL.format(extra=""))
    model = comp.build(batch_limit=1)
    args, kwargs = comp.make_inputs(seed=0, batch_limit=1)
    with torch.no_grad():
        out = model(*args)
    real = shapes.full_size_io(comp, model, RunSettings(batch_limit=1), args, kwargs, out, cost_bytes=0)
    monkeypatch.setattr(shapes, "META_FIRST_BYTES", 0)
    meta = shapes.full_size_io(comp, model, RunSettings(batch_limit=1), args, kwargs, out, cost_bytes=10)
    assert shapes.dims_source(real[2]) == shapes.dims_source(meta[2]) == ["batch_size", "4"]
    assert real[3] == meta[3] == []


def test_a_recording_that_cannot_fit_is_not_run_for_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # .item() cannot run on meta tensors: the meta try fails, and the real run would not fit
    comp = _component(tmp_path, _MODEL.format(extra=" * float(x.abs().sum().item() > -1)"))
    model = comp.build(batch_limit=1)
    args, kwargs = comp.make_inputs(seed=0, batch_limit=1)
    with torch.no_grad():
        out = model(*args)
    ran: list[int] = []
    model.register_forward_pre_hook(lambda m, a: ran.append(int(a[0].shape[0])))
    monkeypatch.setattr(shapes, "META_FIRST_BYTES", 0)
    monkeypatch.setattr(shapes, "available_bytes", lambda: 1)
    _, _, out2, devs = shapes.full_size_io(comp, model, RunSettings(batch_limit=1), args, kwargs, out, cost_bytes=1 << 20)
    assert ran == []                                   # no forward at batch 2 on real tensors
    assert out2 is out and any("not run for real" in d for d in devs)
    # with memory to spare the real run happens, as before
    monkeypatch.setattr(shapes, "available_bytes", lambda: 1 << 40)
    _, _, out3, devs3 = shapes.full_size_io(comp, model, RunSettings(batch_limit=1), args, kwargs, out, cost_bytes=1 << 20)
    assert ran == [2] and shapes.dims_source(out3) == ["batch_size", "4"] and devs3 == []


def test_self_tests_run_one_at_a_time_when_two_forwards_would_not_fit() -> None:
    gib = 1 << 30
    assert self_test_jobs(1 * gib, available=20 * gib) == 2
    assert self_test_jobs(8 * gib, available=20 * gib) == 1


def test_decompose_keeps_a_big_reference_output_memory_mapped(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step's reference output (read only by the capture checks) is memory-mapped from a file when
    big; the decomposition is the same."""
    from hdecomp.decompose import driver, outputs
    model = tmp_path / "tiny.py"
    model.write_text(textwrap.dedent(_MODEL.format(extra=" + 1.0")))
    mapped: list[bool] = []
    real_unspill = verify.load_spilled

    def spy(path: Path) -> Any:
        out = real_unspill(path)
        mapped.append(isinstance(out, torch.Tensor))
        return out
    monkeypatch.setattr(verify, "load_spilled", spy)
    opts = driver.DecomposeOptions(batch_limit=2, finish=False, num_trials=1)
    monkeypatch.setattr(verify, "SPILL_BYTES", 1 << 62)
    kept = driver.decompose(model, tmp_path / "kept", opts, progress=False)
    assert mapped == []
    monkeypatch.setattr(verify, "SPILL_BYTES", 0)
    spilled = driver.decompose(model, tmp_path / "spilled", opts, progress=False)
    assert mapped and all(mapped)
    assert outputs.result_dict(spilled)["status"] == outputs.result_dict(kept)["status"] == "PASS"
    for rel in ("level_3_model/tiny.py", "steps"):
        a, b = tmp_path / "kept" / "tiny" / rel, tmp_path / "spilled" / "tiny" / rel
        files_a = sorted(p.relative_to(a) for p in a.rglob("*.py")) if a.is_dir() else [Path()]
        files_b = sorted(p.relative_to(b) for p in b.rglob("*.py")) if b.is_dir() else [Path()]
        assert files_a == files_b
        for f in files_a:
            assert (a / f).read_text() == (b / f).read_text()


def test_chunked_inf_count_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    t = torch.randn(5, 11)
    t[1, 3], t[4, 10], t[0, 0] = float("inf"), float("-inf"), float("nan")
    whole = compare._count_inf(t)
    monkeypatch.setattr(compare, "_CHUNK", 4)
    assert compare._count_inf(t) == whole == 2
    assert compare._count_inf(t.t()) == 2          # not contiguous: counted whole
    t[0, 0] = 1.0                                  # no NaN: torch.equal holds, the chunked count is used
    leaf = compare.compare_outputs(t, t.clone()).leaves[0]
    assert leaf.match and leaf.inf_count == 2
