"""verify-step judges from a process that imports neither side: the original and the refactored model each run
in a process of their own (hdecomp.verify.sides), and code of the refactored side cannot reach the reference,
the comparison, the functional API the original calls, or the reference cache. Each cheat below is a child
file of an otherwise honest step; it is refused by the check named, with the static analysis off (the runtime
must hold where the static analysis is fooled)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

FIX = Path(__file__).parent / "fixtures" / "verify" / "honest_mlp"

# Each child stands for children/gelu.py: a GELU kernel with a hack beside it.
PATCHES_THE_FUNCTIONAL_API = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

_gelu = F.gelu
F.gelu = lambda x, *a, **k: _gelu(x, *a, **k) * 1.01   # wrong, and wrong for the original alike in one process


class Model(nn.Module):
    def forward(self, x):
        return F.gelu(x)
'''

PATCHES_THE_COMPARISON = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True


class Model(nn.Module):
    def forward(self, x):
        return F.gelu(x) + 0.5
'''

STEALS_THE_REFERENCE = '''
import gc
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        # the original's activations of this shape, if any live in this process
        for o in gc.get_objects():
            if isinstance(o, torch.Tensor) and o.shape == x.shape and o is not x and o.dtype == x.dtype:
                return o.clone()
        return torch.zeros_like(x)
'''

POISONS_THE_CACHE = '''
import os
import pathlib
import torch
import torch.nn as nn
import torch.nn.functional as F

root = pathlib.Path(os.environ["HDECOMP_CACHE_DIR"])
root.mkdir(parents=True, exist_ok=True)
(root / "planted.pt").write_bytes(b"not a reference")


class Model(nn.Module):
    def forward(self, x):
        return F.gelu(x)
'''


def _step(tmp_path: Path, gelu_child: str | None = None) -> Path:
    d = tmp_path / "step"
    shutil.copytree(FIX, d)
    if gelu_child is not None:
        (d / "children" / "gelu.py").write_text(gelu_child + "\n\ndef get_inputs():\n    return [torch.randn(4, 32)]\n"
                                               "\n\ndef get_init_inputs():\n    return []\n")
    return d


def _verify(d: Path, **options: object) -> object:
    return verify_step(d / "original.py", d / "refactored.py", VerifyOptions(skip_anticheat=True, **options))


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("HDECOMP_CACHE_DIR", str(root))
    return root


def _rules(result: object) -> set[str]:
    return {v.rule for v in result.violations}   # type: ignore[attr-defined]


def test_an_honest_step_passes_and_the_judge_imports_neither_file(tmp_path: Path) -> None:
    d = _step(tmp_path)
    result = _verify(d)
    assert result.status == "PASS", result.data.get("fail_detail")
    assert result.data["isolation"] == {"isolated": True, "refactored_process": {
        "global_state": [], "introspection": [], "files": []}}
    imported = {Path(m.__file__).resolve() for m in list(sys.modules.values()) if getattr(m, "__file__", None)}
    assert not imported & {p.resolve() for p in d.rglob("*.py")}


def test_a_patched_functional_api_does_not_reach_the_original(tmp_path: Path) -> None:
    result = _verify(_step(tmp_path, PATCHES_THE_FUNCTIONAL_API))
    assert result.status == "FAIL"
    assert "numerical_mismatch" in result.fail_reasons   # the original ran with the real F.gelu
    assert "HD410" in _rules(result)
    assert any("torch.nn.functional.gelu replaced" in s
               for s in result.data["isolation"]["refactored_process"]["global_state"])


def test_a_patched_comparison_does_not_reach_the_judge(tmp_path: Path) -> None:
    result = _verify(_step(tmp_path, PATCHES_THE_COMPARISON))
    assert result.status == "FAIL"
    assert "numerical_mismatch" in result.fail_reasons and result.max_diff is not None and result.max_diff > 0.1
    assert "HD410" in _rules(result)


def test_the_reference_is_not_in_the_refactored_process(tmp_path: Path) -> None:
    result = _verify(_step(tmp_path, STEALS_THE_REFERENCE))
    assert result.status == "FAIL"
    assert "numerical_mismatch" in result.fail_reasons
    assert "HD411" in _rules(result)
    assert any("gc.get_objects" in s for s in result.data["isolation"]["refactored_process"]["introspection"])


def test_a_write_into_the_reference_cache_fails_the_step(tmp_path: Path, _cache: Path) -> None:
    result = _verify(_step(tmp_path, POISONS_THE_CACHE))
    assert result.status == "FAIL" and "HD412" in _rules(result)
    assert any("planted.pt" in s for s in result.data["isolation"]["refactored_process"]["files"])
    assert not (_cache / "planted.pt").exists()   # what it touched in the cache is gone


def test_in_one_process_the_driver_reports_no_isolation(tmp_path: Path) -> None:
    result = _verify(_step(tmp_path), isolate=False)
    assert result.status == "PASS" and result.data["isolation"] == {"isolated": False}


def test_isolated_and_in_process_verdicts_agree_on_an_honest_step(tmp_path: Path) -> None:
    d = _step(tmp_path)
    apart, together = _verify(d, reference_cache=False), _verify(d, isolate=False, reference_cache=False)
    skip = {"timestamp", "timings", "isolation", "output_file"}
    assert {k: v for k, v in apart.data.items() if k not in skip} == \
        {k: v for k, v in together.data.items() if k not in skip}


def test_without_the_warm_worker_each_side_is_a_fresh_interpreter(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from hdecomp.runtime import side
    monkeypatch.setenv("HDECOMP_SIDE_FORK", "0")
    started: list[list[str]] = []
    real = side.subprocess.Popen

    def popen(cmd: list[str], *a: object, **k: object) -> object:
        started.append(list(cmd))
        return real(cmd, *a, **k)   # type: ignore[call-overload]
    monkeypatch.setattr(side.subprocess, "Popen", popen)
    result = _verify(_step(tmp_path, PATCHES_THE_FUNCTIONAL_API))
    assert result.status == "FAIL" and "HD410" in _rules(result)
    assert sorted(c[c.index("-m") + 2] for c in started) == ["original", "refactored"]   # (the role after the module)
