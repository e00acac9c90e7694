"""`compose()`: the script written and run in a process of its own; its verdict recorded in
verification/test_results.json."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic, write_text_atomic
from hdecomp.formats.layout import TEST_RESULTS_FILE, read_test_results
from hdecomp.runtime.warm import WarmPool, run_cold
from hdecomp.toolchain.compose.plan import build_composition, relative_to_root
from hdecomp.toolchain.compose.script import RESULT_MARK, SCRIPT, SCRIPT_WITH_REPLACEMENTS, generate_script
from hdecomp.toolchain.compose.weights import composed_weight_map


@dataclass
class ComposeResult:
    status: str                      # PASS | FAIL | ERROR | WRITTEN (--no-run)
    script: Path | None = None
    max_diff: float | None = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""
    weights: str | None = None       # shared (the original's tensors themselves) | copied; None: not run

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "WRITTEN": 0, "FAIL": 1}.get(self.status, 2)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "script": str(self.script) if self.script else None,
                "max_diff": self.max_diff, "reason": self.reason, "notes": self.notes,
                "kernels": self.kernels, "steps": self.steps, "weights": self.weights,
                "seconds": round(self.seconds, 3)}


def compose(root: str | Path, *, run: bool = True, batch_limit: int | None = None, device: str = "cpu",
            timeout: float | None = None, python: str | None = None, pool: WarmPool | None = None,
            with_replacements: bool = False, replaced: dict[Path, Path] | None = None,
            tolerance: float | None = None) -> ComposeResult:
    """Write verification/composition_test.py and (unless run=False) run it in a subprocess of its own (a
    warm worker of `pool` when given: torch imported already, the script alone in a fresh child).
    `with_replacements`: the tree's active kernel replacements (`hdecomp replace`) stand in for their kernels
    in every instance, at the loosest tolerance they were proved at; written as
    verification/composition_test_with_replacements.py and recorded apart from the plain composition;
    `replaced` (kernel file -> replacement file) and `tolerance` instead of the tree's (`hdecomp replace`
    tries a replacement before it is active)."""
    from hdecomp.formats.replacements import replaced_files, replacement_tolerance
    root = Path(root)
    t0 = time.perf_counter()
    if not root.is_dir():
        raise HdecompError("not a folder" if root.exists() else "decomposition folder not found", root)
    if replaced is None:
        replaced = replaced_files(root) if with_replacements else {}
    if with_replacements and tolerance is None:
        tolerance = replacement_tolerance(root)
    try:
        comp = build_composition(root)
        comp.weight_map = composed_weight_map(comp, timeout=timeout)
        script = generate_script(comp, batch_limit=batch_limit, device=device, replaced=replaced,
                                 tolerance=tolerance if with_replacements else None)
    except HdecompError as exc:
        return ComposeResult(status="ERROR", reason=exc.headline, seconds=time.perf_counter() - t0)
    path = write_text_atomic(root / "verification" / (SCRIPT_WITH_REPLACEMENTS if with_replacements else SCRIPT),
                             script)
    used = {lf.file.resolve() for lf in comp.leaves.values()}
    notes = list(comp.notes)
    if with_replacements:
        notes += [f"{relative_to_root(root, k)} replaced by {relative_to_root(root, v)}"
                  for k, v in sorted(replaced.items()) if k in used] or ["no kernel replacement is active"]
    result = ComposeResult(status="WRITTEN", script=path, notes=notes,
                           kernels=sorted({relative_to_root(root, replaced.get(lf.file.resolve(), lf.file))
                                           for lf in comp.leaves.values()}),
                           steps=[d.name for d in comp.order])
    if run:
        _run_script(result, path, timeout=timeout, python=python, pool=pool)
        _record_in_test_results(root, result, key="composition_with_replacements" if with_replacements else None)
    result.seconds = time.perf_counter() - t0
    return result


def _run_script(result: ComposeResult, path: Path, *, timeout: float | None, python: str | None,
                pool: WarmPool | None = None) -> None:
    from hdecomp.toolchain.selftest import self_test_env
    argv = [python or sys.executable, path.name]
    if pool is not None and python in (None, pool.python):
        outcome = pool.run(path, timeout=timeout, cold_argv=argv)
    else:
        outcome = run_cold(argv, path.parent, self_test_env(), timeout)
    if outcome.returncode is None:
        result.status, result.reason = "ERROR", f"{path}: did not finish within {timeout:g} s (timeout)"
        return
    out = outcome.output
    result.output = out
    for line in out.splitlines():
        if line.startswith(RESULT_MARK):
            with contextlib.suppress(ValueError):
                data = json.loads(line[len(RESULT_MARK):])
                result.status = data.get("status", "ERROR")
                result.max_diff = data.get("max_diff")
                result.reason = data.get("reason")
                result.weights = data.get("weights")
                return
    tail = [ln for ln in out.strip().splitlines() if ln.strip()]
    result.status = "ERROR"
    result.reason = f"{path}: exit code {outcome.returncode}: {tail[-1] if tail else '(no output)'}"


def _record_in_test_results(root: Path, result: ComposeResult, key: str | None = None) -> None:
    """test_results.json keeps the composition verdict next to the self-tests (original format keys);
    `key`: only under that key (the composition with replacements), the plain verdict left as it is."""
    path = root / "verification" / TEST_RESULTS_FILE
    data: dict[str, Any] = read_test_results(root) or {}
    if key is not None:
        if data:
            data[key] = result.to_dict()
            write_json_atomic(path, data)
        return
    data.setdefault("timestamp", datetime.now().isoformat())
    for key, empty in (("total_components", 0), ("passed", 0), ("failed", 0), ("component_results", [])):
        data.setdefault(key, empty)  # required by the format even before `hdecomp test` has run
    data["composition_test"] = {"PASS": "PASSED", "FAIL": "FAILED"}.get(result.status, "ERROR")
    data["max_difference"] = result.max_diff
    data["composition"] = result.to_dict()
    write_json_atomic(path, data)
