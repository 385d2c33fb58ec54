/**
 * Change notifications between replicas on one real PostgreSQL database (LISTEN/NOTIFY): a
 * subscriber on one replica hears of another replica's writes, over stdio and over HTTP's
 * event stream, and again after the database restarts (the listening connection comes back
 * and reads what it may have missed).
 */
import {
  hear,
  memoryUri,
  ok,
  type PostgresServer,
  startHttpProcess,
  startPostgres,
  startStdio,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let pg: PostgresServer;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(() => pg?.remove());

/** Retries `attempt` until it succeeds (the database is coming back), at most `tries` times. */
async function retried<T>(attempt: () => Promise<T>, tries = 100): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe("change notifications across PostgreSQL replicas", () => {
  it("a replica's subscriber hears of another replica's writes, also after a restart", async () => {
    const databaseUrl = pg.createDatabase("notify");
    const listener = await startStdio({ databaseUrl });
    const http = await startHttpProcess({ databaseUrl, args: ["--log-level", "info"] });
    const writer = await startStdio({ databaseUrl });
    try {
      const overHttp = await http.connect();
      const heard = hear(listener.client);
      const heardOverHttp = hear(overHttp);
      await listener.client.subscribeResource({ uri: memoryUri("default", "/memories") });
      await overHttp.subscribeResource({ uri: memoryUri("default", "/memories/plan.md") });
      await ok(writer.client, "remember", { key: "/memories/plan.md", text: "v1" });
      await ok(writer.client, "remember", { key: "/app/setting", text: "not a memory file" });
      await ok(writer.client, "move", { from: "/memories/plan.md", to: "/memories/done.md" });
      const moved = await heard.until((h) => h.change?.op === "move");
      expect(moved.change).toMatchObject({
        key: "/memories/done.md",
        from_key: "/memories/plan.md",
      });
      await heardOverHttp.until((h) => h.change?.op === "move");
      expect(heard.updates.every((h) => h.uri.startsWith("hms-mcp://default/%2Fmemories%2F"))).toBe(
        true,
      );

      pg.restart();
      // The writer's pool connects again at its next call; the listener's channel on its own.
      await retried(() => ok(writer.client, "remember", { key: "/memories/after.md", text: "x" }));
      const after = await heard.until((h) => h.uri === memoryUri("default", "/memories/after.md"));
      expect(after.change).toMatchObject({ op: "create" });
      await overHttp.close();
    } finally {
      await writer.close();
      await listener.close();
      await http.stop();
    }
  });
});
