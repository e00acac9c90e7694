"""`hdecomp verify-step`: one step proven (exit 0 PASS, 1 FAIL, 2 ERROR)."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "verify one decomposition step (anti-cheat + weights + numerics)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--original", required=True, help="the parent component file (original.py)")
    p.add_argument("--refactored", required=True, help="the parent rewritten to call children (refactored.py)")
    p.add_argument("--weight-map", default=None, help="explicit weight_map.json {original_key: refactored_key}")
    p.add_argument("--output", default=None, help="where to write verification_result.json")
    p.add_argument("--skip-anticheat", action="store_true", help="skip the anti-cheat checks (not recommended)")
    p.add_argument("--no-randomized-trial", action="store_true",
                   help="skip the extra trial with re-randomised parameters and buffers")
    run_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the verdict line")


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console

    from hdecomp.verify.report import print_report
    from hdecomp.verify.result import VerifyOptions
    from hdecomp.verify.step import verify_step


    options = VerifyOptions(rtol=args.rtol, atol=args.atol, num_trials=args.num_trials,
                            skip_anticheat=args.skip_anticheat, device=args.device, batch_limit=args.batch_limit,
                            timeout=args.timeout, weight_map=args.weight_map,
                            randomized_trial=not getattr(args, "no_randomized_trial", False),
                            reference_cache=not getattr(args, "no_cache", False))
    as_json = getattr(args, "json", False)
    result = verify_step(args.original, args.refactored, options, output=args.output)
    # The human report goes to stdout (stderr for ERROR, and when stdout carries JSON).
    stream = sys.stderr if (as_json or result.status == "ERROR") else sys.stdout
    console = Console(file=stream, highlight=False, soft_wrap=True)
    print_report(result, console, quiet=getattr(args, "quiet", False))
    if as_json:
        emit_json(result.to_dict())
    return result.exit_code
