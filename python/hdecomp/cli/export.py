"""`hdecomp export DIR... -o PROBLEMS/`: the unique kernels (and fusions) of decompositions as a KernelBench
problem set."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json

HELP = ("export the unique kernels (with --fusions, fusions too) of one or more decompositions as KernelBench "
        "problems (+ manifest.json)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dirs", nargs="+", metavar="DIR", help="decomposition output folders")
    p.add_argument("-o", "--output", required=True, help="the problem folder to write")
    p.add_argument("--fusions", action="store_true",
                   help="one problem per unique fusion workload too (a fusion that imports other files of its "
                        "decomposition gets their code inlined, or is skipped, with the reason, where that "
                        "cannot be done exactly)")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from hdecomp.toolchain.export import MANIFEST, export_problems

    manifest = export_problems(args.dirs, args.output, fusions=args.fusions)
    if getattr(args, "json", False):
        emit_json(manifest)
        return 0
    problems = manifest["problems"]
    shared = sum(1 for p in problems if len({u["decomposition"] for u in p["uses"]}) > 1)
    fusions = sum(1 for p in problems if p["level"] == "fusion")
    kinds = f" ({len(problems) - fusions} kernels, {fusions} fusions)" if args.fusions else ""
    print(f"{len(problems)} problems{kinds} from {len(manifest['sources'])} decompositions ({shared} shared by "
          f"several) -> {args.output}/ ({MANIFEST})")
    for s in manifest.get("skipped", []):
        print(f"skipped the {s['level']} {s['node']} ({s['decomposition']}/{s['path']}): {s['reason']}")
    return 0
