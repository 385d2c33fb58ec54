#!/usr/bin/env bash
# Every test of the project, from a clean clone: set-up, then lint, types and all suites.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/setup.sh"
export PATH="$root/.tools/node_modules/.bin:$PATH"
export TURBO_TELEMETRY_DISABLED=1

pnpm run lint
pnpm run typecheck
pnpm run test
