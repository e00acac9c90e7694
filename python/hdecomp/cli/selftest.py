"""`hdecomp test DIR`: every component's self-test, each in its own subprocess."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json

HELP = "run every component's self-test, each in its own subprocess"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per self-test (default 300)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="self-tests to run at once")
    p.add_argument("--batch-limit", type=int, default=None, metavar="N",
                   help="run each file with its module-level batch_size lowered to N (the file is not changed)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from hdecomp.errors import HdecompError
    from hdecomp.formats.layout import batch_limit_note, component_files
    from hdecomp.toolchain.selftest import RESULTS_FILE, STATUS_STYLE, SelfTestResult, run_self_tests

    root = Path(args.dir)
    if not root.is_dir():
        raise HdecompError("not a folder" if root.exists() else "decomposition folder not found", root)
    if args.timeout is not None and args.timeout <= 0:
        # every self-test would "time out" and overwrite a good test_results.json
        raise HdecompError(f"--timeout must be more than 0 seconds (got {args.timeout:g})")
    files = component_files(root)
    if not files:
        raise HdecompError("no component files in level_3_model/ .. level_0_kernel/", root)
    console = Console(stderr=True)
    note = batch_limit_note(root, getattr(args, "batch_limit", None))
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    with Progress(TextColumn("[bold]self-tests"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), console=console, transient=True) as bar:
        task = bar.add_task("", total=len(files))

        def done(r: SelfTestResult) -> None:
            bar.update(task, advance=1, description=r.file)
            if args.verbose or r.status != "PASS":
                bar.console.print(f"[{STATUS_STYLE[r.status]}]{r.status:7}[/] {r.file}"
                                  + (f"  {r.cause}" if r.cause else ""), highlight=False)

        report = run_self_tests(root, timeout=args.timeout, jobs=max(1, args.jobs), files=files, on_result=done,
                                batch_limit=getattr(args, "batch_limit", None))
    as_json = getattr(args, "json", False)
    if as_json:
        emit_json(report.to_dict())
    # with --json, stdout carries the JSON document only
    print(f"{report.status}: {report.passed}/{len(report.results)} self-tests passed "
          f"({root / 'verification' / RESULTS_FILE})", file=sys.stderr if as_json else sys.stdout)
    return report.exit_code
