// A PostgreSQL database for the benchmarks that compare the engines (server-perf,
// recall-quality): the URL given (--database-url), or a new local cluster (--postgres).

/**
 * `postgres://` or `postgresql://` URL with its password hidden, for what the bench prints.
 * Throws on anything else: the bench writes into the database it is given.
 */
export function checkDatabaseUrl(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--database-url ${JSON.stringify(value)} is not a URL (postgres://...)`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(
      `--database-url must be a postgres:// or postgresql:// URL, not ${url.protocol}//...`,
    );
  }
  if (url.password) url.password = "***";
  return url.toString();
}

/**
 * A PostgreSQL database for the bench: the URL given, else (with `--postgres`) a new cluster
 * from @hms/test-support with fsync back on (its test default is off), so a commit costs what
 * it costs in production, as SQLite's does here. Returns the URL and how to clean up.
 */
export async function benchDatabase(givenUrl) {
  if (givenUrl !== undefined) {
    checkDatabaseUrl(givenUrl);
    return { url: givenUrl, fsync: "as configured", remove: () => {} };
  }
  const { startPostgres } = await import("@hms/test-support");
  const server = await startPostgres();
  server.psql("ALTER SYSTEM SET fsync = on");
  server.restart();
  const fsync = server.psql("SHOW fsync").trim();
  return { url: server.createDatabase("bench"), fsync, remove: () => server.remove() };
}

/**
 * The size on disk of every table and index of the database (MiB), largest first, read with
 * psql (PostgreSQL's client, installed with the server).
 */
export async function relationSizes(url) {
  const { postgresBinDir } = await import("@hms/test-support");
  const { execFileSync } = await import("node:child_process");
  const { join } = await import("node:path");
  const out = execFileSync(
    join(postgresBinDir(), "psql"),
    [
      "-X",
      "-q",
      "-t",
      "-A",
      "-F",
      "\t",
      "-d",
      url,
      "-c",
      `SELECT c.relname, c.relkind, pg_relation_size(c.oid)
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') ORDER BY 3 DESC`,
    ],
    { encoding: "utf8" },
  );
  return out
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [name, kind, bytes] = line.split("\t");
      return {
        name,
        kind: kind === "i" ? "index" : "table",
        mib: Math.round((Number(bytes) / 1048576) * 10) / 10,
      };
    });
}

/** The single value `sql` answers on the database at `url`, as text (read with psql). */
export async function psqlValue(url, sql) {
  const { postgresBinDir } = await import("@hms/test-support");
  const { execFileSync } = await import("node:child_process");
  const { join } = await import("node:path");
  return execFileSync(
    join(postgresBinDir(), "psql"),
    ["-X", "-q", "-t", "-A", "-d", url, "-c", sql],
    {
      encoding: "utf8",
    },
  ).trim();
}

/**
 * Seeds an empty namespace of a PostgreSQL store with `records` in bulk, for benchmarks only:
 * `store.load` writes one memory at a time, checks its key and keeps the BM25 statistics row
 * by row (about 60 memories/s here), which makes 100,000 memories take most of an hour. Here
 * the memories go in 1,000 per statement (their key, text, hash and sizes as `load` would
 * store them) with the statistics trigger off, each statement its own transaction (the
 * triggers that still run update the namespace's row once per memory, and one transaction
 * updating a row 100,000 times walks ever longer chains of its versions). Then the statistics
 * are counted once from what was stored: the namespace's memory count and length, and each
 * lexeme's count. The records must be new keys of valid memories (the bench's own); nothing is
 * checked but that the namespace was empty, and a load that fails half-way leaves the
 * namespace without statistics: give it an empty database.
 */
export async function bulkLoad(pg, namespace, records) {
  const { hashOf } = await import("@hms/store/internal");
  // The index text exactly as the store writes it (words only, as SQLite's index reads them).
  const { wordsOf } = await import("@hms/store-postgres");
  await pg.get(namespace);
  const client = await pg.pool.connect();
  const inTransaction = async (body) => {
    await client.query("BEGIN");
    try {
      await body();
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  };
  try {
    const { rows } = await client.query("SELECT id, docs FROM hms_namespaces WHERE name = $1", [
      namespace,
    ]);
    const { id: ns, docs } = rows[0];
    if (Number(docs) !== 0) {
      throw new Error(`namespace ${namespace} already holds ${docs} memories: give an empty one`);
    }
    for (let i = 0; i < records.length; i += 1000) {
      const batch = records.slice(i, i + 1000);
      for (const record of batch) {
        if (record.text.includes("\u0000")) {
          throw new Error(`${record.key}: a NUL, not bulk-loaded`);
        }
      }
      await inTransaction(async () => {
        await client.query("ALTER TABLE hms_memories DISABLE TRIGGER hms_memories_statistics");
        await client.query(
          `INSERT INTO hms_memories (ns, key, text, index_text, tags, metadata, version, hash,
             bytes, created_at, updated_at)
           SELECT $1, r.key, r.text, r.index_text,
             ARRAY(SELECT json_array_elements_text(r.tags::json)), r.metadata, r.version, r.hash,
             r.bytes, r.created_at, r.updated_at
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
             $7::bigint[], $8::text[], $9::integer[], $10::text[], $11::text[])
             AS r (key, text, index_text, tags, metadata, version, hash, bytes, created_at,
                   updated_at)`,
          [
            ns,
            batch.map((r) => r.key),
            batch.map((r) => r.text),
            batch.map((r) => wordsOf(r.text)),
            batch.map((r) => JSON.stringify(r.tags)),
            batch.map((r) => JSON.stringify(r.metadata)),
            batch.map((r) => r.version),
            batch.map((r) => hashOf(r.text)),
            batch.map((r) => Buffer.byteLength(r.text, "utf8")),
            batch.map((r) => r.created_at),
            batch.map((r) => r.updated_at),
          ],
        );
        await client.query("ALTER TABLE hms_memories ENABLE TRIGGER hms_memories_statistics");
      });
    }
    // What the trigger would have kept, counted from the stored vectors.
    await inTransaction(async () => {
      await client.query(
        `UPDATE hms_namespaces s SET docs = c.n, doc_tokens = c.tokens,
           clock = greatest(s.clock, c.version)
         FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS tokens,
                 coalesce(max(version), 0) AS version
               FROM hms_memories WHERE ns = $1) AS c
         WHERE s.id = $1`,
        [ns],
      );
      await client.query(
        `INSERT INTO hms_terms (ns, lexeme, df)
         SELECT $1, lexeme, count(*) FROM hms_memories, unnest(tsvector_to_array(tsv)) AS lexeme
         WHERE ns = $1 GROUP BY lexeme ORDER BY lexeme`,
        [ns],
      );
    });
  } finally {
    client.release();
  }
}
