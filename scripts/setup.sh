#!/usr/bin/env bash
# Installs hdecomp into .venv with its zoo extra (torch 2.14.1 + torchvision 0.29.1, transformers, timm),
# its plots extra (matplotlib), its ray extra (the Ray executor; the tests start a local cluster) and its dev
# tools, and the extension's Node dependencies when npm is there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q "torch==2.14.1" "torchvision==0.29.1"
.venv/bin/python -m pip install -q -e ".[dev,zoo,plots,ray]"
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "setup: npm not found: the VS Code extension is not built (the Python tools are ready)" >&2
fi
