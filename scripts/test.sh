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
