/**
 * What recall's scoring statement reads: its cost at scale is the number of memories it takes
 * from the table, which must be the candidates, not every memory holding a query term.
 */
import { type PostgresServer, startPostgres } from "@hms/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { lexemeQuery, scoreStatement } from "./scoring.js";

let server: PostgresServer;
let url: string;
let ns: number;

/** 2,000 memories: "alpha" in the first 1,100, "beta" in the last 1,100, "rare" in 20. */
function textOf(i: number): string {
  const words = ["filler", `n${i}`];
  if (i < 1100) words.push("alpha");
  if (i >= 900) words.push("beta");
  if (i % 100 === 0) words.push("rare");
  return words.join(" ");
}

beforeAll(async () => {
  server = await startPostgres();
  url = server.createDatabase("scoring");
  const engine = await PgEngine.open({ url });
  try {
    const store = await engine.get("default");
    for (let start = 0; start < 2000; start += 500) {
      await store.rememberMany(
        Array.from({ length: 500 }, (_, j) => ({
          key: `/notes/${start + j}.md`,
          text: textOf(start + j),
        })),
      );
    }
  } finally {
    await engine.close();
  }
  // Planner statistics, as autovacuum keeps them on a store in use.
  server.psql("ANALYZE hms_memories", new URL(url).pathname.slice(1));
  ns = Number(server.psql("SELECT id FROM hms_namespaces", new URL(url).pathname.slice(1)));
}, 300_000);
afterAll(() => server?.remove(), 60_000);

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of hms_memories the plan's scans read (kept or filtered out), over all loops. */
function memoriesRead(node: PlanNode): number {
  const loops = node["Actual Loops"] ?? 1;
  const own =
    node["Relation Name"] === "hms_memories"
      ? loops *
        ((node["Actual Rows"] ?? 0) +
          (node["Rows Removed by Filter"] ?? 0) +
          (node["Rows Removed by Index Recheck"] ?? 0))
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + memoriesRead(child), 0);
}

/** Runs the statement, and EXPLAIN ANALYZE of it: its rows and the memories it read. */
async function run(statement: { text: string; values: unknown[] }) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // At 2,000 memories a sequential scan costs the planner less than any index; at the
    // sizes this guards (100,000) it never does. Off, the plan has a large store's shape.
    await client.query("SET enable_seqscan = off");
    const { rows } = await client.query<{ id: string; bm25: number }>(
      statement.text,
      statement.values,
    );
    const explained = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const plan = (explained.rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0];
    return { rows, read: memoriesRead(plan.Plan) };
  } finally {
    await client.end();
  }
}

const terms = [
  { lexeme: "alpha", idf: 0.2 },
  { lexeme: "rare", idf: 4.5 },
];

describe("recall's scoring statement", () => {
  it("reads only the candidates (20 memories holding the rare term), not the 1,100 holding any term", async () => {
    const { rows, read } = await run(
      scoreStatement({
        ns,
        filter: { prefix: undefined, tag: undefined },
        k: 10,
        avgdl: 3,
        terms,
        candidates: { lexemes: ["rare"], all: false, newest: undefined },
      }),
    );
    expect(rows).toHaveLength(10);
    // Each candidate found in the index, then read once by its id.
    expect(read).toBeLessThanOrEqual(2 * 20);
  });

  it("takes the newest candidates holding every picked term, and reads no others", async () => {
    const { rows, read } = await run(
      scoreStatement({
        ns,
        filter: { prefix: undefined, tag: undefined },
        k: 10,
        avgdl: 3,
        terms: [
          { lexeme: "alpha", idf: 0.1 },
          { lexeme: "beta", idf: 0.1 },
        ],
        // The 50 newest of the 200 holding both (ids 901-1100): ids 1051-1100.
        candidates: { lexemes: ["alpha", "beta"], all: true, newest: 50 },
      }),
    );
    expect(rows.map(({ id }) => Number(id)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => 1051 + i),
    );
    expect(read).toBeLessThan(1100);
  });

  it("scores every memory holding a term when there is no candidate step", async () => {
    const { rows } = await run(
      scoreStatement({
        ns,
        filter: { prefix: "/notes/1", tag: undefined },
        k: 3,
        avgdl: 3,
        terms,
      }),
    );
    // Under the prefix: /notes/100.md holds both terms in 4 words (id 101); then the rare
    // term alone in 4 words (/notes/1100.md, /notes/1200.md, ...; ties by id) outscores both
    // terms in 5 (/notes/1000.md).
    expect(rows.map(({ id }) => Number(id))).toEqual([101, 1101, 1201]);
  });

  it("quotes lexemes so that none is parsed again", () => {
    expect(lexemeQuery(["o'brien", "a\\b", "x"], "|")).toBe("'o''brien' | 'a\\\\b' | 'x'");
    expect(lexemeQuery(["a", "b"], "&")).toBe("'a' & 'b'");
    expect(() => lexemeQuery([], "|")).toThrow("at least one lexeme");
  });
});
