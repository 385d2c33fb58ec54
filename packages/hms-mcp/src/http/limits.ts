/**
 * Bounds on what HTTP clients can make the server hold: requests in flight (from the request's
 * headers until its answer is written), per client and in all, and the bytes of answers
 * written but not yet taken by slow clients.
 */
import type { ServerResponse } from "node:http";

export interface RequestLimits {
  /** Most requests one client (one token) has in flight; the next gets 429. */
  readonly inFlightPerClient: number;
  /** Most requests of all clients in flight; the next gets 503. */
  readonly inFlightTotal: number;
  /**
   * Most bytes of answers the server holds for clients that do not read them; beyond it the
   * connections that have held theirs longest are closed.
   */
  readonly bufferedBytes: number;
}

/** Why a request is not admitted, as the HTTP answer says it. */
export interface Refusal {
  readonly status: 429 | 503;
  readonly message: string;
}

/**
 * Counts requests in flight, per client and in all. A client with nothing in flight is
 * admitted past the bound in all, into a reserve as large as one client's bound: busy clients
 * that fill the server make each other wait (503), never a quiet client's one call.
 */
export class InFlight {
  readonly #byClient = new Map<string, number>();
  #total = 0;

  constructor(private readonly limits: RequestLimits) {}

  /** Admits a request of `client`, or says why not. Call the returned release once it is answered. */
  admit(client: string): Refusal | (() => void) {
    const mine = this.#byClient.get(client) ?? 0;
    if (mine >= this.limits.inFlightPerClient) {
      return {
        status: 429,
        message: `Too many requests in flight: this client already has ${mine} (the most is ${this.limits.inFlightPerClient}); retry once they are answered`,
      };
    }
    const reserve = mine === 0 ? this.limits.inFlightPerClient : 0;
    if (this.#total >= this.limits.inFlightTotal + reserve) {
      return {
        status: 503,
        message: `The server is busy: ${this.#total} requests in flight (the most is ${this.limits.inFlightTotal}); retry shortly`,
      };
    }
    this.#byClient.set(client, mine + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left > 0) this.#byClient.set(client, left);
      else this.#byClient.delete(client);
    };
  }
}

/**
 * Answers written whose bytes still wait in the server's memory for the client to read them.
 * Over the budget, the connections holding theirs longest are closed: a client that does not
 * read loses its answer, and the memory, instead of everyone's requests being refused. The
 * server so holds at most the budget plus the latest answer.
 */
export class UnreadAnswers {
  // Insertion order is age: the first entry has waited longest.
  readonly #held = new Map<ServerResponse, number>();
  #bytes = 0;

  constructor(
    private readonly budget: number,
    private readonly onDrop: (bytes: number) => void = () => {},
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Accounts the bytes `res` still holds once its answer is written, until they are taken. */
  track(res: ServerResponse): void {
    if (res.writableFinished || res.destroyed) return;
    // The response's own buffer plus its socket's: what has not reached the kernel yet.
    const held = res.writableLength;
    if (held === 0) return;
    this.#held.set(res, held);
    this.#bytes += held;
    res.once("close", () => this.#release(res));
    res.once("finish", () => this.#release(res));
    // The answer just written is kept even alone over the budget: it was a fair request.
    while (this.#bytes > this.budget && this.#held.size > 1) {
      const oldest = this.#held.keys().next().value;
      if (oldest === undefined) break;
      const bytes = this.#held.get(oldest) ?? 0;
      this.#release(oldest);
      // An answer all handed to the kernel, whose finish event is still to come, is not cut.
      if (oldest.writableLength === 0) continue;
      this.onDrop(bytes);
      oldest.destroy();
    }
  }

  #release(res: ServerResponse): void {
    const held = this.#held.get(res);
    if (held === undefined) return;
    this.#held.delete(res);
    this.#bytes -= held;
  }
}

/**
 * Bytes of request bodies still coming in, which the server holds until each body is whole.
 * A request counts in flight only once its body came, so this is what bounds them: a body's
 * first {@link SMALL_BODY_BYTES} are always taken (every ordinary request fits), and beyond
 * that bodies are read only while all those being read hold less than the budget. So clients
 * sending large bodies slowly cannot make the server hold more than the budget, and cannot
 * make it refuse anyone's ordinary request.
 */
export class BodiesBeingRead {
  #bytes = 0;

  /** `budget`: most bytes of bodies being read once they are past their first small part. */
  constructor(readonly budget: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Accounts `chunk` more bytes of a body that has now `size` bytes; false when the body is
   * past its small part and the bodies being read are over the budget (the chunk is not
   * accounted, and the body should be refused).
   */
  take(chunk: number, size: number): boolean {
    if (size > SMALL_BODY_BYTES && this.#bytes + chunk > this.budget) return false;
    this.#bytes += chunk;
    return true;
  }

  /** Gives back the `size` bytes a body took, once it is whole, refused or cut. */
  give(size: number): void {
    this.#bytes -= size;
  }
}

/** The part of every body read whatever the other bodies hold: more than any ordinary call. */
export const SMALL_BODY_BYTES = 64 * 1024;
