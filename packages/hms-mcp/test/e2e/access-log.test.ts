/**
 * The log an operator acts on, read from real hms-mcp processes' stderr: one access line per
 * MCP request (never a memory's text or a query; keys only at debug), one line per refusal
 * with the peer and the reason (rate-limited, with a count of what was left out), the
 * start-up line's truth about authentication, and request ids that a client may send and that
 * come back in the log and in error answers.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  call,
  type HttpProcess,
  ok,
  startHttpProcess,
  startStdio,
  tempDir,
} from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "./http-raw.js";

type Line = Record<string, unknown>;

/** The JSON lines of a server's stderr (the inspector's plain line left out). */
function linesOf(stderr: string): Line[] {
  return stderr.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Line];
    } catch {
      return [];
    }
  });
}

/** Waits until the server's log has a line matching `wanted` (counting polls); returns it. */
async function logged(stderr: () => string, wanted: (line: Line) => boolean): Promise<Line> {
  for (let poll = 0; poll < 600; poll++) {
    const found = linesOf(stderr()).find(wanted);
    if (found !== undefined) return found;
    await sleep(100);
  }
  throw new Error(`no such line in the log:\n${stderr()}`);
}

function tokenLine(name: string, token: string, namespaces: string[], access = "read-write") {
  const sha256 = createHash("sha256").update(token).digest("hex");
  return JSON.stringify({ name, sha256, namespaces, access });
}

/** An MCP client sending `headers` with every request. */
async function clientWith(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "access-log-test", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("an HTTP server's log", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const admin = "admin-token-".repeat(3);
  const alice = "alice-token-".repeat(3);
  const reader = "reader-token-".repeat(3);
  let server: HttpProcess;
  let lines: () => Line[];

  beforeAll(async () => {
    writeFileSync(
      tokensFile,
      [
        tokenLine("alice", alice, ["alice"]),
        tokenLine("reader", reader, ["alice"], "read-only"),
      ].join("\n"),
    );
    server = await startHttpProcess({
      dataDir: data.dir,
      args: [
        "--namespace-arg",
        "--tokens-file",
        tokensFile,
        "--max-new-sessions-per-second",
        "1",
        "--log-level",
        "info",
      ],
      env: { HMS_MCP_TOKEN: admin },
    });
    lines = () => linesOf(server.stderr());
  });
  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  it("starts with a line that says which tokens it asks for", async () => {
    const started = (line: Line) => String(line.msg).startsWith("hms-mcp listening");
    expect(lines().find(started)).toMatchObject({ auth: "token+tokens-file" });
    const others = tempDir();
    const file = join(others.dir, "tokens.jsonl");
    writeFileSync(file, `${tokenLine("a", alice, ["a"])}\n`);
    const servers = await Promise.all([
      startHttpProcess({ dataDir: others.dir, args: ["--tokens-file", file] }),
      startHttpProcess({ dataDir: others.dir, env: { HMS_MCP_TOKEN: admin } }),
      startHttpProcess({ dataDir: others.dir }),
    ]);
    try {
      const auth = servers.map((s) => linesOf(s.stderr()).find(started)?.auth);
      expect(auth).toEqual(["tokens-file", "token", "none"]);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      others.remove();
    }
  });

  it("writes one line per request, with no memory text, query or key at info", async () => {
    const client = await server.connect(alice);
    try {
      await ok(client, "remember", {
        namespace: "alice",
        key: "/memories/zq-key-6601.md",
        text: "zq-text-3391",
      });
      await ok(client, "recall", { namespace: "alice", query: "zq-query-2270" });
      await call(client, "get", { namespace: "alice", key: "/memories/zq-missing.md" });
    } finally {
      await client.close();
    }
    const remembered = await logged(server.stderr, (l) => l.tool === "remember");
    expect(remembered).toMatchObject({
      level: 30,
      msg: "request",
      method: "tools/call",
      tool: "remember",
      namespace: "alice",
      token: "alice",
      peer: "127.0.0.1",
      outcome: "ok",
    });
    expect(remembered.ms).toBeTypeOf("number");
    expect(remembered.request_id).toMatch(UUID);
    expect(remembered.paths).toBeUndefined();
    expect(await logged(server.stderr, (l) => l.tool === "get")).toMatchObject({
      outcome: "NOT_FOUND",
    });
    expect(lines().some((l) => l.method === "initialize" && l.token === "alice")).toBe(true);
    expect(lines().some((l) => l.msg === "session opened" && l.token === "alice")).toBe(true);
    expect(server.stderr()).not.toContain("zq-");
  });

  it("logs each refusal with the peer and the reason: 401, 403, a namespace, a read-only write, 429", async () => {
    expect((await raw(server.url, {})).status).toBe(401);
    expect(
      (
        await raw(server.url, {
          headers: { authorization: `Bearer ${alice}`, host: "evil.example" },
        })
      ).status,
    ).toBe(403);
    const asAlice = await server.connect(alice);
    const asReader = await server.connect(reader);
    try {
      expect((await call(asAlice, "get", { namespace: "bob", key: "x.md" })).isError).toBe(true);
      expect(
        (await call(asReader, "remember", { namespace: "alice", key: "r.md", text: "r" })).isError,
      ).toBe(true);
    } finally {
      await asAlice.close();
      await asReader.close();
    }
    // New sessions of one token beyond its rate (1 a second, bursts of 2), all at once.
    const opened = await Promise.all(
      Array.from({ length: 12 }, () =>
        raw(server.url, { headers: { authorization: `Bearer ${alice}` } }),
      ),
    );
    expect(opened.map((answer) => answer.status)).toContain(429);

    const refusal = (reason: string) => logged(server.stderr, (l) => l.refused === reason);
    expect(await refusal("unauthenticated")).toMatchObject({
      level: 40,
      status: 401,
      peer: "127.0.0.1",
    });
    expect((await refusal("unauthenticated")).request_id).toMatch(UUID);
    expect(await refusal("host")).toMatchObject({ status: 403, peer: "127.0.0.1" });
    expect(await refusal("namespace")).toMatchObject({
      token: "alice",
      namespace: "bob",
      peer: "127.0.0.1",
    });
    expect(await refusal("read-only")).toMatchObject({ token: "reader", namespace: "alice" });
    expect(await refusal("new-sessions")).toMatchObject({
      status: 429,
      token: "alice",
      peer: "127.0.0.1",
    });
  });

  it("gives each request an id, the client's when valid, back in the log and in error answers", async () => {
    const headers = { authorization: `Bearer ${alice}`, "x-request-id": "trace-abc.1" };
    const noSession = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    const refused = await raw(server.url, { headers, body: noSession });
    expect(refused.status).toBe(400);
    expect(refused.headers["x-request-id"]).toBe("trace-abc.1");
    expect(JSON.parse(refused.body).error.data).toEqual({ request_id: "trace-abc.1" });
    // One that could break a log line is replaced, the same new id in the header and the body.
    const replaced = await raw(server.url, {
      headers: { ...headers, "x-request-id": 'a "quoted" id' },
      body: noSession,
    });
    const id = replaced.headers["x-request-id"];
    expect(id).toMatch(UUID);
    expect(JSON.parse(replaced.body).error.data).toEqual({ request_id: id });
    // An MCP error answer (an unknown tool) carries it in its data; the log line too. (Admin's
    // token: alice used up her new sessions in the test before.)
    const client = await clientWith(server.url, {
      authorization: `Bearer ${admin}`,
      "x-request-id": "client-7",
    });
    try {
      const error = await client
        .callTool({ name: "zq-no-such-tool", arguments: {} })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).data).toMatchObject({ request_id: "client-7" });
    } finally {
      await client.close();
    }
    expect(
      await logged(server.stderr, (l) => l.request_id === "client-7" && l.tool === "unknown"),
    ).toMatchObject({ outcome: "invalid_params", token: "HMS_MCP_TOKEN" });
  });
});

describe("a flood of refusals", () => {
  it("logs at most 5 lines a second per reason, and when the server stops, how many it left out", async () => {
    const data = tempDir();
    const server = await startHttpProcess({
      dataDir: data.dir,
      env: { HMS_MCP_TOKEN: "admin-token-".repeat(3) },
    });
    const sent = 300;
    try {
      for (let batch = 0; batch < sent / 30; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 30 }, () =>
            raw(server.url, { headers: { authorization: "Bearer wrong" } }),
          ),
        );
        expect(answers.every((answer) => answer.status === 401)).toBe(true);
      }
    } finally {
      expect(await server.stop()).toBe(0);
      data.remove();
    }
    // Its stderr may still be in the pipe as it exits: read up to its last line.
    await logged(server.stderr, (line) => line.msg === "stopped");
    const all = linesOf(server.stderr());
    const refusals = all.filter((line) => line.refused === "unauthenticated");
    const leftOut = all
      .map((line) => (line.suppressed as Record<string, number> | undefined)?.unauthenticated ?? 0)
      .reduce((sum, n) => sum + n, 0);
    // Every refusal is either a line or counted in one: none is lost, none told twice.
    expect(refusals.length + leftOut).toBe(sent);
    // Within any second, at most two of the log's one-second windows: 2 x 5 lines.
    const times = refusals.map((line) => line.time as number);
    for (const start of times) {
      expect(times.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(10);
    }
  });
});

describe("a stdio server's log", () => {
  it("takes a request id from _meta and shows the keys only at debug, never the text", async () => {
    const data = tempDir();
    const server = await startStdio({ dataDir: data.dir, args: ["--log-level", "debug"] });
    try {
      await server.client.callTool({
        name: "remember",
        arguments: { key: "zq-debug-key.md", text: "zq-debug-text" },
        _meta: { "hms-mcp/request-id": "stdio-1" },
      });
      const error = await server.client
        .callTool({ name: "nope", arguments: {}, _meta: { "hms-mcp/request-id": "stdio-2" } })
        .catch((thrown: unknown) => thrown);
      expect((error as McpError).data).toMatchObject({ request_id: "stdio-2" });
      const line = await logged(server.stderr, (l) => l.request_id === "stdio-1");
      expect(line).toMatchObject({
        method: "tools/call",
        tool: "remember",
        namespace: "default",
        outcome: "ok",
        paths: { key: "zq-debug-key.md" },
      });
      // A pipe has no token and no peer.
      expect(line.token).toBeUndefined();
      expect(line.peer).toBeUndefined();
      expect(server.stderr()).not.toContain("zq-debug-text");
      const started = await logged(server.stderr, (l) => l.msg === "hms-mcp serving on stdio");
      expect(started).toMatchObject({ auth: "none", metrics: false });
      // Access lines are written in batches: every one is out by the time the server stops.
      for (let i = 0; i < 20; i++) await ok(server.client, "get", { key: "zq-debug-key.md" });
    } finally {
      await server.close();
      data.remove();
    }
    await logged(server.stderr, (l) => l.msg === "stopped");
    const gets = linesOf(server.stderr()).filter((l) => l.tool === "get" && l.outcome === "ok");
    expect(gets).toHaveLength(20);
  });
});
