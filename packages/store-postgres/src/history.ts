/**
 * The history of memory files on PostgreSQL: rows written by a trigger in each write's own
 * transaction (schema.ts), which also keeps texts as splices and the history within its byte
 * budget (migration 6, as @hms/store's history-delta.ts and history-budget.ts on SQLite); read,
 * restored and pruned here with the same answers and refusals as @hms/store's history.ts. The
 * attribution of `attributed(who, body)` lives in an AsyncLocalStorage, so it follows `body`'s
 * asynchronous calls into their transactions.
 */
import type {
  Attribution,
  DropReason,
  FileRestoreResult,
  HistoryApi,
  HistoryDrop,
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
  type StoredText,
  textSteps,
} from "@hms/store/internal";
import { attribution, type Client, head, type PgContext } from "./context.js";
import { forgetIn, rememberIn } from "./records.js";
import { readText } from "./text.js";

const ENTRY_COLUMNS = "seq, key, op, from_key, version, hash, bytes, at, actor, command";
const STORED_COLUMNS = "stored, text, text_json, base, head, tail";
const VERSION_COLUMNS = `${ENTRY_COLUMNS}, tags, metadata, ${STORED_COLUMNS}`;

/** A row as far as its text goes: a whole text read back from its stored form. */
type TextRow = StoredText & { text_json: boolean };

interface VersionRow extends Omit<HistoryVersion, "metadata" | "text">, TextRow {
  metadata: string;
}

/** The text of `row` (following its splices, on `client`), or undefined if it cannot be read. */
async function textOf(client: Client, ns: number, row: TextRow): Promise<string | undefined> {
  const whole = (found: TextRow): TextRow =>
    found.stored === "full" ? { ...found, text: readText(found.text, found.text_json) } : found;
  return await runAsync(
    textSteps(whole(row), {
      async row(seq) {
        const { rows } = await client.query<TextRow>(
          `SELECT key, version, hash, ${STORED_COLUMNS} FROM hms_memory_history
           WHERE ns = $1 AND seq = $2`,
          [ns, seq],
        );
        return rows[0] === undefined ? undefined : whole(rows[0]);
      },
      async live(key, version, hash) {
        const { rows } = await client.query<{ text: string; text_json: boolean }>(
          `SELECT text, text_json FROM hms_memories
           WHERE ns = $1 AND key = $2 AND version = $3 AND hash = $4`,
          [ns, key, version, hash],
        );
        return rows[0] === undefined ? undefined : readText(rows[0].text, rows[0].text_json);
      },
    }),
  );
}

/** A row as a version, or undefined when its text cannot be read. */
async function toVersion(client: Client, ns: number, row: VersionRow) {
  const text = await textOf(client, ns, row);
  if (text === undefined) return undefined;
  const {
    stored: _stored,
    text_json: _json,
    base: _base,
    head: _head,
    tail: _tail,
    ...entry
  } = row;
  return {
    ...entry,
    text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  } satisfies HistoryVersion;
}

/** What the namespace's history has dropped, per reason, most recent first. */
async function droppedIn(client: Client, ns: number): Promise<HistoryDrop[]> {
  const { rows } = await client.query<HistoryDrop>(
    `SELECT reason, changes, through, at FROM hms_history_dropped
     WHERE ns = $1 ORDER BY at DESC, reason`,
    [ns],
  );
  return rows;
}

const TOUCHES = "(key = $2 OR from_key = $2)";

/**
 * A restore's attribution: `actor`, and the command an enclosing call named (the inspector's
 * or hms's restore), else `restore`.
 */
function restoring(actor: string | undefined): Attribution {
  return { actor, command: attribution.getStore()?.command ?? "restore" };
}

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
    return await this.attributed(restoring(options.actor), () =>
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
    return await this.attributed(restoring(options.actor), () =>
      this.#ctx.write((client, ns) =>
        runAsync(restoreTreeSteps(restoreWrites(this.#ctx, client, ns), checked, time)),
      ),
    );
  }

  async prune(options: {
    keepVersions?: number | undefined;
    keepDays?: number | undefined;
    maxBytes?: number | undefined;
    limit?: number | undefined;
  }) {
    const limit = checkInteger(options.limit ?? 500, "limit", 1, 100_000);
    const days =
      options.keepDays === undefined
        ? undefined
        : checkInteger(options.keepDays, "keepDays", 0, 1_000_000);
    const keep =
      options.keepVersions === undefined
        ? undefined
        : checkInteger(options.keepVersions, "keepVersions", 1, 1_000_000);
    const maxBytes =
      options.maxBytes === undefined
        ? undefined
        : checkInteger(options.maxBytes, "maxBytes", 1, Number.MAX_SAFE_INTEGER);
    if ((await this.#ctx.id()) === undefined) return 0;
    return await this.#ctx.write(async (client, ns) => {
      let deleted = 0;
      if (days !== undefined) {
        const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
        const { rows } = await client.query<SeqAt>(
          `SELECT seq, at FROM hms_memory_history WHERE ns = $1 AND at < $2 ORDER BY at LIMIT $3`,
          [ns, cutoff, limit],
        );
        deleted += await dropRows(client, ns, "days", rows);
      }
      if (keep !== undefined && deleted < limit) {
        const { rows } = await client.query<SeqAt>(
          `SELECT seq, at FROM (
             SELECT seq, at, row_number() OVER (PARTITION BY key ORDER BY seq DESC) AS n
             FROM hms_memory_history WHERE ns = $1) AS ranked
           WHERE n > $2 LIMIT $3`,
          [ns, keep, limit - deleted],
        );
        deleted += await dropRows(client, ns, "versions", rows);
      }
      if (maxBytes !== undefined && deleted < limit) {
        const { rows } = await client.query<{ dropped: number | null }>(
          `SELECT hms_drop_oldest_history($1, least(excess, 16777216), 'bytes', $3) AS dropped
           FROM (SELECT history_bytes - greatest($2::bigint, live_bytes) AS excess
                 FROM hms_namespaces WHERE id = $1) AS usage
           WHERE excess > 0`,
          [ns, maxBytes, limit - deleted],
        );
        deleted += rows[0]?.dropped ?? 0;
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
    const empty: HistoryPage = { entries: [], next_before: null, dropped: [] };
    return await this.#ctx.read(empty, async (client, ns) => {
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
      return {
        entries: rows,
        next_before: more && last ? last.seq : null,
        dropped: await droppedIn(client, ns),
      };
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
  return rows[0] === undefined ? undefined : await toVersion(client, ns, rows[0]);
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
    if (before.op === "delete" || before.key !== key) return null;
    // A version whose text cannot be read (a row it needs is gone) is not known either.
    return (await toVersion(client, ns, before)) ?? "unknown";
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

/** A row's place and time, as pruning selects them. */
interface SeqAt {
  seq: number;
  at: string;
}

/** Deletes `rows` (and the older rows kept as splices of them), recording them as dropped. */
async function dropRows(client: Client, ns: number, reason: DropReason, rows: SeqAt[]) {
  if (rows.length === 0) return 0;
  let through = "";
  for (const row of rows) if (row.at > through) through = row.at;
  // The trigger counts every row deleted, cascades included.
  const kept = async () =>
    (
      await client.query<{ rows: number }>(
        "SELECT history_rows AS rows FROM hms_namespaces WHERE id = $1",
        [ns],
      )
    ).rows[0]?.rows ?? 0;
  const before = await kept();
  await client.query("DELETE FROM hms_memory_history WHERE ns = $1 AND seq = ANY ($2::bigint[])", [
    ns,
    rows.map((row) => row.seq),
  ]);
  const dropped = before - (await kept());
  await client.query("SELECT hms_record_drop($1, $2, $3, $4)", [ns, reason, dropped, through]);
  return dropped;
}
