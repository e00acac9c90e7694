"""`hdecomp batch ROOT`: many decompositions tested at once, with a summary table."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hdecomp.cli.common import emit_json

if TYPE_CHECKING:
    from hdecomp.scale.many import Executor

HELP = "test many decompositions under ROOT, with a summary table"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("root", nargs="?", default="output", help="folder holding decompositions (default: output)")
    p.add_argument("--level", default=None, help="only decompositions under this level folder (e.g. level2)")
    p.add_argument("--output", default=None, help="where to write the JSON results (default ROOT/batch_results.json)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="self-tests to run at once")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per self-test (default 300)")
    p.add_argument("--executor", choices=("local", "ray"), default=None,
                   help="one task per decomposition, each `hdecomp batch TREE` in a process of its own: local "
                        "processes or a Ray cluster (the trees on a filesystem the workers see); default: one "
                        "after the other in this process")
    p.add_argument("--address", default="auto", help="the Ray cluster (as for decompose --address)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="trees at once (default: local 1, ray the cluster's CPUs)")
    p.add_argument("--tree-timeout", type=float, default=None, metavar="SECONDS",
                   help="with --executor: seconds per decomposition at most (its process group is stopped)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import contextlib
    import sys
    from pathlib import Path

    from rich.console import Console

    from hdecomp.errors import HdecompError
    from hdecomp.formats.jsonio import write_json_atomic
    from hdecomp.formats.tree import TREE_FILE
    from hdecomp.toolchain.batch import RESULTS_FILE, STATUS_STYLE, run_batch

    console = Console()
    root = Path(args.root)
    if not root.is_dir():
        raise HdecompError("folder not found", root)
    as_json = getattr(args, "json", False)
    # with --json, stdout carries the JSON document only: progress lines go to stderr
    progress = Console(stderr=True) if as_json else console
    executor: Executor | None = None
    if args.executor == "ray":
        from hdecomp.scale.ray_cluster import RayExecutor
        executor = RayExecutor(root / ".staging", address=args.address, workers=args.workers, shared_fs=True)
    elif args.executor == "local":
        from hdecomp.scale.local import LocalExecutor
        executor = LocalExecutor(root / ".staging", workers=args.workers or 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):   # stdout: the result alone (Ray's messages to stderr)
            report = run_batch(root, level=args.level, timeout=args.timeout, jobs=max(1, getattr(args, "jobs", 1)),
                               console=Console(stderr=True) if args.verbose else None, executor=executor,
                               tree_timeout=args.tree_timeout,
                               on_result=lambda status, path: progress.print(
                                   f"[{STATUS_STYLE[status]}]{status:8}[/] {path}", highlight=False))
    finally:
        if executor is not None:
            executor.close()
    if report["total"] == 0:  # nothing tested: say so first, and write nothing into a foreign folder
        where = f" under {args.level}/" if args.level else ""
        raise HdecompError(f"no decompositions{where} (folders with {TREE_FILE})", root)
    out = Path(getattr(args, "output", None) or root / RESULTS_FILE)
    write_json_atomic(out, report)
    if as_json:
        emit_json(report)
    else:
        print_table(console, report, verbose=args.verbose)
        console.print(f"results: {out}", highlight=False, soft_wrap=True)
    return 0 if report["failed"] == 0 else 1


def _styled(text: str, key: str) -> str:
    from hdecomp.toolchain.batch import STATUS_STYLE
    style = STATUS_STYLE.get(key)
    return f"[{style}]{text}[/]" if style else text


def print_table(console: Any, report: dict[str, Any], verbose: bool = False) -> None:
    from rich.table import Table
    table = Table(title=f"Decompositions under {report['root']}")
    for col in ("decomposition", "steps", "self-tests", "composition", "status"):
        table.add_column(col)
    for r in report["results"]:
        comp = r["composition_status"]
        diff = f" ({r['composition_max_diff']:.1e})" if r["composition_max_diff"] is not None else ""
        table.add_row(r["relative_path"] or r["model"],
                      _styled(f"{r['steps_passed']}/{r['steps_total']}", r["pipeline_status"]),
                      f"{r['components_passed']}/{r['components_tested']}",
                      _styled(comp, comp) + diff,
                      _styled(r["status"], r["status"]))
    console.print(table)
    for r in report["results"]:
        if r["errors"] and (verbose or r["status"] == "FAILED"):
            console.print(f"[bold]{r['relative_path'] or r['model']}[/]")
            shown = r["errors"] if verbose else r["errors"][:3]
            for e in shown:
                console.print(f"  {e}", highlight=False)
            if len(r["errors"]) > len(shown):
                console.print(f"  ... and {len(r['errors']) - len(shown)} more")
    console.print(f"total {report['total']}: {report['passed']} passed, {report['partial']} partial, "
                  f"{report['failed']} failed")
