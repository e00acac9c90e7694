"""What verify-step is asked and what it answers: `VerifyOptions`, `VerificationResult` (the
verification_result.json it writes) and the seeds every trial uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import torch

from hdecomp import __version__
from hdecomp.anticheat.rules import AntiCheatViolation
from hdecomp.runtime.settings import RunSettings

SEED_BASE = 42
# the model-level draws the composition test compares the composed model on (its SEEDS): each step's children
# are also verified on what the model hands them under each of these (decompose: the root's in-model calls)
COMPOSITION_SEEDS = (SEED_BASE, SEED_BASE + 1, SEED_BASE + 2)
RANDOMIZED_WEIGHT_SEED = 1234
PROBE_SCALES = (10.0, 1000.0)  # input scales tried when every other trial's output is degenerate


@dataclass
class VerifyOptions(RunSettings):
    """Knobs of verify_step (the run settings, and its own); the defaults are the CLI's."""

    skip_anticheat: bool = False
    weight_map: str | Path | dict[str, Any] | None = None  # None: <refactored dir>/weight_map.json if present
    randomized_trial: bool = True
    # the refactored model built on the meta device and given the original's tensors themselves (one copy
    # of the weights in memory); copies instead where sharing cannot be exact (see _build_refactored)
    share_weights: bool = True
    # the original's side of each trial from the reference cache (verify/reference_cache.py) when this
    # original was verified before with the same seeds and settings; HDECOMP_CACHE=0 turns it off too
    reference_cache: bool = True
    # the refactored file's model class: the first of these it defines (`hdecomp replace` proves `ModelNew`)
    refactored_class: tuple[str, ...] = ("RefactoredModel", "Model")
    # the refactored model built from the original's get_init_inputs() (KernelBench's ModelNew has none)
    init_from_original: bool = False
    # the original and the refactored model each in a process of its own, compared here (hdecomp.verify.sides);
    # False: both in this process (the decomposer's own steps: code it wrote itself)
    isolate: bool = True
    # each side runs its model once, on the first trial's inputs, before the original's weights are handed over:
    # an original whose first forward writes its own parameters or buffers is compared as that forward left it
    # (hdecomp.runtime.settle); verify_step sets it when it sees such a write
    settle: bool = False


# Every VerifyOptions field, by what it does to the original's reference outputs, which the reference cache
# keeps between runs (verify/reference_cache.py), as mypy names its OPTIONS_AFFECTING_CACHE: a field that changes
# what the original computes keys the cache; one that reaches it through the model's state labels each
# reference (sides.OriginalSide: its settled weights, the tensors the weight map re-draws); the others judge,
# time or place the runs only. A new field joins one of the three (test_verify_options_are_each_classified): a
# dtype, a workload or train mode keys the cache.
REFERENCE_KEY_OPTIONS = ("batch_limit", "device")
REFERENCE_LABEL_OPTIONS = ("settle", "weight_map")
NOT_REFERENCE_OPTIONS = ("rtol", "atol", "num_trials", "skip_anticheat", "timeout", "randomized_trial",
                         "share_weights", "reference_cache", "refactored_class", "init_from_original", "isolate")


@dataclass
class VerificationResult:
    """The verdict and everything behind it; `to_dict()` is verification_result.json."""

    status: str  # PASS | FAIL | ERROR
    original_file: str
    refactored_file: str
    violations: list[AntiCheatViolation] = field(default_factory=list)
    max_diff: float | None = None  # None: no comparison ran (load error, bad options)
    error: str | None = None
    fail_reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    # (original, refactored) OpTraces of the first full-size trial, for callers that want the op
    # inventories without running the models again (the pipeline's coverage reports); not in the JSON
    traces: tuple[Any, Any] | None = field(default=None, repr=False)

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "FAIL": 1}.get(self.status, 2)

    @property
    def degenerate(self) -> bool:
        return bool(self.data.get("degenerate_output", {}).get("detected"))

    def to_dict(self) -> dict[str, Any]:
        return self.data


class Clock:
    """Accumulates wall time per phase (seconds), and counts the forwards, and those that drew random numbers."""

    def __init__(self, device: torch.device) -> None:
        self.times: dict[str, float] = {}
        self.device = device
        self.random_draws = 0
        self.forward_calls = 0   # model forwards run (both sides, every trial)

    def add(self, name: str, seconds: float) -> None:
        self.times[name] = self.times.get(name, 0.0) + seconds

    def sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def new_result(original: Path, refactored: Path, options: VerifyOptions) -> dict[str, Any]:
    return {
        "timestamp": datetime.now().isoformat(),
        "original_file": str(original),
        "refactored_file": str(refactored),
        "status": "UNKNOWN",
        "anticheat": {"status": "SKIPPED" if options.skip_anticheat else "UNKNOWN", "violations": [],
                      "source_violations": [], "parameter_violations": []},
        "weight_transfer": {"status": "UNKNOWN"},
        "numerical_comparison": {"status": "UNKNOWN", "max_diff_across_trials": None},
        "tool": {"name": "hdecomp", "version": __version__, "torch": torch.__version__},
        "device": options.device,
        "batch_limit": options.batch_limit,
        "options": {"rtol": options.rtol, "atol": options.atol, "num_trials": options.num_trials,
                    "skip_anticheat": options.skip_anticheat, "timeout": options.timeout,
                    "randomized_trial": options.randomized_trial},
    }
