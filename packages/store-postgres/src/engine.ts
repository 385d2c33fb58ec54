/**
 * `PgEngine`: every namespace of a server in one PostgreSQL database, through one pool.
 * Namespaces are rows (`hms_namespaces`); `get` creates one (within `maxNamespaces`), `read`
 * never creates anything.
 */
import {
  checkNamespace,
  DEFAULT_HISTORY_BYTES,
  DEFAULT_LIMITS,
  type EmbeddingModel,
  type Limits,
  MAX_TEXT_BYTES_CEILING,
  type NamespaceSummary,
  type StoreEngine,
  StoreError,
} from "@hms/store";
import { checkInteger } from "@hms/store/internal";
import type pg from "pg";
import { checkUrl, createPool, read, transaction } from "./connection.js";
import { type NamespaceRows, PgContext } from "./context.js";
import { migrate, type PgUpgradeEvent, schemaStatus } from "./schema.js";
import { PgStore } from "./store.js";
import { checkModel, claimModel, type DenseChoice, PgEmbeddings } from "./vectors.js";

export interface PgEngineOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** Largest text in UTF-8 bytes (default 32768). */
  readonly maxTextBytes?: number | undefined;
  /** Most namespaces the database may hold; creating one more is LIMIT_REACHED. */
  readonly maxNamespaces?: number | undefined;
  /**
   * The byte budget of each namespace's history of memory files (see @hms/store's
   * `StoreOptions.historyBytes`; 0: no bound). Default `DEFAULT_HISTORY_BYTES` (8 MiB).
   */
  readonly historyBytes?: number | undefined;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number | undefined;
  /** Bring the schema up to date on open (default true); else see `schemaStatus`. */
  readonly migrate?: boolean | undefined;
  /** Told what a migration on open does (the engine prints nothing itself). */
  readonly onUpgrade?: ((event: PgUpgradeEvent) => void) | undefined;
  /**
   * Hybrid recall: the embedding model whose vectors the namespaces hold (a namespace with
   * another model's vectors is refused, unless `reembed`). `dense`: where the nearest memories
   * come from, `auto` (default: pgvector's HNSW index when the server has the extension, else
   * the exact scan) or `exact`. See vectors.ts.
   */
  readonly embeddings?:
    | {
        readonly model: EmbeddingModel;
        readonly reembed?: boolean;
        /** Models whose namespaces are re-embedded on their own, as with `reembed` (an upgrade). */
        readonly replaces?: readonly string[] | undefined;
        readonly dense?: DenseChoice | undefined;
      }
    | undefined;
}

/** Key of the advisory lock under which a namespace is counted and created ("hms", 2). */
const CREATE_LOCK = [0x686d73, 2];

export class PgEngine implements StoreEngine {
  readonly kind = "postgres" as const;
  readonly limits: Limits;
  readonly pool: pg.Pool;
  readonly #maxNamespaces: number | undefined;
  readonly #historyBytes: number;
  readonly #stores = new Map<string, PgStore>();
  readonly #rows: NamespaceRows;
  /** Hybrid recall's side, with a model; the namespaces whose model this process checked. */
  readonly embeddings: PgEmbeddings | undefined;
  readonly #modelChecked = new Set<string>();

  private constructor(
    pool: pg.Pool,
    limits: Limits,
    maxNamespaces: number | undefined,
    historyBytes: number,
    embeddings: PgEmbeddings | undefined,
  ) {
    this.#historyBytes = historyBytes;
    this.embeddings = embeddings;
    this.pool = pool;
    this.limits = limits;
    this.#maxNamespaces = maxNamespaces;
    this.#rows = { find: (name) => this.#find(name), ensure: (name) => this.#ensure(name) };
  }

  /** Opens a pool on `options.url` and, unless told not to, migrates the schema. */
  static async open(options: PgEngineOptions): Promise<PgEngine> {
    const url = checkUrl(options.url);
    const maxTextBytes = checkInteger(
      options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes,
      "maxTextBytes",
      1,
      MAX_TEXT_BYTES_CEILING,
    );
    const maxNamespaces =
      options.maxNamespaces === undefined
        ? undefined
        : checkInteger(options.maxNamespaces, "maxNamespaces", 1, Number.MAX_SAFE_INTEGER);
    const poolSize = checkInteger(options.poolSize ?? 10, "poolSize", 1, 1000);
    const historyBytes = checkInteger(
      options.historyBytes ?? DEFAULT_HISTORY_BYTES,
      "historyBytes",
      0,
      Number.MAX_SAFE_INTEGER,
    );
    const model = options.embeddings;
    const embeddings = model === undefined ? undefined : checkModel(model.model);
    const pool = createPool(url, poolSize);
    try {
      if (options.migrate !== false) await migrate(pool, { onUpgrade: options.onUpgrade });
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    let hybrid: PgEmbeddings | undefined;
    try {
      hybrid =
        embeddings === undefined
          ? undefined
          : await PgEmbeddings.open(
              pool,
              embeddings,
              { reembed: model?.reembed === true, replaces: model?.replaces ?? [] },
              model?.dense,
            );
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return new PgEngine(
      pool,
      Object.freeze({ ...DEFAULT_LIMITS, maxTextBytes }),
      maxNamespaces,
      historyBytes,
      hybrid,
    );
  }

  /** The store of `namespace` for writes, creating the namespace if needed. */
  async get(namespace: string): Promise<PgStore> {
    const name = checkNamespace(namespace);
    const store = this.#store(name);
    const id = await this.#ensure(name);
    if (this.embeddings !== undefined && !this.#modelChecked.has(name)) {
      await this.#claimModel(this.embeddings, id, name);
      this.#modelChecked.add(name);
    }
    return store;
  }

  /** The store of `namespace` for reading: a namespace that does not exist reads as empty. */
  async read(namespace: string): Promise<PgStore> {
    return this.#store(checkNamespace(namespace));
  }

  async names(): Promise<string[]> {
    return await read(this.pool, async (client) => {
      const { rows } = await client.query<{ name: string }>(
        "SELECT name FROM hms_namespaces ORDER BY name",
      );
      return rows.map((row) => row.name);
    });
  }

  /** Every namespace, in name order, with its memories, their bytes and its last change. */
  async summaries(): Promise<NamespaceSummary[]> {
    return await read(this.pool, async (client) => {
      const { rows } = await client.query<{
        name: string;
        memories: string;
        bytes: string;
        updated_at: string | null;
      }>(
        `SELECT n.name, count(m.id) AS memories, coalesce(sum(m.bytes), 0) AS bytes,
                max(m.updated_at) AS updated_at
         FROM hms_namespaces n LEFT JOIN hms_memories m ON m.ns = n.id
         GROUP BY n.name ORDER BY n.name`,
      );
      // count and sum are bigint, which node-postgres gives as strings.
      return rows.map((row) => ({
        name: row.name,
        memories: Number(row.memories),
        bytes: Number(row.bytes),
        updated_at: row.updated_at,
      }));
    });
  }

  /** A cheap round trip, for readiness checks: throws UNAVAILABLE when the database is out of reach. */
  async ping(): Promise<void> {
    await read(this.pool, (client) => client.query("SELECT 1"));
  }

  /** The database's schema version and the one this code needs. */
  async schemaStatus(): Promise<{ current: number; required: number }> {
    return await schemaStatus(this.pool);
  }

  /** Ends the pool. The engine's stores answer no more calls. */
  async close(): Promise<void> {
    for (const store of this.#stores.values()) await store.access.flush().catch(() => {});
    await this.pool.end();
  }

  #store(name: string): PgStore {
    let store = this.#stores.get(name);
    if (store === undefined) {
      const ctx = new PgContext(
        this.pool,
        this.limits,
        name,
        this.#rows,
        this.#historyBytes,
        undefined,
        this.embeddings,
      );
      store = new PgStore(ctx);
      this.#stores.set(name, store);
    }
    return store;
  }

  /**
   * Records the engine's model as the namespace's (queuing its memories the first time), under
   * the namespace's row lock; refuses another model's namespace unless reembed.
   */
  async #claimModel(embeddings: PgEmbeddings, id: number, name: string): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query("SELECT 1 FROM hms_namespaces WHERE id = $1 FOR UPDATE", [id]);
      await claimModel(client, id, name, embeddings.model, embeddings.change);
    });
  }

  async #find(name: string): Promise<number | undefined> {
    return await read(this.pool, async (client) => {
      const { rows } = await client.query<{ id: number }>(
        "SELECT id FROM hms_namespaces WHERE name = $1",
        [name],
      );
      return rows[0]?.id;
    });
  }

  /** The id of `name`, creating it (within the namespace limit) if it does not exist. */
  async #ensure(name: string): Promise<number> {
    const found = await this.#find(name);
    if (found !== undefined) return found;
    return await transaction(this.pool, async (client) => {
      // Counting and creating under one lock: replicas creating namespaces together never
      // pass the limit between them.
      await client.query("SELECT pg_advisory_xact_lock($1, $2)", CREATE_LOCK);
      const existing = await client.query<{ id: number }>(
        "SELECT id FROM hms_namespaces WHERE name = $1",
        [name],
      );
      if (existing.rows[0] !== undefined) return existing.rows[0].id;
      const max = this.#maxNamespaces;
      if (max !== undefined) {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*) AS n FROM hms_namespaces",
        );
        if ((rows[0]?.n ?? 0) >= max) {
          throw new StoreError(
            "LIMIT_REACHED",
            `namespace ${name} cannot be created: this server holds its most namespaces (${max}, ` +
              "--max-namespaces); use an existing namespace, or ask the operator to raise the limit",
            { limit: max },
          );
        }
      }
      const { rows } = await client.query<{ id: number }>(
        "INSERT INTO hms_namespaces (name) VALUES ($1) RETURNING id",
        [name],
      );
      return (rows[0] as { id: number }).id;
    });
  }
}
