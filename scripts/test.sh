#!/usr/bin/env bash
# Every test of the project, from a clean clone: set-up, then lint, types and all suites on
# Node 24, then again on Node 22 what a user runs on their own Node (the end of this file).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
step() { echo "test [$((SECONDS - started))s]: $*" >&2; }

"$root/scripts/setup.sh"
# Node 24 (the active LTS line) runs everything from here on: pnpm, turbo's tasks, vitest and
# the servers its suites start, the servers the Python tests start, pack-install. The
# machine's own Node (20 on CI) only bootstrapped scripts/setup.sh.
node24="$("$root/scripts/setup.sh" --node-bin 24)"
node22="$("$root/scripts/setup.sh" --node-bin 22)"
export PATH="$node24:$root/.tools/node_modules/.bin:$PATH"
export TURBO_TELEMETRY_DISABLED=1
step "set up; Node $(node --version) first on PATH"

pnpm run lint
# The package graph of CONTRIBUTING.md: which package may import which.
node scripts/check-layers.mjs
pnpm run typecheck
step "lint, layers and types checked"
pnpm run test
step "TypeScript suites passed on Node 24"
# hms-mcp's e2e suite again with every server on PostgreSQL (one real cluster; the files about
# SQLite itself are left out, see packages/hms-mcp/vitest.postgres.config.ts).
step "hms-mcp e2e on PostgreSQL"
pnpm --filter hms-mcp test:e2e:postgres

# The Python package: lint, format, types, then its suite (against the hms-mcp built above).
export PATH="$root/.tools/uv/bin:$PATH"
export UV_PYTHON_DOWNLOADS=never
step "python (ruff, mypy, pytest)"
(
  cd python
  uv run --frozen ruff check . ../examples/quickstart-python
  uv run --frozen ruff format --check . ../examples/quickstart-python
  uv run --frozen mypy
  uv run --frozen mypy ../examples/quickstart-python/quickstart.py
)
uv run --project python --frozen pytest python/tests
"$root/scripts/test-postgres.sh" # the shared vectors, TS and Python, on PostgreSQL

# What a release publishes, checked from what it packs: the changesets' release plan; each
# npm tarball (publint, attw, license, metadata, ranges, size); the Python sdist and wheel;
# then every package installed from its tarball or wheel outside the workspace with
# `npm install --ignore-scripts`, on Node 24 and on Node 22, running the quick starts.
step "release (plan, packages, pack and install)"
node scripts/check-release-plan.mjs
node scripts/check-packages.mjs
python3 scripts/check-python-package.py
node scripts/pack-install-test.mjs --node-bin "$node24" --node-bin "$node22"

# Node 22 (the maintenance line): the suites of every published package again, since a user
# runs those on their own Node, and what they rest on differs between the lines (node:sqlite
# and its SQLite build, the HTTP stack and fetch, worker threads, V8's Unicode tables).
# Not again: the private test tooling (@hms/test-support, @hms/scripted-model, @hms/bench)
# and the examples, whose quick starts ran on Node 22 from the installed tarballs just above;
# hms-mcp's sqlite-driver.test.ts, which loads better-sqlite3's addon, built for Node 24 (the
# files it checks are the same on Node 22: both lines ship SQLite 3.54.1); hms-mcp's e2e on
# PostgreSQL and the Python suites, whose servers run the hms-mcp tested here on both.
step "TypeScript suites of the published packages on Node 22"
published=()
for manifest in packages/*/package.json; do
  if [ "$(node -p "require('./$manifest').private === true")" = false ]; then
    published+=("--filter=$(node -p "require('./$manifest').name")")
  fi
done
PATH="$node22:$PATH" pnpm exec turbo run test "${published[@]}" --filter=!hms-mcp
PATH="$node22:$PATH" pnpm --filter hms-mcp exec vitest run \
  --exclude test/e2e/sqlite-driver.test.ts
step "passed"
