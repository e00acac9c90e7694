"""The checks a finished tree gets, in one order and one place: every component file's self-test, then the
composition test (the whole model run from its kernel files and compared with the original), both in one pool
of warm workers. The decomposer (decompose/outputs.py) and `hdecomp batch` (toolchain/batch.py) run them here
and each reports them in its own format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hdecomp.toolchain.compose import ComposeResult, compose
from hdecomp.toolchain.selftest import SelfTestReport, run_self_tests

SELF_TEST_TIMEOUT = 300.0   # seconds per component file, where no time limit is set


@dataclass
class FinalChecks:
    """What the checks gave: each report, or what it raised (None where the check did not run)."""

    self_tests: SelfTestReport | None = None
    self_tests_error: Exception | None = None
    composition: ComposeResult | None = None
    composition_error: Exception | None = None


def run_final_checks(root: str | Path, *, pool: Any, jobs: int, timeout: float | None, batch_limit: int | None,
                     device: str = "cpu", self_tests: bool = True, composition: bool = True) -> FinalChecks:
    """The self-tests of every component file under `root` (`jobs` at a time, `timeout` seconds each, at
    `batch_limit`), then the composition test on `device`; `self_tests` / `composition` false skips one. An
    exception of either check is kept (FinalChecks.*_error), never raised: the other check still runs."""
    out = FinalChecks()
    if self_tests:
        try:
            out.self_tests = run_self_tests(root, timeout=timeout or SELF_TEST_TIMEOUT, jobs=jobs,
                                            batch_limit=batch_limit, pool=pool)
        except Exception as exc:
            out.self_tests_error = exc
    if composition:
        try:
            out.composition = compose(root, run=True, batch_limit=batch_limit, device=device, timeout=timeout,
                                      pool=pool)
        except Exception as exc:
            out.composition_error = exc
    return out


__all__ = ["SELF_TEST_TIMEOUT", "FinalChecks", "run_final_checks"]
