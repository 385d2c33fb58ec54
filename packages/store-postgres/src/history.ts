/**
 * The history of memory files on PostgreSQL: rows written by a trigger in each write's own
 * transaction (schema.ts), read, restored and pruned here with the same answers and refusals
 * as @hms/store's history.ts. The attribution of `attributed(who, body)` lives in an
 * AsyncLocalStorage, so it follows `body`'s asynchronous calls into their transactions.
 */
import type {
  Attribution,
  FileRestoreResult,
  HistoryApi,
  HistoryEntry,
  HistoryPage,
  HistoryVersion,
  TreeRestoreResult,
} from "@hms/store";
import {
  applyRestoreSteps,
  checkInteger,
  checkKey,
  checkPrefix,
  checkTime,
  type RestoreWrites,
  restoreTargetSteps,
  restoreTreeSteps,
  runAsync,
} from "@hms/store/internal";
import { attribution, type Client, head, type PgContext } from "./context.js";
import { forgetIn, rememberIn } from "./records.js";
import { readText } from "./text.js";

const ENTRY_COLUMNS = "seq, key, op, from_key, version, hash, bytes, at, actor, command";
const VERSION_COLUMNS = `${ENTRY_COLUMNS}, text, text_json, tags, metadata`;

interface VersionRow extends Omit<HistoryVersion, "metadata"> {
  metadata: string;
  text_json: boolean;
}

function toVersion({ text_json, ...row }: VersionRow): HistoryVersion {
  return {
    ...row,
    text: readText(row.text, text_json),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

const TOUCHES = "(key = $2 OR from_key = $2)";

export class PgHistory implements HistoryApi {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  /** Runs `body` with its writes (including those it awaits) recorded as made by `who`. */
  attributed<T>(who: Attribution, body: () => T): T {
    // Nested calls (a restore inside a call the server attributes) keep what they do not set.
    const outer = attribution.getStore();
    return attribution.run(
      { actor: who.actor ?? outer?.actor, command: who.command ?? outer?.command },
      body,
    );
  }

  async ofFile(key: string, options: { limit?: number; before?: number } = {}) {
    const checked = checkKey(key, this.#ctx.limits);
    return await this.#page(
      `SELECT ${ENTRY_COLUMNS} FROM hms_memory_history
       WHERE ns = $1 AND ${TOUCHES} AND seq < $3 ORDER BY seq DESC LIMIT $4`,
      [checked],
      options,
    );
  }

  async under(prefix: string, options: { since?: string; limit?: number; before?: number } = {}) {
    const checked = checkPrefix(prefix, this.#ctx.limits);
    const since = options.since === undefined ? "" : checkTime(options.since, "since");
    return await this.#page(
      `SELECT ${ENTRY_COLUMNS} FROM hms_memory_history
       WHERE ns = $1 AND (starts_with(key, $2) OR starts_with(from_key, $2))
         AND at >= $5 AND seq < $3 ORDER BY seq DESC LIMIT $4`,
      [checked],
      options,
      [since],
    );
  }

  async version(key: string, version: number): Promise<HistoryVersion | undefined> {
    const checked = checkKey(key, this.#ctx.limits);
    const wanted = checkInteger(version, "version", 1, Number.MAX_SAFE_INTEGER);
    return await this.#ctx.read(undefined, (client, ns) => versionIn(client, ns, checked, wanted));
  }

  async stateAt(key: string, at: string): Promise<HistoryVersion | null | "unknown"> {
    const checked = checkKey(key, this.#ctx.limits);
    const time = checkTime(at, "at");
    return await this.#ctx.read(null, (client, ns) => stateIn(client, ns, checked, time));
  }

  async restoreFile(
    key: string,
    target: { version: number } | { at: string },
    options: { expectedVersion?: number; actor?: string } = {},
  ): Promise<FileRestoreResult> {
    const checked = checkKey(key, this.#ctx.limits);
    const state = await runAsync(restoreTargetSteps(this, checked, target));
    return await this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write((client, ns) =>
        runAsync(
          applyRestoreSteps(
            restoreWrites(this.#ctx, client, ns),
            checked,
            state,
            options.expectedVersion,
          ),
        ),
      ),
    );
  }

  async restoreTree(
    key: string,
    at: string,
    options: { actor?: string } = {},
  ): Promise<TreeRestoreResult> {
    const checked = checkKey(key, this.#ctx.limits);
    const time = checkTime(at, "at");
    return await this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write((client, ns) =>
        runAsync(restoreTreeSteps(restoreWrites(this.#ctx, client, ns), checked, time)),
      ),
    );
  }

  async prune(options: { keepVersions?: number; keepDays?: number; limit?: number }) {
    const limit = checkInteger(options.limit ?? 500, "limit", 1, 100_000);
    const days =
      options.keepDays === undefined
        ? undefined
        : checkInteger(options.keepDays, "keepDays", 0, 1_000_000);
    const keep =
      options.keepVersions === undefined
        ? undefined
        : checkInteger(options.keepVersions, "keepVersions", 1, 1_000_000);
    if ((await this.#ctx.id()) === undefined) return 0;
    return await this.#ctx.write(async (client, ns) => {
      let deleted = 0;
      if (days !== undefined) {
        const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
        const { rowCount } = await client.query(
          `DELETE FROM hms_memory_history WHERE seq IN (
             SELECT seq FROM hms_memory_history WHERE ns = $1 AND at < $2 ORDER BY at LIMIT $3)`,
          [ns, cutoff, limit],
        );
        deleted += rowCount ?? 0;
      }
      if (keep !== undefined && deleted < limit) {
        const { rowCount } = await client.query(
          `DELETE FROM hms_memory_history WHERE seq IN (
             SELECT seq FROM (
               SELECT seq, row_number() OVER (PARTITION BY key ORDER BY seq DESC) AS n
               FROM hms_memory_history WHERE ns = $1) AS ranked
             WHERE n > $2 LIMIT $3)`,
          [ns, keep, limit - deleted],
        );
        deleted += rowCount ?? 0;
      }
      return deleted;
    });
  }

  async #page(
    sql: string,
    params: unknown[],
    options: { limit?: number; before?: number },
    extra: unknown[] = [],
  ): Promise<HistoryPage> {
    const limit = checkInteger(options.limit ?? 100, "limit", 1, 1000);
    const before =
      options.before === undefined
        ? Number.MAX_SAFE_INTEGER
        : checkInteger(options.before, "before", 1, Number.MAX_SAFE_INTEGER);
    return await this.#ctx.read({ entries: [], next_before: null }, async (client, ns) => {
      const { rows } = await client.query<HistoryEntry>(sql, [
        ns,
        ...params,
        before,
        limit + 1,
        ...extra,
      ]);
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const last = rows[rows.length - 1];
      return { entries: rows, next_before: more && last ? last.seq : null };
    });
  }
}

/** A restore's lookups and writes in one namespace, inside its write transaction. */
function restoreWrites(ctx: PgContext, client: Client, ns: number): RestoreWrites {
  return {
    versionNow: async (key) => (await head(client, ns, key))?.version,
    async filesUnder(prefix) {
      const { rows } = await client.query<{ key: string }>(
        `SELECT key FROM hms_memory_history WHERE ns = $1 AND starts_with(key, $2)
         UNION SELECT from_key FROM hms_memory_history WHERE ns = $1 AND starts_with(from_key, $2)
         UNION SELECT key FROM hms_memories WHERE ns = $1 AND starts_with(key, $2)`,
        [ns, prefix],
      );
      return rows.map((row) => row.key);
    },
    stateAt: (key, at) => stateIn(client, ns, key, at),
    forget: (key, expectedVersion) => forgetIn(client, ns, key, expectedVersion),
    remember: (input) => rememberIn(ctx, client, ns, input),
  };
}

async function versionIn(
  client: Client,
  ns: number,
  key: string,
  version: number,
): Promise<HistoryVersion | undefined> {
  const { rows } = await client.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM hms_memory_history
     WHERE ns = $1 AND key = $2 AND version = $3 ORDER BY op = 'delete', seq DESC LIMIT 1`,
    [ns, key, version],
  );
  return rows[0] === undefined ? undefined : toVersion(rows[0]);
}

/** `stateAt` on a connection: the file at time `at` (see `StoreHistory.stateAt`). */
async function stateIn(
  client: Client,
  ns: number,
  key: string,
  at: string,
): Promise<HistoryVersion | null | "unknown"> {
  const last = await client.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM hms_memory_history
     WHERE ns = $1 AND ${TOUCHES} AND at <= $3 ORDER BY seq DESC LIMIT 1`,
    [ns, key, at],
  );
  const before = last.rows[0];
  if (before !== undefined) {
    return before.op === "delete" || before.key !== key ? null : toVersion(before);
  }
  const first = await client.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM hms_memory_history
     WHERE ns = $1 AND ${TOUCHES} AND at > $3 ORDER BY seq LIMIT 1`,
    [ns, key, at],
  );
  const next = first.rows[0];
  if (next === undefined) return (await head(client, ns, key)) === undefined ? null : "unknown";
  // The first change after `at` made the file (a create, or a move onto it): it did not
  // exist before. Any other first change means it existed, as a version no row holds.
  const made = next.key === key && (next.op === "create" || next.op === "move");
  return made ? null : "unknown";
}
