"""Pipeline speed: `hdecomp pipeline` (one process, torch imported once, coverage taken from the
verifier's own traces) vs the original workspace's way (per step, a `verify-step` process and a
`coverage` process that runs the models again at full size), on an 18-step VGG16 decomposition at its
real size (224x224, batch 1); the floor (the forward passes alone); and warm re-runs, with the original's
reference outputs cached (refactored files unchanged, then all edited).

    python bench/pipeline/run_bench.py [--work DIR] [--output bench/pipeline/results.json]

Both runs must give identical verdicts. Writes results.json and prints the markdown table for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_vgg_decomposition import build  # noqa: E402


def _env(cache: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"  # the machine is shared: one thread each, for both contenders
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if cache is None:
        env["HDECOMP_CACHE"] = "0"        # the original scripts keep no reference outputs
    else:
        env["HDECOMP_CACHE_DIR"] = str(cache)
    return env


def run_pipeline(root: Path, cache: Path) -> tuple[float, dict]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "hdecomp", "pipeline", str(root), "--json"], env=_env(cache),
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"pipeline failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    summary = json.loads((root / "verification" / "step_verification_summary.json").read_text())
    return wall, summary


def _steps_timings(root: Path) -> dict[str, float]:
    """The verifier's own clock, summed over the steps' verification_result.json."""
    total: dict[str, float] = {}
    for f in (root / "steps").glob("*/verification_result.json"):
        for k, v in json.loads(f.read_text()).get("timings", {}).items():
            total[k] = total.get(k, 0.0) + float(v)
    return {k: round(v, 2) for k, v in sorted(total.items())}


def _edit_refactored(root: Path) -> int:
    """An edit of every step's refactored.py that keeps its meaning (what a user's edit-and-re-verify
    loop looks like to the cache: new content)."""
    files = sorted((root / "steps").glob("*/refactored.py"))
    for f in files:
        f.write_text(f.read_text() + "\n# edited after the first verification\n")
    return len(files)


def run_per_step(root: Path) -> tuple[float, dict[str, str], dict[str, float]]:
    """The original scripts' way: two fresh processes per step (verify_step.py, extract_ops.py)."""
    verdicts: dict[str, str] = {}
    parts = {"verify_processes": 0.0, "coverage_processes": 0.0}
    t0 = time.perf_counter()
    for step in sorted((root / "steps").iterdir(), key=lambda p: (int(p.name.split("_")[1]), p.name)):
        t1 = time.perf_counter()
        cmd = [sys.executable, "-m", "hdecomp", "verify-step", "--original", str(step / "original.py"),
               "--refactored", str(step / "refactored.py"), "--output", str(step / "verification_result.json"),
               "-q"]
        if (step / "weight_map.json").exists():
            cmd += ["--weight-map", str(step / "weight_map.json")]
        proc = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
        verdicts[step.name] = {0: "PASS", 1: "FAIL"}.get(proc.returncode, "ERROR")
        t2 = time.perf_counter()
        children = sorted(str(p) for p in (step / "children").glob("*.py"))
        subprocess.run([sys.executable, "-m", "hdecomp", "coverage", "--model", str(step / "original.py"),
                        "--decomp-dir", str(step), "--children", *children, "--full-size",
                        "--output", str(step / "coverage_report.json")], env=_env(), capture_output=True, text=True)
        t3 = time.perf_counter()
        parts["verify_processes"] += t2 - t1
        parts["coverage_processes"] += t3 - t2
    return time.perf_counter() - t0, verdicts, parts


def import_cost() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, hdecomp.verify.step"], env=_env(), check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=None, help="where to generate the decomposition (default: a temp dir)")
    ap.add_argument("--output", type=Path, default=HERE / "results.json")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="hdecomp_bench_pipeline_"))
    a, b = work / "vgg16_pipeline", work / "vgg16_per_step"
    caches = [work / "cache_1", work / "cache_2"]
    for d in (a, b, *caches):
        if d.exists():
            shutil.rmtree(d)
    info = build(a)
    shutil.copytree(a, b)

    imp = import_cost()
    # cold pipeline runs (empty reference cache) before and after the per-step run: the machine is shared,
    # so load drifts; the mean of the two is compared (both are reported)
    t_pipe1, summary = run_pipeline(a, caches[0])
    cold_timings = _steps_timings(a)
    t_base, base_verdicts, parts = run_per_step(b)
    t_pipe2, summary2 = run_pipeline(a, caches[1])
    if summary2["timings"]["total_seconds"] < summary["timings"]["total_seconds"]:
        summary, cold_timings = summary2, _steps_timings(a)  # the breakdown of the less disturbed run
    t_pipe = (t_pipe1 + t_pipe2) / 2
    # warm re-runs: the reference outputs cached by the second cold run; refactored files unchanged, then
    # every refactored.py edited
    t_warm, warm_summary = run_pipeline(a, caches[1])
    warm_timings = _steps_timings(a)
    edited = _edit_refactored(a)
    t_edit, edit_summary = run_pipeline(a, caches[1])
    pipe_verdicts = {s["step_name"]: s["verification_status"] for s in summary["steps"]}
    warm_verdicts = {s["step_name"]: s["verification_status"] for s in warm_summary["steps"]}
    edit_verdicts = {s["step_name"]: s["verification_status"] for s in edit_summary["steps"]}
    same = pipe_verdicts == base_verdicts == warm_verdicts == edit_verdicts
    timings = summary["timings"]
    forwards = timings["forward_seconds"]
    result = {
        "model": "VGG16 (138 M parameters), input 1x3x224x224, fp32, CPU",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), OMP_NUM_THREADS=1, "
                   f"python {platform.python_version()}",
        "decomposition": info,
        "steps": len(pipe_verdicts),
        "verdicts_identical": same,
        "verdicts": pipe_verdicts,
        "per_step_verdicts": base_verdicts,
        "pipeline_seconds": round(t_pipe, 2),
        "pipeline_runs_seconds": [round(t_pipe1, 2), round(t_pipe2, 2)],
        "load_average_1min_at_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "per_step_processes_seconds": round(t_base, 2),
        "speedup": round(t_base / t_pipe, 2),
        "ratio_to_per_step": round(t_pipe / t_base, 3),
        "per_step_breakdown": {k: round(v, 2) for k, v in parts.items()},
        "process_start_import_seconds": round(imp, 2),
        "pipeline_breakdown": {
            "in_process_total": timings["total_seconds"],
            "forward_passes": forwards,
            "forward_calls": timings["forward_calls"],
            "verify": timings["verify_seconds"],
            "coverage_reports": timings["coverage_seconds"],
            "other_in_process": round(timings["total_seconds"] - forwards, 2),
            "startup_and_import": round(t_pipe - timings["total_seconds"], 2),
            "verifier_clock": cold_timings,
        },
        "floor": {"forward_passes_seconds": forwards,
                  "pipeline_over_forwards": round(t_pipe / forwards, 2) if forwards else None,
                  "in_process_over_forwards": round(timings["total_seconds"] / forwards, 2) if forwards else None,
                  "forward_share_of_pipeline": round(forwards / t_pipe, 3)},
        "warm": {"unchanged_seconds": round(t_warm, 2), "unchanged_ratio": round(t_warm / t_pipe, 3),
                 "edited_seconds": round(t_edit, 2), "edited_ratio": round(t_edit / t_pipe, 3),
                 "refactored_files_edited": edited,
                 "forward_passes_seconds": warm_summary["timings"]["forward_seconds"],
                 "verifier_clock": warm_timings},
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    if not same:
        raise SystemExit("verdicts differ between the runs")


def table(r: dict) -> str:
    p = r["pipeline_breakdown"]
    rows = [
        "| VGG16 at real size (224x224, batch 1), 18 steps | time |",
        "| --- | --- |",
        f"| per step: `verify-step` + full-size `coverage`, one process each (original scripts' way) | "
        f"{r['per_step_processes_seconds']:.1f} s |",
        f"| `hdecomp pipeline` (one process; mean of a run before and after: "
        f"{r['pipeline_runs_seconds'][0]:.0f} s, {r['pipeline_runs_seconds'][1]:.0f} s) | {r['pipeline_seconds']:.1f} s |",
        f"| speed-up | **{r['speedup']:.1f}x** (verdicts identical: {r['verdicts_identical']}) |",
        f"| pipeline: forward passes (all trials, both models) | {p['forward_passes']:.1f} s "
        f"({p['forward_calls']} calls) |",
        f"| pipeline: everything else in process (loading, building 138 M-param models, weight copy and "
        f"re-randomisation, comparison, anti-cheat, coverage bookkeeping) | {p['other_in_process']:.1f} s |",
        f"| pipeline: interpreter start + torch import (once) | {p['startup_and_import']:.1f} s |",
        f"| floor: the forward passes alone, share of the pipeline's time | "
        f"{r['floor']['forward_passes_seconds']:.1f} s, {100 * r['floor']['forward_share_of_pipeline']:.0f} % "
        f"(pipeline = {r['floor']['pipeline_over_forwards']:.2f}x its forwards; in process "
        f"{r['floor']['in_process_over_forwards']:.2f}x) |",
        f"| warm re-run, reference outputs cached, refactored files unchanged | {r['warm']['unchanged_seconds']:.1f} s "
        f"(**{r['warm']['unchanged_ratio']:.2f}x** the cold run) |",
        f"| warm re-run after editing all {r['warm']['refactored_files_edited']} refactored.py | "
        f"{r['warm']['edited_seconds']:.1f} s (**{r['warm']['edited_ratio']:.2f}x** the cold run) |",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    main()
