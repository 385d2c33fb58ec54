// `pnpm bench attack bulk-recall [--docs N] [--recalls N] [--before PATH] [--model-dir DIR]
//                                [--data DIR]`
//
// Issue 13: bulk writes must not stall recall. A hybrid hms-mcp over HTTP; one session writes
// N SciFact abstracts as fast as it can, then another session recalls SciFact claims one after
// another while the abstracts are still being embedded (the backlog). Reported per build:
//  - recall latency (p50/p99) during the backlog, with the default --recall-wait (2 s), and
//    how many memories were still waiting when the recalls ended;
//  - embedding throughput: memories embedded per second while the backlog drains after the
//    recalls (nothing else runs then).
// With --before PATH (an hms-mcp cli.js, e.g. /work/wt-before/packages/hms-mcp/dist/cli.js)
// the same run measures that build first, then this one (HMS_MCP_BIN or the workspace build),
// and prints after/before ratios. The data are read in place, never copied.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { defaultModelDir } from "@hms/embedder";
import { startHttpServer } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, call, pool, readJsonl, round, scifactDir, summarize, tempDir } from "../support.mjs";

/** What `pnpm bench attack bulk-recall` takes; attack.mjs refuses anything else. */
export const options = ["docs", "recalls", "before", "model-dir", "data"];

export default async function bulkRecall(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      docs: { type: "string", default: "300" },
      recalls: { type: "string", default: "30" },
      before: { type: "string" },
      "model-dir": { type: "string" },
      data: { type: "string" },
    },
  });
  const docs = positive("--docs", values.docs);
  const recalls = positive("--recalls", values.recalls);
  const modelDir = values["model-dir"] ?? defaultModelDir();
  const dataDir = values.data ?? scifactDir();
  const corpus = readJsonl(join(dataDir, "corpus.jsonl")).slice(0, docs);
  const queries = readJsonl(join(dataDir, "queries.jsonl"))
    .slice(0, recalls)
    .map((q) => q.text);

  const builds = [...(values.before ? [["before", values.before]] : []), ["after", BIN]];
  const results = {};
  for (const [name, bin] of builds) {
    log(`${name}: ${bin}`);
    results[name] = await measure(bin, { corpus, queries, modelDir });
    log(`${name}: ${JSON.stringify(results[name])}`);
  }
  const out = { docs: corpus.length, recalls: queries.length, ...results };
  if (results.before) {
    out.after_vs_before = {
      recall_p50: round(
        results.after.recall_during_backlog.p50_ms / results.before.recall_during_backlog.p50_ms,
        3,
      ),
      recall_p99: round(
        results.after.recall_during_backlog.p99_ms / results.before.recall_during_backlog.p99_ms,
        3,
      ),
      memories_per_s: round(
        results.after.drain.memories_per_s / results.before.drain.memories_per_s,
        2,
      ),
    };
  }
  console.log(JSON.stringify(out, null, 2));
}

async function measure(bin, { corpus, queries, modelDir }) {
  const temp = tempDir("bulk-recall");
  process.env.HMS_MCP_BIN = bin;
  const server = await startHttpServer({
    dataDir: temp.dir,
    args: ["--model-dir", modelDir, "--log-level", "info"],
  });
  const sessions = [];
  const connect = async () => {
    const client = new Client({ name: "hms-mcp-bench", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    sessions.push(client);
    return client;
  };
  try {
    const writer = await connect();
    const reader = await connect();
    const started = performance.now();
    await pool(corpus, 4, (doc) =>
      call(writer, "remember", { key: `scifact/${doc._id}`, text: `${doc.title}\n${doc.text}` }),
    );
    const writeSeconds = (performance.now() - started) / 1000;
    const pendingAtRecall = (await call(reader, "stats", {})).recall.pending;
    const ms = [];
    for (const query of queries) {
      const t = performance.now();
      await call(reader, "recall", { query, k: 10 });
      ms.push(performance.now() - t);
    }
    const pendingAfterRecalls = (await call(reader, "stats", {})).recall.pending;
    // The drain: nothing but embedding runs now.
    const drainStart = performance.now();
    let pending = pendingAfterRecalls;
    while (pending > 0) {
      await new Promise((done) => setTimeout(done, 250));
      pending = (await call(reader, "stats", {})).recall.pending;
    }
    const drainSeconds = (performance.now() - drainStart) / 1000;
    return {
      write_seconds: round(writeSeconds, 1),
      pending_at_first_recall: pendingAtRecall,
      recall_during_backlog: summarize(ms),
      pending_after_recalls: pendingAfterRecalls,
      drain: {
        memories: pendingAfterRecalls,
        seconds: round(drainSeconds, 1),
        memories_per_s: round(pendingAfterRecalls / drainSeconds, 2),
      },
    };
  } finally {
    for (const client of sessions) await client.close().catch(() => {});
    await server.stop();
    temp.remove();
  }
}

function positive(flag, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`bulk-recall: ${flag} must be a positive integer, not ${text}`);
    process.exit(2);
  }
  return value;
}

function log(line) {
  process.stderr.write(`bulk-recall: ${line}\n`);
}
