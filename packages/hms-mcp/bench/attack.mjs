#!/usr/bin/env node
// `pnpm bench attack <name> [args...]`: runs one attack on a real hms-mcp and prints its
// figures (RSS, latency, file sizes...). Each attack is bench/attacks/<name>.mjs, whose
// default export takes the remaining arguments. Run an attack with HMS_MCP_BIN pointing at
// another build to get the "before" figure in the same run.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = join(dirname(fileURLToPath(import.meta.url)), "attacks");
const known = readdirSync(dir)
  .filter((file) => file.endsWith(".mjs"))
  .map((file) => file.slice(0, -".mjs".length))
  .sort();
const [name, ...args] = process.argv.slice(2);
if (!name || !known.includes(name)) {
  console.error(
    `usage: pnpm bench attack <name> [args...]\nknown: ${known.length ? known.join(", ") : "(none yet)"}`,
  );
  process.exit(name ? 2 : 0);
}
const attack = await import(join(dir, `${name}.mjs`));
await attack.default(args);
