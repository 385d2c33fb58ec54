/**
 * Waiting for another process's lock on a store without blocking the event loop.
 * SQLite (node:sqlite) waits for a lock synchronously, so a write blocked by another process (a
 * second hms-mcp on the same data directory, a backup) would freeze every other caller for the
 * whole wait. The stores are opened with a short SQLite wait ({@link BUSY_WAIT_MS}); a call
 * refused with SQLITE_BUSY is tried again after a timer, with other calls served in between,
 * until the server's `--busy-timeout` has passed. SQLITE_BUSY means SQLite changed nothing
 * (a write takes the lock at BEGIN), so trying the call again is safe.
 */
import { isBusy } from "@hms/store";

/** How long SQLite itself waits for a lock before the call is retried asynchronously. */
export const BUSY_WAIT_MS = 5;

/** The longest pause between two tries. */
const MAX_PAUSE_MS = 50;

/**
 * Runs `attempt`; while it is refused with SQLITE_BUSY, tries again after a pause (1, 2, 4 ...
 * up to 50 ms) until `timeoutMs` has passed, then lets the last SQLITE_BUSY through. A call
 * that is not refused returns as it is: a synchronous answer stays synchronous.
 */
export function retryBusy<T>(attempt: () => T | Promise<T>, timeoutMs: number): T | Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let result: T | Promise<T>;
  try {
    result = attempt();
  } catch (error) {
    if (!isBusy(error)) throw error;
    return retryLater(attempt, deadline, error);
  }
  if (result instanceof Promise) {
    return result.catch((error: unknown) => {
      if (!isBusy(error)) throw error;
      return retryLater(attempt, deadline, error);
    });
  }
  return result;
}

async function retryLater<T>(
  attempt: () => T | Promise<T>,
  deadline: number,
  busy: unknown,
): Promise<T> {
  let last = busy;
  for (let pause = 1; Date.now() < deadline; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, deadline - Date.now())));
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      last = error;
    }
  }
  throw last;
}
