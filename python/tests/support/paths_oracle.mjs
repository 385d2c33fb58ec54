// The TypeScript path validator as an oracle for the Python port's tests: reads a JSON array
// of values on stdin, runs checkMemoryPath (@hms/memory-paths, from its built dist) on each,
// and prints a JSON array of {rule, message} (both null for a valid path) on stdout.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dist = new URL("../../../packages/memory-paths/dist/index.js", import.meta.url);
const { checkMemoryPath } = await import(fileURLToPath(dist));

const inputs = JSON.parse(readFileSync(0, "utf8"));
const results = inputs.map((value) => {
  const error = checkMemoryPath(value);
  return error ? { rule: error.rule, message: error.message } : { rule: null, message: null };
});
process.stdout.write(JSON.stringify(results));
