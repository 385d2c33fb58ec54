import { ToolError } from "../errors.js";

/** Counts calls in flight so shutdown can let them finish, and refuses new ones after. */
export class CallTracker {
  #inFlight = 0;
  #stopping = false;
  #idle: (() => void)[] = [];

  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * Runs `body` as a call; throws UNAVAILABLE once stopping. A call that returns a promise is
   * in flight until the promise settles.
   */
  run<T>(body: () => T): T {
    if (this.#stopping) {
      throw new ToolError(
        "UNAVAILABLE",
        "the server is shutting down; retry against a running server",
      );
    }
    this.#inFlight++;
    let result: T;
    try {
      result = body();
    } catch (error) {
      this.#done();
      throw error;
    }
    if (result instanceof Promise) {
      return result.finally(() => this.#done()) as T;
    }
    this.#done();
    return result;
  }

  #done(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Refuses new calls and resolves once the calls in flight have finished. */
  stop(): Promise<void> {
    this.#stopping = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
