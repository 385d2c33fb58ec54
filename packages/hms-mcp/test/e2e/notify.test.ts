/**
 * Change notifications against real hms-mcp processes: two processes on one SQLite data
 * directory (stdio and HTTP's event stream), tokens and namespaces (a token hears only of what
 * it may read), and a subscriber that never reads its event stream (its session is closed once
 * its notifications overflow; the server holds no more for it).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connect as connectTcp, type Socket } from "node:net";
import { join } from "node:path";
import {
  cleanEnv,
  hear,
  hmsMcpBin,
  memoryUri,
  ok,
  startHttpProcess,
  startStdio,
  tempDir,
  writeSeedFiles,
} from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { raw, rawSession } from "./http-raw.js";

/** `hms-mcp token create ...`: the token and its tokens-file line. */
function createToken(args: string[]): { token: string; line: string } {
  const result = spawnSync(process.execPath, [hmsMcpBin(), "token", "create", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  const lines = result.stdout.split("\n").map((line) => line.trim());
  return { token: lines[1] as string, line: lines[3] as string };
}

describe("change notifications across processes (SQLite)", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("a stdio subscriber hears of another process's writes", async () => {
    const listener = await startStdio({ dataDir: data.dir });
    const writer = await startStdio({ dataDir: data.dir });
    try {
      const heard = hear(listener.client);
      await listener.client.subscribeResource({ uri: memoryUri("default", "/memories/team") });
      await ok(writer.client, "remember", { key: "/memories/team/plan.md", text: "ship friday" });
      await ok(writer.client, "remember", { key: "/memories/elsewhere.md", text: "not team" });
      await ok(writer.client, "remember", { key: "/memories/team/plan.md", text: "ship monday" });
      const update = await heard.until((h) => h.change?.op === "update");
      expect(update).toMatchObject({
        uri: memoryUri("default", "/memories/team/plan.md"),
        change: { op: "update", key: "/memories/team/plan.md", from_key: null },
      });
      expect(heard.updates.every((h) => h.uri.includes("%2Fteam%2F"))).toBe(true);
    } finally {
      await writer.close();
      await listener.close();
    }
  });

  it("an HTTP subscriber hears over its event stream of a stdio process's writes", async () => {
    const server = await startHttpProcess({ dataDir: data.dir, args: ["--log-level", "info"] });
    const writer = await startStdio({ dataDir: data.dir });
    try {
      const client = await server.connect();
      const heard = hear(client);
      await client.subscribeResource({ uri: memoryUri("default", "/memories") });
      await ok(writer.client, "remember", { key: "/memories/http.md", text: "over SSE" });
      await ok(writer.client, "forget", { key: "/memories/http.md" });
      const deleted = await heard.until((h) => h.change?.op === "delete");
      expect(deleted.uri).toBe(memoryUri("default", "/memories/http.md"));
      await client.close();
    } finally {
      await writer.close();
      await server.stop();
    }
  });
});

describe("change notifications and tokens", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const alice = createToken(["--name", "alice", "--namespaces", "alice"]);
  const bob = createToken(["--name", "bob", "--namespaces", "bob"]);
  const admin = "admin-token-".repeat(3);
  afterAll(() => data.remove());

  it("a token subscribes to its own namespaces only, and hears of nothing else", async () => {
    writeFileSync(tokensFile, `${alice.line}\n${bob.line}\n`);
    const server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
      env: { HMS_MCP_TOKEN: admin },
    });
    try {
      const asAlice = await server.connect(alice.token);
      const asBob = await server.connect(bob.token);
      const asAdmin = await server.connect(admin);
      const aliceHeard = hear(asAlice);
      const adminHeard = hear(asAdmin);
      // Bob's namespace is refused as one that does not exist: the token learns nothing of it.
      await expect(
        asAlice.subscribeResource({ uri: memoryUri("bob", "/memories") }),
      ).rejects.toThrow("namespace bob does not exist or this token may not use it");
      await asAlice.subscribeResource({ uri: memoryUri("alice", "/memories") });
      await asAdmin.subscribeResource({ uri: memoryUri("bob", "/memories") });
      await ok(asBob, "remember", { key: "/memories/secret.md", text: "bob's", namespace: "bob" });
      // Bob's write is told to whoever may read bob...
      await adminHeard.until((h) => h.uri === memoryUri("bob", "/memories/secret.md"));
      await ok(asAlice, "remember", { key: "/memories/own.md", text: "x", namespace: "alice" });
      await aliceHeard.until((h) => h.uri === memoryUri("alice", "/memories/own.md"));
      // ...and never to alice, who heard of her own write, made after bob's.
      expect(aliceHeard.updates.map((h) => h.uri)).toEqual([
        memoryUri("alice", "/memories/own.md"),
      ]);
      for (const client of [asAlice, asBob, asAdmin]) await client.close();
    } finally {
      await server.stop();
    }
  });
});

/** A GET of the session's event stream on a connection of its own that never reads. */
function unreadEventStream(url: string, headers: Record<string, string>): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port: Number(target.port), host: target.hostname });
    socket.on("error", () => {});
    socket.once("connect", () => {
      const lines = [
        `GET ${target.pathname} HTTP/1.1`,
        `Host: ${target.host}`,
        "Accept: text/event-stream",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`, () => {
        // Nothing is read from here on: the server's writes fill the socket's buffers.
        socket.pause();
        resolve(socket);
      });
    });
    socket.once("error", reject);
  });
}

describe("a subscriber that never reads", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("loses its session once its notifications overflow twice unread; a reader keeps its own", async () => {
    const server = await startHttpProcess({ dataDir: data.dir, args: ["--log-level", "info"] });
    let stream: Socket | undefined;
    try {
      const mover = await server.connect();
      await ok(mover, "remember", { key: "/memories/start.md", text: "the store exists" });
      // 600 files with long names: each move of the directory is 1,200 files changed (the
      // ones left and the ones made), more than the 1,000 notifications a session may wait on.
      const files: Record<string, string> = {};
      const long = "n".repeat(100);
      for (let i = 0; i < 600; i++) files[`/memories/a/${long}/${long}${i}.md`] = `${i}`;
      writeSeedFiles(data.dir, files);

      const session = await rawSession(server.url);
      const subscribe = JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "resources/subscribe",
        params: { uri: memoryUri("default", "/memories") },
      });
      expect(
        JSON.parse((await raw(server.url, { headers: session, body: subscribe })).body),
      ).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
      stream = await unreadEventStream(server.url, session);
      // A client that reads its stream, subscribed alike, keeps its session throughout.
      const reader = await server.connect();
      const readerHeard = hear(reader);
      await reader.subscribeResource({ uri: memoryUri("default", "/memories") });
      const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
      let moves = 0;
      let status = 200;
      // Each move sends about 0.9 MB of notifications: the socket's buffers fill within a few,
      // and then the next move's overflow closes the session (bounded at 40 moves).
      while (status === 200 && moves < 40) {
        const [from, to] =
          moves % 2 === 0 ? ["/memories/a", "/memories/b"] : ["/memories/b", "/memories/a"];
        await ok(mover, "move", { from, to, tree: true });
        moves += 1;
        status = (await raw(server.url, { headers: session, body: ping })).status;
      }
      expect(status).toBe(404);
      expect(moves).toBeGreaterThan(1);
      await reader.ping();
      expect(readerHeard.updates.length).toBeGreaterThan(0);
      await reader.close();
      expect(server.stderr()).toContain(
        "change notifications overflowed: the client does not read them; closing its session",
      );
      // The server goes on serving everyone else.
      expect(await ok(mover, "remember", { key: "/memories/after.md", text: "fine" })).toBeTruthy();
      await mover.close();
    } finally {
      stream?.destroy();
      await server.stop();
    }
  });
});
