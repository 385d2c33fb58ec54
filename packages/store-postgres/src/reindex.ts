/**
 * Migration 9: the full-text index reads words as SQLite's does. Until it, a text without
 * Chinese or Japanese was indexed as it is (`index_text` NULL), so PostgreSQL's parser read its
 * punctuation its own way, and Snowball's English stemmer made other stems than FTS5's Porter
 * stemmer: a store ranked apart from SQLite's. Its SQL switches the stemmer to Porter's; its
 * data step writes every memory's `index_text` as text.ts now makes it. The words rule is
 * JavaScript's (Unicode's categories; PostgreSQL's regular expressions follow the database's
 * locale), so the step runs here rather than in SQL. Every row is written, even where its index
 * text is unchanged: the stored vector (`tsv`, a generated column) is computed again only when
 * its row is updated. The trigger that keeps the BM25 statistics row by row is off meanwhile
 * (nearly every lexeme changes: row by row took 72 s for SciFact's 5,183 abstracts at a load
 * average of 14-27, this way 5-10 s at 7-12); the statistics are counted again afterwards, in
 * two statements. Nothing else changes (no version, no history, no re-embedding: those follow
 * `text`, which is untouched).
 */
import type pg from "pg";
import { readText, wordsOf } from "./text.js";

/** Rows read and written per round trip. */
const BATCH = 500;

/** Migration 9 (schema.ts lists it; it is here beside its data step). */
export const WORDS_AS_SQLITE = {
  version: 9,
  description:
    "the full-text index reads words as SQLite's does: punctuation and symbols separate " +
    "words, and Porter's stemmer (FTS5's) replaces Snowball's English one; every memory " +
    "written before is indexed again",
  sql: `
    -- Stems as FTS5's porter tokenizer makes them (Snowball's English stemmer, migration 1,
    -- makes others: "generously" is "generous" there, "gener" here as in SQLite).
    CREATE TEXT SEARCH DICTIONARY hms_english_porter (TEMPLATE = snowball, Language = porter);
    ALTER TEXT SEARCH CONFIGURATION hms_english
      ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
      WITH unaccent, hms_english_porter;
    -- Words with a digit are not stemmed; their diacritics are folded as other words' are
    -- (text.ts writes the short words Porter's stemmer would change so: "is" is "is0").
    ALTER TEXT SEARCH CONFIGURATION hms_english ALTER MAPPING FOR numword WITH unaccent, simple;
    COMMENT ON COLUMN hms_memories.index_text IS
      'what the full-text index reads: the text''s words, one space between them (text.ts)';
  `,
  data: rewriteIndexTexts,
};

/** Writes every memory's `index_text` again, as text.ts makes it from its text. */
async function rewriteIndexTexts(client: pg.ClientBase): Promise<void> {
  await client.query("ALTER TABLE hms_memories DISABLE TRIGGER hms_memories_statistics");
  let after = "0";
  for (;;) {
    const { rows } = await client.query<{ id: string; text: string; text_json: boolean }>(
      "SELECT id, text, text_json FROM hms_memories WHERE id > $1 ORDER BY id LIMIT $2",
      [after, BATCH],
    );
    if (rows.length === 0) break;
    await client.query(
      `UPDATE hms_memories m SET index_text = v.index_text
       FROM unnest($1::bigint[], $2::text[]) AS v (id, index_text) WHERE m.id = v.id`,
      [rows.map((row) => row.id), rows.map((row) => wordsOf(readText(row.text, row.text_json)))],
    );
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  await client.query(`
    DELETE FROM hms_terms;
    INSERT INTO hms_terms (ns, lexeme, df)
      SELECT m.ns, t.lexeme, count(*) FROM hms_memories m, unnest(tsvector_to_array(m.tsv)) AS t (lexeme)
      GROUP BY m.ns, t.lexeme;
    UPDATE hms_namespaces n SET docs = coalesce(s.docs, 0), doc_tokens = coalesce(s.tokens, 0)
      FROM hms_namespaces n2
      LEFT JOIN (SELECT ns, count(*) AS docs, sum(doc_len) AS tokens FROM hms_memories GROUP BY ns) AS s
        ON s.ns = n2.id
      WHERE n.id = n2.id;
    ALTER TABLE hms_memories ENABLE TRIGGER hms_memories_statistics;
  `);
}
