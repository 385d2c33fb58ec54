/**
 * What a namespace's store takes, on either engine, for tests and benchmarks of how a store
 * grows. SQLite: the namespace's files (db, -wal, -shm; the disk-full spare file, -reserve, a
 * fixed 2 MiB, is counted apart). PostgreSQL: the bytes of the namespace's rows, as
 * `pg_column_size` of each row of hms_memories, hms_memory_history and hms_terms (values
 * TOAST-compressed count as stored); indexes, which PostgreSQL does not split by namespace,
 * are not counted.
 */
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { postgresBinDir } from "./postgres.js";
import { storeFile } from "./seed-store.js";
import { storeArgs } from "./server-process.js";

/** A store's bytes: `total`, and its parts by file (SQLite) or by table (PostgreSQL). */
export interface StoreBytes {
  readonly total: number;
  readonly parts: Record<string, number>;
}

/** The bytes of `namespace`'s store in a SQLite data directory or a PostgreSQL database. */
export function storeBytes(
  target: { dataDir: string } | { databaseUrl: string },
  namespace = "default",
): StoreBytes {
  if ("databaseUrl" in target) return postgresBytes(target.databaseUrl, namespace);
  const file = storeFile(target.dataDir, namespace);
  const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  const parts = {
    db: size(file),
    wal: size(`${file}-wal`),
    shm: size(`${file}-shm`),
    reserve: size(`${file}-reserve`),
  };
  return { total: parts.db + parts.wal + parts.shm, parts };
}

/**
 * {@link storeBytes} of a test server's store (`storeArgs`): its data directory's files, or,
 * when the suite runs on PostgreSQL, its database's rows.
 */
export function testStoreBytes(dataDir: string, namespace = "default"): StoreBytes {
  const [flag, url] = storeArgs(dataDir);
  return flag === "--database-url" && url !== undefined
    ? storeBytes({ databaseUrl: url }, namespace)
    : storeBytes({ dataDir }, namespace);
}

function postgresBytes(url: string, namespace: string): StoreBytes {
  const rows = (table: string, alias: string) =>
    `coalesce((SELECT sum(pg_column_size(${alias}.*)) FROM ${table} ${alias} WHERE ${alias}.ns = n.id), 0)`;
  const sql = `SELECT ${rows("hms_memories", "m")}, ${rows("hms_memory_history", "h")},
      ${rows("hms_terms", "t")} FROM hms_namespaces n WHERE n.name = :'ns'`;
  const out = execFileSync(
    join(postgresBinDir(), "psql"),
    ["-X", "-q", "-t", "-A", "-F", "\t", "-v", `ns=${namespace}`, "-d", url],
    { encoding: "utf8", input: sql },
  ).trim();
  const [memories = 0, history = 0, terms = 0] = out === "" ? [] : out.split("\t").map(Number);
  return { total: memories + history + terms, parts: { memories, history, terms } };
}
