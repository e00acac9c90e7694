#!/usr/bin/env bash
# The whole test suite: lint, types, Python tests (library + language server).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check python server test bench
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
