// The watch example, run offline as a user would (`pnpm start`, without ANTHROPIC_API_KEY),
// on a temporary folder: the reviewer hears of the researcher's write, from another hms-mcp
// process, and reviews it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "watch-example-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the watch example, offline", () => {
  it("the reviewer hears of the researcher's finding and reviews it", () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value === undefined || name === "ANTHROPIC_API_KEY" || name.startsWith("HMS_MCP_")) {
        continue;
      }
      env[name] = value;
    }
    env.WATCH_EXAMPLE_DATA_DIR = dataDir;
    const result = spawnSync(
      resolve(HERE, "../node_modules/.bin/tsx"),
      [resolve(HERE, "main.ts")],
      { env, encoding: "utf8", timeout: 240_000 }, // only stops a hung run
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("runs OFFLINE against a scripted stand-in");
    const lines = result.stdout.split("\n");
    const heard = lines.indexOf("reviewer heard: create /memories/research/pricing.md");
    const reviewing = lines.findIndex((line) => line.startsWith("reviewer <- "));
    expect(heard).toBeGreaterThan(0);
    expect(reviewing).toBeGreaterThan(heard);
    expect(result.stdout).toContain("reviewer: Reviewed: asked for a source on Globex's price.");
    expect(result.stdout).toContain("Globex's 9 EUR needs a source before we quote it.");
  });
});
