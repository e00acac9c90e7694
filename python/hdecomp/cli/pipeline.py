"""`hdecomp pipeline DIR`: every step of a decomposition verified again."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hdecomp.cli.common import emit_json, run_options

if TYPE_CHECKING:
    from hdecomp.toolchain.pipeline import PipelineResult

HELP = "re-verify every step of a decomposition"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--no-coverage", action="store_true", help="skip the per-step coverage reports")
    p.add_argument("--with-replacements", action="store_true",
                   help="verify each step holding a replaced kernel (hdecomp replace) composed, with the "
                        "replacement in place")
    run_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console

    from hdecomp.formats.layout import batch_limit_note
    from hdecomp.toolchain.pipeline import KERNEL_ROOT_REASON, options_from_args, run_pipeline

    console = Console(stderr=True)
    note = batch_limit_note(args.dir, getattr(args, "batch_limit", None))
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    result = run_pipeline(args.dir, options_from_args(args), coverage=not getattr(args, "no_coverage", False),
                          console=console, progress=True, verbose=args.verbose,
                          with_replacements=args.with_replacements)
    if getattr(args, "json", False):
        emit_json(result.to_dict())
    else:
        print_summary(Console(), result)
    err_stream = sys.stderr if getattr(args, "json", False) else sys.stdout  # keep --json output parseable
    for o in result.steps:
        if o.status == "ERROR" and not args.verbose:
            print(f"ERROR: {o.error}", file=err_stream)
    if result.status == "NO_STEPS":
        print(f"NO_STEPS: {KERNEL_ROOT_REASON}", file=err_stream)
    elif not result.steps:
        print(f"ERROR: {result.problems[-1] if result.problems else 'no steps'}", file=err_stream)
    return result.exit_code


def print_summary(console: Any, result: PipelineResult) -> None:
    from rich.table import Table

    from hdecomp.toolchain.pipeline import STATUS_STYLE
    table = Table(title=f"Steps of {result.root}")
    for col in ("step", "status", "max diff", "coverage", "detail"):
        table.add_column(col)
    for o in result.steps:
        detail = o.error if o.status == "ERROR" else (o.fail_reason or "")
        table.add_row(o.step.dir.name, f"[{STATUS_STYLE[o.status]}]{o.status}[/]",
                      f"{o.max_diff:.3g}" if o.max_diff is not None else "-",
                      f"{o.coverage_pct}%" if o.coverage_pct is not None else (o.coverage_status or "-"),
                      detail or "")
    console.print(table)
    for p in result.problems:
        console.print(f"[yellow]note:[/] {p}", highlight=False, soft_wrap=True)
    d = result.to_dict()
    t = d["timings"]
    console.print(f"{result.status}: {d['passed']} passed, {d['failed']} failed, {d['errors']} errors "
                  f"of {d['total_steps']} steps in {t['total_seconds']:.1f} s "
                  f"(forward passes {t['forward_seconds']:.1f} s)", highlight=False)
    if result.summary_file:
        console.print(f"summary: {result.summary_file}", highlight=False, soft_wrap=True)
