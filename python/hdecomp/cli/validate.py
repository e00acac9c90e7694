"""`hdecomp validate DIR [--quality]`: the output tree against the schemas and rules (0 valid, 1 problems
found, 2 DIR is not a decomposition), or with --quality the lint against what an expert would draw."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json

HELP = "check a whole output tree against the schemas and rules"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--quality", action="store_true",
                   help="lint the tree against what an expert would draw instead (rules Q1-Q7: fusable fusions, "
                        "names by role, kernels that take tensors and own their weights, one file per workload, "
                        "no constant kernels, levels by size, named inputs); exit 1 on findings")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    if args.quality:
        from hdecomp.toolchain.quality import check_quality, print_quality
        quality = check_quality(args.dir)
        if args.json:
            emit_json(quality.to_dict())
        else:
            print_quality(quality)
        return quality.exit_code
    from hdecomp.toolchain.validate import print_report, validate_decomposition
    report = validate_decomposition(args.dir)
    if args.json:
        emit_json(report.to_dict())
    else:
        print_report(report)
    return report.exit_code
