"""`python -m hdecomp` -> the CLI."""

from hdecomp.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
