"""`hdecomp validate DIR [--quality]`: the output tree against the schemas and rules (0 valid, 1 problems
found, 2 DIR is not a decomposition), or with --quality the lint against what an expert would draw."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hdecomp.cli.common import emit_json

if TYPE_CHECKING:
    from hdecomp.toolchain.quality import QualityReport
    from hdecomp.toolchain.validate import ValidationReport

HELP = "check a whole output tree against the schemas and rules"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--quality", action="store_true",
                   help="lint the tree against what an expert would draw instead (rules Q1-Q10: fusable fusions, "
                        "names by role, kernels that take tensors and own their weights, one file per workload, "
                        "no constant kernels, levels by size, named inputs, no fallback names where a role "
                        "matches, one file per repeated fusion or layer, no plumbing kernels); exit 1 on findings")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    if args.quality:
        from hdecomp.toolchain.quality import check_quality
        quality = check_quality(args.dir)
        if args.json:
            emit_json(quality.to_dict())
        else:
            print_quality(quality)
        return quality.exit_code
    from hdecomp.toolchain.validate import validate_decomposition
    report = validate_decomposition(args.dir)
    if args.json:
        emit_json(report.to_dict())
    else:
        print_report(report)
    return report.exit_code


def print_report(report: ValidationReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 140)  # logs and pipes: do not fold paths at 80 columns
    if report.problems:
        table = Table(title=f"hdecomp validate {report.root}", show_lines=False)
        table.add_column("file", style="cyan", overflow="fold")
        table.add_column("check")
        table.add_column("problem", overflow="fold")
        for p in report.problems:
            style = "red" if p.severity == "error" else "yellow"
            table.add_row(p.location, p.check, f"[{style}]{'' if p.severity == 'error' else 'warning: '}"
                          f"[/{style}]{_escape(p.message)}")
        console.print(table)
    counts = (f"{report.nodes} nodes, {report.steps} steps, {report.kernels} kernel files, "
              f"{report.json_files} JSON files")
    if report.errors:
        console.print(f"[bold red]FAIL[/] {len(report.errors)} problem(s), {len(report.warnings)} warning(s) "
                      f"({counts})")
    else:
        console.print(f"[bold green]PASS[/] {report.root} is a valid decomposition ({counts}"
                      + (f"; {len(report.warnings)} warning(s)" if report.warnings else "") + ")")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_quality(report: QualityReport) -> None:
    from rich.console import Console
    from rich.markup import escape

    from hdecomp.toolchain.quality import RULES
    console = Console(highlight=False, soft_wrap=True)
    if not report.findings:
        console.print(f"[green]PASS[/green] quality: no findings in {report.components} components ({report.root})")
        return
    for f in report.findings:
        console.print(f"[bold]{f.rule}[/bold] {f.level:6} {escape(f.file or f.node)}: {escape(f.message)}")
    totals = ", ".join(f"{rule} {RULES[rule]}: {sum(c.values())}" for rule, c in sorted(report.totals().items()))
    n = len(report.findings)
    console.print(f"[red]FAIL[/red] quality: {n} finding{'s' if n != 1 else ''} in {report.components} components "
                  f"({totals})")
