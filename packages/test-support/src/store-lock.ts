/**
 * Holding a store's writes from outside the server, so a test can keep a server's write calls
 * waiting (in flight) for as long as it needs, on either engine: SQLite's write lock of the
 * namespace's file (BEGIN IMMEDIATE), or on PostgreSQL (when the data directory stands for a
 * database, see `storeArgs`) the namespace's row, which every write transaction locks first.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { postgresBinDir } from "./postgres.js";
import { storeFile } from "./seed-store.js";
import { storeArgs } from "./server-process.js";

/**
 * Holds the writes of `namespace` in the store of `dataDir`, which must exist (a server wrote
 * to the namespace once); resolves once they are held, with the function that lets them go.
 */
export async function holdWrites(
  dataDir: string,
  namespace = "default",
): Promise<() => Promise<void>> {
  const [flag, databaseUrl] = storeArgs(dataDir);
  if (flag !== "--database-url" || databaseUrl === undefined) {
    const file = storeFile(dataDir, namespace);
    if (!existsSync(file)) throw new Error(`no store of namespace ${namespace} in ${dataDir}`);
    // Loaded on use, not with this module: Node 22 warns when node:sqlite loads.
    const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
    const db = new DatabaseSync(file);
    db.exec("BEGIN IMMEDIATE");
    return async () => {
      db.exec("ROLLBACK");
      db.close();
    };
  }
  const psql = spawn(join(postgresBinDir(), "psql"), ["-X", "-q", "-t", "-A", "-d", databaseUrl], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const held = new Promise<void>((resolve, reject) => {
    psql.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("held")) resolve();
      if (output.includes("missing")) reject(new Error(`no namespace ${namespace} to hold`));
    });
    psql.once("exit", (code) =>
      reject(new Error(`psql exited (${code}) before the lock was held`)),
    );
  });
  const name = namespace.replace(/'/g, "''");
  psql.stdin.write(
    `BEGIN;\nSELECT CASE count(*) WHEN 1 THEN 'held' ELSE 'missing' END FROM (SELECT 1 FROM hms_namespaces WHERE name = '${name}' FOR UPDATE) AS locked;\n`,
  );
  await held;
  return async () => {
    const exited = new Promise((resolve) => psql.once("exit", resolve));
    psql.stdin.end("ROLLBACK;\n");
    await exited;
  };
}
