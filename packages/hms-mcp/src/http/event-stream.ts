/**
 * A session's event stream (the streamable-HTTP GET stream), as change notifications see it:
 * whether one is open and its client is reading it. Notifications wait (coalesced, bounded:
 * notify/subscriptions.ts) while it is closed or its client is not reading, rather than pile up
 * in the server's buffers; they go on once the client reads again or opens a stream.
 */
import type { ServerResponse } from "node:http";
import type { ConnectionOutlet } from "../mcp/server.js";

export class EventStream {
  #stream: ServerResponse | undefined;
  #resume: (() => void) | undefined;

  /** Whether the session has an event stream open now. */
  get open(): boolean {
    return this.#stream !== undefined;
  }

  /**
   * `res` answers a GET of the session: once its headers go out with 200, it is the session's
   * event stream (the MCP SDK writes server-initiated messages to it) until it closes.
   */
  watch(res: ServerResponse): void {
    const writeHead = res.writeHead;
    // The SDK registers the stream before its headers are written: from then on it takes messages.
    res.writeHead = ((...args: Parameters<ServerResponse["writeHead"]>) => {
      const result = writeHead.apply(res, args);
      if (res.statusCode === 200) this.#opened(res);
      return result;
    }) as ServerResponse["writeHead"];
  }

  /** What change notifications need to know of the session's connection. */
  outlet(overflow: () => void): ConnectionOutlet {
    return {
      blocked: () => this.#stream === undefined || this.#stream.writableNeedDrain,
      onResume: (resume) => {
        this.#resume = resume;
        if (this.#stream?.writableNeedDrain === true) {
          this.#stream.once("drain", () => this.#wake());
        }
      },
      overflow,
    };
  }

  #opened(res: ServerResponse): void {
    this.#stream = res;
    res.once("close", () => {
      if (this.#stream === res) this.#stream = undefined;
    });
    setImmediate(() => this.#wake());
  }

  #wake(): void {
    const resume = this.#resume;
    this.#resume = undefined;
    resume?.();
  }
}
