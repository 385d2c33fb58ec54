/**
 * What every connection of a server shares: the namespaces' stores, the embedding model of
 * hybrid recall, the calls in flight. Opened once from the configuration; each call reaches
 * its namespace's store through it.
 */
import {
  type Awaitable,
  DEFAULT_LIMITS,
  EmbeddingModelMismatchError,
  isStoreError,
  type Limits,
  Namespaces,
  type StoreApi,
  type StoreEngine,
} from "@hms/store";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "pino";
import { ALL_ACCESS, type Grant } from "../auth/tokens.js";
import {
  type Config,
  ConfigError,
  type DatabaseConfig,
  DEFAULT_KEEP_MIB,
  DEFAULT_KEEP_VERSIONS,
  DEFAULT_RECALL_WAIT_MS,
} from "../config/config.js";
import { ToolError } from "../errors.js";
import { HistoryRetention, historyDropLogger, MIB } from "../history/retention.js";
import { closeLogger } from "../log.js";
import { type Announcements, ChangeHub } from "../notify/hub.js";
import { type Observer, openObserver } from "../observe/observer.js";
import type { Semantic } from "../semantic/semantic.js";
import { type StorePlace, storePlace } from "../tools/store-place.js";
import { SERVER_INFO } from "../version.js";
import { BUSY_WAIT_MS } from "./busy.js";
import { CallTracker } from "./call-tracker.js";
import { after, isClosed } from "./engines.js";
import { FairQueue, type FairQueueOptions } from "./fair-queue.js";
import { ReadLog } from "./read-log.js";
import type { Readiness } from "./readiness.js";
import { upgradeLogger } from "./upgrade-log.js";

/** The part of the server every connection shares. */
export interface Runtime {
  /** Where the namespaces live: SQLite files (`Namespaces`) or a PostgreSQL database. */
  readonly engine: StoreEngine;
  /** Whether the engine can serve calls now (`/readyz`). */
  readiness(): Promise<Readiness>;
  /** The size limits every store of the server applies (`stats` reports them). */
  readonly limits: Limits;
  /** The namespace of calls that name none. */
  readonly namespace: string;
  /** Whether tools take a `namespace` argument. */
  readonly namespaceArg: boolean;
  /** False with --no-create: a write to a namespace that does not exist is refused. */
  readonly create: boolean;
  /** Whether `namespace` has a store (a namespace nothing was written to has none). */
  exists(namespace: string): Awaitable<boolean>;
  readonly server: { readonly name: string; readonly version: string };
  readonly log: Logger;
  /** Where each request's access line goes: `log`, or a logger of its own (log.ts). */
  readonly accessLog: Logger;
  /** Tracks each request that touches a store, and refuses them once the server is stopping. */
  readonly calls: CallTracker;
  /** The fair order in which the tool calls of different clients run. */
  readonly scheduler: FairQueue;
  /** Hybrid recall's model and indexer, when the server runs with --model-dir. */
  readonly semantic: Semantic | undefined;
  /** Prunes the history of open stores to --keep-versions and --keep-days. */
  readonly retention: HistoryRetention;
  /** Writes the reads the stores noted, for `unused`. */
  readonly reads: ReadLog;
  /** How long a call waits for another process's lock on a store (--busy-timeout), in ms. */
  readonly busyTimeoutMs: number;
  /** Where connections hear of changes to memory files, whoever made them (notify/). */
  readonly changes: ChangeHub;
  /** Most resource subscriptions one connection holds (--max-subscriptions). */
  readonly maxSubscriptions: number | undefined;
  /** Which data directory or database this is (`stats` tells it, see tools/store-place.ts). */
  readonly place: StorePlace;
  /** The metrics (when on) and the log of refusals (observe/). */
  readonly observe: Observer;
}

/**
 * Opens the runtime of `config`: loads the embedding model when there is one (hybrid recall)
 * and opens the default namespace's store, so a broken data directory fails here, not at the
 * first call. Throws ConfigError when the model cannot be loaded or the store's vectors come
 * from another model.
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  accessLog: Logger = log,
): Promise<Runtime> {
  let semantic: Semantic | undefined;
  if (config.modelDir !== undefined) {
    // Hybrid recall's code (the worker thread's client, the indexer) is loaded only with a model:
    // a lexical server starts without it.
    const [{ Semantic }, { ModelUnavailableError }] = await Promise.all([
      import("../semantic/semantic.js"),
      import("../semantic/worker-client.js"),
    ]);
    try {
      semantic = await Semantic.start({
        modelDir: config.modelDir,
        model: config.model,
        workers: config.embedWorkers,
        threads: config.embedThreads,
        runtime: config.embedRuntime,
        reembed: config.reembed ?? false,
        recallWaitMs: config.recallWaitMs ?? DEFAULT_RECALL_WAIT_MS,
        log,
      });
    } catch (error) {
      if (error instanceof ModelUnavailableError) {
        throw new ConfigError(`--model-dir ${config.modelDir}: ${error.message}`);
      }
      throw error;
    }
    log.info(
      {
        model: semantic.modelId,
        modelDir: config.modelDir,
        workers: semantic.workers,
        runtime: semantic.runtime,
      },
      "hybrid recall: model loaded",
    );
  }
  const retention = new HistoryRetention(
    {
      keepVersions: config.keepVersions ?? DEFAULT_KEEP_VERSIONS,
      keepDays: config.keepDays ?? 0,
      keepMib: config.keepMib ?? DEFAULT_KEEP_MIB,
    },
    log,
  );
  const reads = new ReadLog(log);
  let opened: Opened;
  try {
    opened =
      config.database === undefined
        ? openSqlite(config, { semantic, retention, reads, log })
        : await openPostgresEngine(config, semantic, log);
  } catch (error) {
    await retention.stop();
    reads.stop();
    await semantic?.close();
    throw error;
  }
  const { announcements, ...engine } = opened;
  let observe: Observer | undefined;
  const scheduler = new FairQueue({
    ...schedulerOptions(config),
    onWait: (ms) => observe?.meter?.queueWaited(ms),
  });
  try {
    observe = await openObserver(config.metrics, config.transport, {
      engine: opened.engine,
      scheduler,
      semantic: semantic === undefined ? undefined : { backlog: () => semantic.backlog() },
      version: SERVER_INFO.version,
      log,
    });
  } catch (error) {
    await retention.stop();
    reads.stop();
    await semantic?.close();
    await opened.engine.close();
    throw error;
  }
  return {
    ...engine,
    changes: new ChangeHub({ engine: opened.engine, log, announcements }),
    maxSubscriptions: config.maxSubscriptions,
    limits: { ...DEFAULT_LIMITS, maxTextBytes: config.maxTextBytes },
    namespace: config.namespace,
    namespaceArg: config.namespaceArg,
    create: config.noCreate !== true,
    server: SERVER_INFO,
    log,
    accessLog,
    calls: new CallTracker(),
    scheduler,
    semantic,
    retention,
    reads,
    busyTimeoutMs: config.busyTimeoutMs,
    place: storePlace({ dataDir: config.dataDir, databaseUrl: config.database?.url }),
    observe,
  };
}

/**
 * An engine opened: the engine, its readiness, how it knows that a namespace exists, and (on
 * PostgreSQL) how its replicas tell each other of changes.
 */
interface Opened {
  engine: StoreEngine;
  readiness: () => Promise<Readiness>;
  exists: (namespace: string) => Awaitable<boolean>;
  announcements?: Announcements;
}

/** Most tool calls one client may have waiting to run; the next gets UNAVAILABLE. */
export const MAX_QUEUED_CALLS_PER_CLIENT = 1024;

/**
 * How many tool calls run at once. On SQLite a call holds the event loop until its answer
 * (what waits, hybrid recall's embedding or another process's lock, waits without holding
 * anything shared), so no bound is needed. On PostgreSQL a call holds one of the pool's
 * connections until it settles: all of them may run at once, and one client at most a
 * quarter of them (at least one), so one busy client leaves most of the pool to the others,
 * and when several are busy a quiet client's call is the next to get a connection that frees.
 */
export function schedulerOptions(config: Config): FairQueueOptions {
  const pool = config.database?.poolSize;
  return {
    concurrency: pool ?? Number.POSITIVE_INFINITY,
    perFlowConcurrency:
      pool === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(pool / 4)),
    maxQueuedPerFlow: MAX_QUEUED_CALLS_PER_CLIENT,
  };
}

/**
 * The SQLite engine: one file per namespace in the data directory. Opens the default
 * namespace's store, so a broken data directory fails at start, not at the first call; with
 * --no-create only when it exists, and then nothing is created, not even the data directory.
 */
function openSqlite(
  config: Config,
  watchers: {
    semantic: Semantic | undefined;
    retention: HistoryRetention;
    reads: ReadLog;
    log: Logger;
  },
): Opened {
  const { semantic, retention, reads, log } = watchers;
  const namespaces = new Namespaces({
    dataDir: config.dataDir,
    maxTextBytes: config.maxTextBytes,
    maxOpen: config.maxOpenNamespaces,
    maxNamespaces: config.maxNamespaces,
    busyTimeoutMs: config.busyTimeoutMs,
    // Calls wait for a lock asynchronously (busy.ts): SQLite itself only briefly.
    busyWaitMs: BUSY_WAIT_MS,
    synchronous: config.synchronous,
    embeddings: semantic?.storeOptions,
    // A store made by an older version is upgraded at open, which can take long: say so.
    onUpgrade: upgradeLogger(log),
    historyBytes: (config.keepMib ?? DEFAULT_KEEP_MIB) * MIB,
    onHistoryDropped: historyDropLogger(log),
    onOpen: (name, store) => {
      semantic?.watch(name, store);
      retention.watch(name, store);
      reads.watch(name, store);
    },
  });
  try {
    if (config.noCreate !== true || namespaces.exists(config.namespace)) {
      namespaces.get(config.namespace);
    }
  } catch (error) {
    namespaces.close();
    if (error instanceof EmbeddingModelMismatchError) {
      throw new ConfigError(modelMismatchMessage(config.namespace, error));
    }
    if (isStoreError(error, "LIMIT_REACHED")) throw new ConfigError(error.message);
    throw new ConfigError(dataDirMessage(config, error));
  }
  // Ready while the default namespace's store opens (a data directory gone or unreadable is not).
  const readiness = async (): Promise<Readiness> => {
    try {
      return isClosed(namespaces.read(config.namespace))
        ? { ready: false, reason: "the store is closed" }
        : { ready: true };
    } catch {
      return { ready: false, reason: "the store cannot be opened" };
    }
  };
  return { engine: namespaces, readiness, exists: (name) => namespaces.exists(name) };
}

/**
 * The PostgreSQL engine (--database-url). Its module, and node-postgres with it, is loaded
 * only here: a SQLite server starts without them.
 */
async function openPostgresEngine(
  config: Config,
  semantic: Semantic | undefined,
  log: Logger,
): Promise<Opened> {
  const database = config.database as DatabaseConfig;
  const { openPostgres, postgresAnnouncements, postgresReadiness } = await import("./postgres.js");
  let engine: Awaited<ReturnType<typeof openPostgres>>;
  try {
    engine = await openPostgres(
      database,
      {
        maxTextBytes: config.maxTextBytes,
        maxNamespaces: config.maxNamespaces,
        historyBytes: (config.keepMib ?? DEFAULT_KEEP_MIB) * MIB,
        namespace: config.namespace,
        create: config.noCreate !== true,
        embeddings: semantic?.storeOptions,
      },
      log,
    );
  } catch (error) {
    if (error instanceof EmbeddingModelMismatchError) {
      throw new ConfigError(modelMismatchMessage(config.namespace, error));
    }
    throw error;
  }
  // Each replica runs one indexer on the database's shared queue.
  if (semantic !== undefined && engine.embeddings !== undefined) {
    semantic.watchDatabase(engine.embeddings);
  }
  return {
    engine,
    readiness: () => postgresReadiness(engine),
    exists: async (name) => (await engine.names()).includes(name),
    announcements: postgresAnnouncements(engine, database.url),
  };
}

/** Closes the model and the stores; call it once the runtime's calls have finished. */
export async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.observe.close();
  await runtime.changes.close();
  // A history pruning pass in flight ends before the stores close under it.
  await runtime.retention.stop();
  runtime.reads.stop();
  await runtime.semantic?.close();
  await runtime.engine.close();
  // The access lines still waiting are written before the server says it stopped.
  await closeLogger(runtime.accessLog);
}

/** Why the default namespace's store could not be opened at start, and what to do. */
function dataDirMessage(config: Config, error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  // No node:sqlite in this Node (20, or 22 with --no-experimental-sqlite): not the directory.
  // The store's message names the Node.js versions to use, from its `engines`.
  if (code === "ERR_UNKNOWN_BUILTIN_MODULE") {
    return `cannot open namespace ${config.namespace}: ${String(message)}`;
  }
  const text = String(message ?? error);
  const named = typeof code === "string" && !isStoreError(error) && !text.startsWith(code);
  const reason = `${named ? `${code}: ` : ""}${text}`;
  return (
    `cannot open namespace ${config.namespace} in the data directory ${config.dataDir} ` +
    `(${reason.split("\n")[0]}); choose a directory this user can write with --data-dir ` +
    "(HMS_MCP_DATA_DIR), or fix its permissions"
  );
}

/** The grant of a request: what the HTTP layer attached to it, else all access (stdio). */
export function grantOf(extra: { authInfo?: AuthInfo | undefined }): Grant {
  return (extra.authInfo?.extra?.grant as Grant | undefined) ?? ALL_ACCESS;
}

/**
 * The store of `namespace` for a call of `grant`. A namespace the grant does not cover is
 * refused alike whether it exists or not (NOT_FOUND), so a token learns no other names; a
 * read-only grant's writes are refused (FORBIDDEN). Reads never create a namespace. A store
 * whose vectors another embedding model made cannot be served hybrid; the refusal says what
 * to do (a server-side configuration matter: INTERNAL). Under --no-create a write to a
 * namespace that does not exist is refused (NOT_FOUND).
 */
export function openStore(
  runtime: Runtime,
  namespace: string,
  access: { readonly grant: Grant; readonly write: boolean },
): Awaitable<StoreApi> {
  if (!access.grant.allows(namespace)) {
    throw new ToolError(
      "NOT_FOUND",
      `namespace ${namespace} does not exist or this token may not use it`,
      { namespace },
    );
  }
  if (access.write && access.grant.readOnly) {
    throw new ToolError(
      "FORBIDDEN",
      `token ${access.grant.name} is read-only: it may read namespace ${namespace} but not ` +
        "change it; use a read-write token to write",
    );
  }
  if (access.write && !runtime.create) {
    return after(runtime.exists(namespace), (exists) => {
      if (!exists) {
        throw new ToolError(
          "NOT_FOUND",
          `namespace ${namespace} does not exist, and this server creates none (--no-create): ` +
            "write with a server started without --no-create",
          { namespace },
        );
      }
      return storeOf(runtime, namespace, access.write);
    });
  }
  return storeOf(runtime, namespace, access.write);
}

/** The store of `namespace`: a write's (created if needed) or a read's. */
function storeOf(runtime: Runtime, namespace: string, write: boolean): Awaitable<StoreApi> {
  try {
    const store = write ? runtime.engine.get(namespace) : runtime.engine.read(namespace);
    if (runtime.engine.kind === "sqlite") return store;
    // SQLite's Namespaces reports each store it opens (onOpen); another engine's stores are
    // watched as calls reach them (both watchers keep one store per namespace).
    const watched = after(store, (opened) => {
      runtime.retention.watch(namespace, opened);
      runtime.reads.watch(namespace, opened);
      return opened;
    });
    // On PostgreSQL the model is checked when a namespace is first reached (a promise).
    return watched instanceof Promise
      ? watched.catch((error: unknown) => {
          throw mismatchError(namespace, error);
        })
      : watched;
  } catch (error) {
    throw mismatchError(namespace, error);
  }
}

/** A namespace holding another model's vectors as the caller sees it; other errors as they are. */
function mismatchError(namespace: string, error: unknown): unknown {
  return error instanceof EmbeddingModelMismatchError
    ? new ToolError("INTERNAL", modelMismatchMessage(namespace, error))
    : error;
}

/** What to say when a namespace's vectors come from another model. */
function modelMismatchMessage(namespace: string, error: EmbeddingModelMismatchError): string {
  return (
    `namespace ${namespace} holds vectors made by the embedding model ${error.stored}, and this ` +
    `server runs ${error.requested}; vectors of two models cannot be compared, so it is not ` +
    `served. Run hms-mcp with ${error.stored}'s model directory, or restart it with --reembed ` +
    `to replace every vector of the namespace with ${error.requested}'s (its memories are ` +
    "ranked lexically until they are re-embedded)."
  );
}
