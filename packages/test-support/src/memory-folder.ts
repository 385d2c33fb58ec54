/**
 * A memory folder as the Anthropic SDK's filesystem memory tool keeps it (`BASE/memories/...`),
 * for the tests of `hms import` and `hms export`: written and read back byte for byte.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes `files` (a path under memories/, `/`-separated, to its bytes) under `base`. */
export function writeMemoryFolder(
  base: string,
  files: Record<string, string | Uint8Array>,
): string {
  for (const [path, content] of Object.entries(files)) {
    const file = join(base, "memories", ...path.split("/"));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return base;
}

/** Every file under `base`/memories, by its `/`-separated path there, with its bytes. */
export function readMemoryFolder(base: string): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const root = join(base, "memories");
  const walk = (directory: string, names: string[]) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path, [...names, entry.name]);
      else files[[...names, entry.name].join("/")] = readFileSync(path);
    }
  };
  walk(root, []);
  return files;
}
