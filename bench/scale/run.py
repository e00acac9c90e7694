"""Scale-out on Ray: the same 20 KernelBench problems (level 2, every 5th) decomposed through
`hdecomp.scale` on a real local Ray cluster with 1 and with 2 workers; wall time, speedup, per-model cost.

    OMP_NUM_THREADS=1 .venv/bin/python bench/scale/run.py [--kernelbench ../shared/kernelbench] [--workers 1 2]

Each task runs `hdecomp decompose --batch-limit 1 --no-self-tests` (the sweep's settings) with one torch
thread; the cluster has as many CPUs as the run's largest worker count. Writes results.json beside this file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "python"))


def main() -> int:
    from hdecomp.scale.many import decompose_many
    from hdecomp.scale.ray_cluster import RayExecutor, local_cluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench", default=str(REPO.parent / "shared" / "kernelbench"))
    ap.add_argument("--level", type=int, default=2)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--results", default=str(HERE / "results.json"))
    args = ap.parse_args()
    level = Path(args.kernelbench) / f"level{args.level}"
    files = sorted(level.glob("*.py"), key=lambda f: (int(f.name.split("_")[0]), f.name))[::args.every][:args.count]
    runs = []
    with local_cluster(max(args.workers)) as cluster:
        for workers in args.workers:
            out = Path(tempfile.mkdtemp(prefix=f"scale_{workers}_"))
            executor = RayExecutor(out / ".staging", address=cluster.address, workers=workers, model_root=level.resolve())
            t0 = time.perf_counter()
            try:
                res = decompose_many(files, out, executor, flags=["--batch-limit", "1", "--no-self-tests"],
                                     timeout=args.timeout, threads=1,
                                     on_result=lambda r, d, t, w=workers: print(f"[{w}] {d}/{t} {r.name}: {r.status} "
                                                                     f"{r.seconds:.1f}s", flush=True))
            finally:
                executor.close()
            wall = time.perf_counter() - t0
            per = [r.seconds for r in res.results]
            runs.append({"workers": workers, "wall_seconds": round(wall, 2), "models": len(res.results),
                         "passed": sum(r.status == "PASS" for r in res.results),
                         "statuses": {r.name: r.status for r in res.results},
                         "task_seconds_sum": round(sum(per), 2), "task_seconds_median": round(statistics.median(per), 2),
                         "task_seconds_max": round(max(per), 2), "out": str(out)})
            print(json.dumps({k: v for k, v in runs[-1].items() if k != "statuses"}), flush=True)
    base = runs[0]["wall_seconds"]
    for r in runs:
        r["speedup"] = round(base / r["wall_seconds"], 3)
    doc = {"kernelbench": f"level{args.level}, every {args.every}th, first {args.count}",
           "problems": [f.name for f in files], "settings": "--batch-limit 1 --no-self-tests, OMP_NUM_THREADS=1 per task",
           "machine": "2 cores, 24 GiB, no GPU", "runs": runs}
    Path(args.results).write_text(json.dumps(doc, indent=2) + "\n")
    for r in runs:
        print(f"| {r['workers']} | {r['models']} | {r['passed']} | {r['wall_seconds']} | {r['speedup']}x | "
              f"{r['task_seconds_median']} | {r['task_seconds_sum']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
