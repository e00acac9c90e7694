"""The checks a finished tree gets (hdecomp.toolchain.final_checks): the decomposer and `hdecomp batch` run the
same self-tests and composition test and report the same verdicts; a check that raises is kept and the other
still runs."""

from __future__ import annotations

from pathlib import Path

from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.errors import HdecompError
from hdecomp.runtime.warm import WarmPool
from hdecomp.toolchain.batch import test_decomposition as batch_check
from hdecomp.toolchain.final_checks import run_final_checks

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"


def test_the_decomposer_and_batch_report_the_same_final_checks(tmp_path: Path) -> None:
    dec = decompose(EXAMPLES / "mlp_block.py", tmp_path, DecomposeOptions(), progress=False)
    st, comp = dec.finals["self_tests"], dec.finals["composition"]
    assert st["status"] == "PASS" and comp["status"] == "PASS", dec.finals
    out = batch_check(dec.root, tmp_path, timeout=300.0)
    assert (out.components_tested, out.components_passed) == (st["total_components"], st["passed"])
    assert (out.composition, out.composition_max_diff) == (comp["status"], comp["max_diff"]), out.to_dict()
    assert out.status == "PASSED", out.errors


def test_a_check_that_raises_is_kept_and_the_other_still_runs(tmp_path: Path) -> None:
    """The self-tests raise (a batch limit below 1) and the error is kept; the composition still runs (and
    reports that the folder holds no tree)."""
    with WarmPool(1) as pool:
        checks = run_final_checks(tmp_path, pool=pool, jobs=1, timeout=60.0, batch_limit=0)
    assert checks.self_tests is None and isinstance(checks.self_tests_error, HdecompError), checks
    assert checks.composition is not None and checks.composition.status == "ERROR", checks
    assert checks.composition_error is None
