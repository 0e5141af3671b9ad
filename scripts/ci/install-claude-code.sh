#!/usr/bin/env bash
# Installs the pinned Claude Code CLI (the real `claude`, a native binary inside the npm package)
# for test/claude-code-real.test.ts, outside the clone:
#   ${CORTEXD_CI_CACHE:-$HOME/.cache/cortexd-ci}/claude-code-<version>/node_modules/.bin/claude
# Idempotent: an install that answers `claude --version` with the pinned version is reused.
# Prints the path of the `claude` executable on its last line.
# The one place the tested version is pinned: CLAUDE_CODE_VERSION below (the test reads it from here).
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.328

cache=${CORTEXD_CI_CACHE:-$HOME/.cache/cortexd-ci}
dir=$cache/claude-code-$CLAUDE_CODE_VERSION
bin=$dir/node_modules/.bin/claude

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$CLAUDE_CODE_VERSION\b"; then
  echo "claude-code $CLAUDE_CODE_VERSION already installed in $dir" >&2
  echo "$bin"
  exit 0
fi

# Install into a temp dir beside the target and move it in place, so a broken or interrupted
# install is never mistaken for a good one.
mkdir -p "$cache"
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# The package's postinstall links its native binary; npm 11 runs it only when allowed.
cat >"$tmp/package.json" <<JSON
{"name": "cortexd-ci-claude-code", "private": true,
 "dependencies": {"@anthropic-ai/claude-code": "$CLAUDE_CODE_VERSION"},
 "allowScripts": {"@anthropic-ai/claude-code": true}}
JSON
(cd "$tmp" && npm install --no-audit --no-fund --loglevel=error >&2)
"$tmp/node_modules/.bin/claude" --version >&2
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "claude-code $CLAUDE_CODE_VERSION installed in $dir in $(($(date +%s) - start)) s" >&2
echo "$bin"
