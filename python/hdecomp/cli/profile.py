"""`hdecomp profile DIR`: FLOPs, bytes, time, share of the model's time and rooflines of every unique kernel
and fusion of a decomposition."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "profile every unique kernel and fusion: FLOPs, bytes, time, share of the model, rooflines"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--runs", type=int, default=10, help="timed runs per component (the median is kept; default 10)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    p.add_argument("--kernels-only", action="store_true", help="kernels only, no fusions")
    run_options(p, trials=False)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _si(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.2f} {prefix}{unit}"
    return f"{x:.0f} {unit}"


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console
    from rich.table import Table

    from hdecomp.toolchain.profile import profile_tree

    if args.runs < 1 or args.warmup < 0:
        print("ERROR: --runs must be at least 1 and --warmup at least 0", file=sys.stderr)
        return 2
    doc = profile_tree(args.dir, device=args.device, batch_limit=args.batch_limit, timeout=args.timeout,
                       warmup=args.warmup, runs=args.runs,
                       levels=("kernel",) if args.kernels_only else ("kernel", "fusion"))
    if getattr(args, "json", False):
        emit_json(doc)
        return 0
    console = Console()
    model = doc["model"]
    table = Table(title=f"{model['id']}: {model['seconds'] * 1e3:.3f} ms per forward on {doc['device']}"
                        + (f", batch limit {doc['batch_limit']}" if doc["batch_limit"] else ""))
    for col in ("component", "level", "x", "share", "time", "FLOPs", "bytes", "FLOP/B", "floor here", "floor H100"):
        table.add_column(col, justify="left" if col in ("component", "level") else "right")
    for c in doc["components"]:
        sol = c["speed_of_light_seconds"]
        table.add_row(c["id"], c["level"], str(c["instances"]), f"{100 * c['share_of_model']:.1f} %",
                      f"{c['seconds'] * 1e3:.3f} ms", _si(c["flops"], "FLOP"), _si(c["bytes"], "B"),
                      f"{c['arithmetic_intensity']:.2f}" if c["arithmetic_intensity"] is not None else "-",
                      f"{sol.get('this machine', 0) * 1e3:.3f} ms" if "this machine" in sol else "-",
                      f"{sol['H100'] * 1e6:.2f} us" if "H100" in sol else "-")
    console.print(table)
    print(f"profile: {args.dir}/verification/profile.json")
    return 0
