/**
 * Watches that outlive a server restart, over HTTP. Change notifications come on the
 * session's event stream (a GET). A restarted server has forgotten the session: the MCP SDK's
 * transport tries the stream again a few times and gives up (HTTP 404, or its retries spent),
 * and a client that only watches makes no call that would open a new session, so its watches
 * would go quiet for good. Here, then, the connection opens a new session as a call does,
 * trying again with a growing wait while the server is down, and its watches move to it
 * (subscribed again, and told `overflow`: what changed meanwhile was not told).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { HmsSession } from "./backend.js";
import { watching } from "./watch.js";

/** The first wait before trying a new session again; it doubles up to {@link LAST_WAIT_MS}. */
const FIRST_WAIT_MS = 250;
const LAST_WAIT_MS = 30_000;

/** Whether `error`, from the transport, says the session's event stream is gone for good. */
function eventStreamLost(error: Error): boolean {
  return (
    (error instanceof StreamableHTTPError && error.code === 404) ||
    error.message.startsWith("Maximum reconnection attempts")
  );
}

/**
 * Has `client`, a client of `session` over HTTP, open a new session when its event stream is
 * lost while someone watches, until `signal` aborts (the connection is closed).
 */
export function reviveWatches(session: HmsSession, client: Client, signal: AbortSignal): void {
  let reviving = false;
  client.onerror = (error) => {
    if (reviving || !eventStreamLost(error) || !watching(client)) return;
    reviving = true;
    void openNewSession(session, client, signal);
  };
}

async function openNewSession(session: HmsSession, stale: Client, signal: AbortSignal) {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LAST_WAIT_MS)) {
    if (signal.aborted || session.client !== stale || session.closedReason !== undefined) return;
    try {
      await session.reconnect?.(stale);
      return;
    } catch {
      // The server is not back yet.
    }
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      return; // closed meanwhile
    }
  }
}
