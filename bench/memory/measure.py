"""Peak resident memory of `hdecomp decompose` per phase (bench/memory/README.md).

Runs the decomposer in process on one model file with `--batch-limit 1` while a thread samples the RSS of
this process and its children (self-tests and the composition test run in subprocesses) every 10 ms.
Phase entry points are wrapped so each sample is charged to the innermost running phase:
reference run, capture, the recording at the second batch, each verification trial, step coverage,
final coverage, self-tests, composition.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/memory/measure.py MODEL.py --out /tmp/me/out \
        --json bench/memory/results/NAME.json [--memory-scale 16]

`--memory-scale K` makes the memory-aware decisions see a machine K times smaller (available memory and the
output-spill threshold divided by K): on a model K times smaller than the real one (e.g. the synthetic
attention at 4096 tokens, 16x fewer score elements than KernelBench 31's 16384) the same decisions are
taken as on the real model on this machine.

The synthetic models are KernelBench 31 (level3/31_VisionAttention.py) with a smaller image:
`--make-synthetic SIDE DIR` writes DIR/attn_SIDE.py (SIDE x SIDE image = SIDE**2 tokens) from
`--kernelbench` (default ../shared/kernelbench relative to the repository root).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PAGE = os.sysconf("SC_PAGE_SIZE")


class Sampler:
    def __init__(self) -> None:
        self.stack = ["setup"]
        self.peaks: dict[str, float] = {}
        self.lock = threading.Lock()
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    @staticmethod
    def tree_rss(pid: int) -> int:
        total, todo = 0, [pid]
        while todo:
            p = todo.pop()
            try:
                with open(f"/proc/{p}/statm") as f:
                    total += int(f.read().split()[1]) * PAGE
                for t in os.listdir(f"/proc/{p}/task"):
                    with open(f"/proc/{p}/task/{t}/children") as f:
                        todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
        return total

    def run(self) -> None:
        me = os.getpid()
        while not self.stop:
            r = self.tree_rss(me) / 2**30
            with self.lock:
                key = "/".join(self.stack)
                self.peaks[key] = max(self.peaks.get(key, 0.0), r)
            time.sleep(0.01)

    def phase(self, label: Any) -> Any:
        def deco(fn: Any) -> Any:
            @functools.wraps(fn)
            def wrapper(*a: Any, **k: Any) -> Any:
                name = label(*a, **k) if callable(label) else label
                with self.lock:
                    self.stack.append(name)
                try:
                    return fn(*a, **k)
                finally:
                    with self.lock:
                        self.stack.pop()
            return wrapper
        return deco


def instrument(s: Sampler) -> None:
    import hdecomp.decompose.driver as drv
    import hdecomp.toolchain.compose as cmp
    import hdecomp.toolchain.coverage as cov
    import hdecomp.toolchain.selftest as st
    import hdecomp.verify.step as ver

    def patch(mod: Any, name: str, label: Any) -> None:
        if hasattr(mod, name):
            setattr(mod, name, s.phase(label)(getattr(mod, name)))

    patch(drv, "reference_run", "reference_run")
    patch(drv, "capture", "capture")
    patch(drv, "relative_batch_ints", "batch_ints(N+1)")
    patch(drv, "full_size_capture", "full_size_capture(N+1)")
    patch(drv, "full_size_io", "full_size_io(N+1)")
    patch(drv, "_write_step", lambda dec, node, n: f"write_step:{node.id}")
    patch(drv, "_verify", lambda dec, d, n, name: f"verify:{name}")
    patch(ver, "_run_trial", lambda *a, **k: f"trial:{a[5]}")
    patch(cov, "step_coverage_from_traces", "step_coverage")
    patch(cov, "compute_coverage", "final_coverage")
    patch(st, "run_self_tests", "self_tests")
    patch(cmp, "compose", "composition")


def scale_memory(k: float) -> None:
    import hdecomp.decompose.shapes as shp
    import hdecomp.verify.step as ver
    real = shp.available_bytes
    shp.available_bytes = lambda: (lambda a: None if a is None else int(a / k))(real())  # type: ignore[assignment]
    ver.SPILL_BYTES = int(ver.SPILL_BYTES / k)


def group(phase: str) -> str:
    """`root/verify:step_4_x/trial:1` -> `verify/trial` (the kind of phase, for the summary table)."""
    parts = phase.split("/")[1:] or ["setup"]
    return "/".join(re.sub(r"[:(].*", "", p) for p in parts)


def make_synthetic(side: int, out_dir: Path, kernelbench: Path) -> Path:
    src = (kernelbench / "level3" / "31_VisionAttention.py").read_text()
    src = src.replace("image_height = 128", f"image_height = {side}").replace("image_width = 128", f"image_width = {side}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"attn_{side}.py"
    path.write_text(src)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?")
    ap.add_argument("--out", default="/tmp/hdecomp_memory/out")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--memory-scale", type=float, default=None)
    ap.add_argument("--make-synthetic", nargs=2, metavar=("SIDE", "DIR"))
    ap.add_argument("--kernelbench", default=str(REPO.parent / "shared" / "kernelbench"))
    a = ap.parse_args()
    if a.make_synthetic:
        print(make_synthetic(int(a.make_synthetic[0]), Path(a.make_synthetic[1]), Path(a.kernelbench)))
        return 0
    if not a.model:
        ap.error("a model file is needed")
    s = Sampler()
    instrument(s)
    if a.memory_scale:
        scale_memory(a.memory_scale)
    s.thread.start()
    from hdecomp.decompose.driver import DecomposeOptions, decompose
    from hdecomp.decompose.outputs import result_dict
    s.stack[0] = "root"
    t0 = time.time()
    dec = decompose(a.model, a.out, DecomposeOptions(batch_limit=1, timeout=a.timeout), progress=False)
    s.stop = True
    s.thread.join()
    res = result_dict(dec)
    by_group: dict[str, float] = {}
    for k, v in s.peaks.items():
        by_group[group(k)] = max(by_group.get(group(k), 0.0), v)
    report = {
        "model": str(a.model), "status": res["status"], "seconds": round(time.time() - t0, 1),
        "memory_scale": a.memory_scale,
        "peak_rss_gib": round(max(s.peaks.values()), 3),
        "maxrss_self_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3),
        "maxrss_children_gib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20, 3),
        "peak_by_phase_gib": {k: round(v, 3) for k, v in sorted(by_group.items(), key=lambda kv: -kv[1])},
        "peak_by_step_gib": {k: round(v, 3) for k, v in sorted(s.peaks.items(), key=lambda kv: -kv[1])},
        "finals": {k: res.get(k) for k in ("coverage", "self_tests", "composition")},
        "deviations": [e["description"] for e in dec.log if e["type"] == "deviation"],
    }
    text = json.dumps(report, indent=1)
    print(text)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
