/**
 * A rolling upgrade on PostgreSQL, against real processes: a replica of the previous landing
 * of this repository (PREVIOUS, taken out of git with `git archive` and built here) and one of
 * this build on one database. Both serve, each reading what the other wrote; the previous build
 * says it is ready only if this build added no migration. Then the database gets a schema newer
 * than the previous build's, as a release with a migration leaves it: the previous build's
 * running replica keeps answering calls but reports itself not ready (so a load balancer drains
 * it), and a new start of it refuses, each saying why. docs/operations.md ("Upgrade") tells
 * operators the same.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEMA_VERSION } from "@hms/store-postgres";
import {
  cleanEnv,
  exited,
  hmsMcpBin,
  ok,
  type PostgresServer,
  startPostgres,
  tempDir,
} from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The build before this one: the newest commit of main when this test was written. Move it
 * forward to the last release once releases are tagged.
 */
const PREVIOUS = "515959d";
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

interface Replica {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

/** Starts `node BIN --transport http --port 0 --database-url URL` and waits for its address. */
async function startReplica(bin: string, database: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [bin, "--transport", "http", "--port", "0", "--database-url", database, "--log-level", "info"],
    { env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stderr);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`replica exited with ${code}:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited(child);
    },
  };
}

async function clientOf(replica: Replica): Promise<Client> {
  const client = new Client({ name: "rolling-upgrade", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
  return client;
}

/** /readyz of a replica: its status and body. */
async function readiness(replica: Replica): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL("/readyz", replica.url));
  return { status: response.status, body: await response.text() };
}

const previous = tempDir("hms-previous-");
let pg: PostgresServer;
let database: string;
let previousBin: string;
/** The schema version the previous build needs (this build's may be newer). */
let previousSchema: number;
let older: Replica;
let newer: Replica;

beforeAll(async () => {
  // The previous build from git, installed from the same pnpm store.
  execFileSync("sh", [
    "-c",
    `git -C '${REPO}' archive '${PREVIOUS}' | tar -x -C '${previous.dir}'`,
  ]);
  const run = (args: string[]) =>
    execFileSync("pnpm", args, {
      cwd: previous.dir,
      stdio: "ignore",
      env: { ...process.env, CI: "true" },
    });
  // Only what hms-mcp's command needs: its packages' JavaScript (no install scripts, no type
  // declarations, no inspector page; the declarations were two thirds of the build's time).
  run([
    "install",
    "--frozen-lockfile",
    "--prefer-offline",
    "--ignore-scripts",
    "--filter",
    "hms-mcp...",
  ]);
  run(["--filter", "hms-mcp...", "exec", "tsup", "--no-dts"]);
  previousBin = join(previous.dir, "packages/hms-mcp/dist/cli.js");
  expect(existsSync(previousBin)).toBe(true);
  const previousEngine = join(previous.dir, "packages/store-postgres/dist/index.js");
  previousSchema = ((await import(previousEngine)) as { SCHEMA_VERSION: number }).SCHEMA_VERSION;
  pg = await startPostgres();
  database = pg.createDatabase("rolling");
  // The previous release runs first (it made the schema), then this build joins it.
  older = await startReplica(previousBin, database);
  newer = await startReplica(hmsMcpBin(), database);
}, 1_200_000);
afterAll(async () => {
  await older?.stop();
  await newer?.stop();
  pg?.remove();
  previous.remove();
});

describe("a rolling upgrade on PostgreSQL", () => {
  it("serves from both versions side by side, each reading what the other wrote", async () => {
    const viaOlder = await clientOf(older);
    const viaNewer = await clientOf(newer);
    try {
      await ok(viaOlder, "remember", {
        key: "/memories/plan.md",
        text: "from the previous build\n",
      });
      const read = await ok<{ text: string; version: number }>(viaNewer, "get", {
        key: "/memories/plan.md",
      });
      expect(read.text).toBe("from the previous build\n");
      await ok(viaNewer, "remember", {
        key: "/memories/plan.md",
        text: "from this build\n",
        expected_version: read.version,
      });
      const back = await ok<{ text: string }>(viaOlder, "get", { key: "/memories/plan.md" });
      expect(back.text).toBe("from this build\n");
      // A migration of this build's takes the previous one out of service (as the next test's
      // later release does), though it still serves the calls it gets.
      expect((await readiness(older)).status).toBe(previousSchema === SCHEMA_VERSION ? 200 : 503);
      expect((await readiness(newer)).status).toBe(200);
    } finally {
      await viaOlder.close();
      await viaNewer.close();
    }
  });

  it("takes the previous build out of service on a newer schema, and it refuses to start on one", async () => {
    // What a release with one more migration leaves in the database.
    pg.psql(
      `INSERT INTO hms_schema_migrations (version, description) VALUES (${SCHEMA_VERSION + 1}, 'a later release')`,
      new URL(database).pathname.slice(1),
    );
    const ready = await readiness(older);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(
      new RegExp(
        `schema is at version ${SCHEMA_VERSION + 1}, newer than this hms-mcp's \\d+: upgrade hms-mcp`,
      ),
    );
    // Calls in flight and new ones still work while the balancer drains it.
    const viaOlder = await clientOf(older);
    try {
      const read = await ok<{ text: string }>(viaOlder, "get", { key: "/memories/plan.md" });
      expect(read.text).toBe("from this build\n");
    } finally {
      await viaOlder.close();
    }
    await expect(startReplica(previousBin, database)).rejects.toThrow(
      new RegExp(
        `replica exited with 2:[^]*schema is at version ${SCHEMA_VERSION + 1}, newer than this[^]*upgrade`,
      ),
    );
  });
});
