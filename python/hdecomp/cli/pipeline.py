"""`hdecomp pipeline DIR`: every step of a decomposition verified again."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "re-verify every step of a decomposition"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--no-coverage", action="store_true", help="skip the per-step coverage reports")
    run_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console

    from hdecomp.formats.layout import batch_limit_note
    from hdecomp.toolchain.pipeline import KERNEL_ROOT_REASON, options_from_args, print_summary, run_pipeline

    console = Console(stderr=True)
    note = batch_limit_note(args.dir, getattr(args, "batch_limit", None))
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    result = run_pipeline(args.dir, options_from_args(args), coverage=not getattr(args, "no_coverage", False),
                          console=console, progress=True, verbose=args.verbose)
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
