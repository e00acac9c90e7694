"""`hdecomp compose DIR`: the composition test (the whole model from kernel files only)."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "write and run verification/composition_test.py (kernel files only)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--no-run", action="store_true", help="only write the composition test")
    p.add_argument("--with-replacements", action="store_true",
                   help="with the tree's active kernel replacements (hdecomp replace) in place: writes "
                        "verification/composition_test_with_replacements.py")
    run_options(p, trials=False)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys

    from hdecomp.formats.layout import batch_limit_note
    from hdecomp.toolchain.compose import compose

    note = batch_limit_note(args.dir, args.batch_limit)
    if note:
        print(f"note: {note}", file=sys.stderr)
    result = compose(args.dir, run=not args.no_run, batch_limit=args.batch_limit, device=args.device,
                     timeout=args.timeout, with_replacements=args.with_replacements)
    as_json = getattr(args, "json", False)
    if as_json:
        emit_json(result.to_dict())
    # with --json, stdout carries the JSON document only; errors always go to stderr, first
    human = sys.stderr if as_json else sys.stdout
    if result.status == "ERROR":
        print(f"ERROR: {result.reason}", file=sys.stderr)
    for n in result.notes:
        print(f"note: {n}", file=sys.stderr)
    if result.status == "WRITTEN":
        print(f"wrote {result.script} ({len(result.steps)} steps, {len(result.kernels)} kernel files)", file=human)
    elif result.status != "ERROR":
        diff = f"{result.max_diff:.3e}" if isinstance(result.max_diff, (int, float)) else "n/a"
        print(f"{result.status}: composition of {len(result.steps)} steps from {len(result.kernels)} kernel "
              f"files, max diff {diff}" + (f" ({result.reason})" if result.reason else ""), file=human)
        print(f"script: {result.script}", file=human)
    return result.exit_code
