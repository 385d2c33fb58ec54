/**
 * Set-up of the e2e suite on PostgreSQL (vitest.postgres.config.ts): one real cluster for the
 * whole run; its URL in HMS_TEST_DATABASE_URL makes @hms/test-support start every test server
 * on a new database of it (one per data directory) instead of SQLite files.
 */
import { startPostgres } from "@hms/test-support";

export default async function setup(): Promise<() => void> {
  const pg = await startPostgres();
  process.env.HMS_TEST_DATABASE_URL = pg.url;
  process.stderr.write(`[hms-mcp tests] e2e on PostgreSQL: cluster at ${pg.url}\n`);
  return () => pg.remove();
}
