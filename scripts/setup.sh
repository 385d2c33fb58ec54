#!/usr/bin/env bash
# One-time (idempotent) set-up on a machine with only Node 20 and Python 3.11:
# a pinned pnpm in .tools/, the workspace's dependencies, and a build of every package;
# a pinned uv in .tools/uv (from PyPI) and the Python package's locked environment.
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

# Tests need two Debian packages: chromium for the browser e2e tests
# (packages/hms-mcp/test/e2e/http-browser.test.ts, inspector.test.ts) and postgresql-15, a real
# PostgreSQL server for the PostgreSQL engine's tests (@hms/test-support's startPostgres).
# apt runs only when one is missing (CI runs this script as root on Debian 12).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]} (apt)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q "${missing[@]}" >&2
  else
    echo "setup: ${missing[*]} missing and this is not root: install them with apt-get" \
      "(chromium for the browser tests, or set HMS_CHROMIUM; postgresql-15 for the PostgreSQL" \
      "tests, or set HMS_PG_BIN)" >&2
  fi
fi

echo "setup: pnpm install" >&2
pnpm install --frozen-lockfile >&2
echo "setup: building packages" >&2
pnpm run build >&2

# Python: uv from PyPI (pinned; never the installer script), then the locked environment of
# python/ (holographic-memory-claude-tool) in python/.venv. uv must not download a Python.
UV_VERSION="0.13.9"
export UV_PYTHON_DOWNLOADS=never
uv_bin="$root/.tools/uv/bin/uv"
if [ ! -x "$uv_bin" ] || [ "$("$uv_bin" --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
  echo "setup: installing uv==$UV_VERSION into .tools/uv" >&2
  python3 -m pip --version >/dev/null 2>&1 || python3 -m ensurepip --upgrade >&2
  rm -rf "$root/.tools/uv"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
    --no-warn-script-location --target "$root/.tools/uv" "uv==$UV_VERSION" >&2
fi
echo "setup: uv sync (python/)" >&2
"$uv_bin" sync --project "$root/python" --frozen >&2
