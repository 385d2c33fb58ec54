/**
 * A message over the size bound on stdio is refused, and the process keeps serving: the
 * request gets a JSON-RPC error when its id can be read, a log line on stderr otherwise.
 * (The SDK's stdio transport made the server exit with code 0 and nothing said.)
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { cleanEnv, exited, hmsMcpCommand, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Answer {
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

describe("an oversize message on stdio", () => {
  const data = tempDir();
  const { command, args } = hmsMcpCommand(["--data-dir", data.dir]);
  const child = spawn(command, args, { env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const answers = new Map<string | number, Answer>();
  const waiting = new Map<string | number, (answer: Answer) => void>();
  let stderr = "";
  let exitedWith: number | null | undefined;

  /** Writes one line and resolves with the answer of `id`. */
  function request(id: string | number, line: string): Promise<Answer> {
    child.stdin.write(`${line}\n`);
    const seen = answers.get(id);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      if (exitedWith !== undefined) reject(new Error(`hms-mcp exited with code ${exitedWith}`));
      waiting.set(id, resolve);
      child.once("exit", (code) => reject(new Error(`hms-mcp exited with code ${code}`)));
    });
  }

  function message(id: string | number, method: string, params: unknown): string {
    return JSON.stringify({ jsonrpc: "2.0", id, method, params });
  }

  beforeAll(async () => {
    child.once("exit", (code) => {
      exitedWith = code;
    });
    // A server that exits leaves writes failing with EPIPE: the answers' absence reports it.
    child.stdin.on("error", () => {});
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const answer = JSON.parse(line) as Answer;
      if (answer.id === undefined || answer.id === null) return;
      answers.set(answer.id, answer);
      waiting.get(answer.id)?.(answer);
    });
    const init = await request(
      0,
      message(0, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" },
      }),
    );
    expect(init.result).toBeDefined();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
  });
  afterAll(async () => {
    child.stdin.end();
    await exited(child);
    data.remove();
  });

  // 12 MiB: over the default bound (6 x 32768 + 1 MiB) and over the SDK's 10 MiB.
  const text = "x".repeat(12 * 1024 * 1024);

  it("answers a request over the bound with an error that echoes its id, and keeps serving", async () => {
    // The id comes last, as the SDK's client writes it.
    const line = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"remember","arguments":{"key":"big","text":"${text}","metadata":{"id":"inner"}}},"id":"big-1"}`;
    const refused = await request("big-1", line);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/^Request is over 1245184 bytes \(\d+ bytes\)/);
    expect(answers.has("inner")).toBe(false);

    const after = await request(
      2,
      message(2, "tools/call", { name: "remember", arguments: { key: "small", text: "fits" } }),
    );
    expect(after.result?.isError ?? false).toBe(false);
    const got = await request(
      3,
      message(3, "tools/call", { name: "get", arguments: { key: "small" } }),
    );
    expect(got.result?.structuredContent).toMatchObject({ text: "fits" });
    expect(child.exitCode).toBeNull();
  });

  it("logs a message over the bound that has no id (a notification), and keeps serving", async () => {
    const line = `{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"${text}"}}`;
    const before = stderr.length;
    const next = request(4, `${line}\n${message(4, "tools/list", {})}`);
    const listed = await next;
    expect(listed.result?.tools).toEqual(expect.any(Array));
    expect(stderr.slice(before)).toContain("skipped a message over the size bound; it had no id");
    expect(child.exitCode).toBeNull();
  });
});
