/**
 * Hybrid recall on PostgreSQL through real hms-mcp processes, the real embedding model
 * (all-MiniLM-L6-v2, fetched by the test set-up) and a real PostgreSQL cluster: a paraphrase
 * found with no word in common, and two replicas on one database sharing the embedding
 * queue so that each memory is embedded once.
 */
import {
  ok,
  PARAPHRASES,
  type PostgresServer,
  startHttpProcess,
  startHybridWithParaphrases,
  startPostgres,
  startStdio,
  untilEmbedded,
} from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";

const MODEL_ID = "all-MiniLM-L6-v2-int8";
const modelDir = inject("modelDir");
const hybridArgs = ["--model-dir", modelDir];

const { query: CONTACT, answer: ACME, others: OTHERS } = PARAPHRASES;

/** About 200 tokens of filler: two passages. */
const LONG = Array.from(
  { length: 14 },
  (_, i) => `Row ${i}: the greenhouse tomatoes were watered and the seedlings moved.`,
).join("\n");

interface Recall {
  hits: { key: string; score: number; excerpt: string; line_start: number; line_end: number }[];
  build: string;
}
interface Stats {
  recall: { build: string; model: string | null; pending: number; embedded: number };
}

let pg: PostgresServer;
beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterAll(() => pg?.remove(), 60_000);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The memory ids each "embedded" debug line of a server's log names. */
function embeddedIds(stderr: string): number[] {
  const ids: number[] = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; memories?: number[] };
    if (entry.msg === "embedded") ids.push(...(entry.memories ?? []));
  }
  return ids;
}

describe("hybrid recall on PostgreSQL (--database-url with --model-dir)", () => {
  it("finds a memory with no word in common with the query, waiting for its own writes", async () => {
    const databaseUrl = pg.createDatabase("hybrid_paraphrase");
    const server = await startHybridWithParaphrases({ databaseUrl, modelDir });
    cleanups.push(server.close);
    // Right after the writes: recall waits (bounded) for this connection's own writes.
    const found = await ok<Recall>(server.client, "recall", { query: CONTACT, k: 2 });
    expect(found.build).toBe("hybrid");
    expect(found.hits[0]).toEqual({
      key: "/memories/acme.md",
      score: expect.any(Number),
      excerpt: ACME,
      line_start: 1,
      line_end: 1,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await ok<Stats>(server.client, "stats")).toMatchObject({
      recall: { build: "hybrid", model: MODEL_ID, pending: 0, embedded: 4 },
    });
    // A lexical server on the same database finds nothing for the paraphrase.
    const lexical = await startStdio({ databaseUrl });
    cleanups.push(lexical.close);
    expect(await ok<Recall>(lexical.client, "recall", { query: CONTACT })).toEqual({
      hits: [],
      build: "lexical",
    });
  }, 120_000);

  it("two replicas with models on one database embed each memory once", async () => {
    const databaseUrl = pg.createDatabase("hybrid_replicas");
    // A backlog written before any model: both replicas start on it at once.
    const memories = 60;
    const lexical = await startStdio({ databaseUrl });
    for (let i = 0; i < memories; i++) {
      await ok(lexical.client, "remember", {
        key: `/memories/n-${i}.md`,
        // Several passages each, so the backlog takes both replicas a while.
        text: i === 17 ? ACME : `${OTHERS[i % 3]} (note ${i})\n${LONG}`,
      });
    }
    await lexical.close();
    const args = [...hybridArgs, "--log-level", "debug"];
    const replicas = await Promise.all([0, 1].map(() => startHttpProcess({ databaseUrl, args })));
    for (const replica of replicas) {
      cleanups.push(async () => {
        await replica.stop();
      });
    }
    const clients = await Promise.all(replicas.map((replica) => replica.connect()));
    // Closed before their replicas stop (cleanups run last first): a replica stopping with a
    // client's event stream open waits 5 s for it.
    for (const client of clients) cleanups.push(() => client.close());
    const stats = await untilEmbedded<Stats>(clients[0] as (typeof clients)[0]);
    expect(stats.recall).toMatchObject({ build: "hybrid", pending: 0, embedded: memories });
    const each = replicas.map((replica) => embeddedIds(replica.stderr()));
    // Both replicas took part, and no memory was embedded twice.
    for (const ids of each) expect(ids.length).toBeGreaterThan(0);
    const ids = each.flat();
    expect(ids).toHaveLength(memories);
    expect(new Set(ids).size).toBe(memories);
    // Idle, each replica prunes the vector change log (nothing is old enough to drop here),
    // without an error.
    for (const replica of replicas) {
      while (!replica.stderr().includes('"msg":"pruned the vector change log"')) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(replica.stderr()).toContain('"dropped":0');
      expect(replica.stderr()).not.toContain("unexpected error");
    }
    // Each replica answers with every memory's vectors, whichever replica computed them.
    for (const client of clients) {
      const found = await ok<Recall>(client, "recall", { query: CONTACT, k: 1 });
      expect(found).toMatchObject({ build: "hybrid", hits: [{ key: "/memories/n-17.md" }] });
    }
  }, 180_000);
});
