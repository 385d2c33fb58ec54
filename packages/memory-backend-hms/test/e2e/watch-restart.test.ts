// Watches that outlive a restart of an hms-mcp over HTTP: the restarted server has forgotten
// the session and its subscriptions, and a client that only watches makes no call that would
// find out. The connection opens a new session by itself, subscribes again, and tells each
// watch `overflow` (what changed between the two servers was not told); later changes are
// told as before. Real servers, one after the other on the same port and data directory.

import type { MemoryChange } from "@hms/memory-core";
import { freePort, type HttpServer, startHttpServer, tempDir } from "@hms/test-support";
import { afterEach, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "../../src/backend.js";
import { connectHmsBackend } from "../../src/connect.js";

/** Waits until `changes` holds one that `wanted` accepts (the test's timeout bounds it). */
async function until(changes: MemoryChange[], wanted: (change: MemoryChange) => boolean) {
  while (!changes.some(wanted)) await new Promise((resolve) => setTimeout(resolve, 10));
}

const data = tempDir();
const open: Array<{ close(): Promise<void> } | HttpServer> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) {
    await ("stop" in thing ? thing.stop() : thing.close());
  }
});

describe("a watch over HTTP when the server restarts", () => {
  it("goes on through a new session, saying first that it may have missed changes", async () => {
    const port = await freePort();
    const args = ["--port", String(port), "--log-level", "info"];
    const first = await startHttpServer({ dataDir: data.dir, args });
    const watcher: HmsMemoryBackend = await connectHmsBackend({ connection: { url: first.url } });
    open.push(watcher);
    const changes: MemoryChange[] = [];
    await watcher.watch("/memories/notes", (change) => changes.push(change));

    await first.stop();
    const second = await startHttpServer({ dataDir: data.dir, args });
    open.push(second);
    expect(second.url).toBe(first.url);
    // The watcher makes no call: its connection finds the session gone and opens another.
    await until(changes, (change) => change.op === "overflow");
    expect(changes).toEqual([{ op: "overflow", path: "/memories/notes", fromPath: null }]);

    const writer = await connectHmsBackend({ connection: { url: second.url } });
    open.push(writer);
    await writer.create("/memories/notes/after.md", "written after the restart\n");
    await writer.create("/memories/elsewhere.md", "not watched\n");
    await until(changes, (change) => change.op === "create");
    expect(changes.slice(1)).toEqual([
      { op: "create", path: "/memories/notes/after.md", fromPath: null },
    ]);
    // And the watcher's own calls work on its new session.
    expect((await watcher.read("/memories/notes/after.md"))?.content).toBe(
      "written after the restart\n",
    );
  });
});
