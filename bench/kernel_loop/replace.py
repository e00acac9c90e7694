"""The kernel engineer's loop, step two: one replacement put in a real decomposition with `hdecomp replace`
(proved against the kernel, the reward hacks refused, every step above it and the composition re-verified,
kernel and model timed before and after in the same run). Writes results/<model>__<kernel>.json (the
replacement result, paths relative to the tree) and prints a markdown row.

    OMP_NUM_THREADS=1 .venv/bin/python bench/kernel_loop/replace.py DIR KERNEL_FILE NEW.py [--batch-limit 1] [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))


def row(data: dict) -> str:
    t = data["timing"] or {}
    checks = sum(1 for c in data["checks"] if c["status"] == "PASS")
    return (f"| {Path(data['decomposition']).name} | {data['kernel']['id']} | {data['kernel']['instances']} | "
            f"{Path(data['replacement']['path']).name} | {data['status']} ({checks}/{len(data['checks'])} checks, "
            f"{len(data['steps'])} steps) | {t.get('kernel_seconds', 0) * 1e3:.3f} -> "
            f"{t.get('replacement_seconds', 0) * 1e3:.3f} | {t.get('speedup') or 0:.2f}x | "
            f"{(t.get('model_seconds_before') or 0) * 1e3:.1f} -> {(t.get('model_seconds_after') or 0) * 1e3:.1f} | "
            f"{t.get('model_speedup') or 0:.3f}x | {t.get('speed_of_light_seconds', 0) * 1e3:.3f} |")


def main() -> None:
    from hdecomp.toolchain.replace import ReplaceOptions, replace_kernel
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("kernel")
    ap.add_argument("new")
    ap.add_argument("--batch-limit", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    result = replace_kernel(args.dir, args.kernel, args.new, ReplaceOptions(batch_limit=args.batch_limit, runs=args.runs),
                            progress=lambda m: print(f"... {m}", file=sys.stderr))
    data = dict(result.data)
    data["decomposition"] = Path(args.dir).name
    data["replacement"] = {**data["replacement"], "source": Path(data["replacement"]["source"]).name}
    out = HERE / "results" / f"{Path(args.dir).name}__{data['kernel']['id']}.json"
    out.write_text(json.dumps(data, indent=2) + "\n")
    print("| model | kernel | instances | replacement | verdict | kernel ms | speedup | model ms | model speedup | floor here ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print(row(data))
    sys.exit(result.exit_code)


if __name__ == "__main__":
    main()
