/**
 * `PgStore`, one namespace's store on PostgreSQL: the same calls, answers and refusals as
 * @hms/store's `MemoryStore`, each a promise. Writes are one transaction each, serialized per
 * namespace by a lock on the namespace's row (context.ts); the modules beside this one hold
 * the operations.
 */
import type {
  ExportPage,
  ListPage,
  MemoryRecord,
  PageOptions,
  RecallOptions,
  RecallResult,
  RememberInput,
  RememberResult,
  SearchHit,
  SearchOptions,
  StoreApi,
  StoreStats,
} from "@hms/store";
import { PgAccess } from "./access.js";
import { PgChanges } from "./changes.js";
import type { PgContext } from "./context.js";
import { PgHistory } from "./history.js";
import { queueCounts, queuedIds } from "./queue.js";
import { recall } from "./recall.js";
import { exportPage, forget, get, list, load, remember, rememberMany } from "./records.js";
import { SCHEMA_VERSION } from "./schema.js";
import { search } from "./search.js";
import { forgetPrefix, forgetTree, move, movePrefix, moveTree } from "./tree.js";

export class PgStore implements StoreApi {
  readonly engine = "postgres" as const;
  readonly history: PgHistory;
  readonly access: PgAccess;
  readonly changes: PgChanges;
  readonly #ctx: PgContext;

  /** @internal Made by `PgEngine.get` and `read`. */
  constructor(ctx: PgContext) {
    this.#ctx = ctx;
    this.history = new PgHistory(ctx);
    this.access = new PgAccess(ctx);
    this.changes = new PgChanges(ctx);
  }

  /** The namespace this store serves. */
  get namespace(): string {
    return this.#ctx.name;
  }

  get limits() {
    return this.#ctx.limits;
  }

  remember(input: RememberInput): Promise<RememberResult> {
    return remember(this.#ctx, input);
  }

  rememberMany(inputs: readonly RememberInput[]): Promise<RememberResult[]> {
    return rememberMany(this.#ctx, inputs);
  }

  get(key: string): Promise<MemoryRecord | undefined> {
    return get(this.#ctx, key);
  }

  list(options: PageOptions = {}): Promise<ListPage> {
    return list(this.#ctx, options);
  }

  export(options: PageOptions = {}): Promise<ExportPage> {
    return exportPage(this.#ctx, options);
  }

  forget(
    key: string,
    options: { expectedVersion?: number | undefined } = {},
  ): Promise<{ deleted: number }> {
    return forget(this.#ctx, key, options);
  }

  forgetPrefix(prefix: string): Promise<{ deleted: number }> {
    return forgetPrefix(this.#ctx, prefix);
  }

  forgetTree(key: string): Promise<{ deleted: number }> {
    return forgetTree(this.#ctx, key);
  }

  move(
    from: string,
    to: string,
    options: { expectedVersion?: number | undefined } = {},
  ): Promise<{ moved: number }> {
    return move(this.#ctx, from, to, options);
  }

  movePrefix(fromPrefix: string, toPrefix: string): Promise<{ moved: number }> {
    return movePrefix(this.#ctx, fromPrefix, toPrefix);
  }

  moveTree(from: string, to: string): Promise<{ moved: number }> {
    return moveTree(this.#ctx, from, to);
  }

  recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    return recall(this.#ctx, query, options);
  }

  search(text: string, options: SearchOptions = {}): Promise<{ hits: SearchHit[] }> {
    return search(this.#ctx, text, options);
  }

  load(records: readonly MemoryRecord[]): Promise<{ loaded: number }> {
    return load(this.#ctx, records);
  }

  async stats(): Promise<StoreStats> {
    const totals = await this.#ctx.read({ memories: 0, bytes: 0 }, async (client, ns) => {
      const { rows } = await client.query<{ memories: number; bytes: number }>(
        "SELECT count(*) AS memories, coalesce(sum(bytes), 0)::bigint AS bytes FROM hms_memories WHERE ns = $1",
        [ns],
      );
      return rows[0] ?? { memories: 0, bytes: 0 };
    });
    const embeddings = this.#ctx.embeddings;
    const recall =
      embeddings === undefined
        ? { build: "lexical" as const, model: null, pending: 0 }
        : {
            build: "hybrid" as const,
            model: embeddings.model.id,
            pending: (await this.embeddingCounts()).pending,
          };
    return { ...totals, schema_version: SCHEMA_VERSION, recall };
  }

  /** Hybrid recall: how many memories wait for vectors, and how many have them. */
  embeddingCounts(): Promise<{ pending: number; embedded: number }> {
    return this.#ctx.read({ pending: 0, embedded: 0 }, (client, ns) => queueCounts(client, ns));
  }

  /** Hybrid recall: the row ids of those of `keys` that wait for vectors. */
  queuedIds(keys: readonly string[]): Promise<number[]> {
    return this.#ctx.read([], (client, ns) => queuedIds(client, ns, keys));
  }
}
