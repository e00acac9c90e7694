"""Decomposition speed against the model's own forward: per model, the wall time of `hdecomp decompose`
(defaults: self-tests and composition test on, a cold reference cache), the time of one forward of the
model at the same size, and their ratio; the median and the worst over the set.

    OMP_NUM_THREADS=1 .venv/bin/python bench/decompose_speed/run.py --kernelbench ../shared/kernelbench \
        --level 3 --batch-limit 1 [--every K] [--only NAME...] [--results FILE]

Each decomposition runs in a fresh interpreter (`python -m hdecomp decompose`, as a user runs it; its
wall time includes the interpreter start and the torch import); each forward is timed in another one
(the model built and its inputs made under the same `--batch-limit` rule as the decomposer's: one warm-up,
then the median of 3). Writes the results JSON and prints the markdown table (also `table.md` next to it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

_FORWARD = """
import json, statistics, sys, time
import torch
from hdecomp.runtime.batch_limit import limited_inputs
from hdecomp.runtime.component import clone_nested, load_component
from hdecomp.runtime.settings import RunSettings
path, limit = sys.argv[1], (int(sys.argv[2]) if sys.argv[2] != "none" else None)
comp = load_component(path)
model = comp.build(batch_limit=limit)
args, kwargs = limited_inputs(comp, RunSettings(batch_limit=limit))
times = []
with torch.no_grad():
    for i in range(4):
        a, k = clone_nested(args), clone_nested(kwargs)
        t0 = time.perf_counter()
        model(*a, **k)
        times.append(time.perf_counter() - t0)
print("FORWARD " + json.dumps({"seconds": statistics.median(times[1:])}))
"""


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["HDECOMP_CACHE_DIR"] = str(cache)   # a cold cache: nothing from an earlier run
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "python"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def measure(model: Path, out: Path, limit: int | None, timeout: float) -> dict[str, Any]:
    res: dict[str, Any] = {"model": model.name}
    with tempfile.TemporaryDirectory(prefix="hdecomp-speed-cache-") as cache:
        env = _env(Path(cache))
        cmd = [sys.executable, "-m", "hdecomp", "decompose", str(model), "-o", str(out), "--json"]
        if limit is not None:
            cmd += ["--batch-limit", str(limit)]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO)
        except subprocess.TimeoutExpired:
            return {**res, "status": "TIMEOUT", "decompose_seconds": timeout}
        res["decompose_seconds"] = round(time.perf_counter() - t0, 2)
        try:
            summary = json.loads(proc.stdout)
            res["status"] = summary.get("status")
            res["steps"] = summary.get("steps")
        except ValueError:
            res["status"] = f"exit {proc.returncode}"
        fwd = subprocess.run([sys.executable, "-c", _FORWARD, str(model), str(limit) if limit else "none"],
                             env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO)
        line = next((ln for ln in fwd.stdout.splitlines() if ln.startswith("FORWARD ")), None)
        if line:
            res["forward_seconds"] = round(json.loads(line[8:])["seconds"], 4)
            res["ratio"] = round(res["decompose_seconds"] / max(res["forward_seconds"], 1e-6), 1)
    return res


def table(results: list[dict[str, Any]], title: str) -> str:
    ok = [r for r in results if "forward_seconds" in r]
    dec = [r["decompose_seconds"] for r in ok]
    lines = [f"{title}: {len(results)} models, "
             f"{sum(1 for r in results if r.get('status') == 'PASS')} fully decomposed (PASS)", "",
             "| | decomposition s | one forward s | ratio |", "| --- | --- | --- | --- |"]
    if ok:
        worst = max(ok, key=lambda r: r["decompose_seconds"])
        worst_ratio = max(ok, key=lambda r: r["ratio"])
        lines += [f"| median | {statistics.median(dec):.1f} | {statistics.median(r['forward_seconds'] for r in ok):.3f} "
                  f"| {statistics.median(r['ratio'] for r in ok):.0f} |",
                  f"| worst time ({worst['model']}) | {worst['decompose_seconds']:.1f} | "
                  f"{worst['forward_seconds']:.3f} | {worst['ratio']:.0f} |",
                  f"| worst ratio ({worst_ratio['model']}) | {worst_ratio['decompose_seconds']:.1f} | "
                  f"{worst_ratio['forward_seconds']:.3f} | {worst_ratio['ratio']:.0f} |"]
    lines += ["", "| model | status | steps | decomposition s | one forward s | ratio |",
              "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['model']} | {r.get('status')} | {r.get('steps', '')} | {r.get('decompose_seconds', '')} "
                     f"| {r.get('forward_seconds', '')} | {r.get('ratio', '')} |")
    return "\n".join(lines) + "\n"


def _number(name: str) -> int:
    head = name.split("_", 1)[0]
    return int(head) if head.isdigit() else 10**6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench", type=Path, default=REPO.parent / "shared" / "kernelbench")
    ap.add_argument("--level", type=int, default=3)
    ap.add_argument("--models", nargs="+", type=Path, default=None, help="model files instead of a level")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--batch-limit", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--out", type=Path, default=None, help="where the trees go (default: a temp folder)")
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    args = ap.parse_args()
    if args.models:
        models = list(args.models)
        title = "models"
    else:
        models = sorted((args.kernelbench / f"level{args.level}").glob("*.py"), key=lambda p: _number(p.name))
        models = models[::args.every]
        title = f"KernelBench level {args.level}" + (f", every {args.every}th" if args.every > 1 else "")
    if args.only:
        models = [m for m in models if any(m.name.startswith(o) for o in args.only)]
    out = args.out or Path(tempfile.mkdtemp(prefix="hdecomp-speed-"))
    results = []
    for m in models:
        r = measure(m, out, args.batch_limit, args.timeout)
        print(f"{r['model']}: {r.get('status')} {r.get('decompose_seconds')} s (forward {r.get('forward_seconds')} s)",
              flush=True)
        results.append(r)
    import torch
    doc = {"title": title, "batch_limit": args.batch_limit, "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
           "torch": torch.__version__, "cpu_count": os.cpu_count(), "results": results}
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(doc, indent=2) + "\n")
    text = table(results, title)
    (args.results.parent / "table.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
