#!/usr/bin/env node
// What a version of a memory file costs the history, kept whole or as a splice of the next
// one, and what reading an old version back costs: this build's store against another build's
// (--compare DIR: its packages/store/dist, e.g. one that keeps whole texts) in the same run.
//
//   bytes per edit     one line of a 30 KB file (400 lines) changed, 500 times, as a
//                      str_replace does: the store file's growth (db + WAL, checkpointed) per edit
//   bytes per insert   a line added at the top of a 10 KB file, 300 times
//   bytes per cycle    a file of 25 KB created and deleted, 300 times
//   read latency       history.version of the version 1, 8, 32, 64, 100, 400 edits back (median
//                      of 200 reads, ms); and a whole restoreFile of the one 100 back (median of
//                      21, each a write)
//
// This build runs with no history budget (historyBytes 0), so nothing is dropped while it is
// measured. Latencies depend on the machine's load (record `uptime` with them); bytes do not.
//
//   pnpm bench history-deltas [--compare /path/to/other/packages/store/dist]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { compare: { type: "string" } } });
const HERE = dirname(fileURLToPath(import.meta.url));
const builds = [["this build", resolve(HERE, "../dist")]];
if (values.compare) builds.push(["compare", resolve(process.env.INIT_CWD ?? ".", values.compare)]);

const FILE = ["memory-file"];

function open(MemoryStore, dir) {
  return MemoryStore.open(join(dir, "store.sqlite"), { synchronous: "normal", historyBytes: 0 });
}

/** The store's bytes on disk, its WAL checkpointed into the file. */
function fileBytes(store, dir) {
  store.close();
  const bytes = statSync(join(dir, "store.sqlite")).size;
  return bytes;
}

/** Runs `writes(store)`; returns the file's growth per write, in bytes. */
function growth(MemoryStore, setUp, count, write) {
  const dir = mkdtempSync(join(tmpdir(), "hms-history-deltas-"));
  try {
    let store = open(MemoryStore, dir);
    setUp(store);
    const before = fileBytes(store, dir);
    store = open(MemoryStore, dir);
    for (let i = 0; i < count; i++) write(store, i);
    const after = fileBytes(store, dir);
    return Math.round((after - before) / count);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const bigLines = () => Array.from({ length: 400 }, (_, n) => `line ${n}: ${"x".repeat(66)}`);

for (const [label, dist] of builds) {
  const { MemoryStore } = await import(join(dist, "index.js"));
  const lines = bigLines();
  const perEdit = growth(
    MemoryStore,
    (store) => store.remember({ key: "/memories/big.md", text: lines.join("\n"), tags: FILE }),
    500,
    (store, i) => {
      lines[(i * 37) % 400] = `line edited ${i}: ${"y".repeat(60)}`;
      store.remember({ key: "/memories/big.md", text: lines.join("\n") });
    },
  );
  let notes = "note\n".repeat(2000);
  const perInsert = growth(
    MemoryStore,
    (store) => store.remember({ key: "/memories/notes.md", text: notes, tags: FILE }),
    300,
    (store, i) => {
      notes = `inserted line ${i}\n${notes}`;
      store.remember({ key: "/memories/notes.md", text: notes });
    },
  );
  const perCycle = growth(
    MemoryStore,
    () => {},
    300,
    (store, i) => {
      const key = `/memories/churn/c${i}.md`;
      store.remember({ key, text: `file ${i}\n${"words of a file ".repeat(1560)}`, tags: FILE });
      store.forget(key);
    },
  );

  // Reads: a file edited 400 times (one line each), then versions read back at depths.
  const dir = mkdtempSync(join(tmpdir(), "hms-history-deltas-"));
  const reads = {};
  let restoreMs;
  try {
    const store = open(MemoryStore, dir);
    const text = bigLines();
    const versions = [
      store.remember({ key: "/memories/big.md", text: text.join("\n"), tags: FILE }).version,
    ];
    for (let i = 0; i < 400; i++) {
      text[(i * 37) % 400] = `line edited ${i}: ${"y".repeat(60)}`;
      versions.push(store.remember({ key: "/memories/big.md", text: text.join("\n") }).version);
    }
    for (const depth of [1, 8, 32, 64, 100, 400]) {
      const version = versions[versions.length - 1 - depth];
      const times = [];
      for (let r = 0; r < 200; r++) {
        const started = performance.now();
        const found = store.history.version("/memories/big.md", version);
        times.push(performance.now() - started);
        if (found === undefined) throw new Error(`version ${version} unreadable`);
      }
      reads[`${depth} back`] = Number(median(times).toFixed(3));
    }
    const restores = [];
    for (let r = 0; r < 21; r++) {
      const started = performance.now();
      store.history.restoreFile("/memories/big.md", { version: versions[versions.length - 101] });
      restores.push(performance.now() - started);
    }
    restoreMs = Number(median(restores).toFixed(3));
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    JSON.stringify({
      build: label,
      bytes_per_one_line_edit_of_30KB: perEdit,
      bytes_per_insert_into_10KB: perInsert,
      bytes_per_create_delete_of_25KB: perCycle,
      version_read_median_ms: reads,
      restore_100_back_ms: restoreMs,
    }),
  );
}
