import { ok, startStdio, tempDir } from "@hms/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// A client shows a server's stderr to its user, and a start prints nothing there unless
// something is wrong. Node 22 prints an ExperimentalWarning when node:sqlite loads (Node 24
// does not): hms-mcp must not pass it on. scripts/test.sh runs this suite on both.

let data: { dir: string; remove: () => void };
beforeEach(() => {
  data = tempDir();
});
afterEach(() => data.remove());

describe("a start on stdio", () => {
  it(`writes and recalls without a word on stderr (Node ${process.versions.node})`, async () => {
    const server = await startStdio({ dataDir: data.dir });
    try {
      await ok(server.client, "remember", { key: "notes/a", text: "a quiet start" });
      const { hits } = await ok<{ hits: unknown[] }>(server.client, "recall", { query: "quiet" });
      expect(hits).toHaveLength(1);
    } finally {
      await server.close();
    }
    expect(server.stderr()).toBe("");
  });
});
