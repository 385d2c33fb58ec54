// The in-process example, run offline as a user would (`pnpm start`, without ANTHROPIC_API_KEY),
// on a temporary folder: a conversation with hms-mcp's server in the program's own process,
// the same store printed and changed by `hms` (another process) while the tool is open, and the
// cost of a command in process and over stdio (printed; what it is depends on the machine).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "in-process-example-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the in-process example, offline", () => {
  it("converses in process, shares the store with hms, and times both connections", () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value === undefined || name === "ANTHROPIC_API_KEY" || name.startsWith("HMS_MCP_")) {
        continue;
      }
      env[name] = value;
    }
    env.IN_PROCESS_EXAMPLE_DATA_DIR = dataDir;
    const result = spawnSync(
      resolve(HERE, "../node_modules/.bin/tsx"),
      [resolve(HERE, "main.ts")],
      { env, encoding: "utf8", timeout: 240_000 }, // only stops a hung run (see vitest.config.ts)
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const [, conversation = "", shared = "", cost = ""] = result.stdout.split(/^=== \d\..*===$/m);
    expect(conversation).toContain("runs OFFLINE against a scripted stand-in");
    expect(conversation).toContain("Claude: Saved: Acme Corp prefers email follow-ups.");
    // hms, another process, reads what the server in the example's process wrote...
    expect(shared).toContain(
      "$ hms cat /memories/customers/acme-corp.md\n# Acme Corp\n- Prefers email follow-ups.\n",
    );
    // ...and the tool in that process sees what hms changed.
    expect(shared).toContain(
      "The tool in this process, after the move:\n" +
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden " +
        "items and node_modules:\n40B\t/memories\n40B\t/memories/clients/\n" +
        "40B\t/memories/clients/acme-corp.md\n",
    );
    expect(cost).toMatch(/^in process: opened in [\d.]+ ms, a view takes [\d.]+ ms$/m);
    expect(cost).toMatch(/^over stdio: opened in [\d.]+ ms, a view takes [\d.]+ ms$/m);
  });
});
