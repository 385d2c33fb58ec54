/** Raw HTTP requests to hms-mcp, so e2e tests can send any header, body or timing. */
import { type IncomingMessage, request } from "node:http";
import { expect } from "vitest";

export const INITIALIZE = JSON.stringify({
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
export function raw(
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

/** A raw session: initialized, with the headers each later request needs. */
export async function rawSession(url: string, headers: Record<string, string> = {}) {
  const init = await raw(url, { headers });
  const session = {
    ...headers,
    "mcp-session-id": init.headers["mcp-session-id"] as string,
    "mcp-protocol-version": "2025-06-18",
  };
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  expect((await raw(url, { headers: session, body: initialized })).status).toBe(202);
  return session;
}

/**
 * Sends only the headers of a POST that declares `length` bytes (and `headers`), and resolves
 * with the response: a server that waits for the body never answers.
 */
export function declareBody(
  url: string,
  length: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; continued: boolean; connection: unknown }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": String(length),
        ...headers,
      },
    });
    req.on("continue", () => {
      continued = true;
    });
    req.on("response", (res: IncomingMessage) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          continued,
          connection: res.headers.connection,
        }),
      );
    });
    req.on("error", reject);
    req.flushHeaders();
    if (headers.expect === undefined) req.write("{");
  });
}
