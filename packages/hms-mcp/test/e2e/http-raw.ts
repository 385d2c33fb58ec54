/** Raw HTTP requests to hms-mcp, so e2e tests can send any header, body or timing. */
import { type IncomingMessage, request } from "node:http";
import { connect as connectTcp, type Socket } from "node:net";
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
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    path?: string;
    /** The address to send from (another of 127.0.0.0/8 is another peer). */
    localAddress?: string;
  },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? "POST",
        localAddress: options.localAddress,
        // A connection of its own: one kept alive by an earlier request would not show what a
        // new connection gets.
        agent: false,
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

/** A connection that sent part of a request and then stopped (or trickles), as an attacker's. */
export interface SlowConnection {
  readonly socket: Socket;
  /** Resolves when the server closes the connection: after how long, and what it answered. */
  readonly closed: Promise<{ afterMs: number; answer: string }>;
}

/**
 * Opens a connection from `localAddress` (any of 127.0.0.0/8 reaches a loopback server, so a
 * test can be another peer) and writes `text`; then, with `trickle`, one byte of it every
 * `trickle.everyMs` until the server closes. Resolves once `text` is written.
 */
export function openSlow(
  url: string,
  text: string,
  options: { localAddress?: string; trickle?: { byte: string; everyMs: number } } = {},
): Promise<SlowConnection> {
  const target = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connectTcp({
      port: Number(target.port),
      host: target.hostname,
      localAddress: options.localAddress,
    });
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    const closed = new Promise<{ afterMs: number; answer: string }>((done) => {
      socket.once("close", () => done({ afterMs: Date.now() - started, answer }));
    });
    socket.on("error", () => {});
    socket.once("connect", () => {
      const written = () => {
        if (options.trickle !== undefined) {
          const { byte, everyMs } = options.trickle;
          const timer = setInterval(() => {
            if (!socket.destroyed) socket.write(byte);
          }, everyMs);
          socket.once("close", () => clearInterval(timer));
        }
        resolve({ socket, closed });
      };
      if (text === "") written();
      else socket.write(text, written);
    });
    socket.once("error", reject);
  });
}

/** The head of a POST to `url`'s endpoint with `headers` (no Content-Length unless given). */
export function requestHead(url: string, headers: Record<string, string>): string {
  const target = new URL(url);
  const lines = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** A tools/call request's body. */
export function toolCall(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
}
