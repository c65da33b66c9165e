#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The page in a real browser: installs playwright-core from the lock file
# (npm ci: the pinned version, from npm's cache when it has it), then runs
# browser.test.js with node's test runner against Debian's chromium.
# Exit 77 (skipped) only when node, npm or chromium is not installed.
# Usage: browser.sh TRACEKIT TRACES_DIR WORK_DIR
set -euo pipefail
tk=$1 traces=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
for p in node npm; do
	command -v $p >/dev/null || { echo "SKIP: $p is not installed (scripts/deps.sh installs it)"; exit 77; }
done
chromium=${TK_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "SKIP: $chromium is not installed (scripts/deps.sh installs it)"; exit 77; }
mkdir -p "$work/npm"
cp "$here/package.json" "$here/package-lock.json" "$work/npm/"
if [ ! -f "$work/npm/node_modules/playwright-core/package.json" ] ||
   ! cmp -s "$here/package-lock.json" "$work/npm/.installed-lock"; then
	(cd "$work/npm" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
	cp "$here/package-lock.json" "$work/npm/.installed-lock"
fi
export NODE_PATH=$work/npm/node_modules TK_BIN=$tk TK_TRACES=$traces TK_WORK=$work TK_CHROMIUM=$chromium
exec node --test --test-reporter=spec "$here/browser.test.js"
