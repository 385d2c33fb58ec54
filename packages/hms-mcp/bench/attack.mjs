#!/usr/bin/env node
// `pnpm bench attack <name> [args...]`: runs one attack on a real hms-mcp and prints its
// figures (RSS, latency, file sizes...). Each attack is bench/attacks/<name>.mjs, whose
// default export takes the remaining arguments, and which exports the `options` it takes
// (names of `--name VALUE` options; `positional`, names of plain values before them): any
// other argument is refused before the attack starts. `pnpm bench attack <name> --help`
// prints the comment that opens the attack's file. Run an attack with HMS_MCP_BIN pointing
// at another build to get the "before" figure in the same run.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkArguments } from "./support.mjs";

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
const file = join(dir, `${name}.mjs`);
if (args.some((arg) => arg === "--help" || arg === "-h")) {
  console.log(`pnpm bench attack ${name}\n\n${openingComment(file)}`);
  process.exit(0);
}
const attack = await import(file);
if (!Array.isArray(attack.options)) {
  throw new Error(`bench/attacks/${name}.mjs exports no list of the options it takes`);
}
checkArguments(`attack ${name}`, attack.options, [], {
  argv: args,
  positional: attack.positional ?? [],
});
await attack.default(args);

/** The `//` lines that open `file`, without their comment marks. */
function openingComment(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines[0]?.startsWith("#!")) lines.shift();
  const text = [];
  for (const line of lines) {
    if (!line.startsWith("//")) break;
    text.push(line.replace(/^\/\/ ?/, ""));
  }
  return text.join("\n").trim();
}
