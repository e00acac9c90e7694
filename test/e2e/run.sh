#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code: code-server + headless Chromium + Playwright.
#
# Installs the tools (cached, test/e2e/setup.sh), builds and packages the extension (npm run package),
# installs the .vsix into a fresh code-server profile, serves a copy of test/e2e/fixture on 127.0.0.1 on a
# free port with the language server started from this repository's .venv/bin/python (written into the
# fixture's .vscode/settings.json as hdecomp.interpreter), drives it with Playwright (test/e2e/e2e.js),
# then stops code-server by its PID. Exits non-zero when anything fails.
#
#   usage: test/e2e/run.sh            (screenshots and logs -> test-results/e2e/)
#   env:   HDECOMP_E2E_CACHE   tool cache (default ~/.cache/hdecomp-e2e; keep it between CI runs)
#          HDECOMP_E2E_SKIP_BUILD=1   reuse dist/hdecomp.vsix
#          HDECOMP_E2E_KEEP=1         keep the temporary workspace and profile
#          HDECOMP_E2E_ATTEMPTS=3  tries per session before it counts as failed
#          HDECOMP_E2E_ONLY="trusted"  run only these sessions (trusted, untrusted, no-hdecomp)
#          HDECOMP_E2E_IMAGES=docs/images  where screenshots go (set it to refresh the README's pictures)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
RESULTS="$ROOT/test-results/e2e"
IMAGES="${HDECOMP_E2E_IMAGES:-$RESULTS/screenshots}"
case "$IMAGES" in /*) ;; *) IMAGES="$ROOT/$IMAGES" ;; esac
PYTHON="$ROOT/.venv/bin/python"
rm -rf "$RESULTS"
mkdir -p "$RESULTS" "$IMAGES"

log() { echo "[e2e $(date -u +%H:%M:%S)] $*"; }

[ -x "$PYTHON" ] || { echo "e2e: $PYTHON missing: run scripts/setup.sh first" >&2; exit 2; }
"$PYTHON" -c "import hdecomp, hdecomp_lsp" || { echo "e2e: hdecomp is not installed in $PYTHON" >&2; exit 2; }

log "tools"
CACHE="$(bash "$ROOT/test/e2e/setup.sh" | tail -n 1)"
NODE24="$CACHE/node/bin/node"
CODE_SERVER="$CACHE/code-server/node_modules/code-server/out/node/entry.js"
export HDECOMP_E2E_CACHE="$CACHE"

if [ "${HDECOMP_E2E_SKIP_BUILD:-0}" != 1 ] || [ ! -f dist/hdecomp.vsix ]; then
  log "build and package"
  [ -d node_modules/vscode-languageclient ] || npm ci --no-audit --no-fund >"$RESULTS/npm-ci.log" 2>&1 \
    || { cat "$RESULTS/npm-ci.log" >&2; exit 2; }
  npm run package >"$RESULTS/package.log" 2>&1 || { cat "$RESULTS/package.log" >&2; exit 2; }
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hdecomp-e2e.XXXXXX")"
SERVER_PID=""
cleanup() {
  local rc=$?
  stop_server
  if [ "${HDECOMP_E2E_KEEP:-0}" = 1 ]; then echo "e2e: kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT INT TERM

# One code-server session: a fresh profile (no state from earlier runs, the freshly packaged extension
# only) and a fresh copy of the fixture workspace; e2e.js runs the checks of MODE against it.
#   trusted:   workspace trust off (as the shared recipe), interpreter in the workspace settings
#   no-hdecomp: the interpreter setting names a Python without hdecomp
#   untrusted: workspace trust on and the folder left untrusted (restricted mode); the interpreter comes
#              from the user settings, since restricted mode ignores the workspace's hdecomp.interpreter
run_session() {
  local mode="$1" dir="$WORK/$1"
  local profile="$dir/profile" workspace="$dir/workspace" trust_flag=() trust_enabled=false
  mkdir -p "$profile/user-data/User" "$profile/extensions"
  cp -r "$ROOT/test/e2e/fixture" "$workspace"
  mkdir -p "$workspace/.vscode"
  local interpreter="$PYTHON"
  if [ "$mode" = no-hdecomp ]; then
    # an interpreter without hdecomp: the extension must say what to install
    python3 -m venv --without-pip "$dir/bare-venv"
    interpreter="$dir/bare-venv/bin/python"
  fi
  cat >"$workspace/.vscode/settings.json" <<JSON
{
  "hdecomp.interpreter": ["$interpreter"],
  "hdecomp.verify.numTrials": 2,
  "files.exclude": { "**/__pycache__": true }
}
JSON
  local user_interpreter=""
  if [ "$mode" != untrusted ]; then
    trust_flag=(--disable-workspace-trust)
  else
    trust_enabled=true
    user_interpreter="\"hdecomp.interpreter\": [\"$PYTHON\"],"
  fi
  cat >"$profile/user-data/User/settings.json" <<JSON
{
  $user_interpreter
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "editor.codeLens": true,
  "editor.minimap.enabled": false,
  "window.commandCenter": false,
  "security.workspace.trust.enabled": $trust_enabled,
  "security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.banner": "always"
}
JSON
  local flags=(--auth none --disable-telemetry --disable-update-check "${trust_flag[@]}"
               --user-data-dir "$profile/user-data" --extensions-dir "$profile/extensions")

  log "[$mode] install dist/hdecomp.vsix"
  "$NODE24" "$CODE_SERVER" "${flags[@]}" --install-extension "$ROOT/dist/hdecomp.vsix" >"$RESULTS/install-$mode.log" 2>&1 \
    || { cat "$RESULTS/install-$mode.log" >&2; return 2; }

  local port
  port="$("$NODE24" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')"
  log "[$mode] code-server on 127.0.0.1:$port"
  OMP_NUM_THREADS=1 "$NODE24" "$CODE_SERVER" "${flags[@]}" --bind-addr "127.0.0.1:$port" "$workspace" \
    >"$RESULTS/code-server-$mode.log" 2>&1 &
  SERVER_PID=$!
  local up=0
  for _ in $(seq 1 120); do
    if "$NODE24" -e "require('http').get('http://127.0.0.1:$port/healthz',r=>process.exit(r.statusCode<500?0:1)).on('error',()=>process.exit(1))"; then
      up=1; break
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  if [ "$up" != 1 ]; then cat "$RESULTS/code-server-$mode.log" >&2; echo "e2e: code-server did not come up" >&2; return 2; fi

  log "[$mode] run test/e2e/e2e.js"
  local rc=0
  timeout 420 "$NODE24" "$ROOT/test/e2e/e2e.js" --mode "$mode" --python "$PYTHON" \
    --url "http://127.0.0.1:$port/?folder=$workspace" --workspace "$workspace" \
    --images "$IMAGES" --results "$RESULTS" --playwright "$CACHE/playwright/node_modules/playwright-core" || rc=$?
  # The extension's own log (its LogOutputChannel), kept for failures in CI.
  find "$profile/user-data/logs" -name '*hdecomp*' -type f -exec cp {} "$RESULTS/hdecomp-$mode.log" \; 2>/dev/null || true
  stop_server
  return "$rc"
}

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}

status=0
ATTEMPTS="${HDECOMP_E2E_ATTEMPTS:-3}"
for mode in ${HDECOMP_E2E_ONLY:-trusted untrusted no-hdecomp}; do
  attempt=1
  until run_session "$mode"; do
    # A browser UI on a loaded machine can miss a click; failing every attempt is a real failure. Said loudly.
    if [ "$attempt" -ge "$ATTEMPTS" ]; then status=1; break; fi
    log "[$mode] FAILED (attempt $attempt of $ATTEMPTS); retrying the session (see test-results/e2e/attempt-$attempt-$mode)"
    mkdir -p "$RESULTS/attempt-$attempt-$mode"
    find "$RESULTS" -maxdepth 1 -type f -exec mv {} "$RESULTS/attempt-$attempt-$mode/" \;
    rm -rf "${WORK:?}/$mode"
    attempt=$((attempt + 1))
  done
done
log "done: exit $status (screenshots in $IMAGES, logs in $RESULTS)"
exit "$status"
