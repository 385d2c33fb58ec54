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
