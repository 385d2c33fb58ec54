import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startPostgres } from "./postgres.js";
import {
  hmsMcpCommand,
  hmsMcpOnPath,
  startHttpServer,
  storeArgs,
  storeNamespaces,
  tempDir,
} from "./server-process.js";

// The workspace's hms-mcp, as hmsMcpBin finds it (this package does not depend on hms-mcp).
const version = (
  JSON.parse(readFileSync(new URL("../../hms-mcp/package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

describe("finding and starting hms-mcp", () => {
  it("hmsMcpCommand runs the server under test", () => {
    const { command, args } = hmsMcpCommand(["--version"]);
    const result = spawnSync(command, args, { encoding: "utf8" });
    expect(result.stdout.trim()).toBe(process.env.HMS_MCP_BIN ? expect.any(String) : version);
  });

  it("hmsMcpOnPath puts an executable hms-mcp first on PATH", () => {
    const onPath = hmsMcpOnPath();
    try {
      const result = spawnSync("hms-mcp", ["--version"], {
        encoding: "utf8",
        env: { ...process.env, PATH: onPath.path },
      });
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      onPath.remove();
    }
  });

  it("startHttpServer resolves with the URL the server listens on", async () => {
    const data = tempDir();
    const server = await startHttpServer({ dataDir: data.dir });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    } finally {
      await server.stop();
      data.remove();
    }
    expect(server.child.exitCode !== null || server.child.signalCode !== null).toBe(true);
  });

  it("startHttpServer refuses a --log-level that would hide the line it waits for", async () => {
    await expect(
      startHttpServer({ dataDir: "/nowhere", args: ["--log-level", "warn"] }),
    ).rejects.toThrow(
      "startHttpServer reads the info-level 'listening on' line: use --log-level info, debug or trace",
    );
  });
});

describe("a test server's store on either engine", () => {
  it("is a data directory, or with HMS_TEST_DATABASE_URL a new database per directory", async () => {
    const data = tempDir();
    const other = tempDir();
    const saved = process.env.HMS_TEST_DATABASE_URL;
    delete process.env.HMS_TEST_DATABASE_URL;
    expect(storeArgs(data.dir)).toEqual(["--data-dir", data.dir]);
    const pg = await startPostgres();
    try {
      process.env.HMS_TEST_DATABASE_URL = pg.url;
      const [flag, url] = storeArgs(data.dir);
      expect(flag).toBe("--database-url");
      // One database per directory: the same again for it, another for another directory.
      expect(storeArgs(data.dir)).toEqual([flag, url]);
      expect(storeArgs(other.dir)[1]).not.toBe(url);
      const database = new URL(url as string).pathname.slice(1);
      expect(pg.psql(`SELECT count(*) FROM pg_database WHERE datname = '${database}'`).trim()).toBe(
        "1",
      );
      // A server started on the directory serves that database.
      const server = await startHttpServer({ dataDir: data.dir, args: ["--log-level", "info"] });
      await server.stop();
      expect(storeNamespaces(data.dir)).toEqual(["default"]);
      expect(storeNamespaces(other.dir)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.HMS_TEST_DATABASE_URL;
      else process.env.HMS_TEST_DATABASE_URL = saved;
      pg.remove();
      data.remove();
      other.remove();
    }
    // initdb and a cluster's start, then a server: only a hung run is stopped (a minute was
    // not enough at load 60, with the whole suite on two cores).
  }, 180_000);
});
