// A real hms-mcp over HTTP that forgets the client's session (it restarts): the backend opens
// a new session once and sends the call again; a second 404 is an error. The requests go
// through a small HTTP relay in this test that forwards them to the server and counts them
// (and, for the second case, answers 404 itself as hms-mcp does for an unknown session).

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpServer, startHttpServer, tempDir } from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "../../src/backend.js";
import { connectHmsBackend } from "../../src/connect.js";
import { HmsConnectionError } from "../../src/errors.js";

/** Forwards requests to `upstream`, counting initialize requests and 404 answers to POSTs. */
class Relay {
  upstream = "";
  initializes = 0;
  notFound = 0;
  toolCalls = 0;
  /** Answer 404 to every tool call, as a server that forgets each session at once would. */
  forgetting = false;
  readonly #server: Server;

  constructor() {
    this.#server = createServer((req, res) => {
      // As a proxy does, the request upstream ends when the client's does: an event stream
      // the client closed would otherwise stay open to the server, whose stop waits 5 s for it.
      const upstream = new AbortController();
      res.once("close", () => upstream.abort());
      void this.#forward(req, upstream.signal).then(
        ({ status, headers, body }) => {
          res.writeHead(status, headers);
          res.end(body);
        },
        (error: unknown) => {
          res.writeHead(502).end(String(error));
        },
      );
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #forward(req: IncomingMessage, signal: AbortSignal) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method =
      body.length > 0
        ? (JSON.parse(body.toString("utf8")) as { method?: string }).method
        : undefined;
    if (method === "initialize") this.initializes++;
    if (method === "tools/call") this.toolCalls++;
    const session = req.headers["mcp-session-id"];
    if (this.forgetting && typeof session === "string" && method === "tools/call") {
      this.notFound++;
      const error = { code: -32001, message: "Session not found; initialize a new session" };
      return {
        status: 404,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", error, id: null }),
      };
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "content-length") {
        headers[name] = value;
      }
    }
    const answer = await fetch(this.upstream, {
      method: req.method,
      headers,
      signal,
      ...(body.length > 0 ? { body } : {}),
    });
    // Calls only: the SDK's event stream (a GET) also meets the restarted server's 404 when it
    // reconnects, as many times as its timing makes it try.
    if (answer.status === 404 && req.method === "POST") this.notFound++;
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding") out[name] = value;
    });
    return { status: answer.status, headers: out, body: Buffer.from(await answer.arrayBuffer()) };
  }
}

describe("a server that forgets the session (HTTP 404)", () => {
  const data = tempDir();
  const relay = new Relay();
  const servers: HttpServer[] = [];
  let backend: HmsMemoryBackend | undefined;
  let url: string;

  beforeAll(async () => {
    url = await relay.listen();
  });

  const start = async () => {
    const server = await startHttpServer({ dataDir: data.dir });
    servers.push(server);
    relay.upstream = server.url;
  };

  afterEach(async () => {
    await backend?.close();
    backend = undefined;
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    relay.forgetting = false;
  });
  afterAll(async () => {
    await relay.close();
    data.remove();
  });

  it("opens a new session once and sends the call again, when the server restarted", async () => {
    await start();
    backend = await connectHmsBackend({ connection: { url } });
    await backend.create("/memories/a.md", "before the restart\n");
    expect(relay.initializes).toBe(1);

    // A new server process on the same store: the client's session id means nothing to it.
    await servers.shift()?.stop();
    await start();
    expect(await backend.read("/memories/a.md")).toEqual({
      content: "before the restart\n",
      version: 1,
    });
    expect({ initializes: relay.initializes, notFound: relay.notFound }).toEqual({
      initializes: 2,
      notFound: 1,
    });
    // The new session serves later calls, concurrent ones too, without opening another.
    await Promise.all([backend.stats(), backend.list("/memories/"), backend.stats()]);
    expect(relay.initializes).toBe(2);
    expect(backend.closed).toBe(false);
  });

  it("fails the call when the new session is forgotten too, after one retry", async () => {
    await start();
    backend = await connectHmsBackend({ connection: { url } });
    const before = { initializes: relay.initializes, toolCalls: relay.toolCalls };
    relay.forgetting = true;
    const error = await backend.stats().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HmsConnectionError);
    expect((error as Error).message).toMatch(
      /answered the stats call with HTTP 404 \(it does not know this client's session\) on a session opened just before/,
    );
    // One new session and one retry: two sends of the call in all.
    expect({
      initializes: relay.initializes - before.initializes,
      toolCalls: relay.toolCalls - before.toolCalls,
    }).toEqual({ initializes: 1, toolCalls: 2 });
    expect(backend.closed).toBe(true);
  });
});
