// Memory churn: what the history of memory files costs a store under the memory tool's normal
// use, on SQLite or PostgreSQL. Each of `--namespaces` (3) namespaces gets its own memory tool
// (the real TypeScript HolographicMemoryTool, over its own hms-mcp process started with
// --namespace-arg, all on one data directory or database, working at the same time) and runs
// `--cycles` (3000) cycles of what a stranger might make Claude do, seeded:
//
//   every cycle   create a file of 1-25 KB under /memories/churn/, then delete it; and
//                 str_replace one line of one of 4 large files (about 30 KB, near the 32 KiB
//                 limit), so the same lines change again and again
//   every 5th     insert a line into one of 20 small notes (written anew near the size limit)
//   every 10th    rename /memories/moving/a.md to b.md, or back
//   every 25th    create a directory of 5 files (2-8 KB) and delete the directory
//   every 50th    restore the previous version of a large file (history, then restore)
//
// Every `--every` (500) cycles, and at the end after 3 s idle, it prints each namespace's store
// bytes against its live text (the stats tool's `bytes`) and the bound 16 MiB + 4 x live text,
// as @hms/test-support's storeBytes measures them: SQLite, the namespace's db + -wal + -shm
// files (the disk-full spare file, -reserve, a fixed 2 MiB, is shown apart); PostgreSQL, the
// bytes of the namespace's rows (pg_column_size of each row of hms_memories,
// hms_memory_history and hms_terms: TOAST-compressed values count as stored; indexes, which
// PostgreSQL does not split by namespace, are not counted).
// Finally it checks what the history can still give back: the previous version of a large
// file edited in the last cycle, and the last file deleted.
//
//   pnpm bench attack memory-churn [--engine sqlite|postgres] [--cycles N] [--namespaces K]
//     [--every N] [--database-url URL] [--seed S] [--then BIN]
//
// --then BIN: afterwards, the same stores are opened by the build BIN (e.g. this one, after
// HMS_MCP_BIN=today's build wrote them), measured 10 s later and after --every more cycles.
//
// HMS_MCP_BIN picks the server build (the "before" figure: today's build at
// /work/main/packages/hms-mcp/dist/cli.js). PostgreSQL runs in a private cluster from
// @hms/test-support unless --database-url is given. The memory tool is the workspace's build of
// holographic-memory-claude-tool (`pnpm --filter holographic-memory-claude-tool build`); it is
// loaded by path, since that package depends on hms-mcp for its own tests.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { storeBytes } from "@hms/test-support";
import { benchDatabase } from "../postgres.mjs";
import { BIN, round, tempDir } from "../support.mjs";

const MIB = 1024 * 1024;

function flag(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

function count(args, name, fallback) {
  const value = Number(flag(args, name, fallback));
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
  return value;
}

/** The workspace's memory tool, loaded from its build. */
export async function loadMemoryTool() {
  const here = dirname(fileURLToPath(import.meta.url));
  const entry = resolve(here, "../../../holographic-memory-claude-tool/dist/index.js");
  if (!existsSync(entry)) {
    console.error(
      `${entry} is missing: build the memory tool first (pnpm --filter holographic-memory-claude-tool build)`,
    );
    process.exit(2);
  }
  return (await import(pathToFileURL(entry).href)).HolographicMemoryTool;
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const WORDS = (
  "client prefers email follow ups meeting notes project deadline budget review design " +
  "launch customer feedback release plan issue fix test deploy server memory history store " +
  "recall search token namespace disk write read delete rename insert replace version"
).split(" ");

/** Lines of words, about `bytes` long in all; each line starts with its own label. */
export function textOf(random, bytes, label) {
  const lines = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const words = Array.from({ length: 8 + Math.floor(random() * 8) }, () => {
      return WORDS[Math.floor(random() * WORDS.length)];
    });
    const line = `${label} line ${n}: ${words.join(" ")}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Runs the churn in one namespace through its own memory tool. */
class Churner {
  constructor(tool, seed) {
    this.tool = tool;
    this.random = seeded(seed);
    /** Each large file's lines read "b<k> line <n>: edit <lines[k][n]> xxx...". */
    this.lines = Array.from({ length: 4 }, () => new Array(400).fill(0));
    this.edits = 0;
    /** Each note's size, in UTF-16 units (its text is ASCII: bytes). */
    this.notes = new Array(20).fill(0);
    this.moving = "a";
    this.lastDeleted = undefined;
    this.lastEdited = undefined;
  }

  run(command) {
    return this.tool.execute(command);
  }

  async setUp() {
    for (let k = 0; k < 20; k++) {
      const text = textOf(this.random, 1000 + Math.floor(this.random() * 1000), `n${k}`);
      this.notes[k] = text.length;
      await this.run({ command: "create", path: `/memories/notes/n${k}.md`, file_text: text });
    }
    for (let k = 0; k < 4; k++) {
      // Lines of a fixed shape, so a str_replace of one keeps the file near 30 KB.
      const lines = Array.from(
        { length: 400 },
        (_, n) => `b${k} line ${n}: edit 0 ${"x".repeat(48)}`,
      );
      await this.run({
        command: "create",
        path: `/memories/big/b${k}.md`,
        file_text: lines.join("\n"),
      });
    }
    const moving = textOf(this.random, 4000, "moving");
    await this.run({ command: "create", path: "/memories/moving/a.md", file_text: moving });
  }

  async cycle(i) {
    const random = this.random;
    const churn = `/memories/churn/c${i}.md`;
    const size = 1000 + Math.floor(random() * 24_000);
    await this.run({ command: "create", path: churn, file_text: textOf(random, size, `c${i}`) });
    await this.run({ command: "delete", path: churn });
    this.lastDeleted = churn;

    const k = i % 4;
    const n = Math.floor(random() * 400);
    const big = `/memories/big/b${k}.md`;
    const was = this.lines[k][n];
    this.edits++;
    await this.run({
      command: "str_replace",
      path: big,
      old_str: `b${k} line ${n}: edit ${was} `,
      new_str: `b${k} line ${n}: edit ${this.edits} `,
    });
    this.lines[k][n] = this.edits;
    this.lastEdited = big;

    if (i % 5 === 0) {
      const note = (i / 5) % 20;
      const path = `/memories/notes/n${note}.md`;
      const line = `cycle ${i}: ${textOf(random, 30, "note")}\n`;
      // A note near the size limit is written anew, as Claude would tidy it.
      if (this.notes[note] + line.length > 30_000) {
        await this.run({ command: "delete", path });
        await this.run({ command: "create", path, file_text: line });
        this.notes[note] = line.length;
      } else {
        await this.run({ command: "insert", path, insert_line: 0, insert_text: line });
        this.notes[note] += line.length;
      }
    }
    if (i % 10 === 0) {
      const to = this.moving === "a" ? "b" : "a";
      await this.run({
        command: "rename",
        old_path: `/memories/moving/${this.moving}.md`,
        new_path: `/memories/moving/${to}.md`,
      });
      this.moving = to;
    }
    if (i % 25 === 0) {
      for (let f = 0; f < 5; f++) {
        const text = textOf(random, 2000 + Math.floor(random() * 6000), `t${i}.${f}`);
        await this.run({ command: "create", path: `/memories/tmp${i}/f${f}.md`, file_text: text });
      }
      await this.run({ command: "delete", path: `/memories/tmp${i}` });
    }
    if (i % 50 === 0) {
      const [, previous] = await this.tool.history(big, 2);
      if (previous !== undefined) {
        // The restore undoes this cycle's str_replace of line n.
        await this.tool.restore(big, previous.version);
        this.lines[k][n] = was;
      }
    }
  }

  /** Whether the history still gives back the last edit's previous version and the last deleted file. */
  async stillUseful() {
    const [edit, before] = await this.tool.history(this.lastEdited, 2);
    const [deletion] = await this.tool.history(this.lastDeleted, 1);
    const previous =
      before === undefined ? "missing" : await restored(this.tool, this.lastEdited, before.version);
    // And forward again, so that the file is as the churn left it.
    if (edit !== undefined) await this.tool.restore(this.lastEdited, edit.version);
    const deleted =
      deletion?.op === "delete"
        ? await restored(this.tool, this.lastDeleted, deletion.version)
        : "missing";
    return { last_edit: edit?.op ?? "missing", previous_version: previous, last_deleted: deleted };
  }
}

/** "restored" when `version` of `path` comes back, else why not. */
async function restored(tool, path, version) {
  try {
    await tool.restore(path, version);
    return "restored";
  } catch (error) {
    return `refused: ${error.message}`;
  }
}

/** What `pnpm bench attack memory-churn` takes; attack.mjs refuses anything else. */
export const options = ["engine", "cycles", "namespaces", "every", "seed", "database-url", "then"];

export default async function memoryChurn(args) {
  const engine = flag(args, "engine", "sqlite");
  if (engine !== "sqlite" && engine !== "postgres") {
    console.error("--engine must be sqlite or postgres");
    process.exit(2);
  }
  const cycles = count(args, "cycles", 3000);
  const namespaces = count(args, "namespaces", 3);
  const every = count(args, "every", 500);
  const seed = count(args, "seed", 22);
  const HolographicMemoryTool = await loadMemoryTool();
  const data = tempDir("memory-churn");
  const database = engine === "postgres" ? await benchDatabase(flag(args, "database-url")) : null;
  const store = database === null ? ["--data-dir", data.dir] : ["--database-url", database.url];
  const names = Array.from({ length: namespaces }, (_, n) => `churn-${n}`);
  const then = flag(args, "then", undefined);
  const tools = [];
  /** One memory tool per namespace, each over its own server of build `bin`. */
  const connect = async (bin) => {
    for (const name of names) {
      tools.push(
        await HolographicMemoryTool.connect({
          connection: {
            command: process.execPath,
            args: [bin, ...store, "--namespace-arg", "--log-level", "warn"],
            env: cleanEnv(),
          },
          namespace: name,
        }),
      );
    }
  };
  try {
    await connect(BIN);
    const churners = tools.map((tool, n) => new Churner(tool, seed * 1000 + n));
    await Promise.all(churners.map((churner) => churner.setUp()));

    const measure = async (label) => {
      const figures = {};
      for (const [n, name] of names.entries()) {
        const live = (await tools[n].backend.stats()).bytes;
        const target = database === null ? { dataDir: data.dir } : { databaseUrl: database.url };
        const measured = storeBytes(target, name);
        const bytes = { ...measured.parts, total: measured.total };
        const bound = 16 * MIB + 4 * live;
        figures[name] = {
          store_bytes: bytes.total,
          live_text_bytes: live,
          bound_bytes: bound,
          within_bound: bytes.total < bound,
          store_mib: round(bytes.total / MIB, 2),
          parts: bytes,
        };
      }
      console.log(JSON.stringify({ at: label, namespaces: figures }));
      return figures;
    };

    let worst = {};
    const keepWorst = (figures) => {
      for (const [name, figure] of Object.entries(figures)) {
        if ((worst[name]?.store_bytes ?? -1) < figure.store_bytes)
          worst = { ...worst, [name]: figure };
      }
    };
    keepWorst(await measure("after set-up"));
    for (let done = 0; done < cycles; ) {
      const upTo = Math.min(cycles, done + every);
      await Promise.all(
        churners.map(async (churner) => {
          for (let i = done; i < upTo; i++) await churner.cycle(i);
        }),
      );
      done = upTo;
      keepWorst(await measure(`after ${done} cycles`));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const atRest = await measure("end, after 3 s idle");
    const useful = {};
    for (const [n, name] of names.entries()) useful[name] = await churners[n].stillUseful();
    console.log(
      JSON.stringify(
        {
          attack: "memory-churn",
          server: BIN,
          engine,
          cycles,
          namespaces,
          seed,
          ...(database === null ? {} : { postgres_fsync: database.fsync }),
          largest_seen: Object.fromEntries(
            Object.entries(worst).map(([name, f]) => [
              name,
              {
                store_mib: f.store_mib,
                live_text_bytes: f.live_text_bytes,
                within_bound: f.within_bound,
              },
            ]),
          ),
          at_rest: Object.fromEntries(
            Object.entries(atRest).map(([name, f]) => [
              name,
              {
                store_mib: f.store_mib,
                live_text_bytes: f.live_text_bytes,
                bound_mib: round(f.bound_bytes / MIB, 2),
                within_bound: f.within_bound,
              },
            ]),
          ),
          all_within_bound: Object.values(worst).every((f) => f.within_bound),
          history_still_gives_back: useful,
        },
        null,
        2,
      ),
    );
    if (then !== undefined) {
      // The same stores opened by another build (this one, say, after today's), which may
      // bring them down as it opens them, then --every more cycles through it.
      for (const tool of tools.splice(0)) await tool.close();
      await connect(resolve(process.env.INIT_CWD ?? ".", then));
      for (const [n, churner] of churners.entries()) churner.tool = tools[n];
      await new Promise((done) => setTimeout(done, 10_000));
      await measure(`opened by ${then}, after 10 s`);
      await Promise.all(
        churners.map(async (churner) => {
          for (let i = cycles; i < cycles + every; i++) await churner.cycle(i);
        }),
      );
      await new Promise((done) => setTimeout(done, 3000));
      await measure(`${every} more cycles through it, after 3 s idle`);
    }
  } finally {
    for (const tool of tools) await tool.close();
    database?.remove();
    data.remove();
  }
}

/** This process's environment without HMS_MCP_* variables (they would configure the servers). */
function cleanEnv() {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("HMS_MCP_")) env[name] = value;
  }
  return env;
}
