"""The console report of a verification: the verdict line and the checks, for people."""

from __future__ import annotations

import math
from typing import Any

from hdecomp.verify.result import VerificationResult


def verdict_line(result: VerificationResult) -> str:
    """The first line printed: `PASS: refactored.py ...`, `FAIL: file:line: reason`, `ERROR: file:line: cause`."""
    if result.status == "ERROR":
        return f"ERROR: {result.error}"
    name = result.refactored_file
    trials = result.data.get("numerical_comparison", {}).get("num_trials", 0)
    rnd = " + randomized weights" if result.data.get("numerical_comparison", {}).get(
        "randomized_trial_pass") is not None else ""
    if result.status == "PASS":
        deg = " (degenerate output: see warning)" if result.degenerate else ""
        return f"PASS: {name}: max_diff={_fmt(result.max_diff)} over {trials} trial(s){rnd}{deg}"
    return f"FAIL: {result.data.get('fail_detail') or ', '.join(result.fail_reasons)}"


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if math.isinf(x) else ("nan" if math.isnan(x) else f"{x:.2e}")


def print_report(result: VerificationResult, console: Any, quiet: bool = False) -> None:
    """Concise human report: verdict line first, then what backs it."""
    from rich.markup import escape
    style = {"PASS": "bold green", "FAIL": "bold red"}.get(result.status, "bold magenta")
    console.print(f"[{style}]{escape(verdict_line(result))}[/]")
    if quiet:
        return
    d = result.data
    if result.status == "ERROR":
        det = d.get("error_details", {}).get("details")
        if det:
            console.print(escape(_short_traceback(det)), style="dim")
        return
    for v in result.violations[:12]:
        console.print(f"  [red]{escape(v.format())}[/]")
        if v.allowed_instead:
            console.print(f"    [dim]instead: {escape(v.allowed_instead)}[/]")
    if len(result.violations) > 12:
        console.print(f"  ... and {len(result.violations) - 12} more violation(s)")
    wt = d.get("weight_transfer", {})
    if wt.get("summary"):
        console.print(f"  weights: {escape(wt['summary'])}")
    for amb in wt.get("ambiguous", [])[:3]:
        console.print(f"    [yellow]ambiguous ({escape(amb['resolution'])}): {escape(', '.join(amb['original']))} "
                      f"-> {escape(', '.join(amb['refactored']))}[/]")
    nc = d.get("numerical_comparison", {})
    for t in nc.get("trials", []):
        verdict = "ok" if t["pass"] else "inconclusive (all NaN)" if t.get("inconclusive") else "MISMATCH"
        console.print(f"  trial {t['trial']} (seed {t['seed']}): {verdict} "
                      f"max_diff={_fmt(t['max_diff'])}")
    rt = d.get("randomized_trial", {})
    if "pass" in rt:
        console.print(f"  randomized weights: {'ok' if rt['pass'] else 'MISMATCH'} max_diff={_fmt(rt['max_diff'])}")
    if d.get("batch_size_override"):
        bo = d["batch_size_override"]
        console.print(f"  batch limited to {bo['to']} (module batch_size {bo['from']} lowered before get_inputs())")
    if d.get("batch_cuts"):
        console.print(f"  batch limited to {d['batch_limit']} ({len(d['batch_cuts'])} input(s) cut)")
    for w in result.warnings:
        console.print(f"  [yellow]warning: {escape(w)}[/]")
    if d.get("output_file"):
        console.print(f"  [dim]result: {escape(d['output_file'])}[/]")


def _short_traceback(details: str, lines: int = 8) -> str:
    rows = [r for r in details.strip().splitlines() if r.strip()]
    return "\n".join(rows[-lines:])


__all__ = ["print_report", "verdict_line"]
