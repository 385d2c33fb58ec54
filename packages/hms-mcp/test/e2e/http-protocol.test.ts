/**
 * HTTP the way MCP clients and browsers expect it: the server's own loopback Origin is
 * accepted (the MCP conformance suite's dns-rebinding-protection check, reproduced here: its
 * npm package needs Node 22), CORS preflights and headers for --allowed-origins, and errors
 * at the HTTP layer that echo the request's JSON-RPC id.
 */
import { type HttpProcess, startHttpProcess, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INITIALIZE, raw } from "./http-raw.js";

const APP = "http://app.example:5173";

describe("HTTP Origin, CORS and JSON-RPC ids", () => {
  const data = tempDir();
  let server: HttpProcess;
  let host: string;

  beforeAll(async () => {
    server = await startHttpProcess({ dataDir: data.dir, args: ["--allowed-origins", APP] });
    host = new URL(server.url).host;
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("passes the conformance suite's dns-rebinding-protection check", async () => {
    // The suite sends Host and Origin naming the server's own address, then evil.example.com.
    const own = await raw(server.url, { headers: { host, origin: `http://${host}` } });
    expect(own.status).toBe(200);
    expect(own.headers["mcp-session-id"]).toEqual(expect.any(String));
    const port = new URL(server.url).port;
    const named = await raw(server.url, {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(named.status).toBe(200);
    const evil = await raw(server.url, {
      headers: { host: "evil.example.com", origin: "http://evil.example.com" },
    });
    expect(evil.status).toBeGreaterThanOrEqual(400);
    expect(evil.status).toBeLessThan(500);
    // Another port of this machine is another origin.
    const otherPort = await raw(server.url, { headers: { origin: `http://127.0.0.1:1` } });
    expect(otherPort.status).toBe(403);
  });

  it("answers an allowed page's CORS preflight, and grants it the answers' headers", async () => {
    const preflight = await raw(server.url, {
      method: "OPTIONS",
      headers: {
        origin: APP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-session-id, mcp-protocol-version",
      },
      body: "",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(APP);
    expect(preflight.headers["access-control-allow-methods"]).toContain("POST");
    const allowed = String(preflight.headers["access-control-allow-headers"]).toLowerCase();
    for (const name of [
      "content-type",
      "mcp-session-id",
      "mcp-protocol-version",
      "authorization",
    ]) {
      expect(allowed).toContain(name);
    }

    const init = await raw(server.url, { headers: { origin: APP } });
    expect(init.status).toBe(200);
    expect(init.headers["access-control-allow-origin"]).toBe(APP);
    expect(String(init.headers["access-control-expose-headers"])).toContain("Mcp-Session-Id");
    expect(init.headers.vary).toBe("Origin");
  });

  it("grants nothing to another page", async () => {
    const preflight = await raw(server.url, {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
      body: "",
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    const post = await raw(server.url, { headers: { origin: "http://evil.example" } });
    expect(post.status).toBe(403);
    expect(post.headers["access-control-allow-origin"]).toBeUndefined();
    expect(post.headers["mcp-session-id"]).toBeUndefined();
  });

  it("echoes the request's id in errors at the HTTP layer", async () => {
    const noSession = await raw(server.url, {
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
    });
    expect(noSession.status).toBe(400);
    expect(JSON.parse(noSession.body)).toMatchObject({ error: { code: -32000 }, id: 5 });
    const unknown = await raw(server.url, {
      headers: { "mcp-session-id": "00000000-0000-0000-0000-000000000000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "six", method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: -32001 }, id: "six" });
    // A notification has no id to echo.
    const notification = await raw(server.url, {
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(JSON.parse(notification.body).id).toBeNull();
  });

  it("answers an initialize missing fields with -32602, saying which", async () => {
    const { params, ...rest } = JSON.parse(INITIALIZE);
    const cases = [
      { ...rest, id: 7, params: { protocolVersion: params.protocolVersion } },
      { ...rest, id: 8 },
    ];
    for (const message of cases) {
      const answer = await raw(server.url, { body: JSON.stringify(message) });
      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.body);
      expect(body).toMatchObject({ error: { code: -32602 }, id: message.id });
      expect(body.error.message).toContain("Invalid params: initialize needs");
      expect(answer.headers["mcp-session-id"]).toBeUndefined();
    }
    const missing = JSON.parse((await raw(server.url, { body: JSON.stringify(cases[0]) })).body)
      .error.message;
    expect(missing).toContain("params.clientInfo");
  });
});
