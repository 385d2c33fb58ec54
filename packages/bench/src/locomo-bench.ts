/**
 * `pnpm bench locomo --data DIR`: does `memory_recall` find the right file, and does the line
 * range it returns hold the answer? LoCoMo's conversations are stored as memory files through
 * the real tool (`HolographicMemoryTool.connect` with a real hms-mcp over stdio) at three
 * granularities (one file per session, per 8 turns, per turn; see locomo.ts), each question of
 * categories 1 to 4 is asked through `memory.recall(question, k)`, and the hits are scored
 * against the question's evidence turns:
 *
 * - file recall: a hit's file holds an evidence line (a "right file"), k = 10;
 * - range hit: the best-ranked right file's `lineStart..lineEnd` holds an evidence line, over
 *   the questions whose right file was found;
 * - MRR of the first right file, the mean line count of the ranges, recall latency p50/p99.
 *
 * Lexical (hms-mcp without a model) and hybrid (`--model-dir`) run on fresh data directories,
 * one per granularity and mode; each conversation is its own namespace (its own store), as
 * each is one user's memory, and a question is asked of its own conversation only. Servers run
 * with `--synchronous normal` (nothing here needs writes on disk before the next one) and the
 * files are written 8 at a time through the tool's `create`; a hybrid run waits until every
 * file is embedded before it asks anything.
 *
 * Options: --data DIR (the folder of locomo-dev.json, or the file; env HMS_LOCOMO_DATA),
 * --model-dir DIR (default: `pnpm fetch-model`'s directory), --modes lexical,hybrid,
 * --granularities session,chunk,turn, --conversations N (the first N), --limit N (questions
 * per conversation), --k N (10), --data-dir DIR (keep the stores there and reuse them on the
 * next run, checked to hold exactly these files), --out FILE (each question's hits, JSON lines,
 * for error analysis), --json FILE (the summary as JSON).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import {
  type Conversation,
  filesOf,
  GRANULARITIES,
  type Granularity,
  type Hit,
  type MemoryFile,
  type Outcome,
  type Question,
  quantile,
  questionsOf,
  type Summary,
  score,
  summarise,
} from "./locomo.js";

const MODES = ["lexical", "hybrid"] as const;
type Mode = (typeof MODES)[number];

const { values } = parseArgs({
  options: {
    data: { type: "string", default: process.env.HMS_LOCOMO_DATA },
    "model-dir": {
      type: "string",
      default:
        process.env.HMS_MCP_MODEL_DIR ??
        join(homedir(), ".cache", "hms-mcp", "models", "all-MiniLM-L6-v2-int8"),
    },
    modes: { type: "string", default: MODES.join(",") },
    granularities: { type: "string", default: GRANULARITIES.join(",") },
    conversations: { type: "string" },
    limit: { type: "string" },
    k: { type: "string", default: "10" },
    "data-dir": { type: "string" },
    out: { type: "string" },
    json: { type: "string" },
  },
});

function fail(message: string): never {
  console.error(`locomo: ${message}`);
  process.exit(2);
}

function listOption<T extends string>(value: string, allowed: readonly T[], name: string): T[] {
  const items = value.split(",").filter((item) => item !== "");
  for (const item of items) {
    if (!allowed.includes(item as T)) fail(`--${name} takes ${allowed.join(", ")}; got ${item}`);
  }
  if (items.length === 0) fail(`--${name} is empty`);
  return items as T[];
}

function countOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a positive integer; got ${value}`);
  return n;
}

if (values.data === undefined) {
  fail("--data DIR is required: the folder holding locomo-dev.json (or the JSON file itself)");
}
// pnpm runs the script in this package's folder; paths are the caller's (INIT_CWD).
const here = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);
const dataFile = here(
  values.data.endsWith(".json") ? values.data : join(values.data, "locomo-dev.json"),
);
if (!existsSync(dataFile)) fail(`no data at ${dataFile}`);
const modes = listOption(values.modes, MODES, "modes");
const granularities = listOption(values.granularities, GRANULARITIES, "granularities");
const conversationLimit = countOption(values.conversations, "conversations");
const questionLimit = countOption(values.limit, "limit");
const K = countOption(values.k, "k") ?? 10;
const modelDir = here(values["model-dir"]);
if (modes.includes("hybrid") && !existsSync(join(modelDir, "model.onnx"))) {
  fail(`no embedding model in ${modelDir}: run \`pnpm fetch-model\` or pass --model-dir`);
}
const keep = values["data-dir"] === undefined ? undefined : here(values["data-dir"]);
const outFile = values.out === undefined ? undefined : here(values.out);
const jsonFile = values.json === undefined ? undefined : here(values.json);

const log = (line: string) => process.stderr.write(`locomo: ${line}\n`);

/** The hms-mcp to start: HMS_MCP_BIN, else this workspace's build. */
function hmsMcp(dataDir: string, extra: string[]): { command: string; args: string[] } {
  const bin =
    process.env.HMS_MCP_BIN ??
    resolve(dirname(createRequire(import.meta.url).resolve("hms-mcp/package.json")), "dist/cli.js");
  const args = ["--data-dir", dataDir, "--log-level", "warn", "--synchronous", "normal", ...extra];
  return bin.endsWith(".js")
    ? { command: process.execPath, args: [bin, ...args] }
    : { command: bin, args };
}

interface Stats {
  memories: number;
  recall: { build: string; pending: number; model: string | null };
}

/** The server's `stats` (the tool's backend is hms-mcp's, which has them). */
function stats(memory: HolographicMemoryTool): Promise<Stats> {
  const backend = memory.backend as unknown as { stats?: () => Promise<Stats> };
  if (backend.stats === undefined) throw new Error("the tool's backend has no stats");
  return backend.stats();
}

/** Runs `fn` on every item, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Writes the files (or checks that a kept store holds exactly them). */
async function load(memory: HolographicMemoryTool, files: readonly MemoryFile[]): Promise<boolean> {
  const before = await stats(memory);
  if (before.memories > 0) {
    const mismatch = async () => {
      if (before.memories !== files.length) return `${before.memories} files, not ${files.length}`;
      for (const file of files) {
        const read = await memory.backend.read(file.path);
        if (read?.content !== file.text) return `${file.path} differs`;
      }
      return undefined;
    };
    const why = await mismatch();
    if (why !== undefined) {
      throw new Error(`--data-dir ${keep} holds other files (${why}); use an empty directory`);
    }
    return false;
  }
  await pool(files, 8, async (file) => {
    await memory.create({ command: "create", path: file.path, file_text: file.text });
  });
  return true;
}

/** Waits until the server has embedded every memory. */
async function embedded(memory: HolographicMemoryTool): Promise<void> {
  for (;;) {
    const { recall } = await stats(memory);
    if (recall.build !== "hybrid") throw new Error(`the server recalls ${recall.build}ally`);
    if (recall.pending === 0) return;
    await new Promise((done) => setTimeout(done, 250));
  }
}

interface Result extends Summary {
  readonly granularity: Granularity;
  readonly mode: Mode;
  readonly files: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly loadSeconds: number;
  readonly embedSeconds: number;
}

const conversations = (JSON.parse(readFileSync(dataFile, "utf8")) as Conversation[]).slice(
  0,
  conversationLimit,
);
const asked = conversations.map((conversation) => {
  const { questions, withoutEvidence } = questionsOf(conversation);
  return { conversation, questions: questions.slice(0, questionLimit), withoutEvidence };
});
const dropped = asked.reduce((n, a) => n + a.withoutEvidence, 0);
const questionCount = asked.reduce((n, a) => n + a.questions.length, 0);

async function run(granularity: Granularity, mode: Mode, out: string[]): Promise<Result> {
  const dir =
    keep === undefined
      ? mkdtempSync(join(tmpdir(), `hms-locomo-${granularity}-${mode}-`))
      : join(keep, `${granularity}-${mode}`);
  mkdirSync(dir, { recursive: true });
  const outcomes: Outcome[] = [];
  const allRangeLines: number[] = [];
  const latencies: number[] = [];
  let fileCount = 0;
  let loadMs = 0;
  let embedMs = 0;
  try {
    for (const { conversation, questions } of asked) {
      const files = filesOf(conversation, granularity);
      fileCount += files.length;
      const byPath = new Map(files.map((file) => [file.path, file]));
      const extra = ["--namespace", conversation.sample_id];
      if (mode === "hybrid") extra.push("--model-dir", modelDir);
      const memory = await HolographicMemoryTool.connect({ connection: hmsMcp(dir, extra) });
      try {
        let t0 = performance.now();
        await load(memory, files);
        loadMs += performance.now() - t0;
        if (mode === "hybrid") {
          t0 = performance.now();
          await embedded(memory);
          embedMs += performance.now() - t0;
        }
        for (const question of questions) {
          const started = performance.now();
          const hits = await memory.recall(question.question, K);
          latencies.push(performance.now() - started);
          const outcome = score(hits as Hit[], question.evidence, byPath);
          outcomes.push(outcome);
          for (const hit of hits) allRangeLines.push(hit.lineEnd - hit.lineStart + 1);
          if (outFile !== undefined) out.push(record(granularity, mode, question, hits, byPath));
        }
      } finally {
        await memory.close();
      }
    }
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
  return {
    granularity,
    mode,
    files: fileCount,
    ...summarise(outcomes, allRangeLines),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    loadSeconds: loadMs / 1000,
    embedSeconds: embedMs / 1000,
  };
}

/** One question's hits, for --out: where the evidence is and what each hit showed. */
function record(
  granularity: Granularity,
  mode: Mode,
  question: Question,
  hits: readonly { path: string; score: number; lineStart: number; lineEnd: number }[],
  files: ReadonlyMap<string, MemoryFile>,
): string {
  return JSON.stringify({
    granularity,
    mode,
    ...question,
    outcome: score(hits, question.evidence, files),
    hits: hits.map((hit) => {
      const file = files.get(hit.path);
      const evidence = question.evidence.flatMap((id) => {
        const line = file?.lines.get(id);
        return line === undefined ? [] : [line];
      });
      return { path: hit.path, score: hit.score, lines: [hit.lineStart, hit.lineEnd], evidence };
    }),
  });
}

const fixed = (value: number, digits = 3) => (Number.isNaN(value) ? "—" : value.toFixed(digits));

function table(results: readonly Result[]): string {
  const header = [
    "files".padEnd(9),
    "mode".padEnd(8),
    "n files".padStart(8),
    "file@10".padStart(8),
    "range|file".padStart(11),
    "MRR".padStart(7),
    "lines judged".padStart(13),
    "lines all".padStart(10),
    "p50 ms".padStart(8),
    "p99 ms".padStart(8),
  ].join(" ");
  const rows = results.map((r) =>
    [
      r.granularity.padEnd(9),
      r.mode.padEnd(8),
      String(r.files).padStart(8),
      fixed(r.fileRecall).padStart(8),
      fixed(r.rangeHit).padStart(11),
      fixed(r.mrr).padStart(7),
      fixed(r.rangeLinesJudged, 2).padStart(13),
      fixed(r.rangeLinesAll, 2).padStart(10),
      fixed(r.p50Ms, 1).padStart(8),
      fixed(r.p99Ms, 1).padStart(8),
    ].join(" "),
  );
  return [header, ...rows].join("\n");
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    `locomo: ${conversations.length} conversations (${conversations.map((c) => c.sample_id).join(", ")}), ` +
      `${questionCount} questions of categories 1-4 (${dropped} without a valid evidence id left out), ` +
      `k = ${K}, Node ${process.version}`,
  );
  const results: Result[] = [];
  const out: string[] = [];
  for (const granularity of granularities) {
    for (const mode of modes) {
      log(`${granularity} / ${mode}`);
      const result = await run(granularity, mode, out);
      log(
        `${granularity} / ${mode}: ${result.files} files, written in ${result.loadSeconds.toFixed(1)} s` +
          (mode === "hybrid" ? `, embedded in ${result.embedSeconds.toFixed(1)} s` : ""),
      );
      results.push(result);
    }
  }
  console.log(
    "\nfile@10: a file holding an evidence line is among the hits; range|file: the best-ranked" +
      "\nsuch file's line range holds an evidence line (of the questions whose file was found);" +
      "\nlines judged / all: mean line count of those ranges / of every hit's range.\n",
  );
  console.log(table(results));
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (outFile !== undefined) writeFileSync(outFile, `${out.join("\n")}\n`);
  if (jsonFile !== undefined) {
    writeFileSync(
      jsonFile,
      `${JSON.stringify({ k: K, questions: questionCount, results }, null, 2)}\n`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
