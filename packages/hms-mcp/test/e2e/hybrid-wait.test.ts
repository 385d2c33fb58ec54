/**
 * What a hybrid recall waits for, through a real hms-mcp over HTTP with the real model: only
 * its own connection's recent writes (embedded ahead of any backlog), never another session's
 * bulk writes; and the indexing progress `stats` reports meanwhile, and /metrics as
 * hms_embed_backlog. No timing is asserted: a recall "did not wait" when its answer came back
 * while `stats` still reported a backlog that the old wait (the most recent writes of anyone)
 * would have drained first.
 */
import {
  ok,
  parseExposition,
  sampleValue,
  scrape,
  startHttpProcess,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, inject, it } from "vitest";

const modelDir = inject("modelDir");
/** Long enough that, before this fix, a recall would have waited for the whole backlog. */
const args = ["--model-dir", modelDir, "--recall-wait", "60000"];
const CONTACT = "how should I contact that client?";
const ACME = "Acme Corp prefers email follow-ups";
const BULK = 20;

interface Recall {
  hits: { key: string }[];
  build: string;
}
interface Stats {
  memories: number;
  recall: {
    build: string;
    pending: number;
    embedded: number;
    embedded_per_second: number | null;
  };
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoSessions(): Promise<{
  bulk: Client;
  mine: Client;
  backlog: () => Promise<number | undefined>;
}> {
  const data = tempDir();
  cleanups.push(data.remove);
  const server = await startHttpProcess({ dataDir: data.dir, args });
  cleanups.push(() => server.stop());
  const bulk = await server.connect();
  cleanups.push(() => bulk.close());
  const mine = await server.connect();
  cleanups.push(() => mine.close());
  // The metrics' hms_embed_backlog, from the server's /metrics (no token: it takes none).
  const backlog = async () => {
    const { status, text } = await scrape(new URL("/metrics", server.url).href);
    expect(status).toBe(200);
    return sampleValue(parseExposition(text), "hms_embed_backlog");
  };
  return { bulk, mine, backlog };
}

/** A memory of several passages (about 400 tokens), so a backlog of them takes a while. */
function longText(i: number): string {
  const sentence = `Gardening note ${i}: tomatoes, peppers and squash need full sun and steady water.`;
  return Array.from({ length: 24 }, (_, k) => `${sentence} Row ${k} was mulched in spring.`).join(
    "\n",
  );
}

/** Nearly 32 KB: as many passages as a memory is embedded as (64). */
function bigText(): string {
  return Array.from({ length: 70 }, (_, i) => longText(i).slice(0, 440)).join("\n");
}

async function bulkWrite(client: Client): Promise<void> {
  for (let i = 0; i < BULK; i++) {
    await ok(client, "remember", { key: `garden/${i}`, text: longText(i) });
  }
}

// Each test embeds a backlog with the real model, which takes minutes on a loaded machine.
describe("hybrid recall waits only for its own connection's writes", { timeout: 300_000 }, () => {
  it("answers at once during another session's bulk writes, reporting the backlog in stats", async () => {
    const { bulk, mine, backlog } = await twoSessions();
    await bulkWrite(bulk);
    // The metrics see the backlog too (before the recall, which finds one still pending).
    expect(await backlog()).toBeGreaterThan(0);

    const recall = await ok<Recall>(mine, "recall", { query: "which plants like sun?", k: 3 });
    expect(recall.build).toBe("hybrid");
    expect(recall.hits.length).toBeGreaterThan(0);
    const during = await ok<Stats>(mine, "stats");
    // The recall came back before the other session's writes were all embedded.
    expect(during.recall.pending).toBeGreaterThan(0);
    expect(during.recall.embedded + during.recall.pending).toBe(during.memories);

    // Progress: the backlog drains, at a rate stats reports while it runs.
    let rate: number | null = null;
    let stats = during;
    while (stats.recall.pending > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stats = await ok<Stats>(mine, "stats");
      rate ??= stats.recall.pending > 0 ? stats.recall.embedded_per_second : null;
    }
    expect(rate).toBeGreaterThan(0);
    expect(stats.recall.embedded).toBe(BULK);
    expect(await backlog()).toBe(0);
  });

  it("sees its own write semantically right away, embedded ahead of a backlog written after it", async () => {
    const { bulk, mine } = await twoSessions();
    // One job of 64 passages keeps the indexer busy while the rest is written, so when it
    // ends my memory is still queued, older than the whole bulk: newest-first order alone
    // would embed all of the bulk before it.
    await ok(bulk, "remember", { key: "garden/big", text: bigText() });
    await ok(mine, "remember", { key: "crm/acme", text: ACME });
    await bulkWrite(bulk);

    const recall = await ok<Recall>(mine, "recall", { query: CONTACT, k: 1 });
    expect(recall).toEqual({
      hits: [expect.objectContaining({ key: "crm/acme" })],
      build: "hybrid",
    });
    const stats = await ok<Stats>(mine, "stats");
    expect(stats.recall.pending).toBeGreaterThan(0);
  });
});
