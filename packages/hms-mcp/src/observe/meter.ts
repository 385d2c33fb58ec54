/**
 * What the server tells its metrics, as an interface: the code that counts (the request
 * observer, the HTTP server, the fair queue) does not load prom-client, which only a server
 * with metrics on loads (metrics.ts).
 */
import type { RefusalReason } from "./refusals.js";

/** The metrics of one server. */
export interface Meter {
  /** A tools/call answered: the tool (a known name, or "unknown"), its outcome, its seconds. */
  toolCall(tool: string, outcome: string, seconds: number): void;
  /** An HTTP response sent, by its status. */
  httpRequest(status: number): void;
  /** A request refused (counted whether or not its log line was written). */
  refused(reason: RefusalReason): void;
  /** A tool call waited this long, in ms, for its turn in the fair order. */
  queueWaited(ms: number): void;
  /**
   * A connection opened (an HTTP session, a stdio pipe, an in-process link): it counts among
   * the sessions, and its subscriptions among the subscriptions, until the returned function
   * is called.
   */
  connection(subscriptions: { readonly size: number }): () => void;
  /** The metrics in Prometheus's text format, and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly text: string }>;
}
