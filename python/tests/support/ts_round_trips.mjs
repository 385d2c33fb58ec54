// The TypeScript side of tests/e2e/test_round_trips_against_typescript.py: runs memory
// commands through @hms/memory-core's MemoryEngine over its InMemoryBackend, wrapped to record
// the backend calls each command makes and the round trip each call belongs to (1 + the latest
// round trip finished before the call started: calls issued together share one).
//
// stdin:  [{"options": {...InMemoryBackend options}, "files": {...}, "command": {...}}, ...]
// stdout: [{"calls": [[round, operation], ...], "output"?: string, "error"?: string}, ...]
// Operation names are given in snake_case, as the Python backend names them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const { InMemoryBackend, MemoryEngine } = createRequire(import.meta.url)(
  `${repo}packages/memory-core/dist/index.cjs`,
);

const OPERATIONS = ["read", "list", "create", "update", "delete"];
const TREE_OPERATIONS = ["deleteTree", "moveTree"];
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function recording(inner, calls) {
  let finished = 0;
  const wrap = (target, name) => async (...args) => {
    const round = finished + 1;
    calls.push([round, snake(name)]);
    try {
      return await target[name](...args);
    } finally {
      finished = Math.max(finished, round);
    }
  };
  const backend = { maxFileBytes: inner.maxFileBytes };
  for (const name of OPERATIONS) backend[name] = wrap(inner, name);
  if (inner.tree) {
    backend.tree = Object.fromEntries(TREE_OPERATIONS.map((name) => [name, wrap(inner.tree, name)]));
  }
  return backend;
}

const scenarios = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const { options, files, command } of scenarios) {
  const calls = [];
  const backend = recording(new InMemoryBackend({ ...options, files }), calls);
  const result = { calls };
  try {
    result.output = await new MemoryEngine(backend).execute(command);
  } catch (error) {
    result.error = error.message;
  }
  results.push(result);
}
process.stdout.write(JSON.stringify(results));
