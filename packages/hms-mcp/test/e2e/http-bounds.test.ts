/**
 * What one HTTP client can make a shared server hold: sessions (capped per token, idle ones
 * closed, the server refusing new ones once full), requests in flight (429 per client, 503 for
 * the server, with Retry-After) and answers it never reads (the longest-held closed). Each
 * bound is checked by its behaviour against a real server, never by timing. Slow requests:
 * slow-clients.test.ts.
 */
import { connect as connectTcp, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type HttpProcess, holdWrites, ok, startHttpProcess, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INITIALIZE, raw, rawSession } from "./http-raw.js";

const token = "t0ken-for-bounds";
const auth = { authorization: `Bearer ${token}` };
const toolsList = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });

/** Starts a server with a token and `args`; stops it and removes its data after the suite. */
function serverWith(args: string[]): () => HttpProcess {
  const data = tempDir();
  let server: HttpProcess;
  beforeAll(async () => {
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--log-level", "debug", ...args],
      env: { HMS_MCP_TOKEN: token },
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });
  return () => server;
}

/** Polls `probe` until `done` says yes, for at most 30 s; returns the last result. */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

/** Opens a TCP connection and writes `text`; the server's answer is never read. */
function rawSocket(url: string, text: string): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(target.port), target.hostname, () => {
      socket.pause();
      socket.write(text, () => resolve(socket));
    });
    socket.on("error", reject);
  });
}

/** The head of a POST to the endpoint, declaring `length` bytes of body. */
function postHead(url: string, headers: Record<string, string>, length: number): string {
  const target = new URL(url);
  const lines = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Reads what is left of the answer on `socket`: "whole" once all of it came (Content-Length
 * or the last chunk), "cut" when the server closed the connection before. A server that lets
 * an answer go closes the socket, but the bytes already in the kernel's buffers still arrive
 * first, so only the answer's end tells.
 */
function readAnswer(socket: Socket): Promise<"whole" | "cut"> {
  return new Promise((resolve) => {
    let head = "";
    let bodyBytes = 0;
    let tail = "";
    let length: number | undefined;
    let done = false;
    const finish = (how: "whole" | "cut") => {
      if (done) return;
      done = true;
      resolve(how);
    };
    socket.on("data", (chunk: Buffer) => {
      if (length === undefined && !head.includes("\r\n\r\n")) {
        head += chunk.toString("latin1");
        const at = head.indexOf("\r\n\r\n");
        if (at === -1) return;
        length = Number(/content-length: (\d+)/i.exec(head.slice(0, at))?.[1] ?? Number.NaN);
        chunk = Buffer.from(head.slice(at + 4), "latin1");
      }
      bodyBytes += chunk.length;
      tail = (tail + chunk.toString("latin1")).slice(-7);
      if (bodyBytes >= (length ?? Number.POSITIVE_INFINITY) || tail === "\r\n0\r\n\r\n") {
        finish("whole");
      }
    });
    socket.once("close", () => finish("cut"));
    socket.resume();
  });
}

describe("sessions, capped per token", () => {
  const server = serverWith(["--max-sessions-per-token", "3"]);

  it("closes the token's least recently used session to make room for its new one", async () => {
    const url = server().url;
    const sessions = [];
    for (let i = 0; i < 4; i++) sessions.push(await rawSession(url, auth));
    const [first, ...rest] = sessions;
    const gone = await raw(url, { headers: first as never, body: toolsList(11) });
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body)).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32001,
        message: "Session not found; initialize a new session",
        data: { request_id: gone.headers["x-request-id"] },
      },
      id: 11,
    });
    for (const session of rest) {
      expect((await raw(url, { headers: session, body: toolsList(12) })).status).toBe(200);
    }
    expect(server().stderr()).toContain("it is over its session cap");
  });
});

describe("sessions, when the server is full", () => {
  const server = serverWith(["--max-sessions", "2"]);

  it("refuses a new session with 503 and Retry-After, and keeps the sessions it has", async () => {
    const url = server().url;
    const kept = [await rawSession(url, auth), await rawSession(url, auth)];
    const refused = await raw(url, { headers: auth });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.headers["mcp-session-id"]).toBeUndefined();
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: -32000, message: expect.stringContaining("most sessions it keeps (2)") },
      id: JSON.parse(INITIALIZE).id,
    });
    for (const session of kept) {
      expect((await raw(url, { headers: session, body: toolsList(14) })).status).toBe(200);
    }
  });
});

describe("new sessions, faster than a token may open them", () => {
  const server = serverWith(["--max-new-sessions-per-second", "1"]);

  it("are refused with 429 and Retry-After past a burst of twice the rate, sessions opened stay", async () => {
    const url = server().url;
    // A burst of 2 (twice the rate), then refusals, whatever the machine's load: 20 at once,
    // of which at most 2 plus one per second they took may be admitted.
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => raw(url, { headers: auth })),
    );
    const seconds = (Date.now() - started) / 1000;
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(2 + Math.ceil(seconds));
    expect(answers.every((answer) => [200, 429].includes(answer.status))).toBe(true);
    const refused = answers.find((answer) => answer.status === 429) as (typeof answers)[number];
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refused.headers["mcp-session-id"]).toBeUndefined();
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: -32000, message: expect.stringContaining("Too many new sessions") },
      id: JSON.parse(INITIALIZE).id,
    });
    // The rate refills: a second later the token opens a session again.
    await sleep(1100);
    expect((await raw(url, { headers: auth })).status).toBe(200);
  });
});

describe("sessions, unused for the idle timeout", () => {
  const server = serverWith(["--session-idle-timeout", "1"]);

  it("are closed", async () => {
    const url = server().url;
    const session = await rawSession(url, auth);
    await sleep(2500);
    const expired = await raw(url, { headers: session, body: toolsList(15) });
    expect(expired.status).toBe(404);
    expect(server().stderr()).toContain("closing a session unused for the idle timeout");
  });
});

describe("requests in flight", () => {
  /**
   * A server with `args` on a store whose writes this test holds (see holdWrites), so the
   * writes it is sent stay in flight until the test lets them go.
   */
  function heldServer(args: string[]) {
    const data = tempDir();
    let server: HttpProcess;
    beforeAll(async () => {
      server = await startHttpProcess({
        dataDir: data.dir,
        args: ["--log-level", "debug", "--busy-timeout", "120000", ...args],
        env: { HMS_MCP_TOKEN: token },
      });
      const client = await server.connect(token);
      await ok(client, "remember", { key: "/memories/a.md", text: "a" });
      await client.close();
    });
    afterAll(async () => {
      await server.stop();
      data.remove();
    });
    return { server: () => server, hold: () => holdWrites(data.dir) };
  }

  /** A write of the memory tool's file on `session`, sent now; resolves with its status. */
  const write = (url: string, session: Record<string, string>, id: number) =>
    raw(url, {
      headers: session,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "remember", arguments: { key: "/memories/a.md", text: `v${id}` } },
      }),
    }).then((answer) => answer.status);

  describe("per client", () => {
    const { server, hold } = heldServer(["--max-in-flight-per-token", "2"]);

    it("refuses the client's request over the bound with 429 and Retry-After, until one ends; other sessions are served", async () => {
      const url = server().url;
      const session = await rawSession(url, auth);
      const release = await hold();
      // Two writes wait for the store: both are in flight, their bodies read.
      const writes = [write(url, session, 31), write(url, session, 32)];
      const probe = () => raw(url, { headers: session, body: toolsList(16) });
      const refused = await until(probe, (answer) => answer.status === 429);
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBe("1");
      // The body was read before the refusal: it carries the request's id.
      expect(JSON.parse(refused.body)).toMatchObject({
        error: {
          message: expect.stringContaining(
            "Too many requests in flight: this client already has 2",
          ),
        },
        id: 16,
      });
      // Without a tokens file every session is a client of its own.
      const other = await rawSession(url, auth);
      expect((await raw(url, { headers: other, body: toolsList(17) })).status).toBe(200);
      await release();
      expect(await Promise.all(writes)).toEqual([200, 200]);
      expect((await probe()).status).toBe(200);
    });
  });

  describe("in all", () => {
    const { server, hold } = heldServer(["--max-in-flight", "2", "--max-in-flight-per-token", "1"]);

    it("admits a client with nothing in flight past the bound, into a reserve; past that it refuses with 503 and Retry-After", async () => {
      const url = server().url;
      const [s1, s2, s3, s4] = [
        await rawSession(url, auth),
        await rawSession(url, auth),
        await rawSession(url, auth),
        await rawSession(url, auth),
      ];
      const release = await hold();
      // Two clients fill the bound in all with a write each.
      const writes = [write(url, s1, 40), write(url, s2, 41)];
      const fill = (session: Record<string, string>, id: number) => () =>
        raw(url, { headers: session, body: toolsList(id) });
      expect((await until(fill(s1, 50), (answer) => answer.status === 429)).status).toBe(429);
      expect((await until(fill(s2, 51), (answer) => answer.status === 429)).status).toBe(429);
      // A third client, with nothing in flight, still gets its write in: the reserve.
      writes.push(write(url, s3, 42));
      const probe = fill(s4, 18);
      const refused = await until(probe, (answer) => answer.status === 503);
      expect(refused.status).toBe(503);
      expect(refused.headers["retry-after"]).toBe("1");
      expect(JSON.parse(refused.body).error.message).toContain(
        "The server is busy: 3 requests in flight (the most is 2)",
      );
      await release();
      expect(await Promise.all(writes)).toEqual([200, 200, 200]);
      expect((await until(probe, (answer) => answer.status !== 503)).status).toBe(200);
    });
  });
});

describe("answers a client never reads", () => {
  // Each memory's text escapes to 6 bytes a character in JSON: an export page of three is
  // some 40 MB of answer, far more than the sockets' kernel buffers take.
  const server = serverWith(["--max-text-bytes", "1048576", "--max-unread-bytes", "1048576"]);

  it("are let go, longest-held first, once over the bound; other clients are served", async () => {
    const url = server().url;
    const client = await server().connect(token);
    const text = "\u0001".repeat(1024 * 1024);
    for (const key of ["big/0", "big/1", "big/2"]) await ok(client, "remember", { key, text });

    const session = await rawSession(url, auth);
    const exportBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 20,
      method: "tools/call",
      params: { name: "export", arguments: { prefix: "big/" } },
    });
    const request = `${postHead(url, session, Buffer.byteLength(exportBody))}${exportBody}`;
    const readers: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      readers.push(await rawSocket(url, request));
      // Each answer is written before the next request comes, so they are held in this order.
      await sleep(1500);
    }
    const [first, second, third] = readers as [Socket, Socket, Socket];
    await until(
      async () =>
        server()
          .stderr()
          .match(/does not read its answer/g)?.length ?? 0,
      (drops) => drops >= 2,
    );
    expect(await readAnswer(first)).toBe("cut");
    expect(await readAnswer(second)).toBe("cut");
    expect(await readAnswer(third)).toBe("whole");
    const drops =
      server()
        .stderr()
        .match(/does not read its answer/g) ?? [];
    expect(drops).toHaveLength(2);
    expect(await ok(client, "get", { key: "big/0" })).toMatchObject({ key: "big/0" });
    await client.close();
    third.destroy();
  });
});
