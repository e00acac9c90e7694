"""The kernel engineer's loop on real decompositions, step one: `hdecomp profile` of a tree, its top
components by share of the model's time, with FLOPs, bytes, arithmetic intensity, the measured time and
the speed-of-light floors (this machine, H100).

    OMP_NUM_THREADS=1 .venv/bin/python bench/kernel_loop/run.py DIR [DIR...] [--batch-limit 1] [--runs 10] [--top 12]

Writes results/<model>.json (the profile) and prints a markdown table per tree (also results/<model>.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))


def table(doc: dict, top: int) -> str:
    m = doc["model"]
    here = doc["device_specs"].get("this machine", {})
    lines = [f"{m['id']} on {doc['device']}"
             + (f" (batch limit {doc['batch_limit']})" if doc["batch_limit"] else "")
             + f": one forward {m['seconds'] * 1e3:.1f} ms; this machine's probe: "
             f"{here.get('fp32', 0) / 1e9:.0f} GFLOP/s fp32, {here.get('bandwidth', 0) / 1e9:.1f} GB/s", "",
             "| component | level | instances | share of model | time ms | GFLOP | MB | FLOP/B | floor here ms | floor H100 us |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in doc["components"][:top]:
        sol = c["speed_of_light_seconds"]
        ai = c["arithmetic_intensity"]
        lines.append(f"| {c['id']} | {c['level']} | {c['instances']} | {100 * c['share_of_model']:.1f} % | "
                     f"{c['seconds'] * 1e3:.3f} | {c['flops'] / 1e9:.3f} | {c['bytes'] / 1e6:.2f} | "
                     f"{ai:.1f} | {sol.get('this machine', 0) * 1e3:.3f} | {sol.get('H100', 0) * 1e6:.2f} |"
                     if ai is not None else f"| {c['id']} | {c['level']} | {c['instances']} | - | - | - | - | - | - | - |")
    return "\n".join(lines) + "\n"


def main() -> None:
    from hdecomp.toolchain.profile import profile_tree
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--batch-limit", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    for d in args.dirs:
        doc = profile_tree(d, device=args.device, batch_limit=args.batch_limit, warmup=args.warmup, runs=args.runs)
        name = doc["model"]["id"]
        # the tree's folder name and the plots' names, not this machine's paths to them
        doc["decomposition"] = d.name
        doc["plots"] = [f"verification/{Path(p).name}" for p in doc.get("plots", [])]
        (HERE / "results" / f"{name}.json").write_text(json.dumps(doc, indent=2) + "\n")
        text = table(doc, args.top)
        (HERE / "results" / f"{name}.md").write_text(text)
        print(text)


if __name__ == "__main__":
    main()
