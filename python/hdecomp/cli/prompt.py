"""`hdecomp prompt MODEL.py`: the filled-in agent prompt."""

from __future__ import annotations

import argparse

HELP = "print the filled-in agent prompt for a model"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the model file")
    p.add_argument("-o", "--output", default=None, help="the decomposition's output folder for the agent")
    p.add_argument("--write", default=None, metavar="FILE", help="write the prompt to FILE instead of stdout")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from hdecomp.errors import HdecompError
    from hdecomp.formats.jsonio import write_text_atomic
    from hdecomp.toolchain.prompt import build_prompt

    prompt = build_prompt(args.model, getattr(args, "output", None))
    target = getattr(args, "write", None)
    if target:
        try:
            path = write_text_atomic(Path(target), prompt.text)
        except IsADirectoryError:
            raise HdecompError("is a folder: --write takes a file name", target) from None
        except OSError as exc:
            raise HdecompError(f"cannot write the prompt: {exc.strerror or exc}", target) from None
        print(f"prompt for {prompt.model.name} written to {path} (output folder {prompt.output_dir}/)",
              file=sys.stderr)
    else:
        sys.stdout.write(prompt.text)
    return 0
