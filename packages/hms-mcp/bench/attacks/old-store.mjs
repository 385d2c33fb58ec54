// Old store: a data directory holding a store as a schema-4 hms-mcp left it (`--memories`
// memories, no auto-vacuum), opened by an HTTP server at info level. The open upgrades it
// (a one-time VACUUM, the full-text index rebuilt), and the server answers nothing meanwhile.
// Prints, per build, the time until it listens, the upgrade lines on stderr and the longest
// silence between stderr lines: the median of `--runs` (3) opens, each of a fresh copy.
// `--before BIN` alternates another build on copies of the same file in the same run (e.g.
// /work/wt-before/packages/hms-mcp/dist/cli.js).
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { migrate, openSqlite, transaction } from "@hms/store/internal";
import { storeFile } from "@hms/test-support";
import { BIN, round, tempDir } from "../support.mjs";

function flag(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

/** Writes the default namespace's store at schema 4 with `count` memories into `dataDir`. */
function writeOldStore(dataDir, count) {
  const file = storeFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  const db = openSqlite(file);
  migrate(db, 4);
  const insert = db.prepare(
    `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
     VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
  );
  const words = "client prefers email follow ups meeting notes project deadline budget".split(" ");
  transaction(db, () => {
    for (let i = 0; i < count; i++) {
      const text = Array.from({ length: 30 }, (_, j) => words[(i * 7 + j * 3) % words.length]);
      insert.run(`/memories/n${i}.md`, `note ${i}: ${text.join(" ")}`);
    }
  });
  db.close();
  return file;
}

/** Starts `bin` on `dataDir`; resolves once it listens, with what its stderr said until then. */
function openWith(bin, dataDir) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, "--transport", "http", "--port", "0", "--data-dir", dataDir, "--log-level", "info"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let last = started;
    let longestSilence = 0;
    let upgradeLines = 0;
    const lines = createInterface({ input: child.stderr });
    lines.on("line", (line) => {
      const now = performance.now();
      longestSilence = Math.max(longestSilence, now - last);
      last = now;
      if (line.includes("store upgrade:")) upgradeLines += 1;
      if (line.includes("listening on")) {
        child.kill("SIGTERM");
        resolve({
          bin,
          listen_s: round((now - started) / 1000),
          upgrade_lines: upgradeLines,
          longest_silence_s: round(longestSilence / 1000),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`${bin} exited with ${code} before listening`)));
  }).finally(
    () => new Promise((done) => (child.exitCode === null ? child.once("exit", done) : done())),
  );
}

/** A fresh data directory holding a copy of the old store `file`. */
function copyOf(file, dataDir) {
  const copy = storeFile(dataDir);
  mkdirSync(dirname(copy), { recursive: true });
  copyFileSync(file, copy);
  return dataDir;
}

/** The run of `runs` whose time to listen is the median. */
function median(runs) {
  return [...runs].sort((a, b) => a.listen_s - b.listen_s)[Math.floor(runs.length / 2)];
}

/** What `pnpm bench attack old-store` takes; attack.mjs refuses anything else. */
export const options = ["memories", "runs", "before"];

export default async function oldStore(args) {
  const memories = Number(flag(args, "memories", 100000));
  const rounds = Number(flag(args, "runs", 3));
  const before = flag(args, "before", undefined);
  const data = tempDir("old-store");
  try {
    const file = writeOldStore(join(data.dir, "source"), memories);
    const runs = { before: [], after: [] };
    // Builds alternate, each on a fresh copy, so neither gains from going second.
    for (let round = 0; round < rounds; round++) {
      if (before !== undefined) {
        runs.before.push(await openWith(before, copyOf(file, join(data.dir, `before-${round}`))));
      }
      runs.after.push(await openWith(BIN, copyOf(file, join(data.dir, `after-${round}`))));
    }
    const after = median(runs.after);
    const result = { memories, runs: rounds, after };
    if (before !== undefined) {
      const base = median(runs.before);
      result.before = base;
      result.listen_ratio = round(after.listen_s / base.listen_s);
      result.silence_ratio = round(after.longest_silence_s / base.longest_silence_s);
    }
    console.log(JSON.stringify(result, null, 2));
  } finally {
    data.remove();
  }
}
