#!/usr/bin/env bash
# The multi-device tests (test/multi-device, git-sync, catch-up, sync-files) run the real system git
# against a bare remote in temp dirs. Make sure it is there; install it from Debian when it is not
# and we may (root, apt-get). Never skipped: without git those tests fail.
set -euo pipefail
if command -v git >/dev/null 2>&1; then
  git --version
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git >/dev/null
  git --version
  exit 0
fi
echo "git is not installed and cannot be installed here: install git (the multi-device tests need it)" >&2
exit 1
