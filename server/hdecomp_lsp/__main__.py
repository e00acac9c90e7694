"""Entry point: `hdecomp-lsp` / `python -m hdecomp_lsp` (stdio)."""

from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hdecomp-lsp", description="hdecomp language server (stdio)")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--log-level", default="WARNING", help="server log level on stderr")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from hdecomp_lsp.app import build_server

    build_server().start_io()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
