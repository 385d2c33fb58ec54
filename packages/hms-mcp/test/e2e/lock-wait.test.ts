import { openSqlite } from "@hms/store/internal";
import { ok, refused, startHttpProcess, storeFile, tempDir } from "@hms/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Another process (this test) holds the write lock of the server's store with BEGIN
// IMMEDIATE. A write through the server must wait for it without freezing the server: other
// clients' reads are answered while the write waits.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let data: { dir: string; remove: () => void };
beforeEach(() => {
  data = tempDir();
});
afterEach(() => data.remove());

/** Takes the store's write lock from this process; returns how to let it go. */
function holdWriteLock(dataDir: string): () => void {
  const db = openSqlite(storeFile(dataDir));
  db.exec("BEGIN IMMEDIATE");
  return () => {
    db.exec("ROLLBACK");
    db.close();
  };
}

describe("a write waiting for another process's lock", () => {
  it("lets other clients read meanwhile, then succeeds once the lock is free", async () => {
    const server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--busy-timeout", "120000"],
    });
    const writer = await server.connect();
    const reader = await server.connect();
    try {
      await ok(writer, "remember", { key: "notes/a", text: "first" });
      const release = holdWriteLock(data.dir);
      const events: string[] = [];
      const write = ok<{ version: number }>(writer, "remember", {
        key: "notes/a",
        text: "second",
      }).then((result) => {
        events.push("write");
        return result;
      });
      // Twenty reads, one after another, while the write waits; under a blocked event loop
      // none would be answered before the lock is released.
      const reads = (async () => {
        for (let i = 0; i < 20; i++) {
          expect(await ok(reader, "get", { key: "notes/a" })).toMatchObject({ text: "first" });
          events.push("read");
        }
      })();
      await Promise.race([reads, sleep(30_000)]);
      release();
      await reads;
      expect((await write).version).toBeGreaterThan(0);
      expect(events.indexOf("write")).toBe(20);
      expect(await ok(reader, "get", { key: "notes/a" })).toMatchObject({ text: "second" });
    } finally {
      await writer.close();
      await reader.close();
      await server.stop();
    }
  });

  it("refuses the write as UNAVAILABLE after --busy-timeout, still serving reads", async () => {
    const server = await startHttpProcess({ dataDir: data.dir, args: ["--busy-timeout", "1500"] });
    const client = await server.connect();
    try {
      await ok(client, "remember", { key: "notes/b", text: "kept" });
      const release = holdWriteLock(data.dir);
      try {
        const events: string[] = [];
        const write = refused(client, "remember", { key: "notes/b", text: "lost" }).then(
          (refusal) => {
            events.push("write refused");
            return refusal;
          },
        );
        expect(await ok(client, "get", { key: "notes/b" })).toMatchObject({ text: "kept" });
        events.push("read");
        const { code, text } = await write;
        expect(events).toEqual(["read", "write refused"]);
        expect(code).toBe("UNAVAILABLE");
        expect(text).toContain("locked by another process past the busy timeout");
      } finally {
        release();
      }
      expect(await ok(client, "get", { key: "notes/b" })).toMatchObject({ text: "kept" });
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
