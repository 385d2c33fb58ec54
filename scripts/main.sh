#!/usr/bin/env bash
# The main job from a clean clone: set-up, then the quick start.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/setup.sh"
# Node 24 from .tools/ (scripts/setup.sh installs it); the machine's own Node only bootstraps.
export PATH="$("$root/scripts/setup.sh" --node-bin 24):$root/.tools/node_modules/.bin:$PATH"

if [ -d examples/quickstart ]; then
  exec pnpm --filter quickstart start
fi
echo "The quick start (examples/quickstart) does not exist yet; this command built the workspace."
echo "Packages built:"
for p in packages/*/package.json; do
  [ -e "$p" ] || continue
  node -e 'const p=require(process.argv[1]);console.log(`  ${p.name}@${p.version}`)' "$root/$p"
done
