"""The checks every test of a generated decomposition repeats: the decomposer's own verdict, every step's
verification_result.json, the written outputs, and an independent re-verification by `hdecomp pipeline`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.decompose.outputs import result_dict
from hdecomp.formats.weight_map import parse_explicit_map
from hdecomp.toolchain.pipeline import run_pipeline

OUTPUTS = ("decomposition_tree.json", "decomposition_analysis.md", "decomposition_log.json",
           "verification/coverage_summary.json", "verification/composition_test.py",
           "verification/step_verification_summary.json")


class LazyTrees(dict):  # type: ignore[type-arg]
    """Decompositions of the fixture models of one folder, each made on first use (`--batch-limit 1`, no
    self-tests), so that each test's time limit covers the one it reads, not a whole module's."""

    def __init__(self, fixtures: Path, out: Path) -> None:
        super().__init__()
        self.fixtures, self.out = fixtures, out

    def __missing__(self, name: str) -> Any:
        dec = decompose(self.fixtures / f"{name}.py", self.out, DecomposeOptions(batch_limit=1, self_tests=False),
                        progress=False)
        self[name] = dec
        return dec


def assert_fully_verified(dec: Any, *, pipeline: bool = True, unused_counters: frozenset[str] = frozenset(),
                          unread: tuple[str, ...] = ()) -> dict[str, Any]:
    """Assert `dec` (a driver Decomposition) is complete: status PASS, every step PASS (the randomised-weights
    trial included, no anti-cheat violation, every tensor mapped one-to-one), 100 % coverage, composition PASS,
    every output written; then, unless `pipeline` is False, re-verify every step with `run_pipeline`.
    Returns the result dict for further checks."""
    res = result_dict(dec)
    assert res["status"] == "PASS", res
    assert res["steps"] >= 1 and res["steps_passed"] == res["steps"], res
    assert res["coverage"]["coverage_pct"] == 100.0, res["coverage"]
    assert res["composition"]["status"] == "PASS", res["composition"]
    for f in OUTPUTS:
        assert (dec.root / f).is_file(), f
    tree = json.loads((dec.root / "decomposition_tree.json").read_text())
    assert tree["metadata"]["verification_status"] == "PASS"
    for node in tree["nodes"].values():
        assert (dec.root / node["path"]).is_file(), node["path"]
        if node["level"] != "kernel":
            assert node["status"] == "pass" and node["children"], node
    summary = json.loads((dec.root / "verification" / "step_verification_summary.json").read_text())
    assert summary["all_passed"] and summary["total_steps"] == res["steps"], summary
    for step in sorted((dec.root / "steps").iterdir()):
        result = json.loads((step / "verification_result.json").read_text())
        assert result["status"] == "PASS", (step.name, result.get("fail_reason"))
        randomized = result["randomized_trial"]
        if randomized.get("status") == "SKIPPED":   # only a step without float weights may skip it
            assert "no float parameters" in randomized["reason"], (step.name, randomized)
        else:
            assert randomized["pass"] and randomized["randomized_weights"], (step.name, randomized)
        assert result["anticheat"]["violations"] == [], result["anticheat"]["violations"]
        transfer = result["weight_transfer"]
        # (`unused_counters`: integer state the forward never reads, a BatchNorm's num_batches_tracked whose
        # kernel is F.batch_norm, named by the test that expects it left out)
        # (`unread`: prefixes of tensors a component holds and its forward does not read, Zamba2's other uses'
        # adapters, named by the test that expects them)
        unmapped = [k for k in transfer["unmapped_original"] if k.rsplit(".", 1)[-1] not in unused_counters
                    and not k.startswith(unread)]
        assert unmapped == [] and transfer["unmapped_refactored"] == [], transfer
        # one-to-one, string -> string as the original workspace's weight_map.json, or a packed tensor -> its
        # slices (hdecomp.verify.weights.WeightSlice); every refactored tensor filled once
        wm = parse_explicit_map(json.loads((step / "weight_map.json").read_text()))
        targets = [t for v in wm.values() for t in ([v] if isinstance(v, str) else [p.key for p in v])]
        assert len(set(targets)) == len(targets), wm
    if pipeline:
        assert run_pipeline(dec.root, coverage=False, progress=False).status == "PASS"
    return res
