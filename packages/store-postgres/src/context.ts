/**
 * What one namespace's operations share on PostgreSQL: the pool, the limits, the namespace's
 * row, and the two ways to touch the database. A write is one transaction that first locks
 * the namespace's row (so a namespace's writes serialize, as SQLite's writes to one store file
 * do, and every check a write makes holds until it commits) and sets the history's
 * attribution; a read is one statement, and answers a namespace that does not exist as empty.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Attribution, Limits } from "@hms/store";
import { prefixSuccessor } from "@hms/store";
import type pg from "pg";
import { type Client, read, transaction } from "./connection.js";
import type { PgEmbeddings } from "./vectors.js";

export type { Client } from "./connection.js";

/** The attribution of the writes made inside `history.attributed(who, body)`. */
export const attribution = new AsyncLocalStorage<Attribution>();

/** Finds or creates namespace rows (the engine, which applies the namespace limit). */
export interface NamespaceRows {
  /** The id of `name`, or undefined when it does not exist. */
  find(name: string): Promise<number | undefined>;
  /** The id of `name`, creating the namespace if needed. */
  ensure(name: string): Promise<number>;
}

export class PgContext {
  readonly pool: pg.Pool;
  readonly limits: Limits;
  readonly name: string;
  /** The history's byte budget (`PgEngineOptions.historyBytes`; 0: none). */
  readonly historyBytes: number;
  readonly #rows: NamespaceRows;
  #id: number | undefined;

  /** Hybrid recall's side of the engine, when it runs with an embedding model. */
  readonly embeddings: PgEmbeddings | undefined;

  constructor(
    pool: pg.Pool,
    limits: Limits,
    name: string,
    rows: NamespaceRows,
    historyBytes: number,
    id?: number,
    embeddings?: PgEmbeddings,
  ) {
    this.historyBytes = historyBytes;
    this.embeddings = embeddings;
    this.pool = pool;
    this.limits = limits;
    this.name = name;
    this.#rows = rows;
    this.#id = id;
  }

  /** The namespace's id, or undefined while it does not exist (found once, then kept). */
  async id(): Promise<number | undefined> {
    this.#id ??= await this.#rows.find(this.name);
    return this.#id;
  }

  /** Runs one read on a pooled connection; `empty` answers for a namespace that does not exist. */
  async read<T>(empty: T, body: (client: Client, ns: number) => Promise<T>): Promise<T> {
    const ns = await this.id();
    if (ns === undefined) return empty;
    return await read(this.pool, (client) => body(client, ns));
  }

  /**
   * Runs `body` as one write transaction of this namespace (created if needed): the
   * namespace's row locked, the attribution of the enclosing `history.attributed` set, and
   * the history's byte budget, which the history's trigger keeps (schema migration 6).
   */
  async write<T>(body: (client: Client, ns: number) => Promise<T>): Promise<T> {
    this.#id ??= await this.#rows.ensure(this.name);
    const ns = this.#id;
    const who = attribution.getStore();
    return await transaction(this.pool, async (client) => {
      await client.query(
        `SELECT set_config('hms.actor', $2, true), set_config('hms.command', $3, true),
           set_config('hms.history_bytes', $4, true)
         FROM hms_namespaces WHERE id = $1 FOR UPDATE`,
        [ns, who?.actor ?? "", who?.command ?? "", String(this.historyBytes)],
      );
      return await body(client, ns);
    });
  }
}

/**
 * Takes `n` new versions from the namespace's clock (inside its write transaction) and returns
 * the first; the others follow it. Every value is above every version the namespace ever had.
 */
export async function nextVersions(client: Client, ns: number, n: number): Promise<number> {
  const { rows } = await client.query<{ clock: number }>(
    "UPDATE hms_namespaces SET clock = clock + $2 WHERE id = $1 RETURNING clock",
    [ns, n],
  );
  return (rows[0] as { clock: number }).clock - n + 1;
}

/** What a statement selects memories by (`after`: a page's cursor, keys after it). */
export interface Selected {
  readonly prefix?: string | undefined;
  readonly tag?: string | undefined;
  readonly after?: string | null | undefined;
  /** Last changed at or after this (`YYYY-MM-DDTHH:MM:SS.sssZ`, as updated_at is written). */
  readonly modifiedAfter?: string | undefined;
  /** Last changed before this (same form). */
  readonly modifiedBefore?: string | undefined;
}

/** A selection's SQL condition on `m` (a memory), its parameters appended to `params`. */
export function whereOf(params: unknown[], selection: Selected): string {
  const parts = ["m.ns = $1"];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const { prefix, tag, after } = selection;
  if (prefix) {
    parts.push(`m.key >= ${add(prefix)}`);
    const hi = prefixSuccessor(prefix);
    if (hi !== undefined) parts.push(`m.key < ${add(hi)}`);
  }
  if (tag !== undefined) parts.push(`m.tags @> ARRAY[${add(tag)}]::text[]`);
  if (after !== undefined && after !== null) parts.push(`m.key > ${add(after)}`);
  parts.push(...timeConditions("m", add, selection));
  return parts.join(" AND ");
}

/**
 * The conditions of a time range on the memory `alias` (none without one). updated_at is text
 * of one fixed width in the "C" collation, so text order is time order.
 */
export function timeConditions(
  alias: string,
  add: (value: unknown) => string,
  range: {
    readonly modifiedAfter?: string | undefined;
    readonly modifiedBefore?: string | undefined;
  },
): string[] {
  const parts: string[] = [];
  if (range.modifiedAfter !== undefined) {
    parts.push(`${alias}.updated_at >= ${add(range.modifiedAfter)}`);
  }
  if (range.modifiedBefore !== undefined) {
    parts.push(`${alias}.updated_at < ${add(range.modifiedBefore)}`);
  }
  return parts;
}

/** What a write checks before it changes a memory. */
export interface Head {
  id: number;
  version: number;
  tags: string[];
  metadata: string;
}

export async function head(client: Client, ns: number, key: string): Promise<Head | undefined> {
  const { rows } = await client.query<Head>(
    "SELECT id, version, tags, metadata FROM hms_memories WHERE ns = $1 AND key = $2",
    [ns, key],
  );
  return rows[0];
}

/** The first key (in key order) that starts with `key/`, if any. */
export async function firstUnder(
  client: Client,
  ns: number,
  key: string,
): Promise<string | undefined> {
  const params: unknown[] = [ns];
  const where = whereOf(params, { prefix: `${key}/` });
  const { rows } = await client.query<{ key: string }>(
    `SELECT m.key FROM hms_memories m WHERE ${where} ORDER BY m.key LIMIT 1`,
    params,
  );
  return rows[0]?.key;
}

/** The records whose key starts with `prefix`, in key order. */
export async function headsUnder(
  client: Client,
  ns: number,
  prefix: string,
): Promise<(Head & { key: string })[]> {
  const params: unknown[] = [ns];
  const where = whereOf(params, { prefix });
  const { rows } = await client.query<Head & { key: string }>(
    `SELECT m.id, m.key, m.version, m.tags, m.metadata FROM hms_memories m
     WHERE ${where} ORDER BY m.key`,
    params,
  );
  return rows;
}
