#!/usr/bin/env bash
# Every test of the project, from a clean clone: set-up, then lint, types and all suites.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/setup.sh"
export PATH="$root/.tools/node_modules/.bin:$PATH"
export TURBO_TELEMETRY_DISABLED=1

pnpm run lint
# The package graph of CONTRIBUTING.md: which package may import which.
node scripts/check-layers.mjs
pnpm run typecheck
pnpm run test
# hms-mcp's e2e suite again with every server on PostgreSQL (one real cluster; the files about
# SQLite itself are left out, see packages/hms-mcp/vitest.postgres.config.ts).
echo "test: hms-mcp e2e on PostgreSQL" >&2
pnpm --filter hms-mcp test:e2e:postgres

# The Python package: lint, format, types, then its suite (against the hms-mcp built above).
export PATH="$root/.tools/uv/bin:$PATH"
export UV_PYTHON_DOWNLOADS=never
echo "test: python (ruff, mypy, pytest)" >&2
(
  cd python
  uv run --frozen ruff check . ../examples/quickstart-python
  uv run --frozen ruff format --check . ../examples/quickstart-python
  uv run --frozen mypy
  uv run --frozen mypy ../examples/quickstart-python/quickstart.py
)
uv run --project python --frozen pytest python/tests

# What a release publishes, checked from what it packs: the changesets' release plan; each
# npm tarball (publint, attw, license, metadata, ranges, size); the Python sdist and wheel;
# then every package installed from its tarball or wheel outside the workspace, running both
# quick starts.
echo "test: release (plan, packages, pack and install)" >&2
node scripts/check-release-plan.mjs
node scripts/check-packages.mjs
python3 scripts/check-python-package.py
node scripts/pack-install-test.mjs
