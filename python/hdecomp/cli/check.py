"""`hdecomp check FILE...`: the static anti-cheat check on its own (no torch, no code run), as text or
JSON."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from hdecomp.anticheat.rules import AntiCheatViolation
from hdecomp.cli.common import emit_json


def report_lines(path: str, violations: list[AntiCheatViolation]) -> Iterator[str]:
    for v in violations:
        yield f"{v.format()}  [{v.severity}]"
        if v.allowed_instead:
            yield f"    instead: {v.allowed_instead}"
        for r in v.related[:3]:
            yield f"    related: {r.file or path}:{r.range.line}:{r.range.col + 1}: {r.message}"


HELP = "static anti-cheat check of refactored files (no torch, no code run)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="refactored.py files")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from hdecomp.anticheat.static.api import UnreadableFileError, analyze_file, has_errors

    """`hdecomp check FILES... [--json]`: 0 clean, 1 any error-severity violation, 2 unreadable file."""
    results: dict[str, list[AntiCheatViolation]] = {}
    for name in args.files:
        try:
            results[name] = analyze_file(name)
        except UnreadableFileError as exc:
            print(f"ERROR: {exc.headline}", file=sys.stderr)
            return 2
    failed = any(has_errors(v) for v in results.values())
    if getattr(args, "json", False):
        payload = {
            "status": "FAIL" if failed else "PASS",
            "files": [{"file": name, "status": "FAIL" if has_errors(vs) else "PASS",
                       "violations": [v.to_dict() for v in vs]} for name, vs in results.items()],
        }
        emit_json(payload)
    else:
        for name, vs in results.items():
            for line in report_lines(name, vs):
                print(line)
            n_err = sum(v.severity == "error" for v in vs)
            n_warn = len(vs) - n_err
            print(f"{name}: {'FAIL' if n_err else 'PASS'} ({n_err} error(s), {n_warn} warning(s))")
    return 1 if failed else 0
