/**
 * Telling the replicas of one database that a namespace's memory files changed: PostgreSQL's
 * LISTEN/NOTIFY on one channel, the namespace's name as the payload. A replica announces after
 * its write committed (`announce`); every replica listening (`ChangeChannel`) learns of it and
 * reads what changed from the history (`PgChanges`). A notification carries no data: a lost one
 * costs latency, never a wrong answer, and a listener that reconnects is told to read again.
 */
import pg from "pg";

/** The channel of change announcements. */
export const CHANGE_CHANNEL = "hms_memory_changes";

/** How long a lost listening connection waits before it connects again, in ms. */
const RECONNECT_MS = 500;

/** Announces that memory files of `namespace` changed (delivered to listeners at once). */
export async function announce(pool: pg.Pool, namespace: string): Promise<void> {
  await pool.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, namespace]);
}

/**
 * One connection of its own that listens for announcements and calls `onChange(namespace)`
 * for each, or `onChange(undefined)` once it has connected again after losing the connection
 * (anything may have changed meanwhile). Errors are reported to `onError`, never thrown.
 */
export class ChangeChannel {
  readonly #url: string;
  readonly #onChange: (namespace: string | undefined) => void;
  readonly #onError: (error: Error) => void;
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  private constructor(
    url: string,
    onChange: (namespace: string | undefined) => void,
    onError: (error: Error) => void,
  ) {
    this.#url = url;
    this.#onChange = onChange;
    this.#onError = onError;
  }

  /** Connects and listens; resolves once listening (rejects if the first connection fails). */
  static async open(
    url: string,
    onChange: (namespace: string | undefined) => void,
    onError: (error: Error) => void = () => {},
  ): Promise<ChangeChannel> {
    const channel = new ChangeChannel(url, onChange, onError);
    await channel.#connect();
    return channel;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, application_name: "hms-listen" });
    client.on("notification", (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload) this.#onChange(message.payload);
    });
    client.on("error", (error) => {
      this.#onError(error);
      this.#lost(client);
    });
    client.on("end", () => this.#lost(client));
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = undefined;
    const again = () => {
      this.#retry = undefined;
      if (this.#closed) return;
      this.#connect().then(
        () => this.#onChange(undefined),
        (error: Error) => {
          this.#onError(error);
          this.#retry = setTimeout(again, RECONNECT_MS);
          this.#retry.unref();
        },
      );
    };
    this.#retry = setTimeout(again, RECONNECT_MS);
    this.#retry.unref();
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
