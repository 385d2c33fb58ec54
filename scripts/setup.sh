#!/usr/bin/env bash
# One-time (idempotent) set-up on a machine with only Node 20 and Python 3.11:
# a pinned pnpm in .tools/, the workspace's dependencies, and a build of every package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PNPM_VERSION="12.4.2"
export TURBO_TELEMETRY_DISABLED=1
export DO_NOT_TRACK=1

pnpm_bin="$root/.tools/node_modules/.bin/pnpm"
if [ ! -x "$pnpm_bin" ] || [ "$("$pnpm_bin" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION into .tools/" >&2
  npm install --silent --no-audit --no-fund --prefix "$root/.tools" "pnpm@$PNPM_VERSION" >&2
fi
export PATH="$root/.tools/node_modules/.bin:$PATH"

echo "setup: pnpm install" >&2
pnpm install --frozen-lockfile >&2
echo "setup: building packages" >&2
pnpm run build >&2
