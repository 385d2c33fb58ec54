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

# Native addons (better-sqlite3) have no reachable prebuilt binary here and build from source;
# node-gyp would download Node's headers, so point it at the ones installed with Node.
if [ -z "${npm_config_nodedir:-}" ]; then
  node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$node_prefix/include/node/node_api.h" ]; then
    export npm_config_nodedir="$node_prefix"
  fi
fi

echo "setup: pnpm install" >&2
pnpm install --frozen-lockfile >&2
echo "setup: building packages" >&2
pnpm run build >&2
