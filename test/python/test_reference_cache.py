"""verify-step's reference cache: a re-verification of the same original runs the refactored side only,
with every verdict and figure of a cold run; any change of what the original's outputs depend on means a
cold run; the cache stays bounded and out of the step's folder."""

from __future__ import annotations

import shutil
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hdecomp.verify import trials
from hdecomp.verify.reference_cache import cache_root, evict
from hdecomp.verify.result import (
    NOT_REFERENCE_OPTIONS,
    REFERENCE_KEY_OPTIONS,
    REFERENCE_LABEL_OPTIONS,
    VerifyOptions,
)
from hdecomp.verify.step import verify_step

FIX = Path(__file__).parent / "fixtures" / "verify"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("HDECOMP_CACHE_DIR", str(root))
    return root


def _step(tmp_path: Path, name: str = "honest_mlp") -> Path:
    d = tmp_path / name
    shutil.copytree(FIX / name, d)
    return d


def _verdict(data: dict[str, Any]) -> dict[str, Any]:
    """Everything a verification decides and reports, less timings, timestamps and the cache's own note."""
    skip = {"timestamp", "timings", "reference_cache", "output_file"}
    return {k: v for k, v in data.items() if k not in skip}


@pytest.fixture
def forwards(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The label ("original" / "refactored") of every forward a verification runs, in order."""
    seen: list[str] = []
    real = trials._forward

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["label"])
        return real(*args, **kwargs)

    monkeypatch.setattr(trials, "_forward", spy)
    return seen


def test_a_second_verification_takes_the_originals_side_from_the_cache(tmp_path: Path, cache: Path,
                                                                       forwards: list[str]) -> None:
    d = _step(tmp_path)
    before = sorted(p.name for p in d.rglob("*"))
    in_process = VerifyOptions(isolate=False)   # (the spy sees the forwards of this process)
    cold = verify_step(d / "original.py", d / "refactored.py", in_process)
    cold_forwards = list(forwards)
    forwards.clear()
    assert cold.status == "PASS"
    assert cold.data["reference_cache"] == {"used": True, "trials_from_cache": 0, "trials_stored": 4,
                                            "original_writes_its_state": False}
    warm = verify_step(d / "original.py", d / "refactored.py", in_process)
    assert warm.data["reference_cache"]["trials_from_cache"] == 4 and warm.data["reference_cache"]["trials_stored"] == 0
    assert _verdict(warm.data) == _verdict(cold.data)   # op inventory (the cached trace) included
    # what the cache did, not how long it took: the original ran in every cold trial and in no warm one
    assert cold_forwards.count("original") >= 4 and cold_forwards.count("refactored") == cold_forwards.count("original")
    assert "original" not in forwards and forwards.count("refactored") == cold_forwards.count("refactored")
    # nothing of the cache inside the step
    assert sorted(p.name for p in d.rglob("*") if "__pycache__" not in p.parts) == \
        [n for n in before if n != "__pycache__"]
    assert any(cache.iterdir())


def test_an_edited_refactored_file_is_judged_against_the_cached_original(tmp_path: Path, cache: Path) -> None:
    d = _step(tmp_path)
    verify_step(d / "original.py", d / "refactored.py")
    src = (d / "refactored.py").read_text()
    (d / "refactored.py").write_text(src.replace("return self.norm(x + h)", "return self.norm(x + 1.001 * h)"))
    warm = verify_step(d / "original.py", d / "refactored.py")
    off = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(reference_cache=False))
    assert warm.data["reference_cache"]["trials_from_cache"] == 4 and off.data["reference_cache"] == {"used": False}
    assert warm.status == off.status == "FAIL"
    assert _verdict(warm.data) == _verdict(off.data)


def test_verify_options_are_each_classified() -> None:
    """Every option says once what it does to the reference cache: keys it, labels each reference, or leaves
    the original's outputs alone. A new option (a dtype, a workload, train mode) that is in none fails here
    before a stale reference can stand for it."""
    groups = [REFERENCE_KEY_OPTIONS, REFERENCE_LABEL_OPTIONS, NOT_REFERENCE_OPTIONS]
    named = [name for group in groups for name in group]
    assert sorted(named) == sorted(f.name for f in fields(VerifyOptions)), "classify each VerifyOptions field"
    assert len(named) == len(set(named)), "each field in one group only"


@pytest.mark.parametrize("change", ["original", "imported module", "batch limit", "device string"])
def test_what_the_originals_outputs_depend_on_is_part_of_the_key(tmp_path: Path, cache: Path, change: str) -> None:
    d = _step(tmp_path)
    (d / "helpers.py").write_text("SCALE = 1.0\n")
    orig = (d / "original.py").read_text().replace("import torch.nn.functional as F",
                                                   "import torch.nn.functional as F\nfrom helpers import SCALE")
    # the inputs come from the original, sized by its helper: a stale reference would not match them
    (d / "original.py").write_text(orig.replace("return [torch.randn(4, 16)]", "return [torch.randn(4, 16) * SCALE]"))
    assert verify_step(d / "original.py", d / "refactored.py").status == "PASS"
    options = VerifyOptions()
    if change == "original":
        (d / "original.py").write_text((d / "original.py").read_text() + "\n# edited\n")
    elif change == "imported module":
        (d / "helpers.py").write_text("SCALE = 2.0\n")
    elif change == "batch limit":
        options = VerifyOptions(batch_limit=2)
    else:
        options = VerifyOptions(device="cpu:0")
    again = verify_step(d / "original.py", d / "refactored.py", options)
    assert again.data["reference_cache"]["trials_from_cache"] == 0
    assert again.status == "PASS"   # (outputs of the old inputs would not have matched the new ones)


STATEFUL = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls += 1
        return self.fc(x) * self.calls


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return []
'''


PYTHON_COUNTER = STATEFUL.replace('self.register_buffer("calls", torch.zeros(()))', "self.calls = 0")


@pytest.mark.parametrize("source", [STATEFUL, PYTHON_COUNTER], ids=["buffer", "python counter"])
def test_an_original_that_writes_its_own_state_is_never_cached(tmp_path: Path, cache: Path, source: str) -> None:
    d = tmp_path / "stateful"
    d.mkdir()
    (d / "original.py").write_text(source)
    (d / "refactored.py").write_text(source.replace("class Model", "class RefactoredModel"))
    first = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(skip_anticheat=True))
    second = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(skip_anticheat=True))
    for r in (first, second):
        assert r.data["reference_cache"]["trials_from_cache"] == 0
        assert r.data["reference_cache"]["original_writes_its_state"] is True
    assert _verdict(first.data) == _verdict(second.data)
    assert not any(p.is_file() for p in cache.rglob("*.pt"))


UNREPRODUCIBLE_BUILD = '''import os
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        # (a parameter a library leaves as uninitialised memory: other values each build, whatever the seed)
        self.scale = nn.Parameter(torch.full((8,), 1.0 + int.from_bytes(os.urandom(4), "little")))

    def forward(self, x):
        return x * self.scale


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return []
'''


def test_a_reference_is_read_only_for_the_weights_it_was_made_with(tmp_path: Path, cache: Path) -> None:
    """An original whose build gives other weights each time (FastSpeech2's attention biases left as
    `torch.empty` memory outside their PreTrainedModel): the second verification's original holds other
    values than the cached run's, so it must not read that run's outputs (it failed a correct step)."""
    d = tmp_path / "unreproducible"
    d.mkdir()
    (d / "original.py").write_text(UNREPRODUCIBLE_BUILD)
    (d / "refactored.py").write_text(UNREPRODUCIBLE_BUILD.replace("class Model", "class RefactoredModel"))
    first = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(skip_anticheat=True))
    second = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(skip_anticheat=True))
    assert first.status == "PASS" and second.status == "PASS", second.data.get("fail_detail")
    # (the randomized trial's weights are drawn from its seed: reproducible, so read from the cache)
    assert second.data["reference_cache"]["trials_from_cache"] == 1


def test_the_cache_is_bounded_least_recently_used_first(tmp_path: Path, cache: Path) -> None:
    for i, size in enumerate((300, 300, 300)):
        entry = cache / f"k{i}"
        entry.mkdir(parents=True)
        (entry / "0.pt").write_bytes(b"x" * size)
        import os
        os.utime(entry, (1000 + i, 1000 + i))
    evict(cache, 700)
    assert sorted(p.name for p in cache.iterdir()) == ["k1", "k2"]   # the oldest went first
    evict(cache, 700, keep=cache / "k1")
    assert sorted(p.name for p in cache.iterdir()) == ["k1", "k2"]


def test_the_cache_root_defaults_outside_any_tree(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HDECOMP_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "hdecomp" / "reference"


def test_off_by_environment(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HDECOMP_CACHE", "0")
    d = _step(tmp_path)
    r = verify_step(d / "original.py", d / "refactored.py")
    assert r.data["reference_cache"] == {"used": False} and not cache.exists()
