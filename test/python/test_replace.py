"""hdecomp replace: a correct replacement passes and the whole model re-verifies with it in every instance;
a wrong one fails, naming the check or the first step that breaks; each known reward hack is refused with
its reason; active replacements are listed in the tree and used by compose/pipeline --with-replacements."""

from __future__ import annotations

import json
import math
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hdecomp.cli import main
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.formats.replacements import active_replacements
from hdecomp.toolchain.replace import CHECK_ORDER, ReplaceOptions, replace_kernel
from hdecomp.toolchain.validate import schema_errors

MODEL = (Path(__file__).resolve().parent / "corpus_replace" / "models" / "mlp.py").read_text()  # (the corpus's MLP)

HEAD = "import threading\nimport time\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
LINEAR = "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n" \
         "        self.linear = nn.Linear(256, 512)\n"

# ModelNew bodies for the kernel linear_256x512_fp32 (`self.linear = nn.Linear(256, 512)`)
CORRECT = LINEAR + "\n    def forward(self, x):\n        return x @ self.linear.weight.t() + self.linear.bias\n"
HACKS = {
    # loads the kernel file itself and runs its Model
    "reads_the_kernel": (textwrap.dedent('''
        import importlib.util
        from pathlib import Path

        _spec = importlib.util.spec_from_file_location(
            "k", Path(__file__).resolve().parents[2] / "level_0_kernel" / "linear_256x512_fp32.py")
        _kernel = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_kernel)


        class ModelNew(_kernel.Model):
            pass
        '''), "reference_call", "level_0_kernel/linear_256x512_fp32.py"),
    # the kernel's own code, copied
    "same_ops": (LINEAR + "\n    def forward(self, x):\n        return self.linear(x)\n", "reference_call",
                 "the reference kernel's own computation"),
    "mutates_input": (LINEAR + "\n    def forward(self, x):\n        out = x @ self.linear.weight.t() + self.linear.bias"
                      "\n        x.mul_(0.5)\n        return out\n", "input_mutation", "changes its inputs in place"),
    # writes into a buffer it keeps (not state: non-persistent) and returns it
    "aliases_a_buffer": (LINEAR + "        self.register_buffer('out', torch.empty(128, 512), persistent=False)\n"
                         "\n    def forward(self, x):\n        torch.mm(x, self.linear.weight.t(), out=self.out)\n"
                         "        return self.out.add_(self.linear.bias)\n", "output_alias", "shares memory"),
    "returns_its_last_output": (LINEAR + "        self.cache = None\n\n    def forward(self, x):\n"
                                "        if self.cache is None:\n"
                                "            self.cache = x @ self.linear.weight.t() + self.linear.bias\n"
                                "        return self.cache\n", "stale_output", "same buffer on every call"),
    # returns at once and fills the output from a thread: the timing would miss the work
    "works_after_return": (LINEAR + "\n    def forward(self, x):\n        out = torch.zeros(x.shape[0], 512)\n\n"
                           "        def work():\n            time.sleep(0.02)\n            with torch.no_grad():\n"
                           "                out.copy_(x @ self.linear.weight.t() + self.linear.bias)\n\n"
                           "        threading.Thread(target=work).start()\n        return out\n",
                           "side_work", "thread"),
    # correct on fresh inputs, but serves repeated calls on equal inputs from a memo (keyed on two of their
    # values), handing back the output it returned before
    "memoises_the_timing_loop": (LINEAR + "        self._memo = {}\n\n    def forward(self, x):\n"
                                 "        key = (tuple(x.shape), float(x[0, 0]), float(x[-1, -1]))\n"
                                 "        if key not in self._memo:\n"
                                 "            self._memo = {key: x @ self.linear.weight.t() + self.linear.bias}\n"
                                 "        return self._memo[key]\n", "stale_output", "same buffer on every call"),
}
OPTIONS = ReplaceOptions(runs=5, warmup=1, sol_margin=0.01)   # (decides nothing on a time: a loaded machine's floor reads high)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("replace")
    src = base / "mlp.py"
    src.write_text(MODEL)
    outcome = decompose(src, base / "out", DecomposeOptions(self_tests=False), progress=False)
    assert outcome.complete
    root = outcome.root
    kernel = (root / "level_0_kernel" / "linear_256x512_fp32.py").read_text()
    assert "self.linear = nn.Linear(256, 512)" in kernel and "x * 0.0" in (root / "level_0_kernel" /
                                                                          "mul_fp32.py").read_text()
    return root


@pytest.fixture
def fresh(tree: Path, tmp_path: Path) -> Path:
    """A copy of the decomposition each test may change."""
    dst = tmp_path / "tree"
    shutil.copytree(tree, dst)
    return dst


def _new(tmp_path: Path, body: str, name: str = "linear_256x512_fp32_new.py") -> Path:
    p = tmp_path / name
    p.write_text(body if body.lstrip().startswith("import") else HEAD + body)
    return p


def _check(data: dict, name: str) -> dict:
    return next(c for c in data["checks"] if c["name"] == name)


def test_a_correct_replacement_passes_and_the_whole_model_reverifies(fresh: Path, tmp_path: Path) -> None:
    kernel = fresh / "level_0_kernel" / "linear_256x512_fp32.py"
    new = _new(kernel.parent, CORRECT)   # beside the kernel, where the editor looks for it
    result = replace_kernel(fresh, kernel, new, OPTIONS)
    data = result.data
    assert result.status == "PASS" and result.exit_code == 0, data["reason"]
    assert [c["name"] for c in data["checks"]] == list(CHECK_ORDER)
    assert all(c["status"] == "PASS" for c in data["checks"])
    # every step that holds the kernel, children first, up to the model; each with ModelNew in the file
    assert [r["step"] for r in data["steps"]] == ["steps/step_2_linear_act_256x512", "steps/step_1_mlp"]
    for r in data["steps"]:
        assert r["status"] == "PASS"
        assert "linear_256x512_fp32_new.py\").ModelNew" in (fresh / r["composed_file"]).read_text()
    assert data["composition"]["status"] == "PASS"
    script = (fresh / data["composition"]["script"]).read_text()
    assert "replacements/linear_256x512_fp32/linear_256x512_fp32_new.py\").ModelNew" in script
    t = data["timing"]
    # (the report carries the durations and their ratio; how long anything took is bench/'s business)
    durations = [t["kernel_seconds"], t["replacement_seconds"], t["model_seconds_after"]]
    assert all(isinstance(d, float) and math.isfinite(d) and d >= 0 for d in durations), durations
    assert t["speedup"] == (pytest.approx(t["kernel_seconds"] / t["replacement_seconds"])
                            if t["replacement_seconds"] > 0 else None)
    assert t["flops"] == 2 * 128 * 256 * 512
    assert data["tolerance"] == {"dtype": "float32", "rtol": 1e-4, "atol": 1e-4}
    # the copy is what was proved, and the tree lists it as active
    copy = fresh / data["replacement"]["path"]
    assert copy.read_text() == new.read_text() and copy != new
    active = active_replacements(fresh)
    assert list(active) == ["linear_256x512_fp32"] and active["linear_256x512_fp32"]["replacement"] == \
        data["replacement"]["path"]
    on_disk = json.loads(result.result_file.read_text())
    assert on_disk["status"] == "PASS" and not schema_errors(on_disk, "replacement_result")
    # the tree stays valid: the candidate beside the kernel is no component, replacements/ no level folder
    assert main(["validate", str(fresh)]) == 0


def test_the_candidate_never_runs_where_a_comparison_decides(fresh: Path, tmp_path: Path) -> None:
    """Every process ModelNew runs in (the kernel-level proof, each step above it, the composition, the
    model's timing) holds it alone: none is the composition script, whose comparison a candidate could
    patch, and none is the process that decides (`replace`'s own, or the steps' driver)."""
    import os
    log = tmp_path / "where.txt"
    body = CORRECT.replace(
        "    def forward(self, x):\n",
        "    def forward(self, x):\n"
        "        import os, sys\n"
        "        main = sys.modules.get('__main__')\n"
        "        judges = [n for n in ('hdecomp.toolchain.replace.steps', 'hdecomp.toolchain.replace.run')\n"
        "                  if n in sys.modules]\n"
        f"        with open({str(log)!r}, 'a') as f:\n"
        "            f.write(f\"{os.getpid()} {int(hasattr(main, 'RESULT_MARK'))} {','.join(judges) or '-'}\\n\")\n")
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", _new(tmp_path, body), OPTIONS)
    assert result.status == "PASS", result.reason
    rows = [line.split() for line in log.read_text().splitlines()]
    pids = {int(r[0]) for r in rows}
    # the proof's side, two steps' refactored sides, the composition's, the timing's "after" side
    assert len(pids) >= 5 and os.getpid() not in pids
    assert {r[1] for r in rows} == {"0"}, "ModelNew ran inside a composition script"
    assert {r[2] for r in rows} == {"-"}, "ModelNew ran in a process that compares"
    comp = result.data["composition"]
    assert comp["status"] == "PASS" and comp["script"].endswith("composition_test_with_replacements.py")
    verdict = json.loads((fresh / "replacements" / "linear_256x512_fp32" / "steps" /
                          "composed_model.verification_result.json").read_text())
    assert verdict["status"] == "PASS" and verdict["isolation"]["isolated"] is True
    assert all(math.isfinite(result.data["timing"][k]) for k in ("model_seconds_before", "model_seconds_after"))


def test_several_replacements_are_active_at_once(fresh: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A second replacement is proved with the first in place; both are listed, and both run in the
    composition with replacements."""
    assert replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", _new(tmp_path, CORRECT),
                          OPTIONS).status == "PASS"
    gelu = ("class ModelNew(nn.Module):\n    def forward(self, mul):\n"
            "        return 0.5 * mul * (1.0 + torch.erf(mul * 0.7071067811865476))\n")
    second = replace_kernel(fresh, fresh / "level_0_kernel" / "gelu_fp32.py", _new(tmp_path, gelu, "gelu_new.py"),
                            OPTIONS)
    assert second.status == "PASS", second.reason
    composed_step = (fresh / second.data["steps"][0]["composed_file"]).read_text()
    assert "linear_256x512_fp32_new.py\").ModelNew" in composed_step and "gelu_new.py\").ModelNew" in composed_step
    assert sorted(active_replacements(fresh)) == ["gelu_fp32", "linear_256x512_fp32"]
    capsys.readouterr()
    assert main(["compose", str(fresh), "--with-replacements", "--json"]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    assert {"replacements/gelu_fp32/gelu_new.py",
            "replacements/linear_256x512_fp32/linear_256x512_fp32_new.py"} <= set(kernels)


def test_a_wrong_replacement_fails_its_proof_against_the_kernel(fresh: Path, tmp_path: Path) -> None:
    body = CORRECT.replace("+ self.linear.bias", "+ self.linear.bias * 1.01")
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", _new(tmp_path, body), OPTIONS)
    assert result.status == "FAIL" and result.exit_code == 1
    assert _check(result.data, "trials")["status"] == "FAIL" and "differs from the kernel" in result.reason
    assert _check(result.data, "steps")["status"] == "SKIPPED"
    assert active_replacements(fresh) == {}


def test_a_replacement_right_on_the_kernels_inputs_but_wrong_in_the_model_names_the_first_step(
        fresh: Path, tmp_path: Path) -> None:
    """gelu, exact for |x| < 6 (every input get_inputs() draws) and 0 beyond: inside the model the kernel's
    inputs are 50 x larger, and the step above it is the first to break."""
    body = ("class ModelNew(nn.Module):\n    def forward(self, mul):\n"
            "        return torch.where(mul.abs() < 6, F.gelu(mul), torch.zeros_like(mul))\n")
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "gelu_fp32.py", _new(tmp_path, body, "gelu_new.py"),
                            OPTIONS)
    data = result.data
    assert result.status == "FAIL", data["reason"]
    assert _check(data, "trials")["status"] == "PASS"
    assert data["first_failing_step"] == "steps/step_2_linear_act_256x512"
    assert "steps/step_2_linear_act_256x512" in result.reason
    assert [r["status"] for r in data["steps"]] == ["FAIL"]   # nothing above it ran


@pytest.mark.parametrize("hack", sorted(HACKS))
def test_each_reward_hack_is_refused_with_its_reason(hack: str, fresh: Path, tmp_path: Path) -> None:
    body, check, words = HACKS[hack]
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", _new(tmp_path, body),
                            OPTIONS)
    assert result.status == "FAIL" and result.exit_code == 1, result.reason
    failed = [c for c in result.data["checks"] if c["status"] == "FAIL"]
    assert [c["name"] for c in failed] == [check]
    assert words in failed[0]["detail"] and result.reason == failed[0]["detail"]
    assert active_replacements(fresh) == {}


def test_a_constant_reference_is_compared_as_the_constant_it_is(fresh: Path, tmp_path: Path) -> None:
    """mul_fp32 is `x * 0.0`: its output does not follow its inputs. It is reported as such, and a replacement
    is held to that constant: the same constant passes, another one fails its trials."""
    zeros = "class ModelNew(nn.Module):\n    def forward(self, x):\n        return torch.zeros_like(x)\n"
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "mul_fp32.py", _new(tmp_path, zeros, "mul_new.py"),
                            OPTIONS)
    assert result.status == "PASS", result.reason
    detail = _check(result.data, "degenerate_reference")["detail"]
    assert "does not depend on its inputs" in detail and "constant 0" in detail
    assert result.data["proof"]["kernel_follows_inputs"] is False
    ones = zeros.replace("zeros_like", "ones_like")
    wrong = replace_kernel(fresh, fresh / "level_0_kernel" / "mul_fp32.py", _new(tmp_path, ones, "mul_new2.py"),
                           OPTIONS)
    assert wrong.status == "FAIL" and _check(wrong.data, "trials")["status"] == "FAIL"


def test_a_replacement_that_ignores_its_inputs_is_refused(fresh: Path, tmp_path: Path) -> None:
    """gelu replayed for the seeds the trials are known to draw (42, 43, ...), by call count: right on every
    seeded trial, blind to any other input."""
    body = ("class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.calls = 0\n\n    def forward(self, mul):\n"
            "        g = torch.Generator().manual_seed(42 + self.calls % 5)\n        self.calls += 1\n"
            "        return F.gelu(torch.randn(mul.shape, generator=g))\n")
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "gelu_fp32.py", _new(tmp_path, body, "gelu_new.py"),
                            OPTIONS)
    assert result.status == "FAIL"
    assert [c["name"] for c in result.data["checks"] if c["status"] == "FAIL"] == ["input_dependence"]


def test_a_replacement_whose_forward_raises_is_an_error_naming_the_users_file(fresh: Path, tmp_path: Path) -> None:
    body = LINEAR + "\n    def forward(self, x):\n        raise RuntimeError('kernel launch failed')\n"
    new = _new(tmp_path, body)
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", new, OPTIONS)
    assert result.status == "ERROR" and result.exit_code == 2
    assert result.reason.startswith(f"{new}:") and "RuntimeError: kernel launch failed" in result.reason


def test_a_replacement_without_the_kernels_state_is_an_error(fresh: Path, tmp_path: Path) -> None:
    body = CORRECT.replace("self.linear = nn.Linear(256, 512)", "self.proj = nn.Linear(256, 512)").replace(
        "self.linear.", "self.proj.")
    result = replace_kernel(fresh, fresh / "level_0_kernel" / "linear_256x512_fp32.py", _new(tmp_path, body), OPTIONS)
    assert result.status == "ERROR" and result.exit_code == 2
    assert "missing linear.bias, linear.weight" in result.reason and "unexpected proj.bias" in result.reason


def test_bad_input_is_one_clear_error_and_writes_nothing(fresh: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = _new(tmp_path, CORRECT)
    fusion = fresh / "level_1_fusion" / "linear_act_256x512.py"
    assert main(["replace", str(fresh), str(fusion), str(new)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR: ") and "linear_act_256x512.py" in err and "not a kernel" in err
    assert main(["replace", str(fresh), str(fresh / "level_0_kernel" / "linear_256x512_fp32.py"),
                 str(tmp_path / "missing.py")]) == 2
    assert "missing.py: file not found" in capsys.readouterr().err
    assert not (fresh / "replacements").exists()
    broken = _new(tmp_path, "class ModelNew(nn.Module:\n", "broken_new.py")
    assert main(["replace", str(fresh), str(fresh / "level_0_kernel" / "linear_256x512_fp32.py"), str(broken)]) == 2
    assert "broken_new.py:" in capsys.readouterr().err and "syntax error" in \
        json.loads((fresh / "replacements" / "linear_256x512_fp32" / "replacement_result.json").read_text())["reason"]


def test_compose_and_pipeline_run_with_or_without_the_active_replacements(fresh: Path, tmp_path: Path,
                                                                           capsys) -> None:  # type: ignore[no-untyped-def]
    kernel = fresh / "level_0_kernel" / "linear_256x512_fp32.py"
    assert replace_kernel(fresh, kernel, _new(tmp_path, CORRECT), OPTIONS).status == "PASS"
    capsys.readouterr()
    assert main(["compose", str(fresh), "--with-replacements", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "PASS" and "replacements/linear_256x512_fp32/linear_256x512_fp32_new.py" in out["kernels"]
    assert out["script"].endswith("composition_test_with_replacements.py")
    assert main(["compose", str(fresh), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "level_0_kernel/linear_256x512_fp32.py" in plain["kernels"] and not any(
        "replacements/" in k for k in plain["kernels"])
    assert main(["pipeline", str(fresh), "--with-replacements", "--no-coverage"]) == 0
    summary = json.loads((fresh / "verification" / "step_verification_summary.json").read_text())
    replaced_steps = [s for s in summary["steps"] if s.get("with_replacements")]
    assert sorted(s["step"] for s in replaced_steps) == ["step_1_mlp", "step_2_linear_act_256x512"]
    # deactivated: the tree lists none, compose --with-replacements uses the kernel again
    assert main(["replace", str(fresh), str(kernel), "--remove"]) == 0
    assert active_replacements(fresh) == {}


def test_a_model_that_is_one_kernel_is_replaced_whole(tmp_path: Path) -> None:
    """A one-kernel model has no step above its kernel: the composition (the replacement against the
    original model) is what proves it in place."""
    src = tmp_path / "one_linear.py"
    src.write_text(MODEL.replace("self.fc2(h) + x[:, :16] * 0.0", "h").replace(
        "h = torch.nn.functional.gelu(self.fc1(x) * 50.0)", "h = self.fc1(x)"))
    root = decompose(src, tmp_path / "out", DecomposeOptions(self_tests=False), progress=False).root
    kernel = root / "level_0_kernel" / "linear_256x512_fp32.py"
    assert kernel.is_file() and not (root / "steps").exists()
    result = replace_kernel(root, kernel, _new(tmp_path, CORRECT), OPTIONS)
    assert result.status == "PASS", result.reason
    assert result.data["steps"] == [] and result.data["composition"]["status"] == "PASS"
    script = (root / result.data["composition"]["script"]).read_text()
    assert "linear_256x512_fp32_new.py\").ModelNew" in script


def test_the_speed_of_light_check_refuses_a_time_below_its_margin_of_the_floor() -> None:
    """The check itself, on given figures (the timing is bench/'s business): below margin x floor it refuses
    and names the floor, the time and the work; at or above it passes."""
    from hdecomp.toolchain.replace.hacks import check_speed_of_light
    fast = check_speed_of_light(40e-6, 100e-6, 0.5, "this machine", 1000, 2000)
    assert fast.status == "FAIL" and "40.00 µs is below 0.5 x the speed-of-light floor 100.00 µs" in fast.detail
    assert "(1000 FLOPs, 2000 bytes)" in fast.detail
    assert check_speed_of_light(60e-6, 100e-6, 0.5, "this machine", 1000, 2000).status == "PASS"
    no_margin = check_speed_of_light(90e-6, 100e-6, 1.0, "H100", 1000, 2000)
    assert no_margin.status == "FAIL" and "below the speed-of-light floor 100.00 µs of the kernel's work on H100" in \
        no_margin.detail


def test_a_floor_a_busy_machine_raised_is_probed_again_before_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first probe of this machine ran slow (a busy machine: 1 MB/s, a floor of 0.5 s for 500 kB) and would
    refuse an honest 1 ms candidate; the second, longer probe measures the machine as it is, and the lower floor
    is kept. A candidate below the floor of both probes is still refused. (The probes are stood in for: a busy
    machine cannot be made to order.)"""
    from hdecomp.toolchain.replace import timing
    from hdecomp.toolchain.replace.hacks import check_speed_of_light

    class Bandwidth:
        def __init__(self, rate: float) -> None:
            self.rate = rate

        def __call__(self, nbytes: int) -> float:
            return self.rate

    probes: list[float | None] = []

    def probed(device: Any, probe_seconds: float | None = None) -> tuple[str, dict[str, float], Any]:
        probes.append(probe_seconds)
        rate = 1e6 if len(probes) == 1 else 10e9   # busy, then as it is
        return "this machine", {"fp32": 1e12, "bandwidth": rate}, Bandwidth(rate)

    monkeypatch.setattr(timing, "device_spec", probed)
    import torch
    cpu = torch.device("cpu")
    floor, _ = timing.judged_floor(0, 500_000, "fp32", cpu, reference_seconds=1.0, candidate_seconds=1e-3,
                                   margin=0.5)
    assert probes == [None, timing.RECHECK_PROBE_SECONDS] and floor == pytest.approx(50e-6)
    assert check_speed_of_light(1e-3, floor, 0.5, "this machine", 0, 500_000).status == "PASS"
    probes.clear()
    floor, _ = timing.judged_floor(0, 500_000, "fp32", cpu, reference_seconds=1.0, candidate_seconds=1e-6,
                                   margin=0.5)
    assert len(probes) == 2 and check_speed_of_light(1e-6, floor, 0.5, "this machine", 0, 500_000).status == "FAIL"
    probes.clear()
    timing.judged_floor(0, 500_000, "fp32", cpu, reference_seconds=1.0, candidate_seconds=1.0, margin=0.5)
    assert probes == [None], "a candidate the first floor admits is not probed for again"
