#!/usr/bin/env bash
# Every test of the project, from a clean clone: set-up, then lint, types and all suites on
# Node 24, then again on Node 22 what rests on a part of Node that differs between the lines
# (the end of this file).
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
# V8's compile cache for every Node process the suites start (vitest's workers, and thousands
# of hms-mcp servers and hms commands, each compiling the same modules again: cli.test.ts took
# 10% less CPU with it), kept in a directory of this run's own (turbo.json passes it to the
# suites). Nothing a test checks depends on it.
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export NODE_COMPILE_CACHE="$cache"
step "set up; Node $(node --version) first on PATH"

pnpm run lint
# The package graph of CONTRIBUTING.md: which package may import which.
node scripts/check-layers.mjs
# The docs name hybrid recall's model as the embedder's DEFAULT_MODEL does (one place).
node scripts/model-docs.mjs
pnpm run typecheck
step "lint, layers and types checked"
pnpm run test
step "TypeScript suites passed on Node 24"

# From here four jobs run at once, each with its output in a log of its own, printed whole and
# in this order once all have ended. Three wait mostly on something other than the CPU
# (PostgreSQL's round trips, the servers and programs they start, the npm registry and PyPI)
# and leave room for the fourth, the Node 22 suites: one after another the four took 538 s at
# load 5, using 0.76 of the 2 cores on average. They share nothing but the machine: each
# PostgreSQL cluster, data directory and temporary folder is its own, and nothing rewrites a
# build (the builds are done; the Node 22 run takes turbo's --only).
export PATH="$root/.tools/uv/bin:$PATH"
export UV_PYTHON_DOWNLOADS=never
logs="$(mktemp -d)"
trap 'rm -rf "$logs" "$cache"' EXIT
jobs_started=()
# Starts job "$1" (its title) running the rest of the arguments, its output in its log.
start_job() {
  local title="$1"
  shift
  (
    set -e
    echo "test [$((SECONDS - started))s]: $title: started" >&2
    "$@"
    echo "test [$((SECONDS - started))s]: $title: passed" >&2
  ) >"$logs/${#jobs_started[@]}.log" 2>&1 &
  jobs_started+=("$!:$title")
}

# hms-mcp's e2e suite again with every server on PostgreSQL (one real cluster; the files about
# SQLite itself are left out, see packages/hms-mcp/vitest.postgres.config.ts).
postgres_e2e() {
  pnpm --filter hms-mcp test:e2e:postgres
}

# The Python package: lint, format, types, then its suite (against the hms-mcp built above),
# then the shared vectors, TypeScript and Python, on PostgreSQL.
python_suites() {
  (
    cd python
    uv run --frozen ruff check . ../examples/quickstart-python ../examples/context-editing-python
    uv run --frozen ruff format --check . ../examples/quickstart-python \
      ../examples/context-editing-python
    uv run --frozen mypy
    uv run --frozen mypy ../examples/quickstart-python/quickstart.py \
      ../examples/context-editing-python/context_editing.py
  )
  uv run --project python --frozen pytest python/tests
  "$root/scripts/test-postgres.sh"
}

# What a release publishes, checked from what it packs: the changesets' release plan; one
# version line across npm and the wheel (check-versions.mjs); each
# npm tarball (publint, attw, license, metadata, ranges, size); the Python sdist and wheel;
# then every package installed from its tarball or wheel outside the workspace with
# `npm install --ignore-scripts`, on Node 24 and on Node 22, running the quick starts.
release_checks() {
  node scripts/check-release-plan.mjs
  node scripts/check-versions.mjs
  node scripts/check-packages.mjs
  python3 scripts/check-python-package.py
  node scripts/pack-install-test.mjs --node-bin "$node24" --node-bin "$node22"
}

# Node 22 (the maintenance line): again what rests on a part of Node that differs between the
# lines, not every suite twice. Those parts: node:sqlite and the SQLite it is built with (Node
# 22's read texts holding NUL cut short and dropped a leading BOM: both found by the store's
# suite here), the HTTP stack (node:http's deadlines and backpressure, fetch), child processes,
# stdio and signals, worker threads, timers and fs.stat (the tokens file's poll), V8
# (WebAssembly, the Unicode tables).
# `turbo run test:node22` runs each package's `test:node22` script, all at once:
# - @hms/store, all of it but two files: node:sqlite throughout (its driver, reading SQLite's
#   codes from its errors (a full disk's among them), text reads, schema upgrades, the
#   engines' conformance suite) and recall's tokenizer on V8's Unicode tables. Not again: the
#   store's own handling of a full disk (disk-full.test.ts) and of its files' growth over
#   thousands of cycles (growth.test.ts), which rest on the driver's reading of SQLite's codes
#   (driver.test.ts, run on both) and on SQLite itself (3.54.1 on both lines);
# - holographic-memory-claude-tool, all of it but three files: the memory tool as a user runs
#   it, its client over stdio, HTTP and in-process to hms-mcp. Not again: PostgreSQL replicas
#   (postgres-replicas.test.ts; @hms/store-postgres runs on Node 22 in scripts/test-postgres.sh,
#   where the shared vectors' TypeScript suites and their servers run on Node 22), and the
#   tool's answers at a full disk and at the largest file (disk-full, largest-file), the
#   server's and the engine's logic above the parts listed here;
# - @hms/memory-backend-hms, all of it: the client's transports (spawning hms-mcp, stdio,
#   streamable HTTP over fetch, sessions the server forgot, in-process);
# - @hms/memory-paths, all of it: path rules on V8's Unicode tables (normalization, classes);
# - @hms/embedder's embedder.test.ts: the model on both runtimes (onnxruntime-node's addon,
#   WebAssembly with threads), to the same vectors;
# - hms-mcp's in-process project (the server on node:sqlite, every tool) and the e2e files
#   vitest.node22.config.ts lists, each under its part: stdio, node:sqlite as a process, the
#   HTTP stack and its deadlines, notifications, the tokens file's reload, the embedding
#   worker.
# Not again, and why that is safe:
# - hms-mcp's other e2e files (fairness, history bounds, export pages, answer sizes, hostile
#   input, the HTTP bounds it counts itself (sessions, requests in flight, unread answers),
#   namespaces, no-create, cli flags (commander), concurrency, hybrid recall's ranking
#   and runtimes, the inspector and CORS in chromium, PostgreSQL and copy) test its own code
#   above the parts listed, which the files kept run on Node 22; sqlite-driver.test.ts loads
#   better-sqlite3's addon, built for Node 24 (the files it checks are the same on Node 22: both
#   lines ship SQLite 3.54.1); and its ui project runs in a browser, not in Node;
# - @hms/store-postgres: pg over node:net, run on Node 22 inside hms-mcp (and in process) by
#   scripts/test-postgres.sh; its own suite pins SQL, the same on either line;
# - hms-cli: commander and the backend, whose transports run above; the installed `hms` runs on
#   Node 22 in pack-install (a local store through the installed hms-mcp);
# - @hms/memory-core and @hms/protocol: plain JavaScript over zod; the memory tool's suite runs
#   the engine and the shared vectors on Node 22;
# - @hms/embedder's other files: pip (fetch.test.ts), hashing and tokenizing in plain
#   JavaScript; hms-mcp's e2e on PostgreSQL and the Python suites, whose servers run the
#   hms-mcp tested here on both; the private test tooling (@hms/test-support,
#   @hms/scripted-model, @hms/bench) and the examples, whose quick starts run on Node 22 from
#   the installed tarballs in pack-install (the release job).
# (--only: the builds are done, and turbo would otherwise replay them from its cache while the
# other jobs read them.)
node22_suites() {
  PATH="$node22:$PATH" pnpm exec turbo run test:node22 --only
}

start_job "hms-mcp e2e on PostgreSQL" postgres_e2e
start_job "python (ruff, mypy, pytest, the vectors on PostgreSQL)" python_suites
start_job "release (plan, packages, pack and install)" release_checks
start_job "TypeScript suites on Node 22: what differs between the lines" node22_suites
failed=()
for i in "${!jobs_started[@]}"; do
  pid="${jobs_started[$i]%%:*}"
  title="${jobs_started[$i]#*:}"
  wait "$pid" || failed+=("$title")
  cat "$logs/$i.log"
done
if [ "${#failed[@]}" -gt 0 ]; then
  for title in "${failed[@]}"; do step "failed: $title"; done
  exit 1
fi
step "passed"
