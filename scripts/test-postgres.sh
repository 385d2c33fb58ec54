#!/usr/bin/env bash
# The shared command vectors (and the backend contract) against hms-mcp on PostgreSQL, in
# TypeScript (over stdio and in process) and in Python: one local cluster (startPostgres of
# @hms/test-support: Debian's postgresql-15, installed by scripts/setup.sh),
# HMS_TEST_DATABASE_URL pointing at it, so every server these suites start runs with
# --database-url on a new database of it. Only the vectors suites run here, to keep CI short;
# the replica tests run in the tool's own suite, and hms-mcp's e2e suite has its own
# PostgreSQL run. The TypeScript ones run on Node 22 (the maintenance line), their servers
# too: the one run of @hms/store-postgres (pg over node:net) on that line, the others being
# on Node 24.
#
# Needs the workspace built (scripts/test.sh calls it after the suites). Exits non-zero if any
# suite fails; the cluster is removed either way.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node22="$("$root/scripts/setup.sh" --node-bin 22)"
export NODE22_BIN="$node22"
suites='
set -e
echo "test-postgres: TypeScript vectors and backend conformance on $HMS_TEST_DATABASE_URL, on Node 22" >&2
PATH="$NODE22_BIN:$PATH" pnpm --filter holographic-memory-claude-tool exec vitest run test/e2e/commands.test.ts
PATH="$NODE22_BIN:$PATH" pnpm --filter @hms/memory-backend-hms exec vitest run test/e2e/conformance.test.ts test/e2e/in-process.test.ts
echo "test-postgres: Python vectors and backend conformance" >&2
uv run --project python --frozen pytest -q \
  python/tests/e2e/test_engine_of_the_run.py \
  python/tests/e2e/test_vectors_hms.py \
  python/tests/e2e/test_hms_conformance.py
'

# Node starts the cluster (the same helper the TypeScript tests use), runs the suites with
# the variable set, and removes the cluster whatever they return.
node --input-type=module - "$root/packages/test-support/dist/index.js" "$suites" <<'EOF'
import { spawnSync } from "node:child_process";
const [helpers, suites] = process.argv.slice(2);
const { startPostgres } = await import(helpers);
const postgres = await startPostgres();
let status = 1;
try {
  const run = spawnSync("bash", ["-c", suites], {
    stdio: "inherit",
    env: { ...process.env, HMS_TEST_DATABASE_URL: postgres.url },
  });
  status = run.status ?? 1;
  // Proof that the servers ran on this cluster, not on SQLite: each TypeScript suite's server
  // has a database here (test-support's storeArgs names them t_*; Python's py_*).
  const made = (prefix) =>
    Number(postgres.psql(`SELECT count(*) FROM pg_database WHERE datname LIKE '${prefix}\\_%'`));
  if (status === 0 && (made("t") < 2 || made("py") < 1)) {
    console.error("test-postgres: the suites did not start their servers on PostgreSQL");
    status = 1;
  }
} finally {
  postgres.remove();
}
process.exit(status);
EOF
