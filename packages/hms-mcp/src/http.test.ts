import { spawn } from "node:child_process";
import { request } from "node:http";
import { cleanEnv, exited, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, type HttpProcess, ok, startHttpProcess } from "./test-support.js";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
});

/** A raw HTTP request, so tests can send any header (including Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; path?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...options.headers,
        },
      },
      (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body ?? INITIALIZE);
  });
}

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

describe("binding a non-loopback address", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  async function start(args: string[], env: Record<string, string> = {}) {
    const child = spawn(
      process.execPath,
      [BIN, "--transport", "http", "--port", "0", "--data-dir", data.dir, ...args],
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
    expect(noToken.stderr()).toContain("Missing: a token (HMS_MCP_TOKEN).");

    const noFlag = await start(["--host", "0.0.0.0"], { HMS_MCP_TOKEN: "t0ken" });
    expect(await exited(noFlag.child)).toBe(2);
    expect(noFlag.stderr()).toContain("Missing: --allow-remote.");

    const neither = await start(["--host", "::"]);
    expect(await exited(neither.child)).toBe(2);
    expect(neither.stderr()).toContain("Missing: a token (HMS_MCP_TOKEN) and --allow-remote.");
  });

  it("starts with both a token and --allow-remote", async () => {
    const server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--host", "0.0.0.0", "--allow-remote"],
      env: { HMS_MCP_TOKEN: "t0ken" },
    });
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    const url = server.url.replace("0.0.0.0", "127.0.0.1");
    expect((await raw(url, {})).status).toBe(401);
    expect((await raw(url, { headers: { authorization: "Bearer t0ken" } })).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });
});
