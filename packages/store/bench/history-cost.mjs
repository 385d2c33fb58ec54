#!/usr/bin/env node
// What keeping history costs a write: 2,400 writes (200 creates, 10 rounds of 200 updates,
// 200 deletes) of memory files (which keep history) against the same writes of other keys
// (which keep none), in one store of this build and, with --compare DIR, of another build's
// @hms/store dist/ in the same run. Median of 3 rounds; synchronous normal, so fsync does not
// drown the difference.
//
//   pnpm bench history-cost [--compare /path/to/other/packages/store/dist]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { compare: { type: "string" } } });
const HERE = dirname(fileURLToPath(import.meta.url));
const builds = [["this build", resolve(HERE, "../dist")]];
if (values.compare) builds.push(["compare", resolve(process.env.INIT_CWD ?? ".", values.compare)]);

const TEXT = `${"x".repeat(900)}\n`;

function timeWrites(MemoryStore, prefix, tags) {
  const dir = mkdtempSync(join(tmpdir(), "hms-history-cost-"));
  const store = MemoryStore.open(join(dir, "store.sqlite"), { synchronous: "normal" });
  const started = performance.now();
  for (let i = 0; i < 200; i++) store.remember({ key: `${prefix}${i}.md`, text: TEXT + i, tags });
  for (let r = 0; r < 10; r++) {
    for (let i = 0; i < 200; i++) store.remember({ key: `${prefix}${i}.md`, text: TEXT + r + i });
  }
  for (let i = 0; i < 200; i++) store.forget(`${prefix}${i}.md`);
  const ms = performance.now() - started;
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

for (const [label, dist] of builds) {
  const { MemoryStore } = await import(join(dist, "index.js"));
  const rounds = [];
  for (let round = 0; round < 3; round++) {
    rounds.push([
      timeWrites(MemoryStore, "/memories/f", ["memory-file"]),
      timeWrites(MemoryStore, "plain:", []),
    ]);
  }
  rounds.sort((a, b) => a[0] / a[1] - b[0] / b[1]);
  const [files, plain] = rounds[1];
  console.log(
    `${label}: 2,400 writes of memory files ${files.toFixed(0)} ms, of other keys ${plain.toFixed(0)} ms: ratio ${(files / plain).toFixed(2)}`,
  );
}
