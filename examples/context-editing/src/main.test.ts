// The context editing example, run as a user would (`pnpm start`), on a temporary folder:
// offline against its own scripted stand-in, and then as against the API, with
// ANTHROPIC_BASE_URL pointing at a stand-in this test holds, so that the requests the
// example sent can be read: each carries the beta and the context editing the API expects
// (the stand-in refuses any other with a 400, which would fail the run), with the memory tool
// kept out of what is cleared.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "context-editing-example-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const CONTEXT_MANAGEMENT = {
  edits: [
    {
      type: "clear_tool_uses_20250919",
      trigger: { type: "input_tokens", value: 30_000 },
      keep: { type: "tool_uses", value: 3 },
      clear_at_least: { type: "input_tokens", value: 2_000 },
      exclude_tools: ["memory"],
    },
  ],
};

/**
 * Runs the example in its own process, as `pnpm start` does; asynchronously, so that a
 * stand-in in this process can answer it.
 */
function runExample(
  extra: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("ANTHROPIC_") || name.startsWith("HMS_MCP_")) {
      continue;
    }
    env[name] = value;
  }
  return new Promise((done) => {
    const child = execFile(
      resolve(HERE, "../node_modules/.bin/tsx"),
      [resolve(HERE, "main.ts")],
      {
        env: { ...env, CONTEXT_EDITING_DATA_DIR: dataDir, ...extra },
        encoding: "utf8",
        timeout: 240_000, // only stops a hung run (see vitest.config.ts)
      },
      (_error, stdout, stderr) => done({ status: child.exitCode, stdout, stderr }),
    );
  });
}

describe("the context editing example", () => {
  it("runs offline: Claude saves as it goes, and reads its notes once a ticket is cleared", async () => {
    const result = await runExample({});
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const out = result.stdout;
    expect(out).toContain("runs OFFLINE against a scripted stand-in");
    expect(out).toContain("File created successfully at: /memories/customers/acme-corp.md");
    expect(out).toContain("File created successfully at: /memories/customers/globex.md");
    expect(out).toContain(
      "[context editing: the API cleared 1 tool use(s), 2600 input tokens, from this request]",
    );
    const [, afterClearing = ""] = out.split("[context editing:");
    expect(afterClearing).toContain(
      "     2\t- Invoices by email to billing@acme.example, never by post (T-101).",
    );
    expect(out).toMatch(
      /=== view \/memories ===\n.*\n160B\t\/memories\n160B\t\/memories\/customers\/\n80B\t\/memories\/customers\/acme-corp\.md\n80B\t\/memories\/customers\/globex\.md\n$/,
    );
  });

  it("sends every request with the context editing the API expects, the memory tool excluded", async () => {
    const script = JSON.parse(readFileSync(resolve(HERE, "scripted-replies.json"), "utf8"));
    const model = await startScriptedModel({ turns: parseScript(script) });
    try {
      const result = await runExample({
        ANTHROPIC_API_KEY: "offline",
        ANTHROPIC_BASE_URL: model.url,
      });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      expect(result.stdout).toContain("Talking to the Anthropic API");
      expect(model.remaining()).toBe(0);
      expect(model.requests).toHaveLength(script.turns.length);
      for (const request of model.requests) {
        expect(request.headers["anthropic-beta"]).toContain("context-management-2025-06-27");
        expect(request.body.context_management).toEqual(CONTEXT_MANAGEMENT);
      }
      // The excluded name is the memory tool's, as the first request (which starts the SDK's
      // thread) declares it; the later ones continue that thread.
      expect(model.requests[0]?.body.tools).toContainEqual({
        type: "memory_20250818",
        name: "memory",
      });
    } finally {
      await model.close();
    }
  });
});
