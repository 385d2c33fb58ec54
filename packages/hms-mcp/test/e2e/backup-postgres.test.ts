/**
 * `hms-mcp backup` and `hms-mcp restore` on PostgreSQL (pg_dump and pg_restore), against a
 * real cluster and a real HTTP server kept busy by writers while the backup runs: every write
 * acknowledged before it started is in the restored database; what it holds is a consistent
 * cut of the live store; a server on a backup taken once the writers stopped serves the same
 * export and history (attribution included); restoring over a store is refused.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AckedWrite,
  cleanEnv,
  createToken,
  exited,
  exportAll,
  type HttpProcess,
  historyAll,
  hmsMcpBin,
  ok,
  type PostgresServer,
  postgresBinDir,
  startHttpProcess,
  startPostgres,
  tempDir,
  until,
  writeLoad,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PG_TOOLS = ["--pg-dump", join(postgresBinDir(), "pg_dump")];
const PG_RESTORE = ["--pg-restore", join(postgresBinDir(), "pg_restore")];

function run(args: string[]) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    input: "",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const NAMESPACES = ["default", "team"];
const work = tempDir();
const tokensFile = join(work.dir, "tokens.jsonl");
const alice = createToken("alice", "default,team");
const midLoad = join(work.dir, "mid-load");
const quiet = join(work.dir, "quiet");
let pg: PostgresServer;
let live: string;
let server: HttpProcess;
const acked: AckedWrite[] = [];
let ackedBeforeBackup = 0;
let backupRun: { status: number | null; stderr: string };

/** A server on `url` (a restored database), with a client of alice's. */
async function serve(url: string): Promise<{ server: HttpProcess; client: Client }> {
  const started = await startHttpProcess({
    databaseUrl: url,
    args: ["--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
  });
  return { server: started, client: await started.connect(alice.token) };
}

beforeAll(async () => {
  pg = await startPostgres();
  live = pg.createDatabase("live");
  writeFileSync(tokensFile, `${alice.line}\n`);
  ({ server } = await serve(live));
  const seeder = await server.connect(alice.token);
  for (const namespace of NAMESPACES) {
    for (const text of ["# Plan\n", "# Plan\n- one\n"]) {
      await ok(seeder, "remember", { namespace, key: "/memories/plan.md", text });
    }
  }
  await seeder.close();
  const clients = await Promise.all([1, 2, 3].map(() => server.connect(alice.token)));
  let stop = false;
  const writers = writeLoad(clients, NAMESPACES, acked, () => stop);
  await until(() => acked.length, 60);
  ackedBeforeBackup = acked.length;
  const child: ChildProcess = spawn(
    process.execPath,
    [hmsMcpBin(), "backup", "--database-url", live, "--to", midLoad, ...PG_TOOLS],
    { env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  backupRun = { status: await exited(child), stderr };
  await until(() => acked.length, acked.length + 20);
  stop = true;
  await writers;
  for (const client of clients) await client.close();
  expect(run(["backup", "--database-url", live, "--to", quiet, ...PG_TOOLS]).status).toBe(0);
}, 600_000);
afterAll(async () => {
  await server?.stop();
  pg?.remove();
  work.remove();
});

describe("hms-mcp backup on PostgreSQL, while a server is writing", () => {
  it("writes pg_dump's archive and a manifest", () => {
    expect(backupRun.stderr).toMatch(/pg_dump wrote database\.pgdump/);
    expect(backupRun.status).toBe(0);
    expect(readdirSync(midLoad).sort()).toEqual(["backup.json", "database.pgdump"]);
  });

  it("restores into a new database holding every acknowledged write, a cut of the live store", async () => {
    const restored = pg.createDatabase("restored");
    const result = run(["restore", "--from", midLoad, "--database-url", restored, ...PG_RESTORE]);
    expect(result.stderr).toMatch(/done: .*database\.pgdump restored into/);
    expect(result.status).toBe(0);
    const onRestored = await serve(restored);
    const onLive = await server.connect(alice.token);
    try {
      for (const namespace of NAMESPACES) {
        const theirs = await exportAll(onRestored.client, namespace);
        const byKey = new Map(theirs.map((memory) => [memory.key, memory]));
        for (const write of acked.slice(0, ackedBeforeBackup)) {
          if (write.namespace === namespace) expect(byKey.get(write.key)?.text).toBe(write.text);
        }
        const liveByKey = new Map(
          (await exportAll(onLive, namespace)).map((memory) => [memory.key, memory]),
        );
        for (const memory of theirs) expect(liveByKey.get(memory.key as string)).toEqual(memory);
        const liveHistory = new Map(
          (await historyAll(onLive, namespace)).map((change) => [change.seq, change]),
        );
        for (const change of await historyAll(onRestored.client, namespace)) {
          expect(liveHistory.get(change.seq)).toEqual(change);
        }
      }
    } finally {
      await onLive.close();
      await onRestored.client.close();
      await onRestored.server.stop();
    }
  });

  it("is served, once restored, with the same export and history as the live server", async () => {
    const restored = pg.createDatabase("quiet");
    expect(
      run(["restore", "--from", quiet, "--database-url", restored, ...PG_RESTORE]).status,
    ).toBe(0);
    const onRestored = await serve(restored);
    const onLive = await server.connect(alice.token);
    try {
      for (const namespace of NAMESPACES) {
        expect(await exportAll(onRestored.client, namespace)).toEqual(
          await exportAll(onLive, namespace),
        );
        const history = await historyAll(onRestored.client, namespace);
        expect(history).toEqual(await historyAll(onLive, namespace));
        expect(history.length).toBeGreaterThan(ackedBeforeBackup / 2);
        expect(history.every((change) => change.actor === "alice")).toBe(true);
      }
    } finally {
      await onLive.close();
      await onRestored.client.close();
      await onRestored.server.stop();
    }
  });

  it("refuses to restore over a database that holds a store, and --namespace", () => {
    const over = run(["restore", "--from", quiet, "--database-url", live, ...PG_RESTORE]);
    expect(over.stderr).toMatch(
      /already holds an hms-mcp store \(schema \d+\): restore into a new, empty database/,
    );
    expect(over.status).toBe(1);
    const one = run([
      "backup",
      "--database-url",
      live,
      "--to",
      join(work.dir, "one"),
      "--namespace",
      "team",
    ]);
    expect(one.stderr).toMatch(/--namespace applies to SQLite data directories/);
    expect(one.status).toBe(2);
    const missing = run([
      "backup",
      "--database-url",
      live,
      "--to",
      join(work.dir, "nodump"),
      "--pg-dump",
      join(work.dir, "no-such-pg_dump"),
    ]);
    expect(missing.stderr).toMatch(
      /no-such-pg_dump was not found: install PostgreSQL's client programs/,
    );
    expect(missing.status).toBe(1);
  });
});
