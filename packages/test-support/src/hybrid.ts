/**
 * The start of the hybrid-recall suites (SQLite and PostgreSQL alike): hms-mcp with the
 * embedding model over stdio, the paraphrase set they search, in which one memory answers the
 * query with no word in common with it, beside three that do not, and the wait for vectors.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ok, startStdio } from "./client.js";

/** A query, the memory that answers it in other words, and three that do not. */
export const PARAPHRASES = {
  query: "how should I contact that client?",
  answer: "Acme Corp prefers email follow-ups",
  others: [
    "The cafeteria serves lunch at noon",
    "Budget review is quarterly",
    "The build server runs on Debian",
  ],
} as const;

/**
 * hms-mcp over stdio with the model in `modelDir` (hybrid recall), with the paraphrase set
 * written: the answer at `/memories/acme.md`, the others at `/memories/note-<i>.md`.
 */
export async function startHybridWithParaphrases(
  options: Parameters<typeof startStdio>[0] & { modelDir: string },
): Promise<Awaited<ReturnType<typeof startStdio>>> {
  const { modelDir, ...stdio } = options;
  if (typeof modelDir !== "string" || modelDir.length === 0) {
    throw new TypeError("startHybridWithParaphrases needs the model's directory (modelDir)");
  }
  const server = await startStdio({
    ...stdio,
    args: ["--model-dir", modelDir, ...(stdio.args ?? [])],
  });
  try {
    await ok(server.client, "remember", { key: "/memories/acme.md", text: PARAPHRASES.answer });
    for (const [i, text] of PARAPHRASES.others.entries()) {
      await ok(server.client, "remember", { key: `/memories/note-${i}.md`, text });
    }
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

/** Polls `stats` until no memory waits for vectors, and answers those last stats. */
export async function untilEmbedded<Stats extends { recall: { pending: number } }>(
  client: Client,
): Promise<Stats> {
  for (;;) {
    const stats = await ok<Stats>(client, "stats");
    if (stats.recall.pending === 0) return stats;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
