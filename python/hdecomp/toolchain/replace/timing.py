"""The speed-of-light floor of `hdecomp replace`: the time no honest implementation of a kernel's work can
beat on this device. (The kernel and its replacement, and the whole composed model without and with the
replacements, are timed each in a process of its own by the judge's clock: `replace.isolated.time_sides`.)"""

from __future__ import annotations

from typing import Any

import torch

from hdecomp.toolchain.profile import DEVICE_SPECS, BandwidthAt, probe_peak, speed_of_light


def device_spec(device: torch.device, probe_seconds: float | None = None) -> tuple[str, dict[str, float], Any]:
    """(name, peaks, bandwidth at a working-set size or None): a CUDA device of the shipped table by name;
    any other device measured by `hdecomp profile`'s probes (each the best of runs over `probe_seconds`, or
    their defaults)."""
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        for key, spec in DEVICE_SPECS.items():
            if key in name:
                return key, spec, None
    if probe_seconds is None:
        return "this machine", probe_peak(device), BandwidthAt(device)
    return "this machine", probe_peak(device, probe_seconds), BandwidthAt(device, probe_seconds)


def floor_seconds(flops: int, nbytes: int, dtype: str, device: torch.device,
                  reference_seconds: float | None = None, probe_seconds: float | None = None) -> tuple[float, str]:
    """(the speed-of-light time of `flops` and `nbytes` on `device`, the spec's name). `reference_seconds`:
    the kernel's own measured time, which proves its rates attainable: the peaks used are at least the
    kernel's achieved FLOP/s and byte/s, so a probe that ran slow (a busy machine) never puts the floor
    above what the reference itself does."""
    name, spec, bandwidth = device_spec(device, probe_seconds)
    spec = dict(spec)
    bw = bandwidth(nbytes) if bandwidth is not None else spec["bandwidth"]
    if reference_seconds:
        key = dtype if dtype in spec else "fp32"
        spec[key] = max(spec.get(key, 0.0), flops / reference_seconds)
        bw = max(bw, nbytes / reference_seconds)
    return speed_of_light(flops, nbytes, spec, dtype, bw), name


# a second probe, before a refusal, tries this long per measurement (the first: profile's defaults)
RECHECK_PROBE_SECONDS = 1.0


def judged_floor(flops: int, nbytes: int, dtype: str, device: torch.device, reference_seconds: float,
                 candidate_seconds: float, margin: float) -> tuple[float, str]:
    """The floor a candidate's time is judged against (floor_seconds). Where the candidate would be refused
    (below `margin` x the floor), the machine is probed again, longer, and the lower floor kept: a busy
    machine only ever slows a probe, so a floor it raised falls back, and a candidate is refused on two
    probes, never on one."""
    floor, name = floor_seconds(flops, nbytes, dtype, device, reference_seconds=reference_seconds)
    if candidate_seconds < margin * floor:
        again, _ = floor_seconds(flops, nbytes, dtype, device, reference_seconds=reference_seconds,
                                 probe_seconds=RECHECK_PROBE_SECONDS)
        floor = min(floor, again)
    return floor, name


__all__ = ["RECHECK_PROBE_SECONDS", "device_spec", "floor_seconds", "judged_floor"]
