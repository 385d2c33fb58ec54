/**
 * The benchmarks' bulk seeding of a PostgreSQL store (bench/postgres.mjs, `bulkLoad`) stores
 * what the store's own `load` stores: the same rows, the same BM25 statistics (counted once
 * instead of row by row by the trigger), so recall finds the same hits with the same scores.
 * On a real PostgreSQL cluster.
 */
import { PgEngine } from "@hms/store-postgres";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a benchmark's helper module, plain JavaScript without types.
import { bulkLoad } from "../../bench/postgres.mjs";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

/** 600 memories: words of several frequencies, a CJK one, times a minute apart. */
function records() {
  const words = ["harbor", "lantern", "quarry", "meadow", "copper", "signal", "orchard"];
  return Array.from({ length: 600 }, (_, i) => {
    const text = [
      words[i % 7],
      words[(i * 3) % 7],
      i % 11 === 0 ? "zeppelin" : `w${i % 13}`,
      i % 97 === 0 ? "每周五开会" : "",
      `note ${i}`,
    ].join(" ");
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    return {
      key: `/memories/n/${i}.md`,
      text,
      tags: ["memory-file"],
      metadata: { i },
      version: 1 + (i % 3),
      hash: "",
      bytes: 0,
      created_at: at,
      updated_at: at,
    };
  });
}

describe("bench bulkLoad on PostgreSQL", () => {
  it("stores the rows and statistics that the store's load does, and recall finds the same", async () => {
    const url = server.createDatabase("bulk");
    const pg = await PgEngine.open({ url });
    try {
      await (await pg.get("loaded")).load(records());
      await bulkLoad(pg, "bulk", records());
      const rows = async (sql: string, name: string) =>
        (
          await pg.pool.query(
            sql.replace("$ns", "(SELECT id FROM hms_namespaces WHERE name = $1)"),
            [name],
          )
        ).rows;
      const namespace = (name: string) =>
        rows("SELECT docs, doc_tokens, clock FROM hms_namespaces WHERE id = $ns", name);
      const terms = (name: string) =>
        rows("SELECT lexeme, df FROM hms_terms WHERE ns = $ns ORDER BY lexeme", name);
      const memories = (name: string) =>
        rows(
          `SELECT key, text, text_json, index_text, tags, metadata, version, hash, bytes,
             created_at, updated_at, tsv::text AS tsv, doc_len
           FROM hms_memories WHERE ns = $ns ORDER BY key`,
          name,
        );
      expect(await namespace("bulk")).toEqual(await namespace("loaded"));
      const loadedTerms = await terms("loaded");
      expect(loadedTerms.length).toBeGreaterThan(20);
      expect(await terms("bulk")).toEqual(loadedTerms);
      expect(await memories("bulk")).toEqual(await memories("loaded"));
      for (const query of ["zeppelin harbor", "quarry meadow note", "开会", "signal"]) {
        for (const range of [{}, { modifiedAfter: "2026-01-01T05:00:00Z" }]) {
          const found = async (name: string) =>
            (await (await pg.get(name)).recall(query, { k: 10, ...range })).hits;
          const loaded = await found("loaded");
          expect(loaded.length).toBeGreaterThan(0);
          expect(await found("bulk")).toEqual(loaded);
        }
      }
      // Writes after the bulk load keep the statistics as usual.
      await (await pg.get("bulk")).remember({ key: "/memories/n/0.md", text: "zeppelin only" });
      await (await pg.get("loaded")).remember({ key: "/memories/n/0.md", text: "zeppelin only" });
      expect(await terms("bulk")).toEqual(await terms("loaded"));
      // A namespace that holds memories already is refused.
      await expect(bulkLoad(pg, "bulk", records().slice(0, 1))).rejects.toThrow(
        /already holds 600 memories/,
      );
    } finally {
      await pg.close();
    }
  }, 120_000);
});
