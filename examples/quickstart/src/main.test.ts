// The quick start, run offline as a user would (`pnpm start`, without ANTHROPIC_API_KEY), on a
// temporary store: what it prints is the conversation, the final view and a recall. The tests
// run in order on one store: a new store, then --keep on what the first run saved, then --keep
// on a store whose file was changed behind the script's back.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "quickstart-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function runQuickstart(args: string[] = []): {
  stdout: string;
  stderr: string;
  status: number | null;
} {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name === "ANTHROPIC_API_KEY" || name.startsWith("HMS_MCP_"))
      continue;
    env[name] = value;
  }
  env.QUICKSTART_DATA_DIR = dataDir;
  const tsx = resolve(HERE, "../node_modules/.bin/tsx");
  const result = spawnSync(tsx, [resolve(HERE, "main.ts"), ...args], {
    env,
    encoding: "utf8",
    // Only stops a hung run: one took over 60 s while every package's tests ran at load 45-60.
    timeout: 240_000,
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

describe("the quick start, offline", () => {
  it("says it is offline, remembers in conversation 1, recalls in conversation 2, then shows the store", () => {
    const { stdout, stderr, status } = runQuickstart();
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout).toMatch(
      /^ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for the Messages API at http:\/\/127\.0\.0\.1:\d+\.\n/,
    );
    const [, first = "", second = ""] = stdout.split(/^=== Conversation \d.*===$/m);
    expect(first).toContain(
      'Claude -> memory: {"command":"view","path":"/memories"}\n  result:\n    Here\'re the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n    0B\t/memories\n',
    );
    expect(first).toContain(
      "  result:\n    File created successfully at: /memories/customers/acme-corp.md\n",
    );
    expect(second).toContain(
      'Claude -> memory_recall: {"query":"Acme Corp follow-up preference","k":3}\n  result:\n    Found 1 memory file matching the query',
    );
    // The one file holds each query word once and, alone in the store, is of average length:
    // it scores 1 / (k1 + 1) of the query's BM25 ceiling, not 1 for being the best hit.
    expect(second).toContain(
      "    1. /memories/customers/acme-corp.md (lines 1-2, score 0.4545, modified 20",
    );
    expect(second).toContain(
      "Here's the content of /memories/customers/acme-corp.md with line numbers:\n         1\t# Acme Corp\n         2\t- Prefers email follow-ups (not phone calls).\n",
    );
    expect(stdout).toContain(
      "=== view /memories ===\nHere're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n58B\t/memories\n58B\t/memories/customers/\n58B\t/memories/customers/acme-corp.md\n",
    );
    // "how" and "contact" are in no memory and "acme" in every one (the only one): the hit
    // holds nothing informative of the question, so it scores the least a hit can.
    expect(stdout).toMatch(
      /=== memory_recall \{"query": "how to contact Acme"\} ===\nFound 1 memory file matching the query[^\n]*\n\n1\. \/memories\/customers\/acme-corp\.md \(lines 1-2, score 0\.0010, modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)\n {4}# Acme Corp\n {4}- Prefers email follow-ups \(not phone calls\)\.\n$/,
    );
  });

  it("with --keep, finds the file the run before saved and says so (no create, no error)", () => {
    const { stdout, stderr, status } = runQuickstart(["--keep"]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    const [, first = "", second = ""] = stdout.split(/^=== Conversation \d.*===$/m);
    expect(first).toContain(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n    58B\t/memories\n    58B\t/memories/customers/\n    58B\t/memories/customers/acme-corp.md\n",
    );
    expect(first).toContain(
      'Claude -> memory: {"command":"view","path":"/memories/customers/acme-corp.md"}\n  result:\n    Here\'s the content of /memories/customers/acme-corp.md with line numbers:\n         1\t# Acme Corp\n         2\t- Prefers email follow-ups (not phone calls).\n',
    );
    expect(first).toContain(
      "Claude: I already have that: /memories/customers/acme-corp.md says Acme Corp prefers email follow-ups, so there is nothing to add.\n",
    );
    expect(first).not.toContain('"command":"create"');
    expect(stdout).not.toContain("error:");
    expect(second).toContain(
      "    1. /memories/customers/acme-corp.md (lines 1-2, score 0.4545, modified 20",
    );
  });

  it("with --keep, refuses a store whose file the scripted replies did not write", async () => {
    {
      await using memory = await HolographicMemoryTool.connect({
        connection: {
          command: process.execPath,
          args: [hmsMcpBin(), "--data-dir", dataDir],
          stderr: "ignore",
        },
      });
      await memory.str_replace({
        command: "str_replace",
        path: "/memories/customers/acme-corp.md",
        old_str: "email",
        new_str: "phone",
      });
    }
    const { stdout, stderr, status } = runQuickstart(["--keep"]);
    expect(status).toBe(1);
    expect(stdout).not.toContain("=== Conversation 1");
    expect(stderr).toBe(
      `--keep: the store in ${dataDir} holds a /memories/customers/acme-corp.md that the scripted replies did not write, so they cannot follow it. Run without --keep (a new store), or set ANTHROPIC_API_KEY to talk to Claude.\n`,
    );
  });
});

function hmsMcpBin(): string {
  const packageJson = createRequire(import.meta.url).resolve("hms-mcp/package.json");
  return resolve(dirname(packageJson), "dist/cli.js");
}
