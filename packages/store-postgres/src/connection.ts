/**
 * Connections: the pool, one-off clients, and what a lost database becomes for a caller
 * (UNAVAILABLE). node-postgres throws plain errors for a database it cannot reach; here they
 * turn into a StoreError that says what happened and what to do, and a broken connection is
 * dropped from the pool instead of being handed to the next caller.
 */
import { StoreError } from "@hms/store";
import pg from "pg";

/** A connection a query runs on: a pooled client, or a transaction's. */
export type Client = pg.ClientBase;

/** A pool, or a URL to open a one-off connection to. */
export type PoolOrUrl = pg.Pool | string;

/** int8 (versions, ids, counts) as JavaScript numbers: every value the store writes fits. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** Checks a database URL at the boundary. */
export function checkUrl(url: unknown): string {
  if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      "the database URL must be a string starting with postgres:// or postgresql://",
    );
  }
  return url;
}

/** A pool of `size` connections that never crashes the process when an idle one breaks. */
export function createPool(url: string, size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    types,
    // A database that does not answer at all (a dropped network) fails a call, not hangs it.
    connectionTimeoutMillis: 10_000,
    application_name: "hms-store",
  });
  // An idle connection's error (the server restarted, a network cut): the pool drops that
  // client by itself and connects anew on the next call. Without a listener, Node would
  // treat the event as an uncaught exception and stop the process.
  pool.on("error", (error) => {
    process.stderr.write(`store-postgres: an idle connection was lost: ${error.message}\n`);
  });
  return pool;
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down)
  "57P01",
  "57P02",
  "57P03",
  "53300", // too_many_connections
]);

/** True when `error` says the database cannot be reached (rather than refusing a statement). */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNREACHABLE.has(code) || code.startsWith("08"))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(
    error.message,
  );
}

/** `error` as a caller should see it: UNAVAILABLE for a database out of reach. */
export function callerError(error: unknown): unknown {
  if (StoreError.isInstance(error) || !isUnreachable(error)) return error;
  const reason = (error as Error).message || String((error as { code?: unknown }).code);
  return new StoreError(
    "UNAVAILABLE",
    `the PostgreSQL database is unreachable (${reason}); this call was not acknowledged, retry it once the database is back (a write cut off while committing may have been applied: read before retrying it)`,
    { reason },
  );
}

/** Tries on a stale pooled connection before giving up (see {@link connect}). */
const STALE_RETRIES = 3;

/**
 * Runs `body` on one connection (from the pool, or a new one for a URL), then gives it back
 * (destroying it if it broke). Errors reach the caller as {@link callerError} makes them.
 *
 * A pooled connection may have died while idle (PostgreSQL restarted) without the pool having
 * noticed yet. When `body` fails that way and `retry()` says the failure left nothing to undo
 * (a read; a transaction whose BEGIN failed), it runs again on another connection, a few
 * times at most; a database really out of reach then fails the connect itself.
 */
export async function connect<T>(
  target: PoolOrUrl,
  body: (client: pg.ClientBase) => Promise<T>,
  retry: () => boolean = () => false,
): Promise<T> {
  const owned = typeof target === "string";
  for (let attempt = 0; ; attempt++) {
    let client: pg.PoolClient | pg.Client;
    try {
      if (typeof target === "string") {
        client = new pg.Client({ connectionString: checkUrl(target), types });
        await client.connect();
      } else {
        client = await target.connect();
      }
    } catch (error) {
      throw callerError(error);
    }
    // The connection breaking between two statements is an 'error' event: without a
    // listener, an uncaught exception. The statement after it fails, and says so.
    let broken: unknown;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      return await body(client);
    } catch (error) {
      if (!isUnreachable(error)) throw callerError(error);
      broken = error;
      if (owned || attempt >= STALE_RETRIES || !retry()) throw callerError(error);
    } finally {
      client.off("error", onError);
      if (owned) await client.end().catch(() => {});
      else (client as pg.PoolClient).release(broken instanceof Error ? broken : undefined);
    }
  }
}

/** Runs a read on a pooled connection (retried on a stale one: a read changes nothing). */
export async function read<T>(pool: pg.Pool, body: (client: pg.ClientBase) => Promise<T>) {
  return await connect(pool, body, () => true);
}

/** Runs `body` in one transaction (READ COMMITTED): committed if it returns, else rolled back. */
export async function transaction<T>(
  pool: pg.Pool,
  body: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  let begun = false;
  return await connect(
    pool,
    async (client) => {
      begun = false;
      await client.query("BEGIN");
      begun = true;
      try {
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        if (!isUnreachable(error)) await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    // Nothing was sent but BEGIN: the transaction can start again elsewhere.
    () => !begun,
  );
}
