/**
 * `hms-mcp backup` and `hms-mcp restore` on SQLite, against real processes: a real HTTP server
 * kept busy by writers (a token of a tokens file, so every change is attributed to alice)
 * while `hms-mcp backup` runs as a process of its own. Every write acknowledged before the
 * backup started is in it; each file passes `PRAGMA integrity_check`; what the backup holds is
 * what the live store held (a consistent cut, nothing invented); a server started on a backup
 * serves the same export and history as the live server; one namespace restored alone comes
 * back as backed up while the others keep their later writes; a namespace a server holds
 * open is refused. The refusals of both commands are at the end.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HistoryEntry, type MemoryRecord, type MemoryStore, Namespaces } from "@hms/store";
import { openSqlite, pragma } from "@hms/store/internal";
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
  startHttpProcess,
  startStdio,
  tempDir,
  until,
  writeLoad,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function run(args: string[]) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    input: "",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every memory of a store read directly, page by page. */
function storeExport(store: MemoryStore): MemoryRecord[] {
  const all: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = store.export({ cursor, limit: 500 });
    all.push(...page.memories);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

/** Every change of a store's memory files read directly, newest first. */
function storeHistory(store: MemoryStore): HistoryEntry[] {
  const all: HistoryEntry[] = [];
  let before: number | undefined;
  do {
    const page = store.history.under("/memories/", { limit: 1000, before });
    all.push(...page.entries);
    before = page.next_before ?? undefined;
  } while (before !== undefined);
  return all;
}

const NAMESPACES = ["default", "team"] as const;
const data = tempDir();
const backups = tempDir();
const tokensFile = join(data.dir, "tokens.jsonl");
const alice = createToken("alice", "default,team");
let server: HttpProcess;
const acked: AckedWrite[] = [];
let ackedBeforeBackup = 0;
let writesDuringBackup = 0;
let backupRun: { status: number | null; stderr: string };
const midLoad = join(backups.dir, "mid-load");
const quiet = join(backups.dir, "quiet");

beforeAll(async () => {
  writeFileSync(tokensFile, `${alice.line}\n`);
  server = await startHttpProcess({
    dataDir: data.dir,
    args: ["--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
  });
  const seeder = await server.connect(alice.token);
  // Versions past 1 and a history with several changes of one file, in both namespaces.
  for (const namespace of NAMESPACES) {
    for (const text of ["# Plan\n", "# Plan\n- one\n", "# Plan\n- one\n- two\n"]) {
      await ok(seeder, "remember", { namespace, key: "/memories/plan.md", text });
    }
  }
  await seeder.close();
  const clients = await Promise.all([1, 2, 3].map(() => server.connect(alice.token)));
  let stop = false;
  const writers = writeLoad(clients, NAMESPACES, acked, () => stop);
  await until(() => acked.length, 60);
  // Every write acknowledged from here on came after the backup started.
  ackedBeforeBackup = acked.length;
  const child: ChildProcess = spawn(
    process.execPath,
    [hmsMcpBin(), "backup", "--data-dir", data.dir, "--to", midLoad],
    { env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const status = await exited(child);
  backupRun = { status, stderr };
  writesDuringBackup = acked.length - ackedBeforeBackup;
  // A few more after it, so that the live store is ahead of the backup.
  await until(() => acked.length, acked.length + 20);
  stop = true;
  await writers;
  for (const client of clients) await client.close();
  expect(run(["backup", "--data-dir", data.dir, "--to", quiet]).status).toBe(0);
}, 600_000);
afterAll(async () => {
  await server?.stop();
  data.remove();
  backups.remove();
});

describe("hms-mcp backup while a server is writing", () => {
  it("finishes, and every file of it passes SQLite's integrity check", () => {
    expect(backupRun.stderr).toMatch(/namespace 1\/2 default: \d+ memories/);
    expect(backupRun.stderr).toMatch(/namespace 2\/2 team: \d+ memories/);
    expect(backupRun.status).toBe(0);
    const files = readdirSync(join(midLoad, "namespaces"));
    expect(files).toHaveLength(2);
    for (const file of files) {
      const db = openSqlite(join(midLoad, "namespaces", file), { readOnly: true });
      expect(pragma(db, "integrity_check")).toBe("ok");
      db.close();
    }
    expect(readdirSync(midLoad).sort()).toEqual(["backup.json", "namespaces"]);
  });

  it("holds every write acknowledged before it started, and only what the store held", () => {
    const backup = new Namespaces({ dataDir: midLoad });
    const live = new Namespaces({ dataDir: data.dir });
    try {
      for (const write of acked.slice(0, ackedBeforeBackup)) {
        expect(backup.read(write.namespace).get(write.key)?.text).toBe(write.text);
      }
      // A cut of the live store: each memory and history row as the live store has it.
      for (const namespace of NAMESPACES) {
        for (const memory of storeExport(backup.read(namespace))) {
          expect(live.read(namespace).get(memory.key)).toEqual(memory);
        }
        const liveHistory = new Map(
          storeHistory(live.read(namespace)).map((entry) => [entry.seq, entry]),
        );
        const history = storeHistory(backup.read(namespace));
        expect(history.length).toBeGreaterThan(0);
        for (const entry of history) expect(liveHistory.get(entry.seq)).toEqual(entry);
      }
    } finally {
      backup.close();
      live.close();
    }
    // The writers went on while it ran (it holds a fraction of what was written by the end).
    expect(writesDuringBackup).toBeGreaterThan(0);
  });

  it("is served by a server started on it: the same export and history as the live server", async () => {
    const onBackup = await startStdio({ dataDir: quiet, args: ["--namespace-arg"] });
    const onLive = await server.connect(alice.token);
    try {
      for (const namespace of NAMESPACES) {
        const served = await exportAll(onBackup.client, namespace);
        expect(served.length).toBeGreaterThan(acked.length / 2 - 1);
        expect(served).toEqual(await exportAll(onLive, namespace));
        const history = await historyAll(onBackup.client, namespace);
        expect(history).toEqual(await historyAll(onLive, namespace));
        // Who made each change is kept: alice's token, and the tool.
        expect(history.every((change) => change.actor === "alice")).toBe(true);
        expect(history.filter((change) => change.key === "/memories/plan.md")).toHaveLength(3);
      }
    } finally {
      await onBackup.close();
      await onLive.close();
    }
  });
});

describe("hms-mcp restore", () => {
  it("refuses a namespace the running server holds open, changing nothing", () => {
    const team = () => {
      const live = new Namespaces({ dataDir: data.dir });
      const memories = storeExport(live.read("team"));
      live.close();
      return memories;
    };
    const before = team();
    const result = run([
      "restore",
      "--from",
      midLoad,
      "--data-dir",
      data.dir,
      "--namespace",
      "team",
    ]);
    expect(result.stderr).toMatch(
      /namespace team is open in another process \(a server serving this data directory\): stop it before restoring/,
    );
    expect(result.status).toBe(1);
    expect(team()).toEqual(before);
  });

  it("restores one namespace alone, once the server is stopped; the others keep their later writes", async () => {
    await server.stop();
    const before = new Namespaces({ dataDir: data.dir });
    const defaultBefore = storeExport(before.read("default"));
    const teamBefore = storeExport(before.read("team")).length;
    before.close();
    const result = run([
      "restore",
      "--from",
      midLoad,
      "--data-dir",
      data.dir,
      "--namespace",
      "team",
    ]);
    expect(result.stderr).toMatch(
      /namespace 1\/1 team: \d+ memories, \d+ changes of history restored/,
    );
    expect(result.status).toBe(0);

    const restarted = await startStdio({ dataDir: data.dir, args: ["--namespace-arg"] });
    const onBackup = await startStdio({ dataDir: midLoad, args: ["--namespace-arg"] });
    try {
      const team = await exportAll(restarted.client, "team");
      expect(team).toEqual(await exportAll(onBackup.client, "team"));
      expect(await historyAll(restarted.client, "team")).toEqual(
        await historyAll(onBackup.client, "team"),
      );
      // The backup was taken mid-load: the live team had more, and has them no longer.
      expect(team.length).toBeLessThan(teamBefore);
      expect(await exportAll(restarted.client, "default")).toEqual(defaultBefore);
      // And the restored namespace takes writes again, versions going on from the backup's.
      const written = await ok<{ version: number }>(restarted.client, "remember", {
        namespace: "team",
        key: "/memories/plan.md",
        text: "after the restore\n",
      });
      expect(written.version).toBeGreaterThan(
        Math.max(...team.map((memory) => memory.version as number)),
      );
    } finally {
      await restarted.close();
      await onBackup.close();
    }
  });
});

describe("their refusals", () => {
  it("backup refuses a --to that holds anything, and a namespace that does not exist", () => {
    const full = run(["backup", "--data-dir", data.dir, "--to", midLoad]);
    expect(full.stderr).toMatch(/--to .* is not empty: back up into a new directory/);
    expect(full.status).toBe(1);
    const nobody = run([
      "backup",
      "--data-dir",
      data.dir,
      "--to",
      join(backups.dir, "x"),
      "--namespace",
      "nobody",
    ]);
    expect(nobody.stderr).toMatch(
      /no namespace nobody in .*`hms-mcp namespaces` lists those there are/,
    );
    expect(nobody.status).toBe(1);
    expect(readdirSync(join(backups.dir, "x"))).toEqual([]);
    const inside = run([
      "backup",
      "--data-dir",
      data.dir,
      "--to",
      join(data.dir, "namespaces", "b"),
    ]);
    expect(inside.stderr).toMatch(/is the data directory or inside its namespaces\//);
    expect(inside.status).toBe(2);
    const both = run([
      "backup",
      "--data-dir",
      data.dir,
      "--database-url",
      "postgres://h/db",
      "--to",
      "/tmp/y",
    ]);
    expect(both.stderr).toMatch(/--data-dir and --database-url both say where the memories live/);
    expect(both.status).toBe(2);
    const bad = run(["backup", "--data-dir", data.dir, "--to", "/tmp/y", "--namespace", "../etc"]);
    expect(bad.stderr).toMatch(/namespace "\.\.\/etc" is not valid/);
    expect(bad.status).toBe(2);
  });

  it("restore refuses a directory that is no backup, and a namespace the backup lacks", () => {
    const empty = tempDir();
    try {
      const none = run(["restore", "--from", empty.dir, "--data-dir", data.dir]);
      expect(none.stderr).toMatch(/holds no backup of a data directory/);
      expect(none.status).toBe(1);
      const lacks = run([
        "restore",
        "--from",
        quiet,
        "--data-dir",
        empty.dir,
        "--namespace",
        "zeta",
      ]);
      expect(lacks.stderr).toMatch(/the backup .* holds no namespace zeta/);
      expect(lacks.status).toBe(1);
      expect(readdirSync(empty.dir)).toEqual([]);
    } finally {
      empty.remove();
    }
  });
});
