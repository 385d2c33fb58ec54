// How a connect that cannot go on says why, against real processes: a listener that never
// answers, a started hms-mcp that cannot carry out its first call, and a URL with a password.
import { createServer, type Server } from "node:net";
import { hmsMcpBin, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { connectHmsBackend } from "../../src/connect.js";
import { HmsConnectionError, HmsMcpError } from "../../src/errors.js";

const data = tempDir();
afterAll(() => data.remove());

/** A TCP listener that takes every connection and never writes a byte. */
async function silentListener(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a connect that cannot go on", () => {
  it("says a server that takes the connection and never answers did not answer, in its own time limit", async () => {
    const silent = await silentListener();
    try {
      let thrown: unknown;
      try {
        await connectHmsBackend({
          connection: { url: silent.url, token: "" },
          connectTimeoutMs: 1000,
        });
      } catch (error) {
        thrown = error;
      }
      expect(HmsConnectionError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: "TIMEOUT" });
      const message = (thrown as Error).message;
      expect(message).toBe(
        `Could not connect to hms-mcp at ${silent.url}: it did not answer within 1 seconds.`,
      );
      // A URL with a user name and password is refused, and the refusal does not show them.
      const withPassword = silent.url.replace("//", "//user:s3cret@");
      const refused = await connectHmsBackend({ connection: { url: withPassword } }).catch(
        (error: unknown) => error as Error,
      );
      expect(refused).toBeInstanceOf(TypeError);
      expect((refused as Error).message).toMatch(
        /^connection\.url http:\/\/\*\*\*@127\.0\.0\.1:\d+\/mcp carries a user name or password; /,
      );
      expect((refused as Error).message).not.toContain("s3cret");
    } finally {
      await silent.close();
    }
  });

  it("hands on the last words of a started server that cannot carry out its first call", async () => {
    // Node 22 and 24 run without node:sqlite when asked to, as Node 20 always does: the
    // server starts (with --no-create it opens no store at start) and fails its first call.
    let thrown: unknown;
    try {
      await connectHmsBackend({
        connection: {
          command: process.execPath,
          args: ["--no-experimental-sqlite", hmsMcpBin(), "--data-dir", data.dir, "--no-create"],
          stderr: "ignore",
        },
      });
    } catch (error) {
      thrown = error;
    }
    expect(HmsMcpError.isInstance(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toContain("hms-mcp refused the stats call: INTERNAL:");
    expect(message).toContain("\nIts stderr ended with:\n");
    expect(message).toMatch(/has no node:sqlite, the SQLite the store runs on: use Node\.js 24/);
  });
});
