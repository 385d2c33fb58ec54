/**
 * MCP over stdio, one JSON-RPC message per line, with a bound on a line's size. The SDK's own
 * stdio transport closes itself on a line over 10 MiB, and the server then exits with code 0
 * and nothing said. Here a line over the bound is skipped without being held in memory: the
 * request is answered with an error when its id can be read (a log line on stderr otherwise),
 * and the next line is served as usual. It also knows which requests it has not answered yet,
 * so that a client that closes its end early still gets the answers of what it sent.
 */
import process from "node:process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";

export interface LineTransportOptions {
  /** Largest line (message) in bytes. */
  readonly maxLineBytes: number;
  readonly log: Logger;
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
}

const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #max: number;
  readonly #log: Logger;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Set while skipping a line over the bound: reads its id as the bytes go by. */
  #skipping: TopLevelIdScanner | undefined;
  /** The ids of requests received and not answered yet. */
  readonly #unanswered = new Set<string | number>();
  #whenAnswered: (() => void)[] = [];

  constructor(options: LineTransportOptions) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#max = options.maxLineBytes;
    this.#log = options.log;
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
  }

  async close(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#chunks = [];
    this.#size = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#stdout.write(serializeMessage(message))) resolve();
      else this.#stdout.once("drain", resolve);
    }).then(() => {
      if (("result" in message || "error" in message) && message.id !== undefined) {
        this.#answered(message.id);
      }
    });
  }

  /**
   * Resolves once every request received so far has been answered (its answer handed to
   * stdout): what a server waits for when its input ends, before it shuts down.
   */
  answered(): Promise<void> {
    if (this.#unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#whenAnswered.push(resolve));
  }

  #answered(id: string | number | null): void {
    if (id === null || !this.#unanswered.delete(id)) return;
    if (this.#unanswered.size === 0) for (const resolve of this.#whenAnswered.splice(0)) resolve();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    const data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const piece = data.subarray(start, newline === -1 ? data.length : newline);
      this.#append(piece);
      if (newline === -1) return;
      this.#endLine();
      start = newline + 1;
    }
  };

  #append(piece: Buffer): void {
    if (this.#skipping === undefined && this.#size + piece.length > this.#max) {
      // Over the bound: what was held is scanned for the id and let go.
      this.#skipping = new TopLevelIdScanner();
      for (const held of this.#chunks) this.#skipping.feed(held);
      this.#chunks = [];
    }
    this.#size += piece.length;
    if (this.#skipping !== undefined) this.#skipping.feed(piece);
    else this.#chunks.push(piece);
  }

  #endLine(): void {
    const skipped = this.#skipping;
    const size = this.#size;
    const chunks = this.#chunks;
    this.#skipping = undefined;
    this.#chunks = [];
    this.#size = 0;
    if (skipped !== undefined) {
      this.#refuse(skipped.id, size);
      return;
    }
    const line = Buffer.concat(chunks).toString("utf8").replace(/\r$/, "");
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    this.onmessage?.(message);
  }

  #refuse(id: string | number | undefined, size: number): void {
    const message = `Request is over ${this.#max} bytes (${size} bytes); it was not read. Send smaller messages (memory text is limited by --max-text-bytes).`;
    if (id === undefined) {
      this.#log.warn(
        { bytes: size, max: this.#max },
        "skipped a message over the size bound; it had no id to answer",
      );
      return;
    }
    this.#log.warn({ bytes: size, max: this.#max, id }, "refused a message over the size bound");
    void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message } });
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Longest id kept while scanning, in bytes; a longer one is not answered. */
const MAX_ID_BYTES = 256;

/**
 * Reads the top-level `"id"` of a JSON object streamed through it, holding only the id's bytes,
 * whatever the object's size and wherever the id sits (the SDK's client writes it last).
 */
export class TopLevelIdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** At depth 1, the next string is a key. */
  #expectKey = false;
  /** Bytes of the key being read (only "id" matters: at most 3 are kept). */
  #key: number[] | undefined;
  /** The last key was "id": its value follows the colon. */
  #idKey = false;
  /** Bytes of the id's value being read, and whether it is a string. */
  #value: number[] | undefined;
  #valueIsString = false;
  #found: string | number | undefined;

  /** The id, once read; undefined when there is none (a notification) or it is not valid. */
  get id(): string | number | undefined {
    return this.#found;
  }

  feed(bytes: Buffer): void {
    // Inside a string nobody keeps (a memory's text), only a quote or a backslash matters:
    // jump to the next one instead of stepping through every byte.
    let quote = -1;
    let backslash = -1;
    for (let i = 0; i < bytes.length; i++) {
      if (this.#inString && !this.#escaped && this.#key === undefined && !this.#valueIsString) {
        if (quote < i) quote = indexOrEnd(bytes, QUOTE, i);
        if (backslash < i) backslash = indexOrEnd(bytes, BACKSLASH, i);
        i = Math.min(quote, backslash);
        if (i === bytes.length) return;
      }
      this.#step(bytes[i] as number);
    }
  }

  #step(byte: number): void {
    if (this.#inString) {
      this.#keep(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) this.#endString();
      return;
    }
    if (this.#value !== undefined && !this.#valueIsString) {
      if (this.#value.length === 0) {
        // The first byte after `"id":` says what the value is.
        if (isSpace(byte)) return;
        if (byte === QUOTE) {
          this.#valueIsString = true;
          this.#inString = true;
          return;
        }
        if (byte !== 0x7b && byte !== 0x5b) {
          this.#value.push(byte);
          return;
        }
        this.#value = undefined; // an object or array is no id
      } else if (byte === 0x2c || byte === 0x7d || isSpace(byte)) {
        // A number or literal ends at the next delimiter, which is then read as usual.
        this.#endValue();
        if (isSpace(byte)) return;
      } else {
        if (this.#value.length < MAX_ID_BYTES) this.#value.push(byte);
        return;
      }
    }
    if (isSpace(byte)) return;
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) {
          this.#key = [];
          this.#expectKey = false;
        }
        return;
      case 0x7b: // {
      case 0x5b: // [
        this.#depth++;
        if (this.#depth === 1 && byte === 0x7b) this.#expectKey = true;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth--;
        return;
      case 0x2c: // ,
        if (this.#depth === 1) this.#expectKey = true;
        return;
      case 0x3a: // :
        if (this.#depth === 1 && this.#idKey) {
          this.#idKey = false;
          this.#value = [];
          this.#valueIsString = false;
        }
        return;
      default:
        return;
    }
  }

  #keep(byte: number): void {
    if (this.#key !== undefined && this.#key.length < 3) this.#key.push(byte);
    else if (
      this.#value !== undefined &&
      this.#valueIsString &&
      this.#value.length < MAX_ID_BYTES + 1
    ) {
      this.#value.push(byte);
    }
  }

  #endString(): void {
    this.#inString = false;
    if (this.#key !== undefined) {
      // The closing quote was kept: "id" reads as i, d, quote.
      this.#idKey = Buffer.from(this.#key).toString("latin1") === 'id"';
      this.#key = undefined;
      return;
    }
    if (this.#value !== undefined && this.#valueIsString) this.#endValue();
  }

  #endValue(): void {
    const value = this.#value ?? [];
    const isString = this.#valueIsString;
    this.#value = undefined;
    this.#valueIsString = false;
    if (this.#found !== undefined) return;
    try {
      const text = Buffer.from(value).toString("utf8");
      // A string value was kept with its closing quote.
      const parsed: unknown = JSON.parse(isString ? `"${text}` : text);
      if (typeof parsed === "string" && value.length <= MAX_ID_BYTES) this.#found = parsed;
      if (typeof parsed === "number" && Number.isFinite(parsed)) this.#found = parsed;
    } catch {
      // Not a valid id: nothing to answer.
    }
  }
}

/** Where `byte` next occurs in `bytes` from `from`, or the length when it does not. */
function indexOrEnd(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? bytes.length : at;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
