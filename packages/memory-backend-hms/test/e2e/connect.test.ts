// Connecting, discovering, limits, namespaces and losing the connection, against real hms-mcp
// processes over stdio and HTTP.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MemoryBackendError, MemoryEngine } from "@hms/memory-core";
import {
  hmsMcpBin,
  hmsMcpCommand,
  hmsMcpOnPath,
  mountTmpfs,
  startHttpServer,
  tempDir,
} from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "../../src/backend.js";
import { connectHmsBackend, type StdioConnection } from "../../src/connect.js";
import { HmsConnectionError, HmsMcpError, HmsMcpNotFoundError } from "../../src/errors.js";
import { findHmsMcp } from "../../src/find-server.js";

const data = tempDir();
afterAll(() => data.remove());

/**
 * A program that stops at start as a server with a broken install would: twelve lines, a
 * blank one, a line of 600 "é" and a last line without its newline, on stderr, then exit 3.
 */
const DYING_SERVER = `#!/bin/sh
for i in 1 2 3 4 5 6 7 8 9 10; do echo "line $i   " >&2; done
echo "" >&2
printf 'é%.0s' $(seq 600) >&2; printf '\\r\\n' >&2
printf 'fatal: cannot load the native addon' >&2
exit 3
`;

const open: HmsMemoryBackend[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

let serial = 0;
/** A backend over a fresh stdio server with its own data directory. */
async function stdio(args: string[] = [], options: { maxFileBytes?: number } = {}) {
  const backend = await connectHmsBackend({
    connection: hmsMcpCommand([
      "--data-dir",
      `${data.dir}/s${++serial}`,
      "--log-level",
      "warn",
      ...args,
    ]),
    ...options,
  });
  open.push(backend);
  return backend;
}

describe("connecting over stdio", () => {
  it("starts the server, checks its protocol version and reads its size limit", async () => {
    const backend = await stdio(["--max-text-bytes", "1000"]);
    expect(backend.maxFileBytes).toBe(1000);
    expect(typeof backend.tree.deleteTree).toBe("function");
    expect(typeof backend.tree.moveTree).toBe("function");
    expect(backend.pid).toEqual(expect.any(Number));
    expect(await backend.stats()).toMatchObject({ namespace: "default", max_text_bytes: 1000 });
  });

  it("lets the client lower the size limit but never raise it", async () => {
    const lower = await stdio(["--max-text-bytes", "1000"], { maxFileBytes: 10 });
    expect(lower.maxFileBytes).toBe(10);
    const higher = await stdio(["--max-text-bytes", "1000"], { maxFileBytes: 5000 });
    expect(higher.maxFileBytes).toBe(1000);
    // The engine checks writes against the lower limit before the server sees them.
    await expect(
      new MemoryEngine(lower).create({
        command: "create",
        path: "/memories/a",
        file_text: "x".repeat(11),
      }),
    ).rejects.toThrow(
      "Cannot write /memories/a: the new content would be 11 bytes, over the 10-byte limit for a memory file. Split the content across several smaller files.",
    );
    expect(await lower.read("/memories/a")).toBeNull();
    // A write past the server's limit is refused by the server too (TOO_LARGE, with the limit).
    const error = await higher.create("/memories/b", "x".repeat(1001)).catch((e: unknown) => e);
    expect(MemoryBackendError.isInstance(error, "TOO_LARGE")).toBe(true);
    expect((error as { limit?: number }).limit).toBe(1000);
  });

  it("refuses bad options before starting anything", async () => {
    await expect(connectHmsBackend({ maxFileBytes: 0 })).rejects.toThrow(
      "maxFileBytes must be a positive integer, got 0",
    );
    await expect(connectHmsBackend({ timeoutMs: -1 })).rejects.toThrow(RangeError);
    await expect(connectHmsBackend({ connection: { command: "" } })).rejects.toThrow(
      "connection needs a command (to start hms-mcp), a url (to reach one) or inProcess (to run " +
        "one in this process)",
    );
  });

  /** The error a connect to `connection` fails with (it must fail). */
  async function connectFailure(connection: StdioConnection): Promise<HmsConnectionError> {
    const error = await connectHmsBackend({ connection: { ...connection, stderr: "ignore" } }).then(
      (backend) => backend.close(),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(HmsConnectionError);
    expect((error as HmsConnectionError).code).toBe("CONNECTION_CLOSED");
    return error as HmsConnectionError;
  }

  it("reports a server that stops at start on a bad flag with its last stderr lines", async () => {
    const bad = hmsMcpCommand(["--port", "not-a-port"]);
    expect((await connectFailure(bad)).message).toBe(
      `Could not connect to hms-mcp (${[bad.command, ...(bad.args ?? [])].join(" ")}): ` +
        "the server process ended while connecting.\nIts stderr ended with:\n" +
        "hms-mcp: option '--port <port>' argument 'not-a-port' is invalid. expected an integer from 0 to 65535 (hms-mcp --help lists every flag)",
    );
  });

  it("reports a server that stops at start on a data directory it cannot write", async () => {
    const disk = mountTmpfs(1);
    try {
      execFileSync("mount", ["-o", "remount,ro", disk.dir]);
      const error = await connectFailure(hmsMcpCommand(["--data-dir", `${disk.dir}/data`]));
      expect(error.message).toMatch(
        /: the server process ended while connecting\.\nIts stderr ended with:\nhms-mcp: cannot open namespace default in the data directory \/tmp\/.*\/data \(E[A-Z]+: .*\); choose a directory this user can write/,
      );
    } finally {
      disk.remove();
    }
  });

  it("carries the last 10 lines (each at most 500 characters) of a program that exits", async () => {
    // The same program and the same words as python/tests/e2e/test_hms_lifecycle.py's.
    const script = `${data.dir}/dies.sh`;
    writeFileSync(script, DYING_SERVER, { mode: 0o755 });
    expect((await connectFailure({ command: script })).message).toBe(
      `Could not connect to hms-mcp (${script}): the server process ended while connecting.\n` +
        "Its stderr ended with:\n" +
        ["line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10"].join(
          "\n",
        ) +
        `\n${"é".repeat(500)}…\nfatal: cannot load the native addon`,
    );
  });

  it("says so when the program wrote nothing on stderr", async () => {
    expect((await connectFailure({ command: "true" })).message).toBe(
      "Could not connect to hms-mcp (true): the server process ended while connecting. " +
        "It wrote nothing on stderr.",
    );
  });

  it("reports a program that cannot be started", async () => {
    await expect(
      connectHmsBackend({ connection: { command: `${data.dir}/no-such-program` } }),
    ).rejects.toThrow(
      /^Could not connect to hms-mcp \(.*no-such-program\): there is no program ".*no-such-program" to start \(ENOENT\)\. Install it in your project with `npm install hms-mcp` \(then it is found in node_modules\) and leave out connection, or give the program's full path as connection\.command\.$/,
    );
  });

  it("fails, not hangs, when the program never answers", async () => {
    const silent = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    await expect(connectHmsBackend({ connection: silent, timeoutMs: 300 })).rejects.toThrow(
      /^Could not connect to hms-mcp \(.*\): it did not answer within 0\.3 seconds\.$/,
    );
  });

  const otherServer = (stated: string) => ({
    command: process.execPath,
    args: [fileURLToPath(new URL("../fixtures/other-server.mjs", import.meta.url)), stated],
  });

  it("refuses a server that states no hms-mcp protocol version", async () => {
    const error = await connectHmsBackend({ connection: otherServer("none") }).catch(
      (e: unknown) => e,
    );
    expect(HmsMcpError.isInstance(error) && error.code).toBe("PROTOCOL");
    expect((error as Error).message).toMatch(
      /^hms-mcp \(.*other-server\.mjs none\) is not hms-mcp: it states no hms-mcp protocol version in its capabilities \(this client needs protocol 1\)\.$/,
    );
  });

  it("refuses an answer that breaks the tool's output schema", async () => {
    const error = await connectHmsBackend({ connection: otherServer("1") }).catch(
      (e: unknown) => e,
    );
    expect(HmsMcpError.isInstance(error) && error.code).toBe("PROTOCOL");
    expect((error as Error).message).toMatch(
      /^hms-mcp answered stats with content that breaks its output schema at namespace: .*; is it hms-mcp\?$/,
    );
  });

  it("refuses a server of another protocol version, naming both", async () => {
    await expect(connectHmsBackend({ connection: otherServer("2") })).rejects.toThrow(
      /speaks hms-mcp protocol 2; this client needs protocol 1\. Install versions of hms-mcp and this package that match\.$/,
    );
  });

  it("refuses a namespace on a server that serves only its own", async () => {
    const error = await connectHmsBackend({
      connection: hmsMcpCommand(["--data-dir", `${data.dir}/ns`, "--log-level", "warn"]),
      namespace: "alice",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HmsMcpError);
    expect((error as HmsMcpError).code).toBe("NAMESPACE_DISABLED");
    expect((error as Error).message).toMatch(
      /^hms-mcp refused the stats call: NAMESPACE_DISABLED: /,
    );
  });
});

describe("a lost connection", () => {
  it("fails calls in flight and every later call with a clear error when the server is killed", async () => {
    const backend = await stdio();
    await backend.create("/memories/a.md", "a");
    const pid = backend.pid as number;
    const inFlight = Array.from({ length: 20 }, (_, i) =>
      backend.create(`/memories/f${i}.md`, "x").then(
        () => "stored",
        (error: unknown) => error,
      ),
    );
    process.kill(pid, "SIGKILL");
    const outcomes = await Promise.all(inFlight);
    const failures = outcomes.filter((o) => o !== "stored");
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(HmsConnectionError);
      expect((failure as HmsConnectionError).code).toBe("CONNECTION_CLOSED");
    }
    const later = await backend.read("/memories/a.md").catch((e: unknown) => e);
    expect(later).toBeInstanceOf(HmsConnectionError);
    expect((later as Error).message).toMatch(
      /^The connection to the hms-mcp memory server is closed \(the server process exited/,
    );
    expect(backend.closed).toBe(true);
  });

  it("fails calls with a clear error when an HTTP server goes away", async () => {
    const server = await startHttpServer({ dataDir: `${data.dir}/http-gone` });
    const backend = await connectHmsBackend({ connection: { url: server.url } });
    open.push(backend);
    await backend.create("/memories/a.md", "a");
    server.child.kill("SIGKILL");
    await server.stop();
    const error = await backend.read("/memories/a.md").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HmsConnectionError);
    expect((error as Error).message).toMatch(
      /^The connection to the hms-mcp memory server is closed/,
    );
    await expect(backend.list("/memories/")).rejects.toThrow(HmsConnectionError);
  });

  it("after close, every call fails at once and the server process ends", async () => {
    const backend = await stdio();
    const pid = backend.pid as number;
    await backend.close();
    await expect(backend.read("/memories/a")).rejects.toThrow(
      "The memory tool is closed: its connection to hms-mcp was shut down. Connect again to go on.",
    );
    expect(() => process.kill(pid, 0)).toThrow(); // no such process
  });

  it("is closed by await using", async () => {
    let pid = 0;
    {
      await using backend = await stdio();
      pid = backend.pid as number;
    }
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("over streamable HTTP", () => {
  const token = "s3cret-token-for-tests";
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer({
      dataDir: `${data.dir}/http`,
      args: ["--namespace-arg"],
      env: { HMS_MCP_TOKEN: token },
    });
  });
  afterAll(() => server?.stop());

  it("keeps namespaces apart on one server", async () => {
    const alice = await connectHmsBackend({
      connection: { url: server.url, token },
      namespace: "alice",
    });
    open.push(alice);
    const bob = alice.forNamespace("bob");
    await alice.create("/memories/secret.md", "alice's launch code\n");
    expect(await bob.read("/memories/secret.md")).toBeNull();
    expect(await bob.list("/memories/")).toEqual([]);
    expect(await bob.recall("launch code", 5)).toEqual([]);
    expect((await alice.recall("launch code", 5)).map((h) => h.path)).toEqual([
      "/memories/secret.md",
    ]);
    expect((await bob.stats()).namespace).toBe("bob");
  });

  it("takes the token from HMS_MCP_TOKEN by default", async () => {
    const saved = process.env.HMS_MCP_TOKEN;
    process.env.HMS_MCP_TOKEN = token;
    try {
      const backend = await connectHmsBackend({ connection: { url: server.url } });
      open.push(backend);
      expect((await backend.stats()).namespace).toBe("default");
    } finally {
      if (saved === undefined) delete process.env.HMS_MCP_TOKEN;
      else process.env.HMS_MCP_TOKEN = saved;
    }
  });

  it("ends its HTTP session on the server when closed", async () => {
    const own = await startHttpServer({
      dataDir: `${data.dir}/http-end`,
      args: ["--log-level", "debug"],
    });
    try {
      const backend = await connectHmsBackend({ connection: { url: own.url } });
      await backend.stats();
      expect(own.stderr()).toContain('"msg":"session opened"');
      expect(own.stderr()).not.toContain('"msg":"session closed"');
      await backend.close();
      await expect.poll(() => own.stderr()).toContain('"msg":"session closed"');
    } finally {
      await own.stop();
    }
  });

  it("is refused with a wrong token or none", async () => {
    for (const wrong of ["not-the-token", ""]) {
      const error = await connectHmsBackend({
        connection: { url: server.url, token: wrong },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HmsConnectionError);
      expect((error as Error).message).toMatch(
        /^Could not connect to hms-mcp at http:.*: it refused the request \(HTTP 401\): pass the server's token as connection\.token or set HMS_MCP_TOKEN\./,
      );
    }
  });
});

describe("finding hms-mcp when no connection is given", () => {
  it("uses HMS_MCP_BIN, running a .js file with node", () => {
    const bin = hmsMcpBin();
    expect(findHmsMcp({ HMS_MCP_BIN: bin, PATH: "" })).toEqual(
      bin.endsWith(".js") ? { command: process.execPath, args: [bin] } : { command: bin, args: [] },
    );
  });

  it("says what is wrong with an HMS_MCP_BIN that does not exist", () => {
    expect(() => findHmsMcp({ HMS_MCP_BIN: "/nowhere/hms-mcp" })).toThrow(
      "HMS_MCP_BIN is set to /nowhere/hms-mcp, which does not exist.",
    );
  });

  it("finds hms-mcp on PATH, and starts it", async () => {
    const onPath = hmsMcpOnPath();
    try {
      // From a directory with no hms-mcp in node_modules (this package's own has one), and
      // none resolved beside this package.
      expect(findHmsMcp({ PATH: onPath.path }, data.dir, () => undefined)).toEqual({
        command: `${onPath.dir}/hms-mcp`,
        args: [],
      });
      const saved = {
        PATH: process.env.PATH,
        DATA: process.env.HMS_MCP_DATA_DIR,
        BIN: process.env.HMS_MCP_BIN,
      };
      process.env.PATH = onPath.path;
      process.env.HMS_MCP_DATA_DIR = `${data.dir}/on-path`;
      delete process.env.HMS_MCP_BIN;
      try {
        const backend = await connectHmsBackend();
        open.push(backend);
        await backend.create("/memories/found.md", "found\n");
        expect((await backend.read("/memories/found.md"))?.content).toBe("found\n");
      } finally {
        process.env.PATH = saved.PATH;
        if (saved.DATA === undefined) delete process.env.HMS_MCP_DATA_DIR;
        else process.env.HMS_MCP_DATA_DIR = saved.DATA;
        if (saved.BIN !== undefined) process.env.HMS_MCP_BIN = saved.BIN;
      }
    } finally {
      onPath.remove();
    }
  });

  it("says how to get hms-mcp when there is none", () => {
    const error = (() => {
      try {
        findHmsMcp({ PATH: data.dir }, data.dir, () => undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(HmsMcpNotFoundError);
    expect((error as Error).message).toBe(
      "No hms-mcp server to start: HMS_MCP_BIN is not set, and hms-mcp is neither in " +
        `node_modules (of ${data.dir} or above, or beside this package) nor on PATH. ` +
        "Install it in your project with `npm install hms-mcp` (then it is found in " +
        "node_modules); or pass connection: { command, args } to start one, or connection: " +
        "{ url } to use a running one; or set HMS_MCP_BIN to the hms-mcp executable. hms-mcp " +
        "needs Node.js 22 or 24; ./scripts/setup.sh in the Holographic Memory for Claude " +
        "repository builds it as packages/hms-mcp/dist/cli.js.",
    );
  });
});
