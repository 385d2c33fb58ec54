/**
 * Change notifications as a test client sees them: every `notifications/resources/updated` a
 * client receives, in order, and a way to wait for one. hms-mcp's notifications name the file
 * that changed (`params.uri`) and how (`params._meta["hms-mcp/change"]`).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** One resources/updated notification: the URI and what `_meta` says of the change. */
export interface HeardChange {
  readonly uri: string;
  readonly change: Record<string, unknown> | undefined;
}

/** What a client heard so far, and waits for more. */
export interface Heard {
  readonly updates: HeardChange[];
  /** How many list_changed notifications arrived. */
  listChanged(): number;
  /** Resolves once a list_changed notification has arrived. */
  untilListChanged(): Promise<void>;
  /** Resolves with the first update (from the start) `matches` accepts, once it arrives. */
  until(matches: (heard: HeardChange) => boolean): Promise<HeardChange>;
}

/** Starts collecting `client`'s change notifications. */
export function hear(client: Client): Heard {
  const updates: HeardChange[] = [];
  let listChanged = 0;
  const listWaiters: (() => void)[] = [];
  const waiters: { matches: (heard: HeardChange) => boolean; done: (h: HeardChange) => void }[] =
    [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    const heard = {
      uri: notification.params.uri,
      change: notification.params._meta?.["hms-mcp/change"] as Record<string, unknown> | undefined,
    };
    updates.push(heard);
    for (const waiter of [...waiters]) {
      if (waiter.matches(heard)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done(heard);
      }
    }
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    listChanged += 1;
    for (const done of listWaiters.splice(0)) done();
  });
  return {
    updates,
    listChanged: () => listChanged,
    untilListChanged: () =>
      listChanged > 0 ? Promise.resolve() : new Promise((done) => listWaiters.push(done)),
    until(matches) {
      const found = updates.find(matches);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((done) => waiters.push({ matches, done }));
    },
  };
}

/** The resource URI of `key` in `namespace`, as hms-mcp names memories. */
export function memoryUri(namespace: string, key: string): string {
  return `hms-mcp://${namespace}/${encodeURIComponent(key)}`;
}
