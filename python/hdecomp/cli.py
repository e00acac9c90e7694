"""Command line: argument parsing and exit codes only (0 PASS, 1 FAIL, 2 ERROR).

Each sub-command's work lives in its own module, imported lazily so that `hdecomp --help` and the
pure-source commands stay fast (torch is imported only by the commands that run models).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from hdecomp import __version__
from hdecomp.errors import HdecompError

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2

# command -> (module, function); the function takes the parsed args and returns the exit code.
HANDLERS: dict[str, tuple[str, str]] = {
    "verify-step": ("hdecomp.verify.step", "cli_verify_step"),
    "check": ("hdecomp.anticheat.static", "cli_check"),
    "coverage": ("hdecomp.toolchain.coverage", "cli_coverage"),
    "pipeline": ("hdecomp.toolchain.pipeline", "cli_pipeline"),
    "test": ("hdecomp.toolchain.selftest", "cli_test"),
    "batch": ("hdecomp.toolchain.batch", "cli_batch"),
    "compose": ("hdecomp.toolchain.compose", "cli_compose"),
    "decompose": ("hdecomp.decompose.driver", "cli_decompose"),
    "prompt": ("hdecomp.toolchain.prompt", "cli_prompt"),
    "extract": ("hdecomp.refactor.cli", "cli_extract"),
    "validate": ("hdecomp.toolchain.validate", "cli_validate"),
}


def _run_options(p: argparse.ArgumentParser, *, trials: bool = True) -> None:
    """Options shared by every command that runs models."""
    p.add_argument("--device", default="cpu", help="torch device to run on (cpu, cuda, cuda:1, mps)")
    p.add_argument("--batch-limit", type=int, default=None, metavar="N",
                   help="cut the inputs' leading (batch) dimension to N; recorded in the results")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="give up on a model that runs longer than this (per build / forward)")
    if trials:
        p.add_argument("--num-trials", type=int, default=3, help="random input trials (default 3)")
        p.add_argument("--rtol", type=float, default=None, help="relative tolerance (default: by dtype)")
        p.add_argument("--atol", type=float, default=None, help="absolute tolerance (default: by dtype)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hdecomp",
        description="Break PyTorch models down (model -> layer -> fusion -> kernel) into verified "
                    "unit-test files. Exit codes: 0 PASS, 1 FAIL, 2 ERROR.")
    parser.add_argument("--version", action="version", version=f"hdecomp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("verify-step", help="verify one decomposition step (anti-cheat + weights + numerics)")
    p.add_argument("--original", required=True, help="the parent component file (original.py)")
    p.add_argument("--refactored", required=True, help="the parent rewritten to call children (refactored.py)")
    p.add_argument("--weight-map", default=None, help="explicit weight_map.json {original_key: refactored_key}")
    p.add_argument("--output", default=None, help="where to write verification_result.json")
    p.add_argument("--skip-anticheat", action="store_true", help="skip the anti-cheat checks (not recommended)")
    p.add_argument("--no-randomized-trial", action="store_true",
                   help="skip the extra trial with re-randomised parameters and buffers")
    _run_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the verdict line")

    p = sub.add_parser("check", help="static anti-cheat check of refactored files (no torch, no code run)")
    p.add_argument("files", nargs="+", help="refactored.py files")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("coverage", help="op inventory of the original vs the decomposition's kernel files")
    p.add_argument("--model", required=True, help="the original model file")
    p.add_argument("--decomp-dir", required=True, help="the decomposition's output folder")
    p.add_argument("--output", default=None, help="where to write coverage_summary.json")
    p.add_argument("--children", nargs="*", default=None, help="explicit kernel files instead of level_0_kernel/")
    p.add_argument("--full-size", action="store_true",
                   help="record every component at full input size (default: batch 1 when that is exact)")
    p.add_argument("--meta", action="store_true",
                   help="record on meta tensors (no data; falls back to real inputs when the model needs data)")
    _run_options(p, trials=False)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("pipeline", help="re-verify every step of a decomposition")
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--no-coverage", action="store_true", help="skip the per-step coverage reports")
    _run_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("test", help="run every component's self-test, each in its own subprocess")
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per self-test (default 300)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="self-tests to run at once")
    p.add_argument("--batch-limit", type=int, default=None, metavar="N",
                   help="run each file with its module-level batch_size lowered to N (the file is not changed)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("batch", help="test many decompositions under ROOT, with a summary table")
    p.add_argument("root", nargs="?", default="output", help="folder holding decompositions (default: output)")
    p.add_argument("--level", default=None, help="only decompositions under this level folder (e.g. level2)")
    p.add_argument("--output", default=None, help="where to write the JSON results (default ROOT/batch_results.json)")
    p.add_argument("--jobs", "-j", type=int, default=1, help="self-tests to run at once")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per self-test (default 300)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("compose", help="write and run verification/composition_test.py (kernel files only)")
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--no-run", action="store_true", help="only write the composition test")
    _run_options(p, trials=False)
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("decompose", help="automatic, verified decomposition of a model file (no LLM)")
    p.add_argument("model", help="the model file (KernelBench convention)")
    p.add_argument("-o", "--output", default=None,
                   help="output root: the decomposition goes to OUTPUT/<model stem>/ (default: the folder "
                        "`hdecomp prompt` names, output/<levelN or examples>/<model stem>/)")
    p.add_argument("--max-depth", type=int, default=None, help="stop descending after this many levels")
    p.add_argument("--name", default=None, help="model name (default: the file's stem)")
    _run_options(p)
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("extract", help="move statements of forward() into a new child component file")
    p.add_argument("file", help="the refactored.py (or component) file")
    p.add_argument("select", help="lines FIRST-LAST (1-based), or L:C-L:C for one expression")
    p.add_argument("--name", default=None, help="the child's name (default: from the ops it calls)")
    p.add_argument("--op", default=None, help="extract the compute op at SELECT into a kernel child named after it")
    p.add_argument("--dry-run", action="store_true", help="show what would be written, write nothing")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    p = sub.add_parser("prompt", help="print the filled-in agent prompt for a model")
    p.add_argument("model", help="the model file")
    p.add_argument("-o", "--output", default=None, help="the decomposition's output folder for the agent")
    p.add_argument("--write", default=None, metavar="FILE", help="write the prompt to FILE instead of stdout")

    p = sub.add_parser("validate", help="check a whole output tree against the schemas and rules")
    p.add_argument("dir", help="the decomposition's output folder")
    p.add_argument("--quality", action="store_true",
                   help="lint the tree against what an expert would draw instead (rules Q1-Q7: fusable fusions, "
                        "names by role, kernels that take tensors and own their weights, one file per workload, "
                        "no constant kernels, levels by size, named inputs); exit 1 on findings")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_ERROR
    module_name, func_name = HANDLERS[args.command]
    try:
        handler = getattr(importlib.import_module(module_name), func_name)
        return int(handler(args))
    except HdecompError as exc:
        print(f"ERROR: {exc.headline}", file=sys.stderr)
        if exc.details and getattr(args, "verbose", False):
            print(exc.details, file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # `hdecomp ... | head`: the reader left; no traceback
        try:
            sys.stdout = open(os.devnull, "w")  # keeps the interpreter's final flush quiet
        except OSError:
            pass
        return 141
    except OSError as exc:  # a file the command had to write or read (e.g. --output is a folder)
        target = exc.filename2 if exc.filename2 is not None else exc.filename
        where = f"{target}: " if target is not None else ""
        print(f"ERROR: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
