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
