"""Command line: argument parsing and exit codes only (0 PASS, 1 FAIL, 2 ERROR), one thin file per command.

Each command file (`cli/<command>.py`) holds its arguments (`add_arguments`), its help line and `run`;
the library it calls is imported inside `run`, so that `hdecomp --help` and the pure-source commands stay
fast (torch is imported only by the commands that run models).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from hdecomp import __version__
from hdecomp.errors import EXIT_ERROR, EXIT_FAIL, EXIT_PASS, HdecompError

# command -> the file that holds its arguments and `run`
COMMANDS: dict[str, str] = {
    "verify-step": "hdecomp.cli.verify_step",
    "check": "hdecomp.cli.check",
    "coverage": "hdecomp.cli.coverage",
    "pipeline": "hdecomp.cli.pipeline",
    "test": "hdecomp.cli.selftest",
    "batch": "hdecomp.cli.batch",
    "compose": "hdecomp.cli.compose",
    "decompose": "hdecomp.cli.decompose",
    "prompt": "hdecomp.cli.prompt",
    "extract": "hdecomp.cli.extract",
    "validate": "hdecomp.cli.validate",
    "profile": "hdecomp.cli.profile",
    "export": "hdecomp.cli.export",
    "replace": "hdecomp.cli.replace",
}
# command -> (module, function) that main() calls with the parsed args; it returns the exit code
HANDLERS: dict[str, tuple[str, str]] = {command: (module, "run") for command, module in COMMANDS.items()}

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_FAIL", "EXIT_PASS", "HANDLERS", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hdecomp",
        description="Break PyTorch models down (model -> layer -> fusion -> kernel) into verified "
                    "unit-test files. Exit codes: 0 PASS, 1 FAIL, 2 ERROR.")
    parser.add_argument("--version", action="version", version=f"hdecomp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        module.add_arguments(sub.add_parser(command, help=module.HELP))
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
