"""`hdecomp profile DIR`: the work, the time and the share of the model's time of every unique kernel and
fusion of a decomposition, with rooflines for named devices and for this machine.

For each component file (a tree node at level kernel or fusion), built and fed as its self-test is (under
`--batch-limit`):
- **work**: FLOPs, counted per aten op: torch's own formulas (`torch.utils.flop_counter`) for matmuls,
  convolutions and attention, and the formulas below where it has none (the CPU attention kernel, norms,
  softmax, elementwise ops); bytes moved = the inputs + the outputs + the parameters and buffers;
- **time**: warm-up runs, then the median of N timed runs; on CUDA timed with CUDA events and the L2 cache
  flushed before each run (as KernelBench does);
- **share**: instances (the tree's count) x time / the whole model's time, measured the same way;
- **roofline**: arithmetic intensity (FLOPs / byte) and the speed-of-light time on each device of
  DEVICE_SPECS and on this machine (its peak measured by a quick probe): max(FLOPs / peak, bytes / bandwidth);
  on this machine the bandwidth is the copy bandwidth measured at the component's working-set size, so a
  kernel whose data stays in cache is held to the cache's speed.

Writes verification/profile.json (data/schema/profile.schema.json); components ranked by share.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from hdecomp.errors import HdecompError
from hdecomp.formats.jsonio import write_json_atomic
from hdecomp.formats.layout import PROFILE_FILE
from hdecomp.formats.tree import TREE_FILE, load_decomposition
from hdecomp.runtime.settings import RunSettings
from hdecomp.runtime.work import FlopCounter, bytes_moved, count_flops, op_flops

# Peak dense throughput (FLOP/s) by precision and memory bandwidth (byte/s), from the vendors' data sheets
# (SXM parts; tensor-core figures without sparsity). fp32 is the non-tensor-core rate.
DEVICE_SPECS: dict[str, dict[str, float]] = {
    "H100": {"fp32": 67e12, "tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "bandwidth": 3.35e12},
    "H200": {"fp32": 67e12, "tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "bandwidth": 4.8e12},
    "A100": {"fp32": 19.5e12, "tf32": 156e12, "fp16": 312e12, "bf16": 312e12, "bandwidth": 2.039e12},
    "L4": {"fp32": 30.3e12, "tf32": 60e12, "fp16": 121e12, "bf16": 121e12, "bandwidth": 0.3e12},
}


# ---- timing --------------------------------------------------------------------------------------------


def l2_flush(device: torch.device) -> torch.Tensor | None:
    """The buffer whose write flushes the L2 cache before a timed CUDA run (as KernelBench does); None
    elsewhere."""
    return torch.empty(256 << 20, dtype=torch.uint8, device=device) if device.type == "cuda" else None


def one_run(model: torch.nn.Module, args: list[Any], kwargs: dict[str, Any], device: torch.device,
            flush: torch.Tensor | None) -> float:
    """Seconds of one forward: with `flush` (CUDA), the L2 flushed first and CUDA events around the call;
    else the wall clock."""
    if flush is not None:
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        model(*args, **kwargs)
        end.record()
        torch.cuda.synchronize(device)
        return float(start.elapsed_time(end)) / 1e3
    t0 = time.perf_counter()
    model(*args, **kwargs)
    return time.perf_counter() - t0


def time_forward(model: torch.nn.Module, args: list[Any], kwargs: dict[str, Any], device: torch.device, *,
                 warmup: int = 3, runs: int = 10) -> float:
    """Median seconds of one forward: `warmup` untimed runs, then `runs` timed ones (`one_run`)."""
    flush = l2_flush(device)
    with torch.no_grad():
        times = [one_run(model, args, kwargs, device, flush) for _ in range(warmup + runs)]
    return statistics.median(times[warmup:])


def best_seconds(fn: Any, device: torch.device, seconds: float, min_runs: int) -> float:
    """The shortest synchronised time of `fn` over at least `min_runs` runs and `seconds` of trying (one
    untimed run first)."""
    fn()
    best, end, n = math.inf, time.perf_counter() + seconds, 0
    while n < min_runs or time.perf_counter() < end:
        n += 1
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        best = min(best, time.perf_counter() - t0)
    return best


def probe_peak(device: torch.device, seconds: float = 0.5) -> dict[str, float]:
    """This machine's fp32 matmul rate (FLOP/s) and copy bandwidth (byte/s): the best of a few runs each."""
    n = 1024
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    x = torch.empty(16 << 20, dtype=torch.float32, device=device)   # 64 MiB
    y = torch.empty_like(x)
    flops = 2 * n ** 3 / best_seconds(lambda: torch.mm(a, b), device, seconds, 3)
    bandwidth = 2 * x.numel() * 4 / best_seconds(lambda: y.copy_(x), device, seconds, 3)
    return {"fp32": flops, "bandwidth": bandwidth}


def speed_of_light(flops: int, nbytes: int, spec: dict[str, float], dtype: str,
                   bandwidth: float | None = None) -> float:
    """max(FLOPs / peak at `dtype`, bytes / bandwidth): the time no implementation can beat on `spec`'s
    device. `bandwidth`: the one to use instead of the spec's (this machine's, measured at the working set's
    size)."""
    peak = spec.get(dtype) or spec.get("fp32") or math.inf
    return max(flops / peak, nbytes / (bandwidth or spec["bandwidth"]))


class BandwidthAt:
    """This machine's copy bandwidth (byte/s, read + write) for a working set of a given size, measured once
    per power-of-two size (caches included: a kernel whose data stays in cache is held to the cache's speed,
    not to DRAM's, which it can beat)."""

    def __init__(self, device: torch.device, seconds: float = 0.1) -> None:
        self.device = device
        self.seconds = seconds
        self.measured: dict[int, float] = {}

    def __call__(self, nbytes: int) -> float:
        size = 1 << max(16, min(30, math.ceil(math.log2(max(nbytes, 1)))))   # 64 KiB .. 1 GiB
        if size not in self.measured:
            x = torch.empty(size // 8, dtype=torch.float32, device=self.device)   # read half, write half
            y = torch.empty_like(x)
            # at least 5 runs: a first touch can be slow
            self.measured[size] = 2 * x.numel() * 4 / best_seconds(lambda: y.copy_(x), self.device, self.seconds, 5)
        return self.measured[size]


# ---- the tree ------------------------------------------------------------------------------------------


@dataclass
class Profiled:
    id: str
    level: str
    path: str
    instances: int
    flops: int = 0
    flops_by_op: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    seconds: float = 0.0
    dtype: str = "fp32"
    share: float = 0.0
    speed_of_light: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    @property
    def intensity(self) -> float | None:
        return self.flops / self.bytes if self.bytes else None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "level": self.level, "path": self.path, "instances": self.instances,
                "flops": self.flops, "flops_by_op": self.flops_by_op, "bytes": self.bytes,
                "arithmetic_intensity": self.intensity, "seconds": self.seconds,
                "seconds_all_instances": self.seconds * self.instances, "share_of_model": self.share,
                "dtype": self.dtype, "speed_of_light_seconds": self.speed_of_light, "error": self.error}


PRECISION = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32", torch.float64: "fp64"}


def _measure(path: Path, device: torch.device, batch_limit: int | None, timeout: float | None, warmup: int,
             runs: int) -> tuple[int, dict[str, int], int, float, str]:
    from hdecomp.runtime.batch_limit import limited_inputs
    from hdecomp.runtime.component import load_component, seed_everything
    comp = load_component(path, timeout=timeout)
    seed_everything(0)
    run = RunSettings(device=str(device), timeout=timeout, batch_limit=batch_limit)
    model = comp.build(run=run)
    args, kwargs = limited_inputs(comp, run)
    try:
        flops, by_op = count_flops(model, args, kwargs)
        with torch.no_grad():
            out = model(*args, **kwargs)
        nbytes = bytes_moved(model, args, kwargs, out)
        floats = [t for t in [*model.parameters(), *args] if isinstance(t, torch.Tensor) and t.is_floating_point()]
        dtype = PRECISION.get(floats[0].dtype, "fp32") if floats else "fp32"
        seconds = time_forward(model, args, kwargs, device, warmup=warmup, runs=runs)
    except Exception as exc:   # the component's own forward raised: this component's entry says so
        raise HdecompError(f"Model.forward raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                           path) from exc
    return flops, by_op, nbytes, seconds, dtype


def profile_tree(root: str | Path, *, device: str = "cpu", batch_limit: int | None = None,
                 timeout: float | None = None, warmup: int = 3, runs: int = 10, levels: tuple[str, ...] = ("kernel", "fusion"),
                 write: bool = True, probe: bool = True) -> dict[str, Any]:
    """Profile every unique component of `levels` in the decomposition at `root` (see the module's doc)."""
    from hdecomp.vocab.levels import LEVEL_NAMES
    root = Path(root)
    tree = load_decomposition(root)
    tree_file = root / TREE_FILE
    dev = torch.device(device)
    root_id = tree.root_id
    model_node = tree.nodes.get(root_id) if root_id else None
    if model_node is None or not model_node.path:
        raise HdecompError(f"{TREE_FILE} names no root node with a file", tree_file)
    _, _, model_bytes, model_seconds, _ = _measure(root / model_node.path, dev, batch_limit, timeout, warmup, runs)
    out: list[Profiled] = []
    for nid, n in tree.nodes.items():
        level = LEVEL_NAMES.get(n.level) if n.level is not None else None
        if level not in levels or nid == root_id or not n.path:
            continue
        p = Profiled(id=nid, level=level, path=n.path, instances=int(n.instance_count or 1))
        try:
            p.flops, p.flops_by_op, p.bytes, p.seconds, p.dtype = _measure(root / n.path, dev, batch_limit,
                                                                             timeout, warmup, runs)
        except HdecompError as exc:
            p.error = exc.headline
        out.append(p)
    specs = {name: dict(spec) for name, spec in DEVICE_SPECS.items()}
    here = probe_peak(dev) if probe else None
    if here is not None:
        specs["this machine"] = here
    bandwidth_here = BandwidthAt(dev) if here is not None else None
    for p in out:
        p.share = p.seconds * p.instances / model_seconds if model_seconds else 0.0
        p.speed_of_light = {name: speed_of_light(p.flops, p.bytes, spec, p.dtype,
                                                 bandwidth_here(p.bytes) if name == "this machine"
                                                 and bandwidth_here is not None else None)
                            for name, spec in specs.items()}
    out.sort(key=lambda p: (-p.share, p.id))
    doc: dict[str, Any] = {"decomposition": str(root), "device": str(dev), "batch_limit": batch_limit, "warmup": warmup,
           "runs": runs, "torch": torch.__version__,
           "bandwidth_by_working_set": {str(k): v for k, v in sorted((bandwidth_here.measured if bandwidth_here
                                                                      else {}).items())},
           "model": {"id": root_id, "path": model_node.path, "seconds": model_seconds, "bytes": model_bytes},
           "device_specs": specs, "components": [p.to_dict() for p in out]}
    if write:
        write_json_atomic(root / "verification" / PROFILE_FILE, doc)
        doc["plots"] = write_plots(doc, root / "verification")
    return doc


ROOFLINE_PNG, SHARE_PNG = "profile_roofline.png", "profile_share.png"


def write_plots(doc: dict[str, Any], folder: Path, device_spec: str = "this machine") -> list[str]:
    """The roofline (attained FLOP/s against arithmetic intensity, under `device_spec`'s compute and memory
    roofs) and the share-of-time bars of the components, as PNG files; [] without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    comps = [c for c in doc["components"] if c["seconds"] > 0 and c["flops"] > 0 and c["bytes"] > 0]
    spec = doc["device_specs"].get(device_spec) or next(iter(doc["device_specs"].values()))
    written = []
    fig, ax = plt.subplots(figsize=(7, 5), dpi=110)
    if comps:
        xs = [c["flops"] / c["bytes"] for c in comps]
        lo, hi = min([*xs, 0.01]) / 2, max([*xs, 100.0]) * 2
        grid = [lo * (hi / lo) ** (i / 100) for i in range(101)]
        ax.plot(grid, [min(spec["fp32"], x * spec["bandwidth"]) for x in grid], color="black", lw=1,
                label=f"{device_spec} roof (fp32)")
        for c, x in zip(comps, xs, strict=True):
            ax.scatter([x], [c["flops"] / c["seconds"]], s=20 + 400 * c["share_of_model"],
                       marker="o" if c["level"] == "kernel" else "s", alpha=0.7)
            ax.annotate(c["id"], (x, c["flops"] / c["seconds"]), fontsize=6)
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte)")
    ax.set_ylabel("attained FLOP/s")
    ax.set_title(f"{doc['model']['id']}: roofline on {doc['device']}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / ROOFLINE_PNG)
    plt.close(fig)
    written.append(str(folder / ROOFLINE_PNG))
    ranked = doc["components"][:25]
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(ranked) + 1.2), dpi=110)
    ax.barh([c["id"] for c in ranked][::-1], [100 * c["share_of_model"] for c in ranked][::-1],
            color=["tab:blue" if c["level"] == "kernel" else "tab:orange" for c in ranked][::-1])
    ax.set_xlabel("share of the model's time (%), all instances")
    ax.set_title(f"{doc['model']['id']}: kernels (blue) and fusions (orange) by share")
    ax.tick_params(axis="y", labelsize=6)
    fig.tight_layout()
    fig.savefig(folder / SHARE_PNG)
    plt.close(fig)
    written.append(str(folder / SHARE_PNG))
    return written


__all__ = ["DEVICE_SPECS", "PRECISION", "BandwidthAt", "FlopCounter", "best_seconds", "bytes_moved", "count_flops",
           "l2_flush", "one_run", "op_flops", "probe_peak", "profile_tree", "speed_of_light", "time_forward"]
