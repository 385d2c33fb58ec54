/**
 * Watching memory files over MCP: `resources/subscribe` to the URI of a file or directory,
 * and each `notifications/resources/updated` the server sends turned into a `MemoryChange` for
 * the watchers it concerns. One dispatcher per MCP client: watchers of one URI share one
 * subscription, which ends with the last of them.
 */
import type { MemoryChange } from "@hms/memory-core";
import { CHANGE_META_KEY, type ChangeMeta } from "@hms/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** The resource URI of `key` in `namespace`, as hms-mcp names memories. */
export function memoryUri(namespace: string, key: string): string {
  return `hms-mcp://${namespace}/${encodeURIComponent(key)}`;
}

/** The namespace and key of a memory URI, or undefined. */
function parseUri(uri: string): { namespace: string; key: string } | undefined {
  const match = /^hms-mcp:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) return undefined;
  try {
    return { namespace: match[1] as string, key: decodeURIComponent(match[2] as string) };
  } catch {
    return undefined;
  }
}

interface Watcher {
  readonly namespace: string;
  readonly path: string;
  readonly onChange: (change: MemoryChange) => void;
  /** Moves already told (a move is notified for the file it left and the one it made). */
  readonly movesTold: number[];
}

/** Most moves a watcher remembers having told, to tell each once. */
const MOVES_REMEMBERED = 64;

/** The watchers of one connection, on its MCP client (a new one after a new session). */
class Dispatcher {
  #client: Client;
  /** Watchers by subscribed URI. */
  readonly #byUri = new Map<string, Set<Watcher>>();

  constructor(client: Client) {
    this.#client = client;
    this.#listen(client);
  }

  /** Whether anyone watches. */
  get watching(): boolean {
    return this.#byUri.size > 0;
  }

  #listen(client: Client): void {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      this.#heard(notification.params.uri, notification.params._meta?.[CHANGE_META_KEY]);
    });
  }

  /**
   * Subscribes `client`, on a new session, to every URI watched (the old session's
   * subscriptions ended with it), then tells every watcher `overflow`: what changed between
   * the two sessions was not told.
   */
  async moveTo(client: Client): Promise<void> {
    this.#client = client;
    this.#listen(client);
    for (const uri of this.#byUri.keys()) await client.subscribeResource({ uri });
    for (const watchers of this.#byUri.values()) {
      for (const watcher of watchers) {
        watcher.onChange({ op: "overflow", path: watcher.path, fromPath: null });
      }
    }
  }

  async add(uri: string, watcher: Watcher): Promise<() => Promise<void>> {
    let watchers = this.#byUri.get(uri);
    if (watchers === undefined) {
      watchers = new Set();
      this.#byUri.set(uri, watchers);
      try {
        await this.#client.subscribeResource({ uri });
      } catch (error) {
        this.#byUri.delete(uri);
        throw error;
      }
    }
    watchers.add(watcher);
    const joined = watchers;
    return async () => {
      if (!joined.delete(watcher) || joined.size > 0) return;
      if (this.#byUri.get(uri) === joined) this.#byUri.delete(uri);
      await this.#client.unsubscribeResource({ uri });
    };
  }

  #heard(uri: string, meta: unknown): void {
    const changed = parseUri(uri);
    if (changed === undefined) return;
    const told = meta as ChangeMeta | undefined;
    for (const [subscribed, watchers] of this.#byUri) {
      for (const watcher of watchers) {
        if (watcher.namespace !== changed.namespace) continue;
        if (told !== undefined && "overflow" in told) {
          if (subscribed === uri) {
            watcher.onChange({ op: "overflow", path: watcher.path, fromPath: null });
          }
          continue;
        }
        const { key } = changed;
        if (key !== watcher.path && !key.startsWith(`${watcher.path}/`)) continue;
        if (told === undefined) {
          watcher.onChange({ op: "update", path: key, fromPath: null });
        } else if (told.op === "move") {
          if (watcher.movesTold.includes(told.seq)) continue;
          watcher.movesTold.push(told.seq);
          if (watcher.movesTold.length > MOVES_REMEMBERED) watcher.movesTold.shift();
          watcher.onChange({ op: "move", path: told.key, fromPath: told.from_key });
        } else {
          watcher.onChange({ op: told.op, path: told.key, fromPath: null });
        }
      }
    }
  }
}

const dispatchers = new WeakMap<Client, Dispatcher>();

/** Whether anyone watches files through `client`. */
export function watching(client: Client): boolean {
  return dispatchers.get(client)?.watching === true;
}

/**
 * Moves the watches of `stale` to `fresh`, a client on a new session of the same server (the
 * server forgot the old one, or restarted): they are subscribed again and told `overflow`.
 */
export async function moveWatches(stale: Client, fresh: Client): Promise<void> {
  const dispatcher = dispatchers.get(stale);
  if (dispatcher === undefined) return;
  dispatchers.delete(stale);
  dispatchers.set(fresh, dispatcher);
  await dispatcher.moveTo(fresh);
}

/**
 * Subscribes `client` to `path` (a memory file or directory) of `namespace` and tells
 * `onChange` of each change; resolves with the function that ends the watch.
 */
export function watchPath(
  client: Client,
  namespace: string,
  path: string,
  onChange: (change: MemoryChange) => void,
): Promise<() => Promise<void>> {
  let dispatcher = dispatchers.get(client);
  if (dispatcher === undefined) {
    dispatcher = new Dispatcher(client);
    dispatchers.set(client, dispatcher);
  }
  return dispatcher.add(memoryUri(namespace, path), { namespace, path, onChange, movesTold: [] });
}
