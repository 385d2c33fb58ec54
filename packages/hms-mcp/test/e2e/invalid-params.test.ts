/**
 * Requests whose params do not fit their method, sent raw over stdio and HTTP to real hms-mcp
 * processes: each is answered -32602 (Invalid params) with a sentence naming the field, never
 * -32603 (Internal error) with zod's issues dumped as JSON, and the server goes on serving.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import {
  cleanEnv,
  type HttpProcess,
  hmsMcpCommand,
  startHttpProcess,
  storeArgs,
  tempDir,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, rawSession } from "./http-raw.js";

interface Answer {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** Each malformed request, and the field its answer must name. */
const MALFORMED: [method: string, params: unknown, field: string][] = [
  ["resources/subscribe", {}, "params.uri"],
  ["resources/subscribe", { uri: 5 }, "params.uri"],
  ["resources/unsubscribe", {}, "params.uri"],
  ["resources/read", {}, "params.uri"],
  ["resources/read", { uri: ["a"] }, "params.uri"],
  ["tools/call", {}, "params.name"],
  ["tools/call", { name: "get", arguments: "not an object" }, "params.arguments"],
  ["prompts/get", {}, "params.name"],
];

function checkAnswer(answer: Answer, method: string, field: string): void {
  expect(answer.error?.code, JSON.stringify(answer)).toBe(-32602);
  expect(answer.error?.message).toMatch(new RegExp(`^Invalid params for ${method}: `));
  expect(answer.error?.message).toContain(`${field}: expected`);
  // A sentence, not a dump of zod's issues.
  expect(answer.error?.message).not.toMatch(/[[{"]/);
}

describe("invalid params over stdio", () => {
  const data = tempDir();
  const { command, args } = hmsMcpCommand(storeArgs(data.dir));
  const child = spawn(command, args, { env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const waiting = new Map<number, (answer: Answer) => void>();

  function request(id: number, method: string, params: unknown): Promise<Answer> {
    const answered = new Promise<Answer>((resolve) => waiting.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answered;
  }

  beforeAll(async () => {
    child.stderr.resume();
    createInterface({ input: child.stdout }).on("line", (line) => {
      const answer = JSON.parse(line) as Answer;
      if (typeof answer.id === "number") waiting.get(answer.id)?.(answer);
    });
    const init = await request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    });
    expect(init.result).toBeDefined();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
  });
  afterAll(() => {
    child.stdin.end();
    data.remove();
  });

  it("answers -32602 with a sentence naming the field, and keeps serving", async () => {
    let id = 1;
    for (const [method, params, field] of MALFORMED) {
      checkAnswer(await request(id++, method, params), method, field);
    }
    expect((await request(id++, "ping", {})).result).toEqual({});
  });
});

describe("invalid params over HTTP", () => {
  const data = tempDir();
  let server: HttpProcess;
  beforeAll(async () => {
    server = await startHttpProcess({ dataDir: data.dir });
  });
  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  it("answers -32602 with a sentence naming the field, and keeps serving", async () => {
    const session = await rawSession(server.url);
    let id = 1;
    for (const [method, params, field] of MALFORMED) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: id++, method, params });
      const answer = await raw(server.url, { headers: session, body });
      checkAnswer(JSON.parse(answer.body) as Answer, method, field);
    }
    const ping = await raw(server.url, {
      headers: session,
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "ping" }),
    });
    expect(JSON.parse(ping.body)).toMatchObject({ result: {} });
  });
});
