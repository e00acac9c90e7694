"""verify_step end to end on tiny fixture steps: honest refactors pass, cheats and wrong refactors fail
with the right rule, and the result file keeps the original workspace's format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hdecomp.cli import main
from hdecomp.verify.result import VerifyOptions
from hdecomp.verify.step import verify_step

FIX = Path(__file__).parent / "fixtures" / "verify"

ORIGINAL_KEYS = {"timestamp", "original_file", "refactored_file", "status", "anticheat", "weight_transfer",
                 "numerical_comparison"}


def run(step: str, refactored: str = "refactored.py", original: str = "original.py", **opts):
    return verify_step(FIX / step / original, FIX / step / refactored, VerifyOptions(**opts))


def rules(result) -> set[str]:
    return {v.rule for v in result.violations}


@pytest.mark.parametrize("step", ["honest_mlp", "layerscale", "batchnorm", "nested_io", "modulelist"])
def test_honest_steps_pass(step: str) -> None:
    r = run(step)
    assert r.status == "PASS", (r.error, [v.format() for v in r.violations], r.data.get("fail_detail"))
    assert r.exit_code == 0
    assert r.violations == []
    assert r.data["op_inventory"]["match"] is True
    assert r.data["randomized_trial"]["pass"] is True


def test_result_file_keeps_original_format_and_adds_ours(tmp_path: Path) -> None:
    out = tmp_path / "steps" / "verification_result.json"
    r = verify_step(FIX / "batchnorm/original.py", FIX / "batchnorm/refactored.py", output=out)
    data = json.loads(out.read_text())
    assert ORIGINAL_KEYS <= set(data)
    assert data["status"] == r.status == "PASS"
    assert {"status", "violations", "source_violations", "parameter_violations"} <= set(data["anticheat"])
    wt = data["weight_transfer"]
    assert {"status", "mapped_count", "unmapped_original", "unmapped_refactored", "weight_map"} <= set(wt)
    # BatchNorm buffers are transferred too (running_mean/var, num_batches_tracked)
    assert wt["weight_map"]["bn.running_var"] == "bn.bn.running_var"
    assert wt["weight_map"]["bn.num_batches_tracked"] == "bn.bn.num_batches_tracked"
    nc = data["numerical_comparison"]
    assert {"status", "rtol", "atol", "input_dtype", "num_trials", "max_diff_across_trials", "trials"} <= set(nc)
    assert [t["seed"] for t in nc["trials"]] == [42, 43, 44]
    assert {"trial", "seed", "max_diff", "pass", "output_details"} <= set(nc["trials"][0])
    assert nc["rtol"] == 1e-5 and nc["atol"] == 1e-6 and nc["input_dtype"] == "torch.float32"
    # ours
    for key in ("randomized_trial", "batch_limit", "device", "timings", "op_inventory", "degenerate_output",
                "input_mutation"):
        assert key in data, key
    assert data["anticheat"]["structural"]["status"] == "PASS"
    assert data["anticheat"]["runtime"]["status"] == "PASS"
    assert data["op_inventory"]["original"]["aten"]["native_batch_norm"] == 1
    assert not list(out.parent.glob(".*.tmp"))


def test_randomized_trial_catches_dropped_zero_layerscale_branch() -> None:
    # gamma == 0 at init: the dropped branch gives the same output on the default weights.
    r = run("layerscale", "refactored_dropped.py", skip_anticheat=True)
    assert r.status == "FAIL"
    assert all(t["pass"] for t in r.data["numerical_comparison"]["trials"])
    assert r.data["randomized_trial"]["pass"] is False
    assert "randomized_trial_mismatch" in r.fail_reasons
    assert "randomized" in r.data["fail_detail"]


def test_dropped_branch_also_fails_anticheat() -> None:
    r = run("layerscale", "refactored_dropped.py")
    assert r.status == "FAIL"
    assert {"HD306", "HD307", "HD401"} <= rules(r)
    inv = next(v for v in r.violations if v.rule == "HD307")
    assert "original runs mm×1, refactored mm×0" in inv.message


def test_without_randomized_trial_the_zero_layerscale_hides_the_drop() -> None:
    # Shows why the randomized trial exists: numerics alone pass.
    r = run("layerscale", "refactored_dropped.py", skip_anticheat=True, randomized_trial=False)
    assert r.status == "PASS"
    assert r.data["randomized_trial"]["status"] == "SKIPPED"


def test_dropped_batchnorm_caught_by_inventory_and_randomized_trial() -> None:
    r = run("batchnorm", "refactored_no_bn.py")
    assert r.status == "FAIL"
    assert "HD307" in rules(r)
    assert r.data["randomized_trial"]["pass"] is False


@pytest.mark.parametrize(("refactored", "expected"), [
    ("refactored_exec.py", "HD401"),
    ("refactored_helper.py", "HD401"),
    ("refactored_hidden_module.py", "HD401"),
    ("refactored_monkeypatch.py", "HD310"),
    ("refactored_root_param.py", "HD301"),
    ("refactored_raw_child.py", "HD311"),
    ("refactored_copy.py", "HD304"),
    ("refactored_import.py", "HD303"),
])
def test_cheats_fail_with_rule(refactored: str, expected: str) -> None:
    r = run("honest_mlp", refactored)
    assert r.status == "FAIL"
    assert r.exit_code == 1
    assert expected in rules(r), [v.format() for v in r.violations]
    assert r.data["fail_reason"] == "anticheat_violation"


def test_runtime_violation_names_op_and_location() -> None:
    r = run("honest_mlp", "refactored_helper.py")
    v = next(v for v in r.violations if v.rule == "HD401")
    assert v.op == "gelu"
    assert v.kind == "runtime"
    assert v.range is not None and v.line == 15  # `return self.fn(x)` in the helper's __call__
    exec_v = next(v for v in run("honest_mlp", "refactored_exec.py").violations if v.rule == "HD401")
    assert "<string>" in exec_v.message


def test_disguise_by_copy_and_import_both_reported() -> None:
    r = run("honest_mlp", "refactored_import.py")
    assert {"HD302", "HD303", "HD305"} <= rules(r)
    r = run("honest_mlp", "refactored_copy.py")
    assert {"HD304", "HD305"} <= rules(r)


def test_child_called_twice_and_modulelist_accepted_but_skipped_layer_caught() -> None:
    r = run("modulelist", "refactored_skip_layer.py")
    assert r.status == "FAIL"
    called = [v for v in r.violations if v.rule == "HD306"]
    assert [v.details["child"] for v in called] == ["layers.2"]


def test_nested_output_structure_mismatch_names_path() -> None:
    r = run("nested_io", "refactored_wrong_key.py", skip_anticheat=True)
    assert r.status == "FAIL"
    assert "out[1]" in r.data["fail_detail"] and "'logits'" in r.data["fail_detail"]


def test_batch_limit_cuts_inputs_and_is_recorded() -> None:
    r = run("batchnorm", batch_limit=1)
    assert r.status == "PASS"
    assert r.data["batch_limit"] == 1
    assert r.data["batch_cuts"] == [{"input": "args[0]", "from": 2, "to": 1}]
    shape = r.data["numerical_comparison"]["trials"][0]["output_details"][0]["shape"]
    assert shape[0] == 1


def test_batch_limit_cuts_kwargs_sharing_the_batch() -> None:
    r = run("nested_io", batch_limit=1)
    assert r.status == "PASS", r.data.get("fail_detail")
    assert {c["input"] for c in r.data["batch_cuts"]} == {"args[0]", "scale"}


def test_explicit_weight_map_used_and_validated(tmp_path: Path) -> None:
    wm = tmp_path / "weight_map.json"
    wm.write_text(json.dumps({"fc1.weight": "fc1.linear.weight", "fc1.bias": "fc1.linear.bias"}))
    r = verify_step(FIX / "honest_mlp/original.py", FIX / "honest_mlp/refactored.py",
                    VerifyOptions(weight_map=wm))
    assert r.status == "PASS"
    assert r.data["weight_transfer"]["sources"]["fc1.weight"] == "explicit"
    assert r.data["weight_transfer"]["sources"]["fc2.weight"] == "structure"
    wm.write_text(json.dumps({"fc1.weight": "fc2.linear.weight"}))
    r = verify_step(FIX / "honest_mlp/original.py", FIX / "honest_mlp/refactored.py",
                    VerifyOptions(weight_map=wm))
    assert r.status == "ERROR"
    assert "shapes differ" in r.error and str(wm) in r.error


def test_swapped_explicit_map_fails_numerics(tmp_path: Path) -> None:
    # A map that swaps two same-shaped biases is accepted as given, and the numbers expose it.
    wm = tmp_path / "weight_map.json"
    wm.write_text(json.dumps({"fc2.bias": "norm.norm.bias", "norm.bias": "fc2.linear.bias"}))
    r = verify_step(FIX / "honest_mlp/original.py", FIX / "honest_mlp/refactored.py",
                    VerifyOptions(weight_map=wm, skip_anticheat=True))
    assert r.status == "FAIL"


def test_cli_pass_writes_result_and_prints_verdict_first(tmp_path: Path, capsys) -> None:
    out = tmp_path / "verification_result.json"
    code = main(["verify-step", "--original", str(FIX / "honest_mlp/original.py"),
                 "--refactored", str(FIX / "honest_mlp/refactored.py"), "--output", str(out),
                 "--num-trials", "2"])
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.splitlines()[0].startswith("PASS: ")
    data = json.loads(out.read_text())
    assert data["status"] == "PASS" and data["numerical_comparison"]["num_trials"] == 2


def test_cli_fail_first_line_names_file_line_and_rule(capsys) -> None:
    code = main(["verify-step", "--original", str(FIX / "honest_mlp/original.py"),
                 "--refactored", str(FIX / "honest_mlp/refactored_helper.py"), "-q", "--skip-anticheat"])
    assert code == 0  # numerics alone cannot see the helper (same function)
    capsys.readouterr()
    code = main(["verify-step", "--original", str(FIX / "honest_mlp/original.py"),
                 "--refactored", str(FIX / "honest_mlp/refactored_helper.py"), "-q"])
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 1
    assert re.match(r"FAIL: \S*refactored_helper\.py:\d+: HD\d{3} ", first), first


def test_cli_json_output(capsys) -> None:
    code = main(["verify-step", "--original", str(FIX / "batchnorm/original.py"),
                 "--refactored", str(FIX / "batchnorm/refactored.py"), "--json", "--num-trials", "1"])
    captured = capsys.readouterr()
    assert code == 0
    data = json.loads(captured.out)
    assert data["status"] == "PASS"
    assert captured.err.startswith("PASS: ")


def test_dropout_checked_at_function_level() -> None:
    assert run("dropout").status == "PASS"
    r = run("dropout", "refactored_no_dropout.py")
    assert r.status == "FAIL"
    assert rules(r) == {"HD308"}
    assert "original runs dropout×1, refactored dropout×0" in r.violations[0].message
    assert r.data["numerical_comparison"]["status"] == "PASS"  # the numbers alone cannot tell


def test_fused_child_running_a_sibling_is_caught() -> None:
    r = run("honest_mlp", "refactored_fused.py")
    assert r.status == "FAIL"
    v = next(v for v in r.violations if v.rule == "HD312")
    assert v.details == {"child": "fc2", "inside": "act", "calls": 1}


def test_child_loading_original_by_path_is_caught(tmp_path: Path) -> None:
    step = tmp_path / "step"
    (step / "children").mkdir(parents=True)
    (step / "original.py").write_text((FIX / "honest_mlp/original.py").read_text())
    (step / "children" / "sneaky.py").write_text(
        "import importlib.util\nimport os\nimport torch\n\n"
        "_spec = importlib.util.spec_from_file_location(\n"
        "    'p', os.path.join(os.path.dirname(__file__), '..', 'original.py'))\n"
        "_mod = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(_mod)\n\n\n"
        "class Model(_mod.Model):\n    pass\n\n\n"
        "def get_inputs():\n    return [torch.randn(4, 16)]\n")
    (step / "refactored.py").write_text((FIX / "honest_mlp/refactored_import.py").read_text()
                                        .replace("children.whole_import", "children.sneaky"))
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=1))
    assert r.status == "FAIL"
    assert {"HD302", "HD303", "HD305"} <= rules(r)


def _leaf_file(expr: str, inputs: str) -> str:
    """A component file whose Model returns `expr` of its input `x`."""
    return ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
            f"    def forward(self, x):\n        return {expr}\n\n\n"
            f"def get_inputs():\n    return [{inputs}]\n")


def _step_of_leaves(tmp_path: Path, original: str, children: dict[str, str], forward: str, inputs: str) -> Path:
    """original.py returning `original`, one child file per {class: expr} (`children/<class lowercased>.py`),
    and refactored.py whose forward returns `forward` over attributes named like the files."""
    (tmp_path / "children").mkdir()
    (tmp_path / "original.py").write_text(_leaf_file(original, inputs))
    for cls, expr in children.items():
        (tmp_path / "children" / f"{cls.lower()}.py").write_text(_leaf_file(expr, inputs))
    imports = "".join(f"from children.{cls.lower()} import Model as {cls}\n" for cls in children)
    attrs = "".join(f"        self.{cls.lower()} = {cls}()\n" for cls in children)
    (tmp_path / "refactored.py").write_text(
        f"import torch\nimport torch.nn as nn\n{imports}\n\n"
        f"class RefactoredModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n{attrs}\n"
        f"    def forward(self, x):\n        return {forward}\n\n\n"
        f"def get_inputs():\n    return [{inputs}]\n")
    return tmp_path


def test_random_numbers_drawn_in_forward_are_the_same_on_both_sides(tmp_path: Path) -> None:
    step = _step_of_leaves(tmp_path, "torch.relu(x + torch.rand_like(x))",
                           {"Noise": "x + torch.rand_like(x)", "ReLU": "torch.relu(x)"},
                           "self.relu(self.noise(x))", "torch.randn(3, 4)")
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=2))
    assert r.status == "PASS", r.data.get("fail_detail")


def test_an_output_holding_none_verifies(tmp_path: Path) -> None:
    """A forward returning `(None, y)` on integer inputs: the None leaf is compared as a Python value, and the
    tolerance comes from the tensor leaves (before: an internal error, `torch.NoneType`
    taken for a dtype)."""
    step = _step_of_leaves(tmp_path, "None, torch.relu(x)", {"ReLU": "torch.relu(x)"}, "None, self.relu(x)",
                           "torch.randint(-5, 5, (3, 4))")
    r = verify_step(step / "original.py", step / "refactored.py", VerifyOptions(num_trials=2))
    assert r.status == "PASS", r.data.get("error") or r.data.get("fail_detail")
    assert (r.data["numerical_comparison"]["rtol"], r.data["numerical_comparison"]["atol"]) == (0.0, 0.0)   # int64


def test_cli_no_randomized_trial_flag(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.json"
    code = main(["verify-step", "--original", str(FIX / "layerscale/original.py"),
                 "--refactored", str(FIX / "layerscale/refactored_dropped.py"), "--skip-anticheat",
                 "--no-randomized-trial", "--output", str(out), "-q"])
    capsys.readouterr()
    assert code == 0
    assert json.loads(out.read_text())["randomized_trial"]["status"] == "SKIPPED"
    code = main(["verify-step", "--original", str(FIX / "layerscale/original.py"),
                 "--refactored", str(FIX / "layerscale/refactored_dropped.py"), "--skip-anticheat", "-q"])
    assert code == 1
    assert "randomized-weights trial" in capsys.readouterr().out.splitlines()[0]


def test_degenerate_all_zero_output_flagged_in_result_and_console(capsys) -> None:
    code = main(["verify-step", "--original", str(FIX / "degenerate/original.py"),
                 "--refactored", str(FIX / "degenerate/refactored.py")])
    printed = capsys.readouterr().out
    assert code == 0
    assert "degenerate output" in printed.splitlines()[0]
    assert "warning: the original's output is degenerate (all_zero)" in printed
    r = run("degenerate")
    assert r.degenerate and r.data["degenerate"] is True
    assert r.data["degenerate_output"]["kinds"] == ["all_zero"]
    assert r.data["degenerate_output"]["trials"] == [0, 1, 2]


def test_wider_input_probe_catches_wrong_constant_hidden_by_degenerate_output() -> None:
    # relu(x - 200) vs relu(x - 100): zero on the original's inputs and with randomized weights, same
    # op inventory; only the probe with wider inputs tells them apart.
    r = run("degenerate", "refactored_wrong_constant.py")
    assert r.status == "FAIL"
    assert r.violations == []
    assert all(t["pass"] for t in r.data["numerical_comparison"]["trials"])
    assert r.data["randomized_trial"]["pass"] is True
    assert r.fail_reasons == ["probe_mismatch"]
    assert r.data["numerical_comparison"]["status"] == "FAIL"
    assert r.data["fail_detail"].startswith("probe trial with wider inputs (probe_x")


_APPENDS = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.p6 = nn.Conv2d(4, 4, 3, stride=2, padding=1)

    def forward(self, p, c):
        p6 = self.p6(c[-1])
        p.extend([p6, torch.relu(p6)])   # torchvision's LastLevelP6P7: the pyramid list grows in place
        return p


def get_inputs():
    return [[torch.randn(2, 4, 8, 8)], [torch.randn(2, 4, 8, 8), torch.rand(2, 4, 8, 8), torch.rand(2, 4, 8, 8)]]


def get_init_inputs():
    return []
'''


def test_a_forward_that_appends_to_an_input_list_mutates_no_input_tensor(tmp_path: Path) -> None:
    # the tensors it got stay where they were; the list grew, by two entries both sides write. (Read by position
    # after the run, the second list's first tensor was compared with the appended p6: 'input_mutation' on an
    # honest step.)
    (tmp_path / "original.py").write_text(_APPENDS)
    (tmp_path / "refactored.py").write_text(_APPENDS.replace("class Model(", "class RefactoredModel("))
    r = verify_step(tmp_path / "original.py", tmp_path / "refactored.py", VerifyOptions(skip_anticheat=True))
    assert r.status == "PASS", (r.error, r.fail_reasons, r.data.get("fail_detail"))
    trials = r.data["numerical_comparison"]["trials"]
    written = ["args[0][1] (an entry written)", "args[0][2] (an entry written)"]
    assert all(t["input_mutated_by_original"] == written == t["input_mutated_by_refactored"] for t in trials), trials


def test_what_a_forward_writes_into_a_container_it_is_handed_is_compared_as_output(tmp_path: Path) -> None:
    """Gemma 3n's attentions store their keys and values in the dict the decoder hands every layer, for the
    layers after them. A refactored model that leaves the entry out verified alone (the readers found no
    entry in the composition), and one that writes other values too: both FAIL now."""
    stores = _APPENDS.replace("        return p\n", "        return p6\n")   # (the entries are no output)
    assert stores != _APPENDS
    (tmp_path / "original.py").write_text(stores)
    dropped = stores.replace("class Model(", "class RefactoredModel(").replace(
        "p.extend([p6, torch.relu(p6)])", "p = p + [p6, torch.relu(p6)]")
    (tmp_path / "refactored.py").write_text(dropped)
    r = verify_step(tmp_path / "original.py", tmp_path / "refactored.py", VerifyOptions(skip_anticheat=True))
    assert r.status == "FAIL" and "input_mutation" in r.fail_reasons, (r.fail_reasons, r.data.get("fail_detail"))
    other = stores.replace("class Model(", "class RefactoredModel(").replace(
        "p.extend([p6, torch.relu(p6)])", "p.extend([p6, torch.relu(p6)])\n        p[-1] = p6 * 2")
    (tmp_path / "refactored.py").write_text(other)
    r = verify_step(tmp_path / "original.py", tmp_path / "refactored.py", VerifyOptions(skip_anticheat=True))
    assert r.status == "FAIL" and "numerical_mismatch" in r.fail_reasons, (r.fail_reasons, r.data.get("fail_detail"))
