"""verify-step's own overhead: everything but the models' forward passes, on small steps.

For each step, verify_step runs in-process (torch imported once, warm-up runs first); its per-phase
timings are collected over several repeats. The models' plain forward cost is measured separately
(the same models, inputs and no_grad, no recording) and subtracted: what is left is the verifier's own
cost — loading, the three anti-cheat checks (the op recorder's extra cost counted under "runtime"),
the weight map, input preparation and mutation checks, and the comparison.

Run:  OMP_NUM_THREADS=1 .venv/bin/python bench/verify_overhead/run.py [--repeats 20]
Writes bench/verify_overhead/results.json and bench/verify_overhead/README.md (table for the README).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402
from hdecomp.formats.jsonio import write_json_atomic, write_text_atomic  # noqa: E402
from hdecomp.runtime.component import load_component  # noqa: E402
from hdecomp.verify.result import VerifyOptions  # noqa: E402
from hdecomp.verify.step import verify_step  # noqa: E402

HERE = Path(__file__).resolve().parent
FIX = ROOT / "test" / "python" / "fixtures" / "verify"
STEPS = {
    "mlp layer (4 children, LayerNorm, residual)": FIX / "honest_mlp",
    "conv+bn+relu fusion (BatchNorm buffers)": FIX / "batchnorm",
    "ModuleList model (5 child instances, shared child x2)": FIX / "modulelist",
}
PHASES = ["load", "build", "anticheat_static", "anticheat_structural", "anticheat_runtime", "weights",
          "inputs", "compare"]


def plain_forward_ms(step: Path, repeats: int) -> float:
    """Median wall time of one original + one refactored forward (no recording), in ms."""
    o = load_component(step / "original.py", class_names=("Model",))
    r = load_component(step / "refactored.py", class_names=("RefactoredModel",), require_inputs=False)
    torch.manual_seed(0)
    mo, mr = o.build(), r.build()
    args, kwargs = o.make_inputs(seed=42)
    times = []
    with torch.no_grad():
        for _ in range(3):
            mo(*args, **kwargs)
            mr(*args, **kwargs)
        for _ in range(repeats):
            t0 = time.perf_counter()
            mo(*args, **kwargs)
            mr(*args, **kwargs)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def measure(step: Path, repeats: int, trials: int) -> dict[str, Any]:
    opts = VerifyOptions(num_trials=trials)
    for _ in range(2):  # warm-up: first calls pay lazy initialisation in torch
        verify_step(step / "original.py", step / "refactored.py", opts)
    runs = []
    for _ in range(repeats):
        r = verify_step(step / "original.py", step / "refactored.py", opts)
        assert r.status == "PASS", r.data.get("fail_detail") or r.error
        runs.append(r.data["timings"])
    fwd_pair = plain_forward_ms(step, max(20, repeats))
    static_uncached = static_uncached_ms(step / "refactored.py", repeats)
    n_pairs = trials + 1  # N trials + the randomized-weights trial
    med = {k: statistics.median(run.get(k, 0.0) for run in runs) * 1000
           for k in [*PHASES, "forward", "forward_recorded", "total"]}
    recording_extra = max(0.0, med["forward_recorded"] - fwd_pair)
    forwards_ms = fwd_pair * n_pairs
    overhead = med["total"] - forwards_ms
    phases = {k: med[k] for k in PHASES}
    phases["anticheat_runtime"] += recording_extra  # the op recorder is the runtime check's cost
    phases["other"] = max(0.0, overhead - sum(phases.values()))
    return {"step": str(step.relative_to(ROOT)), "repeats": repeats, "trials": trials,
            "total_ms": med["total"], "forward_pair_ms": fwd_pair, "forwards_ms": forwards_ms,
            "overhead_ms": overhead, "phases_ms": phases, "recording_extra_ms": recording_extra,
            "static_uncached_ms": static_uncached}


def static_uncached_ms(path: Path, repeats: int) -> float | None:
    """The static analysis without its cache (verify_step hits the cache on unchanged text)."""
    try:
        from hdecomp.anticheat import static
    except ImportError:
        return None
    fn = getattr(static, "analyze_source_uncached", None)
    if fn is None:
        return None
    text = path.read_text(encoding="utf-8")
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(text, str(path))
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    results = []
    for label, step in STEPS.items():
        res = measure(step, args.repeats, args.trials)
        res["label"] = label
        results.append(res)
        print(f"{label}: total {res['total_ms']:.1f} ms, forwards {res['forwards_ms']:.1f} ms, "
              f"overhead {res['overhead_ms']:.1f} ms", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    data = {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": platform.machine(), "python": platform.python_version(), "torch": torch.__version__,
            "cpus": os.cpu_count(), "load_1min": load, "threads": torch.get_num_threads(), "results": results}
    write_json_atomic(HERE / "results.json", data)
    write_text_atomic(HERE / "README.md", render(data))
    print((HERE / "README.md").read_text())
    return 0


def render(data: dict[str, Any]) -> str:
    cols = ["load", "build", "anticheat_static", "anticheat_structural", "anticheat_runtime", "weights",
            "inputs", "compare", "other"]
    heads = ["load", "build", "static (cached)", "structural", "runtime (+recorder)", "weight map", "inputs+mutation",
             "compare", "other"]
    lines = [
        "# verify-step overhead",
        "",
        f"Measured {data['timestamp']} on {data['machine']} (Python {data['python']}, torch {data['torch']}, "
        f"{data['threads']} thread(s), 1-min load {data['load_1min']:.1f} on {data['cpus']} cores). "
        "Re-run: `OMP_NUM_THREADS=1 .venv/bin/python bench/verify_overhead/run.py`.",
        "",
        "In-process `verify_step` (torch already imported), median over repeats after warm-up; default "
        f"options ({data['results'][0]['trials']} trials + the randomized-weights trial). *Overhead* = total "
        "minus the models' own forward passes (measured separately without recording). All times in ms.",
        "",
        "| step | total | model forwards | overhead | " + " | ".join(heads) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in heads) + " |",
    ]
    for r in data["results"]:
        ph = r["phases_ms"]
        lines.append(f"| {r['label']} | {r['total_ms']:.1f} | {r['forwards_ms']:.1f} | {r['overhead_ms']:.1f} | "
                     + " | ".join(f"{ph[c]:.1f}" for c in cols) + " |")
    lines += ["", "Static analysis is cached on unchanged text inside one process; uncached it takes "
              + ", ".join(f"{r['static_uncached_ms']:.1f}" for r in data["results"] if r.get("static_uncached_ms"))
              + " ms on these steps (see bench/anticheat for 50-2000-line files).",
              "", "The process start (Python + `import torch`, several seconds on a loaded machine) is not "
              "included: the CLI pays it once per call, the pipeline and the language server's subprocess once "
              "per batch.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
