"""Timing for `hdecomp replace`: the kernel and its replacement, and the whole composed model without and
with the replacements, measured the same way in the same run (alternating run by run; warm-up, median of
N, CUDA events and an L2 flush on CUDA, as `hdecomp profile` times); and the speed-of-light floor no honest
implementation of the kernel's work can beat on this device."""

from __future__ import annotations

import importlib.util
import itertools
import statistics
from pathlib import Path
from typing import Any

import torch
from torch import nn

from hdecomp.toolchain.profile import DEVICE_SPECS, BandwidthAt, l2_flush, one_run, probe_peak, speed_of_light

_counter = itertools.count()


def time_pair(a: nn.Module, b: nn.Module, args: list[Any], kwargs: dict[str, Any], device: torch.device, *,
              warmup: int, runs: int) -> tuple[float, float]:
    """(median seconds of a, of b), measured alternately run by run (a, b, a, b, ...) after `warmup` untimed
    runs of each, so a load that comes and goes falls on both alike; each run is `hdecomp profile`'s
    (`one_run`: CUDA events and an L2 flush on CUDA)."""
    flush = l2_flush(device)
    times: tuple[list[float], list[float]] = ([], [])
    with torch.no_grad():
        for _ in range(warmup + runs):
            for model, out in ((a, times[0]), (b, times[1])):
                out.append(one_run(model, args, kwargs, device, flush))
    return statistics.median(times[0][warmup:]), statistics.median(times[1][warmup:])


def device_spec(device: torch.device) -> tuple[str, dict[str, float], Any]:
    """(name, peaks, bandwidth at a working-set size or None): a CUDA device of the shipped table by name;
    any other device measured by `hdecomp profile`'s probes."""
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        for key, spec in DEVICE_SPECS.items():
            if key in name:
                return key, spec, None
    return "this machine", probe_peak(device), BandwidthAt(device)


def floor_seconds(flops: int, nbytes: int, dtype: str, device: torch.device,
                  reference_seconds: float | None = None) -> tuple[float, str]:
    """(the speed-of-light time of `flops` and `nbytes` on `device`, the spec's name). `reference_seconds`:
    the kernel's own measured time, which proves its rates attainable: the peaks used are at least the
    kernel's achieved FLOP/s and byte/s, so a probe that ran slow (a busy machine) never puts the floor
    above what the reference itself does."""
    name, spec, bandwidth = device_spec(device)
    spec = dict(spec)
    bw = bandwidth(nbytes) if bandwidth is not None else spec["bandwidth"]
    if reference_seconds:
        key = dtype if dtype in spec else "fp32"
        spec[key] = max(spec.get(key, 0.0), flops / reference_seconds)
        bw = max(bw, nbytes / reference_seconds)
    return speed_of_light(flops, nbytes, spec, dtype, bw), name


def import_script(path: Path) -> Any:
    """A composition script as a module (its main guard not run)."""
    spec = importlib.util.spec_from_file_location(f"_hdecomp_composed_{next(_counter)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


__all__ = ["device_spec", "floor_seconds", "import_script", "time_pair"]
