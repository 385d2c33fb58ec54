/**
 * The history of memory files on PostgreSQL: rows written by a trigger in each write's own
 * transaction (schema.ts), read, restored and pruned here with the same answers and refusals
 * as @hms/store's history.ts. The attribution of `attributed(who, body)` lives in an
 * AsyncLocalStorage, so it follows `body`'s asynchronous calls into their transactions.
 */
import {
  type Attribution,
  type HistoryApi,
  type HistoryEntry,
  type HistoryPage,
  type HistoryVersion,
  type RememberResult,
  StoreError,
  type TreeRestoreResult,
} from "@hms/store";
import { checkInteger, checkKey, checkPrefix, checkTime, notFound } from "@hms/store/internal";
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
  ): Promise<{ key: string; version: number | null; deleted: boolean }> {
    const checked = checkKey(key, this.#ctx.limits);
    let state: HistoryVersion | null;
    if ("version" in target) {
      const found = await this.version(checked, target.version);
      if (found === undefined) {
        throw new StoreError(
          "NOT_FOUND",
          `the history of ${checked} has no version ${target.version} (see its history for the versions kept)`,
          { key: checked, version: target.version },
        );
      }
      state = found;
    } else {
      const found = await this.stateAt(checked, target.at);
      if (found === "unknown") {
        throw new StoreError(
          "NOT_FOUND",
          `the history of ${checked} does not reach back to ${target.at}`,
          { key: checked, at: target.at },
        );
      }
      state = found;
    }
    return await this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write((client, ns) =>
        this.#apply(client, ns, checked, state, options.expectedVersion),
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
    const prefix = `${checked}/`;
    return await this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write(async (client, ns) => {
        const { rows } = await client.query<{ key: string }>(
          `SELECT key FROM hms_memory_history WHERE ns = $1 AND starts_with(key, $2)
           UNION SELECT from_key FROM hms_memory_history WHERE ns = $1 AND starts_with(from_key, $2)
           UNION SELECT key FROM hms_memories WHERE ns = $1 AND starts_with(key, $2)`,
          [ns, prefix],
        );
        const result: TreeRestoreResult = { restored: [], deleted: [], unknown: [] };
        // Deletes first, so that a file restored where a directory stood meanwhile fits.
        const states: [string, HistoryVersion | null | "unknown"][] = [];
        for (const file of rows.map((row) => row.key).sort()) {
          states.push([file, await stateIn(client, ns, file, time)]);
        }
        for (const [file, state] of states) {
          if (state === "unknown") result.unknown.push(file);
          else if (state === null && (await head(client, ns, file)) !== undefined) {
            await this.#apply(client, ns, file, null, undefined);
            result.deleted.push(file);
          }
        }
        for (const [file, state] of states) {
          if (state === "unknown" || state === null) continue;
          const done = await this.#apply(client, ns, file, state, undefined);
          result.restored.push({ key: file, version: done.version as number });
        }
        return result;
      }),
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

  /** Writes `state` (or deletes, for null) over the file's current state. */
  async #apply(
    client: Client,
    ns: number,
    key: string,
    state: HistoryVersion | null,
    expectedVersion: number | undefined,
  ): Promise<{ key: string; version: number | null; deleted: boolean }> {
    const found = await head(client, ns, key);
    if (state === null) {
      if (found === undefined) {
        if (expectedVersion !== undefined) throw notFound(key);
        return { key, version: null, deleted: false };
      }
      await forgetIn(client, ns, key, expectedVersion ?? found.version);
      return { key, version: null, deleted: true };
    }
    const written: RememberResult = await rememberIn(this.#ctx, client, ns, {
      key,
      text: state.text,
      tags: state.tags,
      metadata: state.metadata,
      ...(expectedVersion !== undefined
        ? { expectedVersion }
        : found === undefined
          ? { ifAbsent: true }
          : { expectedVersion: found.version }),
    });
    return { key, version: written.version, deleted: false };
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
