// Several stateless hms-mcp replicas over HTTP on one PostgreSQL database, driven through the
// real memory tool: concurrent edits of one file spread across the replicas lose nothing, a
// write through one replica is seen at once through every other, a replica killed with
// SIGKILL in the middle of writes loses no acknowledged write and leaves no tree operation half
// done, and a restart or an outage of PostgreSQL itself is survived by the running replicas
// (calls in the outage get UNAVAILABLE, nothing crashes, nothing acknowledged is lost).
//
// Here rather than in hms-mcp's e2e suite: the clients are HolographicMemoryTool, and hms-mcp
// may not depend on the tool (the tool's tests depend on hms-mcp). Real processes and a real
// PostgreSQL cluster (startPostgres: Debian's postgresql-15) throughout; nothing is mocked.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import {
  cleanEnv,
  exited,
  hmsMcpCommand,
  type PostgresServer,
  startPostgres,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

/** One hms-mcp process serving HTTP on a free port, on the test's database. */
interface Replica {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
}

let postgres: PostgresServer;
const replicas: Replica[] = [];
const tools: HolographicMemoryTool[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(tools.map((tool) => tool.close()));
  for (const replica of replicas) {
    if (replica.child.exitCode === null && replica.child.signalCode === null) {
      replica.child.kill("SIGTERM");
    }
  }
  await Promise.all(replicas.map((replica) => exited(replica.child)));
  postgres?.remove();
});

/**
 * Starts `hms-mcp --transport http --database-url URL` and resolves once it says where it
 * listens. Every replica of a test gets the same URL: one store, many servers.
 */
async function startReplica(databaseUrl: string): Promise<Replica> {
  const { command, args } = hmsMcpCommand([
    "--transport",
    "http",
    "--port",
    "0",
    "--database-url",
    databaseUrl,
    "--log-level",
    "info",
  ]);
  const child = spawn(command, args, { env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      stderr += `${line}\n`;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(line);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`hms-mcp exited with ${code}:\n${stderr}`)));
  });
  const replica = { url, child, stderr: () => stderr };
  replicas.push(replica);
  return replica;
}

/** `n` replicas on one new database of the cluster. */
async function startReplicas(n: number): Promise<{ databaseUrl: string; replicas: Replica[] }> {
  const databaseUrl = postgres.createDatabase("replicas");
  // The first one migrates the new database; the others start on a current schema.
  const first = await startReplica(databaseUrl);
  const rest = await Promise.all(Array.from({ length: n - 1 }, () => startReplica(databaseUrl)));
  return { databaseUrl, replicas: [first, ...rest] };
}

/** The memory tool over HTTP to `replica` (closed after the file's tests). */
async function toolOn(replica: Replica): Promise<HolographicMemoryTool> {
  const tool = await HolographicMemoryTool.connect({ connection: { url: replica.url } });
  tools.push(tool);
  return tool;
}

/** The lines of a file, read through `tool`. */
async function linesOf(tool: HolographicMemoryTool, path: string): Promise<string[]> {
  const output = await tool.view({ command: "view", path });
  return output
    .split("\n")
    .slice(1)
    .map((row) => row.replace(/^ *\d+\t/, ""));
}

/** The files under `dir` (two levels deep) as path to content, read through `tool`. */
async function filesUnder(tool: HolographicMemoryTool, dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const listing = await tool.view({ command: "view", path: dir }).catch((error: unknown) => {
    if (error instanceof HolographicMemoryError && error.code === "not_found") return "";
    throw error;
  });
  const paths = listing
    .split("\n")
    .slice(1)
    .map((row) => row.split("\t")[1] ?? "")
    .filter((path) => path.startsWith(`${dir}/`) && !path.endsWith("/"));
  for (const path of paths) files.set(path, (await linesOf(tool, path)).join("\n"));
  return files;
}

/**
 * Runs an edit until it applies. `conflict` means every compare-and-set attempt of the engine
 * lost the race and nothing changed ("view it and try again", as Claude would): with 16
 * writers on one file that happens; what must never happen is an edit applied twice or lost.
 */
async function untilApplied(edit: () => Promise<unknown>): Promise<number> {
  for (let conflicts = 0; ; conflicts++) {
    try {
      await edit();
      return conflicts;
    } catch (error) {
      if (!(error instanceof HolographicMemoryError && error.code === "conflict")) throw error;
    }
  }
}

function alive(replica: Replica): boolean {
  return replica.child.exitCode === null && replica.child.signalCode === null;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("4 replicas on one database", () => {
  let servers: Replica[];
  beforeAll(async () => {
    servers = (await startReplicas(4)).replicas;
  }, 120_000);

  // 20 edits each, as memory-core's race of engines (where a backend that ignored versions lost
  // 73 of 160 lines): every edit is contended from the first, and 50 each took 110 s at load 15
  // as the writers' retries grew. The engines' own 16 x 50 on one key: store-postgres's
  // replicas.test.ts.
  const EDITS = 20;
  it(`16 writers x ${EDITS} edits of one file spread across the replicas: no update lost`, async () => {
    const writers = await Promise.all(
      Array.from({ length: 16 }, (_, w) => toolOn(servers[w % 4] as Replica)),
    );
    const path = "/memories/shared.md";
    const counters = writers.map((_, w) => `counter ${w}: 0`);
    await writers[0]?.create({ command: "create", path, file_text: `${counters.join("\n")}\n` });
    // Each writer alternates two read-modify-write edits: a line of its own inserted at the
    // top, and a step of its own counter (str_replace). Either is lost if two writers' compare-
    // and-set both pass on one version.
    let conflicts = 0;
    await Promise.all(
      writers.map(async (tool, w) => {
        for (let i = 0; i < EDITS; i++) {
          const step = (i - 1) / 2;
          conflicts += await untilApplied(() =>
            i % 2 === 0
              ? tool.insert({
                  command: "insert",
                  path,
                  insert_line: 0,
                  insert_text: `writer ${w} line ${i}\n`,
                })
              : tool.str_replace({
                  command: "str_replace",
                  path,
                  old_str: `counter ${w}: ${step}\n`,
                  new_str: `counter ${w}: ${step + 1}\n`,
                }),
          );
        }
      }),
    );
    process.stderr.write(
      `replicas: ${16 * EDITS} edits, ${conflicts} refused as conflict and redone\n`,
    );
    // Read back through every replica: each must show the same, complete file.
    for (const server of servers) {
      const lines = await linesOf(await toolOn(server), path);
      expect(lines).toHaveLength(16 * (EDITS / 2) + 16);
      for (let w = 0; w < 16; w++) {
        expect(lines).toContain(`counter ${w}: ${EDITS / 2}`);
        for (let i = 0; i < EDITS; i += 2) {
          expect(lines.filter((line) => line === `writer ${w} line ${i}`)).toHaveLength(1);
        }
      }
    }
  }, 600_000);

  it("a file written through one replica is seen at once through every other", async () => {
    const clients = await Promise.all(servers.map((server) => toolOn(server)));
    for (let round = 0; round < 8; round++) {
      const writer = clients[round % 4] as HolographicMemoryTool;
      const path = `/memories/seen/${round}.md`;
      await writer.create({ command: "create", path, file_text: `round ${round}\n` });
      for (const reader of clients) {
        expect(await linesOf(reader, path)).toEqual([`round ${round}`]);
      }
      // An edit, and then a delete, are seen at once too (no cached old version).
      await writer.str_replace({
        command: "str_replace",
        path,
        old_str: `round ${round}`,
        new_str: `round ${round}, edited`,
      });
      for (const reader of clients) {
        expect(await linesOf(reader, path)).toEqual([`round ${round}, edited`]);
      }
      await writer.delete({ command: "delete", path });
      for (const reader of clients) {
        const gone = await reader.view({ command: "view", path }).catch((error: unknown) => error);
        expect(gone).toBeInstanceOf(HolographicMemoryError);
        expect((gone as HolographicMemoryError).message).toMatch(/does not exist/);
      }
    }
  }, 300_000);
});

describe("kill -9 of a replica in the middle of writes", () => {
  it("5 rounds: every acknowledged write present, every tree move and delete all or nothing", async () => {
    const { databaseUrl, replicas: started } = await startReplicas(3);
    const servers = [...started];
    const FILES = 40;
    const treeFile = (i: number) => `file ${i} of the tree, whole\n`;
    for (let round = 0; round < 5; round++) {
      const survivor = await toolOn(servers[0] as Replica);
      const victim = servers[2] as Replica;
      const onVictim = await toolOn(victim);
      // A tree of FILES files the victim keeps moving back and forth, and a second one it
      // deletes just before it dies: each is one transaction, so all or nothing.
      const log = `/memories/round-${round}/log.md`;
      await survivor.create({ command: "create", path: log, file_text: "" });
      for (let i = 0; i < FILES; i++) {
        await survivor.create({
          command: "create",
          path: `/memories/round-${round}/a/${i}.md`,
          file_text: treeFile(i),
        });
        await survivor.create({
          command: "create",
          path: `/memories/round-${round}/doomed/${i}.md`,
          file_text: treeFile(i),
        });
      }
      // Writers on every replica insert unique lines into one log; what each acknowledged is
      // kept. A writer whose replica dies stops (its call fails); the others carry on.
      const acknowledged = new Set<string>();
      const attempted = new Set<string>();
      let stop = false;
      // Set just before the kill: from then on a failed call on the victim is expected (its
      // exit is seen a little later).
      let killed = false;
      const writers = await Promise.all(
        servers.flatMap((server, s) => [0, 1].map(async (w) => ({ id: `${s}.${w}`, server }))),
      );
      const writing = writers.map(async ({ id, server }) => {
        const tool = server === victim ? onVictim : await toolOn(server);
        for (let i = 0; !stop; i++) {
          const line = `round ${round} writer ${id} line ${i}`;
          attempted.add(line);
          try {
            await tool.insert({
              command: "insert",
              path: log,
              insert_line: 0,
              insert_text: `${line}\n`,
            });
            acknowledged.add(line);
          } catch (error) {
            if (!(killed && server === victim)) throw error;
            return;
          }
        }
      });
      const moving = (async () => {
        let from = "a";
        for (;;) {
          const to = from === "a" ? "b" : "a";
          try {
            await onVictim.rename({
              command: "rename",
              old_path: `/memories/round-${round}/${from}`,
              new_path: `/memories/round-${round}/${to}`,
            });
          } catch (error) {
            if (!killed) throw error;
            return;
          }
          from = to;
        }
      })();
      await sleep(300 + Math.floor(Math.random() * 500));
      // The delete goes out, and the kill lands before, during or after its transaction.
      const deleting = onVictim
        .delete({ command: "delete", path: `/memories/round-${round}/doomed` })
        .catch(() => "killed");
      // (Under load a delete of 40 files queued behind the moves can take hundreds of ms.)
      await sleep(Math.floor(Math.random() * 600));
      killed = true;
      victim.child.kill("SIGKILL");
      await exited(victim.child);
      await sleep(200);
      stop = true;
      const [, , deleted] = await Promise.all([Promise.all(writing), moving, deleting]);

      // What the killed replica left: read through a survivor.
      const lines = await linesOf(survivor, log);
      for (const line of acknowledged) expect(lines, `round ${round}`).toContain(line);
      for (const line of lines.filter((l) => l !== "")) {
        expect(attempted.has(line), `${line} was never written`).toBe(true);
        expect(
          lines.filter((l) => l === line),
          line,
        ).toHaveLength(1);
      }
      const whole = new Map(
        Array.from({ length: FILES }, (_, i) => [`${i}.md`, treeFile(i).trimEnd()]),
      );
      const inA = await filesUnder(survivor, `/memories/round-${round}/a`);
      const inB = await filesUnder(survivor, `/memories/round-${round}/b`);
      const moved = inA.size === 0 ? inB : inA;
      expect([inA.size, inB.size].sort(), `round ${round}: the tree split`).toEqual([0, FILES]);
      const dir = inA.size === 0 ? "b" : "a";
      for (const [name, text] of whole) {
        expect(moved.get(`/memories/round-${round}/${dir}/${name}`)).toBe(text);
      }
      const doomed = await filesUnder(survivor, `/memories/round-${round}/doomed`);
      expect([0, FILES], `round ${round}: the delete was partial`).toContain(doomed.size);
      for (const [path, text] of doomed) {
        expect(text).toBe(whole.get(path.slice(path.lastIndexOf("/") + 1)));
      }
      // An acknowledged delete is kept.
      if (deleted !== "killed") expect(doomed.size).toBe(0);
      process.stderr.write(
        `replicas: round ${round}: ${acknowledged.size} writes acknowledged, the delete ` +
          `${deleted === "killed" ? "cut off by the kill" : "answered"}, ${doomed.size} doomed files left\n`,
      );
      // A fresh replica takes the dead one's place for the next round.
      servers[2] = await startReplica(databaseUrl);
    }
    // The replicas that were never killed served throughout, and still do.
    for (const server of servers) expect(alive(server)).toBe(true);
  }, 600_000);
});

describe("PostgreSQL itself restarts or goes away", () => {
  let servers: Replica[];
  let clients: HolographicMemoryTool[];
  beforeAll(async () => {
    servers = (await startReplicas(3)).replicas;
    clients = await Promise.all(servers.map((server) => toolOn(server)));
  }, 120_000);

  /** Retries `body` until it succeeds (PostgreSQL is back), for at most a minute. */
  async function once<T>(body: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        return await body();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(250);
      }
    }
  }

  it("a restart in the middle of writes: the replicas recover by themselves, nothing acknowledged lost", async () => {
    const path = "/memories/restart.md";
    await clients[0]?.create({ command: "create", path, file_text: "" });
    const acknowledged = new Set<string>();
    const refusals: string[] = [];
    let stop = false;
    const writing = clients.map(async (tool, c) => {
      for (let i = 0; !stop; i++) {
        const line = `client ${c} line ${i}`;
        try {
          await tool.insert({ command: "insert", path, insert_line: 0, insert_text: `${line}\n` });
          acknowledged.add(line);
        } catch (error) {
          expect(error).toBeInstanceOf(HolographicMemoryError);
          refusals.push((error as HolographicMemoryError).code);
          await sleep(100);
        }
      }
    });
    await sleep(500);
    postgres.restart();
    await sleep(1000);
    stop = true;
    await Promise.all(writing);
    // Calls failed only as UNAVAILABLE (the database went away), never as a crash.
    expect(refusals.filter((code) => code !== "UNAVAILABLE")).toEqual([]);
    for (const server of servers) expect(alive(server), server.stderr()).toBe(true);
    const lines = await once(() => linesOf(clients[1] as HolographicMemoryTool, path));
    for (const line of acknowledged) expect(lines).toContain(line);
    // Every replica serves again, without a restart of its own.
    for (const [c, tool] of clients.entries()) {
      await once(() =>
        tool.insert({ command: "insert", path, insert_line: 0, insert_text: `after ${c}\n` }),
      );
    }
    expect(await linesOf(clients[2] as HolographicMemoryTool, path)).toEqual(
      expect.arrayContaining(["after 0", "after 1", "after 2"]),
    );
  }, 300_000);

  it("a stop of a few seconds: every call in the outage gets UNAVAILABLE, then all serve again", async () => {
    const path = "/memories/outage.md";
    await clients[0]?.create({ command: "create", path, file_text: "before the outage\n" });
    postgres.stopServer();
    try {
      const deadline = Date.now() + 3000;
      let calls = 0;
      while (Date.now() < deadline) {
        for (const tool of clients) {
          for (const command of [
            () => tool.view({ command: "view", path }),
            () => tool.insert({ command: "insert", path, insert_line: 0, insert_text: "lost?\n" }),
            () =>
              tool.create({ command: "create", path: `/memories/new-${calls}.md`, file_text: "x" }),
          ]) {
            const error = await command().catch((e: unknown) => e);
            calls++;
            expect(error).toBeInstanceOf(HolographicMemoryError);
            expect((error as HolographicMemoryError).code).toBe("UNAVAILABLE");
            expect((error as HolographicMemoryError).message).toMatch(/PostgreSQL/i);
          }
        }
        await sleep(200);
      }
      expect(calls).toBeGreaterThan(9);
      for (const server of servers) expect(alive(server), server.stderr()).toBe(true);
    } finally {
      postgres.start();
    }
    // Back: every replica serves the file as it was, and none of the refused writes happened.
    for (const tool of clients) {
      expect(await once(() => linesOf(tool, path))).toEqual(["before the outage"]);
    }
    const listing = await (clients[0] as HolographicMemoryTool).view({
      command: "view",
      path: "/memories",
    });
    expect(listing).not.toMatch(/new-\d+\.md/);
  }, 300_000);
});
