"""The speed-of-light floor of `hdecomp replace`: the time no honest implementation of a kernel's work can
beat on this device. (The kernel and its replacement, and the whole composed model without and with the
replacements, are timed each in a process of its own by the judge's clock: `replace.isolated.time_sides`.)"""

from __future__ import annotations

from typing import Any

import torch

from hdecomp.toolchain.profile import DEVICE_SPECS, BandwidthAt, probe_peak, speed_of_light


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


__all__ = ["device_spec", "floor_seconds"]
