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


def _si(x: float | None) -> str:
    if x is None:
        return "-"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{prefix}"
    return f"{x:.0f}"


def run(args: argparse.Namespace) -> int:
    import sys

    from rich import box
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
    wide = console.width >= 120   # a narrow terminal gets the essential columns only
    table = Table(title=f"{model['id']}: {model['seconds'] * 1e3:.3f} ms per forward on {doc['device']}"
                        + (f", batch limit {doc['batch_limit']}" if doc["batch_limit"] else ""),
                  box=box.SIMPLE_HEAD, padding=(0, 1))
    cols = ["component", "lvl", "x", "share", "ms", "FLOP", "bytes"] + (["FLOP/B", "floor ms", "H100 floor us"]
                                                                        if wide else ["floor ms"])
    for col in cols:
        if col == "component":
            table.add_column(col, no_wrap=True, overflow="ellipsis", max_width=None if wide else 24)
        else:
            table.add_column(col, justify="left" if col == "lvl" else "right", no_wrap=True)
    for c in doc["components"]:
        sol = c["speed_of_light_seconds"]
        row = [c["id"], c["level"][0].upper(), str(c["instances"]), f"{100 * c['share_of_model']:.1f}%",
               f"{c['seconds'] * 1e3:.3f}", _si(c["flops"]), _si(c["bytes"])]
        here = f"{sol['this machine'] * 1e3:.3f}" if "this machine" in sol else "-"
        if wide:
            row += [f"{c['arithmetic_intensity']:.2f}" if c["arithmetic_intensity"] is not None else "-", here,
                    f"{sol['H100'] * 1e6:.2f}" if "H100" in sol else "-"]
        else:
            row.append(here)
        table.add_row(*row)
    console.print(table)
    print(f"profile: {args.dir}/verification/profile.json")
    return 0
