/**
 * A client that writes its requests to hms-mcp's stdin and closes it at once (a shell pipe, a
 * program that exits after sending) gets every answer before the server exits: a call still
 * running when the input ended used to be carried out (its file stored) and never answered.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { cleanEnv, exited, hmsMcpCommand, startStdio, storeArgs, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

function message(id: number | undefined, method: string, params: unknown): string {
  return `${JSON.stringify({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, params })}\n`;
}

describe("stdin closed right after the requests", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("answers every request it read before exiting", async () => {
    const { command, args } = hmsMcpCommand(storeArgs(data.dir));
    const child = spawn(command, args, { env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    const answers: { id?: number; result?: { isError?: boolean }; error?: unknown }[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => answers.push(JSON.parse(line)));
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const calls = 5;
    let input = message(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "pipe", version: "0" },
    });
    input += message(undefined, "notifications/initialized", {});
    for (let i = 1; i <= calls; i++) {
      input += message(i, "tools/call", {
        name: "remember",
        arguments: { key: `/memories/e${i}.md`, text: `entry ${i}` },
      });
    }
    // Everything in one write, then the end of the input.
    child.stdin.end(input);
    expect(await exited(child)).toBe(0);

    const ids = answers.map((answer) => answer.id).sort();
    expect(ids, stderr).toEqual([0, 1, 2, 3, 4, 5]);
    for (const answer of answers.filter((a) => a.id !== 0)) {
      expect(answer.error).toBeUndefined();
      expect(answer.result?.isError).toBeFalsy();
    }
    expect(stderr).toContain('"reason":"stdin closed"');

    // Each answered write is in the store.
    const reader = await startStdio({ dataDir: data.dir });
    try {
      const listed = await reader.client.callTool({ name: "list", arguments: {} });
      const items = (listed.structuredContent as { items: { key: string }[] }).items;
      expect(items.map((item) => item.key)).toEqual(
        Array.from({ length: calls }, (_, i) => `/memories/e${i + 1}.md`),
      );
    } finally {
      await reader.close();
    }
  });
});
