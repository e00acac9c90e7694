"""RunSettings: where and how every command runs a model and judges its outputs, declared once.

The device, the `--batch-limit` cut, the time limit of a forward, and how many seeded trials compare outputs
with which tolerances are the same knobs for `decompose`, `verify-step` and `replace`: DecomposeOptions,
VerifyOptions and ReplaceOptions are RunSettings with their own options added, and code that builds or runs a
model takes the settings whole (`comp.build(run=options)`, `limited_inputs(comp, options)`). A new run setting
(a dtype, a workload, train mode) is one field here; whether it changes what the original computes, and so
keys the reference cache, is said once in hdecomp.verify.result.REFERENCE_KEY_OPTIONS."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass
class RunSettings:
    device: str = "cpu"
    batch_limit: int | None = None     # None: the file's own batch
    timeout: float | None = None       # seconds a forward (or a file's import, build, inputs) may take
    num_trials: int = 3                # seeded trials that compare outputs
    rtol: float | None = None          # None: by the output's dtype (hdecomp.verify.compare)
    atol: float | None = None

    @property
    def run(self) -> RunSettings:
        """These settings alone, as a plain RunSettings (the part of an options object another command takes)."""
        return RunSettings(**self.run_fields())

    def run_fields(self) -> dict[str, Any]:
        """The run settings by name, to build another command's options from (`VerifyOptions(**o.run_fields())`)."""
        return {f.name: getattr(self, f.name) for f in fields(RunSettings)}
