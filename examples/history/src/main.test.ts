// The history example, run offline as a user would (`pnpm start`, without ANTHROPIC_API_KEY),
// on a temporary folder: an SDK memory directory imported with hms, a conversation in which
// Claude edits the file, its history and diff, and the imported version restored.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "history-example-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the history example, offline", () => {
  it("imports, lets Claude edit, shows the history and diff, and restores the imported version", () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value === undefined || name === "ANTHROPIC_API_KEY" || name.startsWith("HMS_MCP_")) {
        continue;
      }
      env[name] = value;
    }
    env.HISTORY_EXAMPLE_DATA_DIR = dataDir;
    const result = spawnSync(
      resolve(HERE, "../node_modules/.bin/tsx"),
      [resolve(HERE, "main.ts")],
      {
        env,
        encoding: "utf8",
        timeout: 240_000, // only stops a hung run (see vitest.config.ts)
      },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const [, imported = "", conversation = "", history = ""] =
      result.stdout.split(/^=== \d\..*===$/m);
    expect(imported).toContain("imported 1 memory from");
    expect(conversation).toContain("runs OFFLINE against a scripted stand-in");
    expect(conversation).toContain(
      "Claude: Updated: Acme Corp now prefers phone calls on Mondays.",
    );
    // Claude's str_replace is version 2 over the imported version 1, each named by what made it.
    expect(history).toMatch(/ v2 +update +\/memories\/customers\/acme-corp\.md +str_replace\n/);
    expect(history).toMatch(/ v1 +create +\/memories\/customers\/acme-corp\.md +hms_import\n/);
    expect(history).toContain(
      "-- Prefers email follow-ups (not phone calls).\n+- Prefers phone calls on Mondays.\n",
    );
    expect(history).toMatch(
      /memory\.restore\("\/memories\/customers\/acme-corp\.md", 1\) -> version 3\n/,
    );
    expect(history).toContain("     2\t- Prefers email follow-ups (not phone calls).");
  });
});
