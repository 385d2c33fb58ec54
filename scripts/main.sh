#!/usr/bin/env bash
# The main job from a clean clone: the set-up the quick start needs (Node 24, pnpm, the
# workspace's dependencies, its packages built; no browser, no PostgreSQL, no Python), then
# the quick start, its two conversations printed in full.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
"$root/scripts/setup.sh" --quick-start
# Node 24 from .tools/ (scripts/setup.sh installs it); the machine's own Node only bootstraps.
export PATH="$("$root/scripts/setup.sh" --node-bin 24):$root/.tools/node_modules/.bin:$PATH"
echo "main: set up in $((SECONDS - started)) s; the quick start (examples/quickstart):" >&2
echo >&2

pnpm --silent --filter quickstart start

cat >&2 <<EOF

main: done in $((SECONDS - started)) s. Next:
  - run it again, keeping its store:  pnpm --filter quickstart start --keep
  - the same in Python:               see "Two commands" in README.md
  - every test:                       ./scripts/test.sh   (or pnpm test:changed while you work)
  - the store it made, in a browser:  node packages/hms-mcp/dist/cli.js --transport http --ui \\
                                        --data-dir examples/quickstart/.data
EOF
