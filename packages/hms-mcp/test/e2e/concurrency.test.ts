import { call, ok, startHttpProcess, startStdio, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";

interface Item {
  key: string;
  version: number;
}

interface Counter {
  text: string;
  version: number;
}

/**
 * Adds 1 to the counter at `key` `times` times, each as read-modify-write with
 * expected_version, re-reading and retrying on VERSION_CONFLICT (as the memory engine does).
 */
async function increment(client: Client, key: string, times: number): Promise<number> {
  let conflicts = 0;
  for (let done = 0; done < times; ) {
    const current = await ok<Counter>(client, "get", { key });
    const next = String(Number(current.text) + 1);
    const result = await call(client, "remember", {
      key,
      text: next,
      expected_version: current.version,
    });
    if (!result.isError) {
      done++;
      continue;
    }
    const text = (result.content[0] as { text: string }).text;
    if (!text.startsWith("VERSION_CONFLICT: ")) throw new Error(text);
    conflicts++;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
  }
  return conflicts;
}

describe("concurrent read-modify-write on one key", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("loses no update with 16 HTTP clients of one server", async () => {
    const server = await startHttpProcess({ dataDir: data.dir, args: ["--namespace", "http"] });
    try {
      const clients = await Promise.all(Array.from({ length: 16 }, () => server.connect()));
      await ok(clients[0] as Client, "remember", { key: "counter", text: "0" });
      const conflicts = await Promise.all(clients.map((client) => increment(client, "counter", 5)));
      const final = await ok<Counter>(clients[0] as Client, "get", { key: "counter" });
      expect(final.text).toBe("80");
      expect(final.version).toBe(81);
      // The clients really did collide: compare-and-set turned collisions into retries.
      expect(conflicts.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      await Promise.all(clients.map((client) => client.close()));
    } finally {
      await server.stop();
    }
  });

  it("loses no update with 4 server processes sharing one data directory", async () => {
    const servers = await Promise.all(
      Array.from({ length: 4 }, () =>
        startStdio({ dataDir: data.dir, args: ["--namespace", "shared"] }),
      ),
    );
    try {
      const [first] = servers;
      await ok(first?.client as Client, "remember", { key: "counter", text: "0" });
      await Promise.all(servers.map((server) => increment(server.client, "counter", 10)));
      const final = await ok<Counter>(first?.client as Client, "get", { key: "counter" });
      expect(final.text).toBe("40");
      expect(final.version).toBe(41);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });
});

describe("two writers racing to make one name a file and a directory", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("never both succeed, across processes and transports", async () => {
    const args = ["--namespace", "race"];
    const http = await startHttpProcess({ dataDir: data.dir, args });
    const stdio = await startStdio({ dataDir: data.dir, args });
    try {
      const viaHttp = await http.connect();
      const viaStdio = stdio.client;
      const rounds = 25;
      for (let i = 0; i < rounds; i++) {
        const file = `/memories/race/${i}`;
        const nested = `${file}/b.md`;
        // Alternate which process writes which key, and start both at once.
        const [fileWriter, nestedWriter] = i % 2 === 0 ? [viaHttp, viaStdio] : [viaStdio, viaHttp];
        const [a, b] = await Promise.all([
          call(fileWriter, "remember", { key: file, text: "a file" }),
          call(nestedWriter, "remember", { key: nested, text: "a file in a directory" }),
        ]);
        expect(Boolean(a.isError) !== Boolean(b.isError)).toBe(true);
        const loser = (a.isError ? a : b).content[0] as { text: string };
        expect(loser.text).toMatch(/^PATH_CONFLICT: /);
      }
      const keys = await ok<{ items: Item[] }>(viaHttp, "list", {
        prefix: "/memories/race/",
        limit: 1000,
      });
      const present = new Set(keys.items.map((item) => item.key));
      for (let i = 0; i < rounds; i++) {
        expect(present.has(`/memories/race/${i}`)).not.toBe(
          present.has(`/memories/race/${i}/b.md`),
        );
      }
      await viaHttp.close();
    } finally {
      await stdio.close();
      await http.stop();
    }
  });
});
