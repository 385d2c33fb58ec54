/**
 * Refusals: the requests the server turns away for who sent them or how many (401, 403, a
 * namespace the token may not use, a read-only token's write, 429). Each is counted by reason
 * (the metrics) and logged at `warn` with the peer and the reason. A flood must not fill the
 * disk: each reason logs at most {@link REFUSAL_LINES_PER_SECOND} lines in any one second; the
 * rest are only counted, and one line says how many of each reason were left out, at most
 * every {@link SUPPRESSED_EVERY_MS} and when the server stops.
 */
import type { Logger } from "pino";

/** Why a request was refused; the `reason` label of the metrics and the logs' `refused`. */
export const REFUSAL_REASONS = [
  /** 401: no bearer token, or one the server does not know. */
  "unauthenticated",
  /** 403: a Host header the server does not answer to (DNS rebinding). */
  "host",
  /** 403: a browser page from an Origin not allowed. */
  "origin",
  /** A namespace the token may not use (answered as NOT_FOUND). */
  "namespace",
  /** A write with a read-only token (FORBIDDEN). */
  "read-only",
  /** 403: /metrics with a token not granted `metrics`. */
  "metrics",
  /** 429: more new sessions a second than one token may open. */
  "new-sessions",
  /** 429: more requests in flight than one token may have. */
  "in-flight",
  /** 429: more connections than one address may hold open. */
  "connections",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The refusals that are rate limits (429) rather than a matter of who may do what. */
export const RATE_LIMIT_REASONS: ReadonlySet<RefusalReason> = new Set([
  "new-sessions",
  "in-flight",
  "connections",
]);

/** Each reason's log line. */
const MESSAGES: Readonly<Record<RefusalReason, string>> = {
  unauthenticated: "refused: no valid bearer token",
  host: "refused: a Host header this server does not answer to",
  origin: "refused: a browser page from an Origin not allowed",
  namespace: "refused: a namespace this token may not use",
  "read-only": "refused: a write with a read-only token",
  metrics: "refused: /metrics with a token not granted metrics",
  "new-sessions": "refused: too many new sessions from this token",
  "in-flight": "refused: too many requests in flight from this token",
  connections: "refused: too many connections from this address",
};

/** Most lines one reason logs in any one second. */
export const REFUSAL_LINES_PER_SECOND = 5;
/** Longest a count of lines left out waits before it is logged, in ms. */
export const SUPPRESSED_EVERY_MS = 10_000;

/** One refusal, as its log line shows it. */
export interface Refusal {
  readonly reason: RefusalReason;
  /** The client's address (HTTP). */
  readonly peer?: string | undefined;
  /** The HTTP status answered. */
  readonly status?: number | undefined;
  /** The token's name, when it was known (a namespace refused to it). */
  readonly token?: string | undefined;
  readonly namespace?: string | undefined;
  readonly requestId?: string | undefined;
}

export class RefusalLog {
  readonly #log: Logger;
  readonly #counted: ((reason: RefusalReason) => void) | undefined;
  readonly #now: () => number;
  /** Per reason: the second of its last line, and how many lines it logged in that second. */
  readonly #window = new Map<RefusalReason, { second: number; lines: number }>();
  /** Per reason: lines left out since the last count of them was logged. */
  readonly #suppressed = new Map<RefusalReason, number>();
  #timer: NodeJS.Timeout | undefined;

  /**
   * `counted` hears of every refusal, logged or not (the metrics); `now` is the clock in ms
   * (tests give their own).
   */
  constructor(
    log: Logger,
    counted?: (reason: RefusalReason) => void,
    now: () => number = () => performance.now(),
  ) {
    this.#log = log;
    this.#counted = counted;
    this.#now = now;
  }

  /** Counts `refusal` and logs it, unless its reason is over its lines this second. */
  refused(refusal: Refusal): void {
    this.#counted?.(refusal.reason);
    const second = Math.floor(this.#now() / 1000);
    const window = this.#window.get(refusal.reason);
    if (window === undefined || window.second !== second) {
      this.#window.set(refusal.reason, { second, lines: 1 });
    } else if (window.lines < REFUSAL_LINES_PER_SECOND) {
      window.lines++;
    } else {
      this.#suppressed.set(refusal.reason, (this.#suppressed.get(refusal.reason) ?? 0) + 1);
      this.#timer ??= setTimeout(() => this.flush(), SUPPRESSED_EVERY_MS).unref();
      return;
    }
    this.#log.warn(
      {
        refused: refusal.reason,
        status: refusal.status,
        peer: refusal.peer,
        token: refusal.token,
        namespace: refusal.namespace,
        request_id: refusal.requestId,
      },
      MESSAGES[refusal.reason],
    );
  }

  /** Logs how many lines of each reason were left out since the last such line, if any. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#suppressed.size === 0) return;
    const suppressed = Object.fromEntries(this.#suppressed);
    const total = [...this.#suppressed.values()].reduce((sum, n) => sum + n, 0);
    this.#suppressed.clear();
    this.#log.warn(
      { suppressed },
      `left out ${total} refusal lines: each reason logs at most ${REFUSAL_LINES_PER_SECOND} a second`,
    );
  }
}
