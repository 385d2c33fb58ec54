/**
 * Memory files written straight into an hms-mcp store's SQLite file, bypassing the server, so
 * a test can start from a state the server refuses to create but must serve: a file and a
 * directory of one name (`PATH_CONFLICT` on every write that would make it). A store written
 * before the server kept the memory-file tree well formed can hold that state, and the memory
 * tool must still show it.
 *
 * This knows the store's file layout and schema (packages/store: `namespaces/ns-<hash>.sqlite`,
 * schema version 4 or later) and nothing else of the server; it refuses an older schema. It
 * writes in one transaction under SQLite's own locking, so a server may be running on the
 * store (it reads the store on every call and caches nothing of it). When the suite runs on
 * PostgreSQL (HMS_TEST_DATABASE_URL), the data directory stands for a database (`storeArgs`)
 * and the same rows go into it through psql, in the PostgreSQL engine's schema.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { postgresBinDir } from "./postgres.js";
import { storeArgs } from "./server-process.js";

/** The SQLite file of `namespace` under hms-mcp's `dataDir` (as packages/store names it). */
export function storeFile(dataDir: string, namespace = "default"): string {
  const digest = createHash("sha256").update(namespace, "utf8").digest("hex");
  return join(dataDir, "namespaces", `ns-${digest.slice(0, 32)}.sqlite`);
}

/**
 * Writes `files` (path to text) into the store of `namespace` as memory files (tagged
 * `memory-file`), each with the next version of the store's clock, without any check. The
 * store must exist (a server has served the namespace once) and the paths must be free.
 */
export function writeSeedFiles(
  dataDir: string,
  files: Record<string, string>,
  namespace = "default",
): void {
  const [flag, databaseUrl] = storeArgs(dataDir);
  if (flag === "--database-url" && databaseUrl !== undefined) {
    writeSeedRows(databaseUrl, files, namespace);
    return;
  }
  const file = storeFile(dataDir, namespace);
  if (!existsSync(file)) {
    throw new Error(`writeSeedFiles: no store at ${file}; let a server serve it first`);
  }
  const db = openStore(file);
  try {
    const { user_version: schema } = db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    if (schema < 4) throw new Error(`writeSeedFiles: schema ${schema} has no version clock`);
    const tick = db.prepare("UPDATE version_clock SET value = value + 1 RETURNING value");
    const insert = db.prepare(`
      INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
      VALUES (@key, @text, '["memory-file"]', '{}', @version, @hash, @bytes, @at, @at)`);
    const tag = db.prepare("INSERT INTO memory_tags (tag, memory_id) VALUES ('memory-file', ?)");
    inWriteTransaction(db, () => {
      const at = new Date().toISOString();
      for (const [key, text] of Object.entries(files)) {
        const { value: version } = tick.get() as { value: number };
        const hash = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
        const bytes = Buffer.byteLength(text, "utf8");
        const { lastInsertRowid } = insert.run({ key, text, version, hash, bytes, at });
        tag.run(lastInsertRowid);
      }
    });
  } finally {
    db.close();
  }
}

/**
 * One memory file in one transaction on PostgreSQL: the namespace's clock steps once (its row
 * lock orders this after any write of the server's) and the memory takes the new value as its
 * version. psql quotes the `:'name'` variables, read from stdin.
 */
const INSERT_ROW = `
BEGIN;
WITH ns AS (
  UPDATE hms_namespaces SET clock = clock + 1 WHERE name = :'ns' RETURNING id, clock
)
INSERT INTO hms_memories
  (ns, key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
SELECT id, :'key', :'text', ARRAY['memory-file'], '{}', clock, :'hash', :'bytes'::integer,
  :'at', :'at'
FROM ns
RETURNING version;
COMMIT;
`;

/** {@link writeSeedFiles} on PostgreSQL: the namespace must exist (a server served it once). */
function writeSeedRows(databaseUrl: string, files: Record<string, string>, namespace: string) {
  const at = new Date().toISOString();
  for (const [key, text] of Object.entries(files)) {
    const hash = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    const bytes = String(Buffer.byteLength(text, "utf8"));
    const variables = { ns: namespace, key, text, hash, bytes, at };
    const args = ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", databaseUrl];
    for (const [name, value] of Object.entries(variables)) args.push("-v", `${name}=${value}`);
    const written = execFileSync(join(postgresBinDir(), "psql"), args, {
      input: INSERT_ROW,
      encoding: "utf8",
    });
    if (written.trim() === "") {
      throw new Error(`writeSeedFiles: no namespace ${namespace} in the database; serve it first`);
    }
  }
}

/**
 * Sets the last-write time of `keys` in the store of `namespace` to `at`, as if they had
 * been written then (for tests of what went unused). The store must exist.
 */
export function backdateWrites(
  dataDir: string,
  keys: readonly string[],
  at: string,
  namespace = "default",
): void {
  const db = openStore(storeFile(dataDir, namespace));
  try {
    const update = db.prepare("UPDATE memories SET updated_at = ? WHERE key = ?");
    inWriteTransaction(db, () => {
      for (const key of keys) update.run(at, key);
    });
  } finally {
    db.close();
  }
}

/**
 * The store's existing SQLite file, through node:sqlite, waiting up to 10 s for a server's
 * lock. Loaded on use, not with this module: Node 22 warns when node:sqlite loads.
 */
function openStore(file: string): DatabaseSync {
  if (!existsSync(file)) throw new Error(`no store at ${file}; let a server serve it first`);
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
  return new DatabaseSync(file, { timeout: 10_000 });
}

/** Runs `body` in one IMMEDIATE transaction (the write lock taken at BEGIN). */
function inWriteTransaction(db: DatabaseSync, body: () => void): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    body();
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** The part of a memory backend {@link seedFilesIn} uses (structurally a `MemoryBackend`). */
interface Creates {
  create(path: string, content: string): Promise<unknown>;
}

/**
 * A `seedFiles` for the shared command vectors against hms-mcp serving `dataDir`: creates each
 * starting file through the backend, and writes one the server refuses because it would make a
 * file and a directory of one name (`IS_DIRECTORY` or `UNDER_FILE`), or because its name is a
 * look-alike an older version let in, into the store directly with {@link writeSeedFiles}.
 */
export function seedFilesIn(
  dataDir: string,
  namespace = "default",
): (backend: Creates, files: Record<string, string>) => Promise<void> {
  return async (backend, files) => {
    for (const [path, text] of Object.entries(files)) {
      try {
        await backend.create(path, text);
      } catch (error) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        // A look-alike name (NFC, spaces) is refused as a new name, yet a store written by an
        // older version can hold it: every such refusal says it "makes a different name".
        const lookalike = String(message).includes("makes a different name");
        if (code !== "IS_DIRECTORY" && code !== "UNDER_FILE" && !lookalike) throw error;
        writeSeedFiles(dataDir, { [path]: text }, namespace);
      }
    }
  };
}
