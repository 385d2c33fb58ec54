import { spawn } from "node:child_process";
import {
  cleanEnv,
  exited,
  type HttpProcess,
  hmsMcpBin,
  ok,
  startHttpProcess,
  tempDir,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declareBody, raw, rawSession } from "./http-raw.js";

describe("HTTP with a token", () => {
  const data = tempDir();
  const token = "s3cret-token-for-tests";
  let server: HttpProcess;

  beforeAll(async () => {
    server = await startHttpProcess({ dataDir: data.dir, env: { HMS_MCP_TOKEN: token } });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("answers 401, and nothing more, without the right bearer token", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token" },
      { authorization: `Bearer ${token}x` },
      { authorization: `Basic ${Buffer.from(`user:${token}`).toString("base64")}` },
      { authorization: token },
      { authorization: "Bearer " },
    ];
    for (const headers of attempts) {
      for (const path of ["/mcp", "/elsewhere"]) {
        const response = await raw(server.url, { headers, path });
        expect(response.status).toBe(401);
        expect(response.body).toBe('{"error":"unauthorized"}');
        expect(response.headers["www-authenticate"]).toBe('Bearer realm="hms-mcp"');
        expect(response.headers["mcp-session-id"]).toBeUndefined();
      }
    }
  });

  it("serves a client that sends the token", async () => {
    const client = await server.connect(token);
    await ok(client, "remember", { key: "authed", text: "in" });
    expect(await ok(client, "get", { key: "authed" })).toMatchObject({ text: "in" });
    await client.close();
    await expect(server.connect("wrong")).rejects.toThrow();
    const notFound = await raw(server.url, {
      headers: { authorization: `Bearer ${token}` },
      path: "/x",
    });
    expect(notFound.status).toBe(404);
  });
});

describe("HTTP on loopback without a token", () => {
  const data = tempDir();
  let server: HttpProcess;

  beforeAll(async () => {
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--allowed-origins", "http://localhost:6274"],
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("refuses foreign Origin and Host headers (DNS rebinding)", async () => {
    const origin = await raw(server.url, { headers: { origin: "http://evil.example" } });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain("Origin");
    const port = new URL(server.url).port;
    const host = await raw(server.url, { headers: { host: `evil.example:${port}` } });
    expect(host.status).toBe(403);
    expect(host.body).toContain("Host");
    const good: Record<string, string>[] = [
      {},
      { origin: "http://localhost:6274" },
      { host: `localhost:${port}` },
    ];
    for (const headers of good) {
      const accepted = await raw(server.url, { headers });
      expect(accepted.status).toBe(200);
      expect(accepted.headers["mcp-session-id"]).toEqual(expect.any(String));
    }
  });

  it("gives every client its own session, and rejects unknown sessions", async () => {
    const clients = await Promise.all([server.connect(), server.connect(), server.connect()]);
    await Promise.all(
      clients.map((client, i) => ok(client, "remember", { key: `session/${i}`, text: `${i}` })),
    );
    const listed = await ok<{ items: unknown[] }>(clients[0] as never, "list", {
      prefix: "session/",
    });
    expect(listed.items).toHaveLength(3);
    await Promise.all(clients.map((client) => client.close()));

    const unknown = await raw(server.url, {
      headers: { "mcp-session-id": "00000000-0000-0000-0000-000000000000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);
    const noSession = await raw(server.url, {
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(noSession.status).toBe(400);
    const notJson = await raw(server.url, { body: "{not json" });
    expect(notJson.status).toBe(400);
  });
});

describe("HTTP requests an attacker shapes", () => {
  const data = tempDir();
  const token = "t0ken-for-hostile-requests";
  const auth = { authorization: `Bearer ${token}` };
  let server: HttpProcess;

  beforeAll(async () => {
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--log-level", "trace"],
      env: { HMS_MCP_TOKEN: token },
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("refuses a body declared over the bound at once, without reading it", async () => {
    // 6 x 32768 + 1 MiB is the bound of a default server.
    const refused = await declareBody(server.url, 100_000_000, auth);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).error.message).toBe("Request body is over 1245184 bytes");
    expect(refused.connection).toBe("close");
    // With Expect: 100-continue the client is never told to send it.
    const expecting = await declareBody(server.url, 100_000_000, {
      ...auth,
      expect: "100-continue",
    });
    expect(expecting).toMatchObject({ status: 413, continued: false });
    const unauthorized = await declareBody(server.url, 10, { expect: "100-continue" });
    expect(unauthorized).toMatchObject({ status: 401, continued: false });
  });

  it("refuses JSON-RPC batches, which MCP no longer has", async () => {
    const session = await rawSession(server.url, auth);
    const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
    const batch = await raw(server.url, {
      headers: session,
      body: JSON.stringify([list(1), list(2)]),
    });
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.body)).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message:
          "Invalid Request: JSON-RPC batches are not supported; send one message per request",
        data: { request_id: batch.headers["x-request-id"] },
      },
      id: null,
    });
    const single = await raw(server.url, { headers: session, body: JSON.stringify(list(3)) });
    expect(single.status).toBe(200);
  });

  it("answers metadata nested 200000 levels deep with a tool error, and keeps serving", async () => {
    const session = await rawSession(server.url, auth);
    const depth = 200_000;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"remember","arguments":{"key":"deep","text":"x","metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}}`;
    const response = await raw(server.url, { headers: session, body });
    expect(response.status).toBe(200);
    const { result } = JSON.parse(response.body);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe("TOO_LARGE: metadata nests deeper than 32 levels");
    const client = await server.connect(token);
    expect((await client.callTool({ name: "get", arguments: { key: "deep" } })).isError).toBe(true);
    await client.close();
  });

  it("never puts the token, a stack trace or a file path in an answer or the log", async () => {
    const session = await rawSession(server.url, auth);
    const bodies = [
      "{not json",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "x" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "nope" }),
    ];
    for (const body of bodies) {
      for (const headers of [session, auth, { authorization: `Bearer ${token}x` }]) {
        const response = await raw(server.url, { headers, body });
        expect(response.body).not.toContain(token);
        expect(response.body).not.toMatch(/\bat .*\(|\/src\/|\/dist\/|node_modules/);
      }
    }
    expect(server.stderr()).not.toContain(token);
  });
});

/** A token long enough for a listener beyond loopback (32 bytes or more). */
const REMOTE_TOKEN = "t0ken-".repeat(6);

describe("binding a non-loopback address", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  async function start(args: string[], env: Record<string, string> = {}) {
    const child = spawn(
      process.execPath,
      [hmsMcpBin(), "--transport", "http", "--port", "0", "--data-dir", data.dir, ...args],
      { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    return { child, stderr: () => stderr };
  }

  it("is refused without a token, and without --allow-remote", async () => {
    const noToken = await start(["--host", "0.0.0.0", "--allow-remote"]);
    expect(await exited(noToken.child)).toBe(2);
    expect(noToken.stderr()).toContain("refusing to listen on 0.0.0.0");
    expect(noToken.stderr()).toContain("Missing: a token (HMS_MCP_TOKEN or --tokens-file).");

    const noFlag = await start(["--host", "0.0.0.0"], { HMS_MCP_TOKEN: "t0ken" });
    expect(await exited(noFlag.child)).toBe(2);
    expect(noFlag.stderr()).toContain("Missing: --allow-remote.");

    const neither = await start(["--host", "::"]);
    expect(await exited(neither.child)).toBe(2);
    expect(neither.stderr()).toContain(
      "Missing: a token (HMS_MCP_TOKEN or --tokens-file) and --allow-remote.",
    );
  });

  it("starts with both a token and --allow-remote", async () => {
    const server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--host", "0.0.0.0", "--allow-remote"],
      env: { HMS_MCP_TOKEN: REMOTE_TOKEN },
    });
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    const url = server.url.replace("0.0.0.0", "127.0.0.1");
    expect((await raw(url, {})).status).toBe(401);
    expect((await raw(url, { headers: { authorization: `Bearer ${REMOTE_TOKEN}` } })).status).toBe(
      200,
    );
    expect(await server.stop()).toBe(0);
  });
});
