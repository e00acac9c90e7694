"""What every command shares: the run options of the commands that run models, and the
one JSON emitter (`--json`: NaN-safe, indent 2, on stdout)."""

from __future__ import annotations

import argparse
from typing import Any

from hdecomp.formats.jsonio import dumps_json


def run_options(p: argparse.ArgumentParser, *, trials: bool = True, num_trials: int = 3) -> None:
    """Options shared by every command that runs models."""
    p.add_argument("--device", default="cpu", help="torch device to run on (cpu, cuda, cuda:1, mps)")
    p.add_argument("--batch-limit", type=int, default=None, metavar="N",
                   help="cut the inputs' leading (batch) dimension to N; recorded in the results")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="give up on a model that runs longer than this (per build / forward)")
    if trials:
        p.add_argument("--num-trials", type=int, default=num_trials,
                       help=f"random input trials (default {num_trials})")
        p.add_argument("--rtol", type=float, default=None, help="relative tolerance (default: by dtype)")
        p.add_argument("--atol", type=float, default=None, help="absolute tolerance (default: by dtype)")
        p.add_argument("--no-cache", action="store_true",
                       help="run the original's side of every trial, even when the reference cache holds it "
                            "(HDECOMP_CACHE=0 does the same; the cache: HDECOMP_CACHE_DIR, ~/.cache/hdecomp)")


def emit_json(data: Any) -> None:
    """The one `--json` output of every command: the document alone on stdout."""
    print(dumps_json(data))
