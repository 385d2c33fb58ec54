import { call, ok, startHttpProcess, startStdio, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";

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
