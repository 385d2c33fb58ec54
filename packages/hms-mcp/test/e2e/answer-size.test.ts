// Answers every official MCP client can read: the TypeScript SDK's stdio client drops the
// connection for good on a message over 10 MiB, and JSON writes a control character as 6 bytes.
import { spawnSync } from "node:child_process";
import { MAX_ANSWER_BYTES, MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import {
  call,
  cleanEnv,
  connectFresh,
  hmsMcpBin,
  ok,
  type TransportKind,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** `bytes` bytes of text that JSON escapes at its worst: control characters, 6 bytes each. */
function controlText(bytes: number): string {
  return "\u0001\u001f\u0007\u0000".repeat(Math.ceil(bytes / 4)).slice(0, bytes);
}

/** The bytes of the JSON-RPC answer that carries `result`, as the server writes it. */
function wireBytes(result: unknown): number {
  return Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 1, result }));
}

interface ExportPage {
  memories: { key: string; text: string }[];
  next_cursor: string | null;
}

describe("--max-text-bytes", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it(`is at most ${MAX_TEXT_BYTES_CAP}, and a larger one is refused saying why`, () => {
    const result = spawnSync(
      process.execPath,
      [hmsMcpBin(), "--data-dir", data.dir, "--max-text-bytes", String(MAX_TEXT_BYTES_CAP + 1)],
      { env: cleanEnv(), encoding: "utf8", input: "" },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      `--max-text-bytes <bytes>' argument '${MAX_TEXT_BYTES_CAP + 1}' is invalid. expected an integer from 1 to ${MAX_TEXT_BYTES_CAP} (1.5 MiB)`,
    );
    expect(result.stderr).toContain("over the 10 MiB the MCP TypeScript SDK's stdio client reads");
  });
});

describe.each<TransportKind>(["stdio", "http"])("answers at the largest size over %s", (kind) => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectFresh(kind, {
      args: ["--max-text-bytes", String(MAX_TEXT_BYTES_CAP)],
    });
    client = connection.client;
    return connection.close;
  });

  it("gets a memory of the largest size, all control characters, with its text sent once", async () => {
    const text = controlText(MAX_TEXT_BYTES_CAP);
    // Metadata is bounded as JSON (8192 bytes): near its largest, escaped.
    const metadata = { note: controlText(1300) };
    await ok(client, "remember", { key: "big/get", text, metadata });
    const result = await call(client, "get", { key: "big/get" });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { text: string }).text).toBe(text);
    const blocks = result.content as { type: string; text: string }[];
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.text).toBe(
      `big/get (version 1, ${MAX_TEXT_BYTES_CAP} bytes); its text is the structured content's text field`,
    );
    // Over 9 MiB, and under what the clients read.
    expect(wireBytes(result)).toBeGreaterThan(9 * 1024 * 1024);
    expect(wireBytes(result)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  });

  it("ends export pages by their size as JSON, so escaped memories never pass the limit", async () => {
    // 1 MiB of raw text each, 6 MiB each as JSON: every page holds one, whole.
    const text = controlText(1024 * 1024);
    for (const key of ["esc/0", "esc/1", "esc/2"]) await ok(client, "remember", { key, text });
    const keys: string[][] = [];
    let cursor: string | null | undefined;
    do {
      const result = await call(client, "export", {
        prefix: "esc/",
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      expect(wireBytes(result)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
      const page = result.structuredContent as unknown as ExportPage;
      expect(page.memories.every((memory) => memory.text === text)).toBe(true);
      keys.push(page.memories.map((memory) => memory.key));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(keys).toEqual([["esc/0"], ["esc/1"], ["esc/2"]]);
  });
});
