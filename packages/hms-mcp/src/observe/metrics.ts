/**
 * The server's metrics through prom-client, in a registry of their own (two servers in one
 * process keep theirs apart). Loaded only when metrics are on (observer.ts imports it
 * dynamically), so a stdio server starts without prom-client.
 *
 * No label holds what a client chose freely: `tool` is one of the contract's names (else
 * "unknown"), `outcome` "ok" or an error code, `status` an HTTP status, `reason` a refusal
 * reason; a namespace name appears only under `--metrics-per-namespace`. Counting a call costs
 * two map lookups: each label set's child metric is kept.
 */
import type { StoreEngine } from "@hms/store";
import type { PgEngine } from "@hms/store-postgres";
import type { Logger } from "pino";
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type Histogram as HistogramType,
  Registry,
} from "prom-client";
import type { Meter } from "./meter.js";
import { RATE_LIMIT_REASONS, REFUSAL_REASONS, type RefusalReason } from "./refusals.js";
import { StoreTotals } from "./store-totals.js";

/** What the metrics read at each scrape. */
export interface MeterSources {
  readonly engine: StoreEngine;
  /** The fair order of tool calls: how many wait. */
  readonly scheduler: { readonly waiting: number };
  /** Hybrid recall's indexer, when the server has a model. */
  readonly semantic: { backlog(): Promise<number> } | undefined;
  /** Series per namespace (`--metrics-per-namespace`). */
  readonly perNamespace: boolean;
  /** How old the store's totals may be before a scrape counts them again, in ms. */
  readonly totalsRefreshMs: number;
  readonly version: string;
  readonly log: Logger;
}

/** Seconds a tool call takes: from half a millisecond (a get on SQLite) to a minute. */
const CALL_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];
/** Seconds a call waits for its turn: mostly nothing; long only when clients compete. */
const WAIT_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

export class PromMeter implements Meter {
  readonly #registry = new Registry();
  readonly #sources: MeterSources;
  readonly #totals: StoreTotals;
  readonly #connections = new Set<{ readonly size: number }>();
  readonly #calls: Counter<"tool" | "outcome">;
  readonly #callChildren = new Map<string, { inc(): void }>();
  readonly #durations: HistogramType<"tool">;
  readonly #durationChildren = new Map<string, { observe(value: number): void }>();
  readonly #http: Counter<"status">;
  readonly #httpChildren = new Map<number, { inc(): void }>();
  readonly #refusals: Counter<"reason">;
  readonly #rateLimited: Counter<"reason">;
  readonly #wait: HistogramType;
  readonly #diskFull: Counter;
  readonly #gauges: Record<string, Gauge>;
  readonly #totalsGauges: Record<string, Gauge>;
  #totalsRegistered = false;
  readonly #perNamespace: { bytes: Gauge<"namespace">; memories: Gauge<"namespace"> } | undefined;
  readonly #pool: { connections: Gauge<"state">; waiting: Gauge } | undefined;

  constructor(sources: MeterSources) {
    this.#sources = sources;
    this.#totals = new StoreTotals(sources.engine, sources.totalsRefreshMs, sources.log);
    const registers = [this.#registry];
    collectDefaultMetrics({ register: this.#registry });
    new Gauge({
      name: "hms_build_info",
      help: "Always 1: the running hms-mcp's version and store engine.",
      labelNames: ["version", "engine"],
      registers,
    }).set({ version: sources.version, engine: sources.engine.kind }, 1);
    this.#calls = new Counter({
      name: "hms_tool_calls_total",
      help: "Tool calls answered, by tool and outcome (ok, or the error code).",
      labelNames: ["tool", "outcome"],
      registers,
    });
    this.#durations = new Histogram({
      name: "hms_tool_call_duration_seconds",
      help: "Time from a tools/call's arrival to its answer, waiting for its turn included.",
      labelNames: ["tool"],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.#http = new Counter({
      name: "hms_http_requests_total",
      help: "HTTP responses sent by the MCP listener, by status.",
      labelNames: ["status"],
      registers,
    });
    this.#refusals = new Counter({
      name: "hms_auth_refusals_total",
      help: "Requests refused for who sent them: no or unknown token, Host, Origin, a namespace or write the token may not, metrics without the grant.",
      labelNames: ["reason"],
      registers,
    });
    this.#rateLimited = new Counter({
      name: "hms_rate_limited_total",
      help: "Requests refused with 429 for how many one client sent, by reason.",
      labelNames: ["reason"],
      registers,
    });
    // Every reason from zero, so a rate over them is defined before the first refusal.
    for (const reason of REFUSAL_REASONS) this.#counterOf(reason).inc({ reason }, 0);
    this.#wait = new Histogram({
      name: "hms_fair_queue_wait_seconds",
      help: "Time a tool call waited for its turn in the fair order between clients.",
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.#diskFull = new Counter({
      name: "hms_disk_full_total",
      help: "Writes refused because the disk holding the store was full (STORAGE_FULL).",
      registers,
    });
    const gauge = (name: string, help: string, into = registers) =>
      new Gauge({ name, help, registers: into });
    this.#gauges = {
      sessions: gauge(
        "hms_sessions",
        "MCP connections open: HTTP sessions, or 1 for a stdio pipe or an in-process link.",
      ),
      subscriptions: gauge("hms_subscriptions", "Resource subscriptions held by all connections."),
      waiting: gauge("hms_fair_queue_waiting", "Tool calls waiting for their turn now."),
      ...(sources.semantic === undefined
        ? {}
        : {
            backlog: gauge(
              "hms_embed_backlog",
              "Memories waiting to be embedded for hybrid recall (SQLite: in the stores this server has open; PostgreSQL: the database's queue).",
            ),
          }),
    };
    // Registered once a first count gave them values: a 0 before it would be a false figure.
    this.#totalsGauges = {
      namespaces: gauge("hms_namespaces", "Namespaces in the store (as of the last count).", []),
      memories: gauge("hms_memories", "Memories in all namespaces (as of the last count).", []),
      bytes: gauge(
        "hms_store_bytes",
        "UTF-8 bytes of the memories' texts in all namespaces (as of the last count).",
        [],
      ),
      age: gauge(
        "hms_store_totals_age_seconds",
        "How old the namespaces, memories and bytes figures are: counted again at a scrape once older than --metrics-totals-refresh.",
        [],
      ),
      ...(sources.engine.kind === "sqlite"
        ? {
            diskBytes: gauge(
              "hms_store_disk_bytes",
              "SQLite: the store files' size on disk, write-ahead logs included (as of the last count).",
              [],
            ),
          }
        : {}),
    };
    this.#perNamespace = sources.perNamespace
      ? {
          bytes: new Gauge({
            name: "hms_namespace_bytes",
            help: "UTF-8 bytes of one namespace's memories (as of the last count).",
            labelNames: ["namespace"],
            registers,
          }),
          memories: new Gauge({
            name: "hms_namespace_memories",
            help: "Memories in one namespace (as of the last count).",
            labelNames: ["namespace"],
            registers,
          }),
        }
      : undefined;
    this.#pool =
      sources.engine.kind === "postgres"
        ? {
            connections: new Gauge({
              name: "hms_pg_pool_connections",
              help: "PostgreSQL connections of this server's pool, in use or idle.",
              labelNames: ["state"],
              registers,
            }),
            waiting: gauge(
              "hms_pg_pool_waiting",
              "Queries waiting for a connection of this server's PostgreSQL pool.",
            ),
          }
        : undefined;
  }

  toolCall(tool: string, outcome: string, seconds: number): void {
    const key = `${tool}\0${outcome}`;
    let calls = this.#callChildren.get(key);
    if (calls === undefined) {
      calls = this.#calls.labels({ tool, outcome });
      this.#callChildren.set(key, calls);
    }
    calls.inc();
    let durations = this.#durationChildren.get(tool);
    if (durations === undefined) {
      durations = this.#durations.labels({ tool });
      this.#durationChildren.set(tool, durations);
    }
    durations.observe(seconds);
    if (outcome === "STORAGE_FULL") this.#diskFull.inc();
  }

  httpRequest(status: number): void {
    let counter = this.#httpChildren.get(status);
    if (counter === undefined) {
      counter = this.#http.labels({ status: String(status) });
      this.#httpChildren.set(status, counter);
    }
    counter.inc();
  }

  refused(reason: RefusalReason): void {
    this.#counterOf(reason).inc({ reason });
  }

  queueWaited(ms: number): void {
    this.#wait.observe(ms / 1000);
  }

  connection(subscriptions: { readonly size: number }): () => void {
    this.#connections.add(subscriptions);
    return () => this.#connections.delete(subscriptions);
  }

  async scrape(): Promise<{ contentType: string; text: string }> {
    await this.#readSources();
    return { contentType: this.#registry.contentType, text: await this.#registry.metrics() };
  }

  #counterOf(reason: RefusalReason): Counter<"reason"> {
    return RATE_LIMIT_REASONS.has(reason) ? this.#rateLimited : this.#refusals;
  }

  /** Sets the gauges that are read rather than counted. */
  async #readSources(): Promise<void> {
    const gauges = this.#gauges;
    gauges.sessions?.set(this.#connections.size);
    let subscriptions = 0;
    for (const connection of this.#connections) subscriptions += connection.size;
    gauges.subscriptions?.set(subscriptions);
    gauges.waiting?.set(this.#sources.scheduler.waiting);
    if (this.#pool !== undefined) {
      const pool = (this.#sources.engine as PgEngine).pool;
      this.#pool.connections.set({ state: "in_use" }, pool.totalCount - pool.idleCount);
      this.#pool.connections.set({ state: "idle" }, pool.idleCount);
      this.#pool.waiting.set(pool.waitingCount);
    }
    const [totals, backlog] = await Promise.all([
      this.#totals.current(),
      this.#sources.semantic?.backlog().catch(() => undefined),
    ]);
    if (backlog !== undefined) gauges.backlog?.set(backlog);
    if (totals === undefined) return;
    const figures = this.#totalsGauges;
    if (!this.#totalsRegistered) {
      this.#totalsRegistered = true;
      for (const figure of Object.values(figures)) this.#registry.registerMetric(figure);
    }
    figures.namespaces?.set(totals.namespaces);
    figures.memories?.set(totals.memories);
    figures.bytes?.set(totals.bytes);
    if (totals.diskBytes !== undefined) figures.diskBytes?.set(totals.diskBytes);
    figures.age?.set(Math.round(performance.now() - totals.at) / 1000);
    if (this.#perNamespace !== undefined) {
      // A namespace gone since the last count loses its series.
      this.#perNamespace.bytes.reset();
      this.#perNamespace.memories.reset();
      for (const summary of totals.each) {
        this.#perNamespace.bytes.set({ namespace: summary.name }, summary.bytes);
        this.#perNamespace.memories.set({ namespace: summary.name }, summary.memories);
      }
    }
  }
}
