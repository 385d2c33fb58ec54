/**
 * Clients that send their requests slowly, or never finish them, against a real server: they
 * hold their own connections until the request deadline and nothing else, so every other
 * client's calls and new sessions are served meanwhile; a request counts in flight only once
 * its body came. The slow connections come from 127.0.0.2 (another peer of the loopback
 * server) and the well-behaved client from 127.0.0.1, unless a test says otherwise.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type HttpProcess, ok, startHttpProcess, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openSlow,
  raw,
  rawSession,
  requestHead,
  type SlowConnection,
  toolCall,
} from "./http-raw.js";

const ATTACKER = "127.0.0.2";
const token = "t0ken-for-slow-clients";
const auth = { authorization: `Bearer ${token}` };

/** Starts a server with `args` and `env`; stops it and removes its data after the suite. */
function serverWith(args: string[], env: Record<string, string> = { HMS_MCP_TOKEN: token }) {
  const data = tempDir();
  let server: HttpProcess;
  beforeAll(async () => {
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--log-level", "info", ...args],
      env,
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });
  return { server: () => server, dir: data.dir };
}

/** `count` connections that send the headers of a POST declaring 100000 bytes, then `{`. */
async function slowBodies(
  url: string,
  count: number,
  headers: Record<string, string>,
): Promise<SlowConnection[]> {
  const text = `${requestHead(url, { ...headers, "Content-Length": "100000" })}{`;
  const connections: SlowConnection[] = [];
  for (let i = 0; i < count; i++) {
    connections.push(await openSlow(url, text, { localAddress: ATTACKER }));
  }
  return connections;
}

/**
 * What a well-behaved client (a token's, or none) gets meanwhile, over a second or so: a new
 * session and a memory file's `get` on it, ten times; the statuses of every answer.
 */
async function wellBehaved(url: string, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let round = 0; round < 10; round++) {
    const opened = await raw(url, { headers });
    statuses.push(opened.status);
    if (opened.status !== 200) continue;
    const session = {
      ...headers,
      "mcp-session-id": opened.headers["mcp-session-id"] as string,
      "mcp-protocol-version": "2025-06-18",
    };
    const got = await raw(url, {
      headers: session,
      body: toolCall(round, "get", { key: "/memories/notes.md" }),
    });
    statuses.push(got.status);
    if (got.status === 200) expect(got.body).toContain("kept notes");
    await sleep(100);
  }
  return statuses;
}

describe("request bodies that never come, from clients of the same token", () => {
  const { server } = serverWith([]);

  it.each([16, 64])(
    "hold no request slot: with %i of them open, a client's new sessions and gets are served",
    async (count) => {
      const url = server().url;
      const client = await server().connect(token);
      await ok(client, "remember", { key: "/memories/notes.md", text: "kept notes" });
      const slow = await slowBodies(url, count, auth);
      // --max-in-flight-per-token and --max-in-flight are 16 and 64: bodies still coming
      // would hold them all.
      expect(await wellBehaved(url, auth)).toEqual(Array(20).fill(200));
      expect(slow.every(({ socket }) => !socket.destroyed)).toBe(true);
      for (const { socket } of slow) socket.destroy();
      await client.close();
    },
  );
});

describe("request bodies that never come, from clients of four tokens", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const tokens = ["a", "b", "c", "d", "e"].map((name) => ({
    name,
    token: `token-${name}-`.repeat(4),
  }));
  let server: HttpProcess;
  beforeAll(async () => {
    const { createHash } = await import("node:crypto");
    writeFileSync(
      tokensFile,
      tokens
        .map(({ name, token }) =>
          JSON.stringify({
            name,
            sha256: createHash("sha256").update(token).digest("hex"),
            namespaces: ["default"],
            access: "read-write",
          }),
        )
        .join("\n"),
    );
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--log-level", "info", "--tokens-file", tokensFile],
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("hold no slot of the server's: a fifth token's client is served, and unauthenticated ones take nothing", async () => {
    const url = server.url;
    const fifth = { authorization: `Bearer ${tokens[4]?.token}` };
    const client = await server.connect(tokens[4]?.token);
    await ok(client, "remember", { key: "/memories/notes.md", text: "kept notes" });
    const slow: SlowConnection[] = [];
    for (const { token } of tokens.slice(0, 4)) {
      slow.push(...(await slowBodies(url, 16, { authorization: `Bearer ${token}` })));
    }
    // Without a token: answered 401 at once, whatever follows.
    const strangers = await slowBodies(url, 64, {});
    expect(await wellBehaved(url, fifth)).toEqual(Array(20).fill(200));
    // A token whose own connections hang is served on a new one.
    expect(await wellBehaved(url, { authorization: `Bearer ${tokens[0]?.token}` })).toEqual(
      Array(20).fill(200),
    );
    for (const { socket } of [...slow, ...strangers]) socket.destroy();
    await client.close();
  });
});

describe("requests that do not all come within the deadlines", () => {
  const { server } = serverWith(["--headers-timeout", "1", "--request-timeout", "2"]);

  it("keeps an idle connection a minute, longer than a lagging client may take to reuse it", async () => {
    // A client retires an idle connection just before the time the server announces; with
    // Node's 5 s, a client whose event loop lagged reused one the server was closing.
    const answer = await raw(server().url, { headers: { ...auth, connection: "keep-alive" } });
    expect(answer.status).toBe(200);
    expect(answer.headers["keep-alive"]).toBe("timeout=65");
  });

  it("are answered 408 and closed, not before their deadline; others are served meanwhile", async () => {
    const url = server().url;
    const client = await server().connect(token);
    await ok(client, "remember", { key: "/memories/notes.md", text: "kept notes" });
    const session = await rawSession(url, auth);
    const call = toolCall(1, "get", { key: "/memories/notes.md" });
    const length = String(Buffer.byteLength(call));
    const head = (headers: Record<string, string>) => requestHead(url, { ...session, ...headers });
    // Each shape of a request that stalls, and the deadline it meets (headers or whole).
    const shapes: [string, string, "headers" | "request", { byte: string; everyMs: number }?][] = [
      ["nothing at all", "", "headers"],
      ["headers that stop", head({ "Content-Length": length }).slice(0, 60), "headers"],
      [
        "headers, one byte at a time",
        `${head({ "Content-Length": length })}`.replace(/\r\n\r\n$/, "\r\nX-Slow: "),
        "headers",
        { byte: "a", everyMs: 200 },
      ],
      ["a body that never comes", head({ "Content-Length": length }), "request"],
      ["a body one byte short", head({ "Content-Length": length }) + call.slice(0, -1), "request"],
      [
        "a chunked body that stops",
        `${head({ "Transfer-Encoding": "chunked" })}5\r\n${call.slice(0, 5)}\r\n`,
        "request",
      ],
      [
        "Expect: 100-continue, then no body",
        head({ "Content-Length": length, Expect: "100-continue" }),
        "request",
      ],
      [
        "a body one byte at a time",
        head({ "Content-Length": "100000" }),
        "request",
        { byte: " ", everyMs: 200 },
      ],
    ];
    const slow = await Promise.all(
      shapes.map(([, text, , trickle]) => openSlow(url, text, { localAddress: ATTACKER, trickle })),
    );
    // Meanwhile the memory tool's file is read, again and again.
    for (let i = 0; i < 5; i++) {
      expect(await ok(client, "get", { key: "/memories/notes.md" })).toMatchObject({
        text: "kept notes",
      });
    }
    const closed = await Promise.all(slow.map((connection) => connection.closed));
    closed.forEach(({ afterMs, answer }, i) => {
      const [shape, , deadline] = shapes[i] as (typeof shapes)[number];
      expect({
        shape,
        answer: answer.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "").slice(0, 28),
      }).toEqual({
        shape,
        answer: "HTTP/1.1 408 Request Timeout",
      });
      expect({ shape, early: afterMs < (deadline === "headers" ? 1000 : 2000) }).toEqual({
        shape,
        early: false,
      });
    });
    expect(closed[6]?.answer.startsWith("HTTP/1.1 100 Continue")).toBe(true);
    // The log says why (its line may come a moment after the connection closed).
    const logged = "request body did not all come within the request timeout";
    for (let i = 0; i < 100 && !server().stderr().includes(logged); i++) await sleep(50);
    expect(server().stderr()).toContain(logged);
    // The server still serves a request that came whole.
    expect(
      (
        await raw(url, {
          headers: session,
          body: toolCall(2, "get", { key: "/memories/notes.md" }),
        })
      ).status,
    ).toBe(200);
    await client.close();
  });
});

/** The status of a new session from `localAddress`, asked again while it is 429, for 10 s at most. */
async function servedAgain(url: string, localAddress?: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status } = await raw(url, { headers: auth, localAddress });
    if (status !== 429 || Date.now() > deadline) return status;
    await sleep(50);
  }
}

describe("connections from one address, over its cap", () => {
  // A connection over the cap that sends nothing is let go after a grace of 1 s. The headers
  // deadline must be well past that: at 1 s, Node's deadline check (every 1 s) and the grace
  // fell due together whenever the server's event loop lagged, and the check answered 408
  // first (seen once, at load 4.5).
  const { server } = serverWith([
    "--max-connections-per-peer",
    "8",
    "--request-timeout",
    "2",
    "--headers-timeout",
    "2",
  ]);

  it("are answered 429 and closed; another address is served; the address is served again once its connections close", async () => {
    const url = server().url;
    const slow = await slowBodies(url, 8, auth);
    const refused = await raw(url, { headers: auth, localAddress: ATTACKER });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.headers.connection).toBe("close");
    expect(JSON.parse(refused.body).error.message).toBe(
      "Too many connections from this address (8, the most is 8); reuse connections (keep-alive) or retry once some have closed",
    );
    // A connection over the cap that sends nothing is let go.
    const silent = await openSlow(url, "", { localAddress: ATTACKER });
    expect((await silent.closed).answer).toBe("");
    // Another address is another peer.
    expect((await raw(url, { headers: auth })).status).toBe(200);
    // The request deadline closes the slow ones, and the address gets its room back (once the
    // server has seen them close, a moment after their clients did).
    await Promise.all(slow.map((connection) => connection.closed));
    expect(await servedAgain(url, ATTACKER)).toBe(200);
  });

  it("count every client behind one address together (a proxy's clients share its cap)", async () => {
    const url = server().url;
    const slow: SlowConnection[] = [];
    const text = `${requestHead(url, { ...auth, "Content-Length": "100000" })}{`;
    for (let i = 0; i < 8; i++) slow.push(await openSlow(url, text));
    expect((await raw(url, { headers: auth })).status).toBe(429);
    await Promise.all(slow.map((connection) => connection.closed));
    expect(await servedAgain(url)).toBe(200);
  });
});

describe("large request bodies that come slowly", () => {
  // --max-in-flight 1: large bodies being read share a budget of one largest body (1245184
  // bytes for the default --max-text-bytes).
  const { server } = serverWith([
    "--max-in-flight",
    "1",
    "--request-timeout",
    "3",
    "--headers-timeout",
    "1",
  ]);

  it("share a budget: past it a large body is refused with 503, and ordinary requests are read", async () => {
    const url = server().url;
    const client = await server().connect(token);
    await ok(client, "remember", { key: "/memories/notes.md", text: "kept notes" });
    const large = await Promise.all(
      [1, 2].map(() =>
        openSlow(
          url,
          `${requestHead(url, { ...auth, "Content-Length": "1000000" })}${" ".repeat(700_000)}`,
          {
            localAddress: ATTACKER,
          },
        ),
      ),
    );
    const session = await rawSession(url, auth);
    expect(
      (
        await raw(url, {
          headers: session,
          body: toolCall(3, "get", { key: "/memories/notes.md" }),
        })
      ).status,
    ).toBe(200);
    const [first, second] = await Promise.all(large.map((connection) => connection.closed));
    const answers = [first?.answer ?? "", second?.answer ?? ""];
    const refused = answers.filter((answer) => answer.startsWith("HTTP/1.1 503"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/retry-after: 1/i);
    expect(refused[0]).toContain("The server is busy reading large request bodies");
    expect(refused[0]).toContain("the most is 1245184");
    // The other waited for the rest of its body until its deadline.
    expect(answers.filter((answer) => answer.startsWith("HTTP/1.1 408"))).toHaveLength(1);
    await client.close();
  });
});
