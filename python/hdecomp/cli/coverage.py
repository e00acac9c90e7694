"""`hdecomp coverage`: the op inventory of the original against the kernel files."""

from __future__ import annotations

import argparse
from typing import Any

from hdecomp.cli.common import emit_json, run_options

HELP = "op inventory of the original vs the decomposition's kernel files"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="the original model file")
    p.add_argument("--decomp-dir", required=True, help="the decomposition's output folder")
    p.add_argument("--output", default=None, help="where to write coverage_summary.json")
    p.add_argument("--children", nargs="*", default=None, help="explicit kernel files instead of level_0_kernel/")
    p.add_argument("--full-size", action="store_true",
                   help="record every component at full input size (default: batch 1 when that is exact)")
    p.add_argument("--meta", action="store_true",
                   help="record on meta tensors (no data; falls back to real inputs when the model needs data)")
    run_options(p, trials=False)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from hdecomp.errors import HdecompError
    from hdecomp.toolchain.coverage import FULL, InputMode, check_model_source, compute_coverage

    model = Path(args.model)
    if not model.exists():
        raise HdecompError("model file not found", model)
    check_model_source(model)  # a wrong --model must not replace a good coverage_summary.json
    decomp = Path(args.decomp_dir)
    if not decomp.is_dir():
        raise HdecompError("not a folder" if decomp.exists() else "decomposition folder not found", decomp)
    mode: InputMode = "full" if getattr(args, "full_size", False) else (
        "meta" if getattr(args, "meta", False) else "auto")
    output = args.output
    if output is None and not args.children:  # the whole decomposition's report has a fixed home
        output = decomp / "verification" / "coverage_summary.json"
    report = compute_coverage(model, decomp, children=args.children, output=output,
                              device=args.device, timeout=args.timeout, input_mode=mode,
                              batch_limit=args.batch_limit)
    status = report["status"]
    if getattr(args, "json", False):
        emit_json(report)
    elif status != "ERROR" or report.get("coverage"):
        print_report(report)
    if status == "ERROR":
        print(f"ERROR: {report.get('error')}", file=sys.stderr)
        if report.get("output_file"):
            print(f"report: {report['output_file']}", file=sys.stderr)
        return 2
    return 0 if status == FULL else 1


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    console = Console()
    cov = report.get("coverage") or {}
    table = Table(title=f"Op coverage: {report['model_file']}")
    for col in ("op", "original", "decomposed", "status"):
        table.add_column(col, justify="right" if col in ("original", "decomposed") else "left")
    for d in cov.get("op_details", []):
        style = {"covered": "green", "missing": "red", "partial": "yellow"}.get(d["status"], "")
        table.add_row(d["op_type"], str(d["original_count"]), str(d["decomposed_count"]),
                      f"[{style}]{d['status']}[/]" if style else d["status"])
    console.print(table)
    for w in report.get("extraction_warnings", []):
        console.print(f"[yellow]warning:[/] {w}")
    for e in report.get("extraction_errors", []):
        console.print(f"[red]error:[/] {e}")
    if cov:
        console.print(f"original recorded with: {report.get('original_input_mode')}; "
                      f"{report['status']} ({cov['coverage_pct']}%)")
    if report.get("output_file"):
        console.print(f"report: {report['output_file']}", highlight=False, soft_wrap=True)
