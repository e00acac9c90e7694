#!/usr/bin/env bash
# The whole test suite: lint + types + tests of the library, the language server and the extension,
# then the extension end to end in a real VS Code (code-server + headless Chromium).
#   HDECOMP_SKIP_E2E=1 skips the end-to-end run (it installs code-server and Chromium on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff, mypy"
.venv/bin/ruff check python server test bench
.venv/bin/mypy
echo "== pytest (library + language server)"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
echo "== extension: eslint, unit tests"
npm run --silent lint
npm test --silent
if [ "${HDECOMP_SKIP_E2E:-0}" != 1 ]; then
  echo "== extension end to end (code-server + Chromium)"
  bash test/e2e/run.sh
fi
