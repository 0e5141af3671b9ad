#!/usr/bin/env bash
# Installs Debian's chromium for test/console-browser.test.ts (driven by playwright-core with its
# executablePath; no browser download). The .debs apt fetched are kept under
#   ${CORTEXD_CI_CACHE:-$HOME/.cache/cortexd-ci}/chromium-debs
# so a second run installs from the cache. Idempotent: an installed chromium is reused.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  echo "chromium already installed: $(chromium --version 2>/dev/null | tail -1)" >&2
  exit 0
fi
cache=${CORTEXD_CI_CACHE:-$HOME/.cache/cortexd-ci}/chromium-debs
mkdir -p "$cache/partial"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
start=$(date +%s)
if ! ls "$cache"/chromium_*.deb >/dev/null 2>&1; then
  $sudo apt-get update -qq >&2
fi
# apt downloads into (and reuses) the cache dir; the install itself is offline when the cache is full.
$sudo apt-get install -y -qq -o Dir::Cache::archives="$cache" chromium >&2
echo "chromium installed in $(($(date +%s) - start)) s: $(chromium --version 2>/dev/null | tail -1)" >&2
