/**
 * The resources primitive: each memory of a namespace is a resource,
 * `hms-mcp://{namespace}/{percent-encoded key}`. `resources/list` lists the server's namespace,
 * or with `--namespace-arg` the one named in `_meta["hms-mcp/namespace"]`; `resources/read`
 * reads the namespace of its URI. Either is open only to a caller whose grant covers it.
 * `resources/subscribe` listens to a memory file or a directory of them (notify/).
 */
import { NAMESPACE_META_KEY } from "@hms/protocol";
import { checkNamespace, MEMORY_ROOT, type StoreApi, utf8Bytes } from "@hms/store";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Grant } from "../auth/tokens.js";
import {
  type Subscribed,
  SubscriptionLimitError,
  type Subscriptions,
} from "../notify/subscriptions.js";
import { grantOf, openStore, type Runtime } from "../runtime/runtime.js";
import { requestNamespace } from "./namespace.js";
import { HEAVY_WEIGHT, inTurn } from "./turns.js";

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** The URI scheme of memory resources: `hms-mcp://{namespace}/{percent-encoded key}`. */
export const RESOURCE_TEMPLATE = "hms-mcp://{namespace}/{key}";

/** Key of a memory resource URI, or undefined when the URI is not one. */
export function parseResourceUri(uri: string): { namespace: string; key: string } | undefined {
  const match = /^hms-mcp:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) return undefined;
  try {
    return { namespace: match[1] as string, key: decodeURIComponent(match[2] as string) };
  } catch {
    return undefined;
  }
}

/** The URI of the memory at `key` in `namespace` (the key percent-encoded as one segment). */
export function resourceUri(namespace: string, key: string): string {
  return `hms-mcp://${namespace}/${encodeURIComponent(key)}`;
}

function mimeTypeOf(key: string): string {
  return /\.(md|markdown)$/i.test(key) ? "text/markdown" : "text/plain";
}

/**
 * What a subscription to `uri` listens to, or the MCP error that says why it cannot be had:
 * a memory file or directory (a key under /memories/, or /memories itself, a trailing slash
 * ignored) of a namespace the server serves and the caller's grant covers.
 */
export function subscriptionOf(runtime: Runtime, uri: string, grant: Grant): Subscribed {
  const parsed = parseResourceUri(uri);
  if (parsed === undefined) {
    throw new McpError(RESOURCE_NOT_FOUND, `Not a memory resource: ${uri.slice(0, 200)}`, { uri });
  }
  let namespace: string;
  try {
    namespace = checkNamespace(parsed.namespace);
  } catch (error) {
    throw new McpError(ErrorCode.InvalidParams, (error as Error).message, { uri });
  }
  if (namespace !== runtime.namespace && !runtime.namespaceArg) {
    throw new McpError(
      RESOURCE_NOT_FOUND,
      `This server serves only namespace ${runtime.namespace}; start it with --namespace-arg to subscribe to others`,
      { uri },
    );
  }
  if (!grant.allows(namespace)) {
    throw new McpError(
      RESOURCE_NOT_FOUND,
      `namespace ${namespace} does not exist or this token may not use it`,
      { uri },
    );
  }
  let key = parsed.key;
  while (key.length > MEMORY_ROOT.length && key.endsWith("/")) key = key.slice(0, -1);
  if (key !== MEMORY_ROOT && !key.startsWith(`${MEMORY_ROOT}/`)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Only memory files send change notifications: subscribe to a key under ${MEMORY_ROOT}/ ` +
        `(a file, or a directory for every file under it), e.g. ${resourceUri(namespace, MEMORY_ROOT)}`,
      { uri },
    );
  }
  if (utf8Bytes(key) > runtime.limits.maxKeyBytes) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `The key is over ${runtime.limits.maxKeyBytes} bytes, longer than any memory's`,
      { uri },
    );
  }
  return { namespace, key };
}

/**
 * Answers resources/templates/list, resources/list, resources/read, resources/subscribe and
 * resources/unsubscribe on `server`; `subscriptions` are the connection's.
 */
export function registerResources(
  server: Server,
  runtime: Runtime,
  subscriptions: Subscriptions,
): void {
  server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
    runtime.calls.run(async () => {
      const { uri } = request.params;
      const subscribed = subscriptionOf(runtime, uri, grantOf(extra));
      try {
        await subscriptions.subscribe(uri, subscribed);
      } catch (error) {
        if (error instanceof SubscriptionLimitError) {
          throw new McpError(ErrorCode.InvalidParams, error.message, { uri });
        }
        throw new McpError(ErrorCode.InternalError, (error as Error).message, { uri });
      }
      return {};
    }),
  );

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: RESOURCE_TEMPLATE,
        name: "memory",
        title: "A memory",
        description:
          "The text of the memory with this key (percent-encoded) in this namespace" +
          (runtime.namespaceArg ? "." : ` (only ${runtime.namespace} on this server).`),
        mimeType: "text/plain",
      },
    ],
  }));

  // A page of up to 1,000 keys weighs as an export; a read as a get.
  server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
    inTurn(runtime, extra, HEAVY_WEIGHT, async () => {
      // With --namespace-arg the caller names its namespace in _meta, as a tool's argument.
      const namespace = requestNamespace(runtime, request.params?._meta?.[NAMESPACE_META_KEY]);
      let store: StoreApi;
      try {
        store = await openStore(runtime, namespace, {
          grant: grantOf(extra),
          write: false,
        });
      } catch (error) {
        throw new McpError(RESOURCE_NOT_FOUND, (error as Error).message);
      }
      let page: Awaited<ReturnType<StoreApi["list"]>>;
      try {
        page = await store.list({ cursor: request.params?.cursor, limit: 1000 });
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
      }
      return {
        resources: page.items.map((item) => ({
          uri: resourceUri(namespace, item.key),
          name: item.key,
          mimeType: mimeTypeOf(item.key),
          size: item.bytes,
        })),
        ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
      };
    }),
  );

  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    inTurn(runtime, extra, 1, async () => {
      const { uri } = request.params;
      const parsed = parseResourceUri(uri);
      if (parsed === undefined) {
        throw new McpError(RESOURCE_NOT_FOUND, `Not a memory resource: ${uri}`, { uri });
      }
      if (parsed.namespace !== runtime.namespace && !runtime.namespaceArg) {
        throw new McpError(
          RESOURCE_NOT_FOUND,
          `This server serves only namespace ${runtime.namespace}; start it with --namespace-arg to read others`,
          { uri },
        );
      }
      let memory: Awaited<ReturnType<StoreApi["get"]>>;
      try {
        const store = await openStore(runtime, parsed.namespace, {
          grant: grantOf(extra),
          write: false,
        });
        memory = await store.get(parsed.key);
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message, { uri });
      }
      if (memory === undefined) {
        throw new McpError(RESOURCE_NOT_FOUND, `No memory at ${uri}`, { uri });
      }
      return { contents: [{ uri, mimeType: mimeTypeOf(memory.key), text: memory.text }] };
    }),
  );
}
