import {
  experimentalCapabilities,
  NAMESPACE_ARGUMENT,
  TOOL_SCHEMAS,
  toolJsonSchemas,
} from "@hms/protocol";
import {
  checkNamespace,
  EmbeddingModelMismatchError,
  type MemoryStore,
  type Namespaces,
} from "@hms/store";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { z } from "zod";
import { errorResult, ToolError, toToolError } from "./errors.js";
import { recallMemories } from "./recall.js";
import type { Semantic } from "./semantic/semantic.js";
import { RUNNERS, type ToolContext, type ToolOutput } from "./tools.js";

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** The URI scheme of memory resources: `hms-mcp://{namespace}/{percent-encoded key}`. */
export const RESOURCE_TEMPLATE = "hms-mcp://{namespace}/{key}";

/** The part of the server every connection shares. */
export interface Runtime {
  readonly namespaces: Namespaces;
  /** The namespace of calls that name none. */
  readonly namespace: string;
  /** Whether tools take a `namespace` argument. */
  readonly namespaceArg: boolean;
  readonly server: { readonly name: string; readonly version: string };
  readonly log: Logger;
  /** Called around each request that touches the store; false once the server is stopping. */
  readonly calls: CallTracker;
  /** Hybrid recall's model and indexer, when the server runs with --model-dir. */
  readonly semantic: Semantic | undefined;
}

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

const INSTRUCTIONS =
  "hms-mcp is a durable, searchable memory store. Use recall to find memories relevant to a " +
  "question (ranked, with excerpts and line ranges), search for literal text, get to read a " +
  "memory, remember to write one (with expected_version or if_absent for safe concurrent " +
  "edits), list to browse keys, move and forget to reorganize (tree: true moves or deletes a " +
  "key and everything under key/ at once). Errors start with a code such as NOT_FOUND or " +
  "VERSION_CONFLICT.";

/** A tool as this server runs it: its input schema (with `namespace` if enabled) and runner. */
interface ServedTool {
  readonly input: z.ZodObject;
  readonly run: (
    args: Record<string, unknown>,
    context: ToolContext,
  ) => ToolOutput | Promise<ToolOutput>;
}

type ToolList = { tools: Tool[]; served: Map<string, ServedTool> };
const toolLists = new Map<boolean, ToolList>();

/** The tool list and input schemas, computed once per mode (not per connection). */
function describeTools(namespaceArg: boolean): ToolList {
  let list = toolLists.get(namespaceArg);
  if (list === undefined) {
    list = buildToolList(namespaceArg);
    toolLists.set(namespaceArg, list);
  }
  return list;
}

/** The contract's tools, in its order, each with the JSON Schemas the protocol derives. */
function buildToolList(namespaceArg: boolean): ToolList {
  const served = new Map<string, ServedTool>();
  const tools = TOOL_SCHEMAS.map((tool): Tool => {
    const input: z.ZodObject = namespaceArg
      ? tool.input.extend({ [NAMESPACE_ARGUMENT.name]: NAMESPACE_ARGUMENT.schema })
      : tool.input;
    // The input schema has accepted the arguments before the runner sees them.
    const run = RUNNERS[tool.name] as ServedTool["run"];
    served.set(tool.name, { input, run });
    const schemas = toolJsonSchemas(tool, namespaceArg);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input as Tool["inputSchema"],
      outputSchema: schemas.output as Tool["outputSchema"],
      annotations: { title: tool.title, ...tool.annotations },
    };
  });
  return { tools, served };
}

/** One readable line per validation problem: `path: message`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join(".");
      if (issue.code === "unrecognized_keys") {
        return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
      }
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/** Refuses a `namespace` argument unless the server was started with --namespace-arg. */
function checkNamespaceAllowed(runtime: Runtime, args: Record<string, unknown>): void {
  if ("namespace" in args && !runtime.namespaceArg) {
    throw new ToolError(
      "NAMESPACE_DISABLED",
      "this server serves only its own namespace; start it with --namespace-arg to let calls choose a namespace",
    );
  }
}

/** The store a validated call addresses. */
function contextFor(runtime: Runtime, namespaceArg: unknown): ToolContext {
  const namespace = namespaceArg === undefined ? runtime.namespace : checkNamespace(namespaceArg);
  return {
    store: openStore(runtime, namespace),
    namespace,
    server: runtime.server,
    semantic: runtime.semantic,
  };
}

/**
 * The store of `namespace`. A store whose vectors another embedding model made cannot be
 * served hybrid; the refusal says what to do (a server-side configuration matter: INTERNAL).
 */
export function openStore(runtime: Runtime, namespace: string): MemoryStore {
  try {
    return runtime.namespaces.get(namespace);
  } catch (error) {
    if (error instanceof EmbeddingModelMismatchError) {
      throw new ToolError("INTERNAL", modelMismatchMessage(namespace, error));
    }
    throw error;
  }
}

/** What to say when a namespace's vectors come from another model. */
export function modelMismatchMessage(namespace: string, error: EmbeddingModelMismatchError) {
  return (
    `namespace ${namespace} holds vectors made by the embedding model ${error.stored}, and this ` +
    `server runs ${error.requested}; vectors of two models cannot be compared, so it is not ` +
    `served. Run hms-mcp with ${error.stored}'s model directory, or restart it with --reembed ` +
    `to replace every vector of the namespace with ${error.requested}'s (its memories are ` +
    "ranked lexically until they are re-embedded)."
  );
}

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

export function resourceUri(namespace: string, key: string): string {
  return `hms-mcp://${namespace}/${encodeURIComponent(key)}`;
}

function mimeTypeOf(key: string): string {
  return /\.(md|markdown)$/i.test(key) ? "text/markdown" : "text/plain";
}

/**
 * A new MCP server for one connection (one stdio pipe or one HTTP session), sharing the
 * runtime's stores with every other connection.
 */
export function createMcpServer(runtime: Runtime): Server {
  const server = new Server(
    { name: runtime.server.name, version: runtime.server.version, title: "Holographic Memory" },
    {
      capabilities: {
        tools: {},
        resources: {},
        prompts: {},
        // The protocol version, so a client can refuse a server it would misread at connect time.
        experimental: experimentalCapabilities(),
      },
      instructions: INSTRUCTIONS,
    },
  );
  // The SDK reports here what it cannot answer: malformed messages (the client's doing, so
  // debug) and answers it failed to send (the server's, so warn: a call went unanswered).
  server.onerror = (error) => {
    const failedToSend = /^Failed to (send|enqueue)/.test(error.message);
    runtime.log[failedToSend ? "warn" : "debug"]({ err: error }, "MCP protocol error");
  };
  const { tools, served } = describeTools(runtime.namespaceArg);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  // Tools answer synchronously except hybrid recall, which waits for the embedding worker; a
  // synchronous tool stays synchronous here, so its answer is not delayed behind another's.
  server.setRequestHandler(
    CallToolRequestSchema,
    (request): CallToolResult | Promise<CallToolResult> => {
      const { name } = request.params;
      const tool = served.get(name);
      if (tool === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const failed = (thrown: unknown): CallToolResult => {
        const { error, unexpected } = toToolError(thrown);
        if (unexpected) runtime.log.error({ err: thrown, tool: name }, "tool call failed");
        else runtime.log.debug({ tool: name, code: error.code }, error.message);
        return errorResult(error);
      };
      const succeeded = (output: ToolOutput): CallToolResult => ({
        content: [{ type: "text", text: output.text }],
        structuredContent: output.structured,
      });
      try {
        return runtime.calls.run(() => {
          checkNamespaceAllowed(runtime, args);
          const parsed = tool.input.safeParse(args);
          if (!parsed.success) {
            throw new ToolError("INVALID_ARGUMENT", describeIssues(parsed.error));
          }
          // The schemas only check values, never change them. Zod's parse copies objects, and
          // its copy of a record loses a "__proto__" key (assigning it sets the prototype), so
          // each tool gets the caller's own values, which the schema has just accepted.
          const { namespace, ...toolArgs } = Object.fromEntries(
            Object.keys(parsed.data).map((name) => [name, args[name]]),
          );
          const output = tool.run(toolArgs, contextFor(runtime, namespace));
          return output instanceof Promise ? output.then(succeeded, failed) : succeeded(output);
        });
      } catch (thrown) {
        return failed(thrown);
      }
    },
  );

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

  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    runtime.calls.run(() => {
      const store: MemoryStore = openStore(runtime, runtime.namespace);
      let page: ReturnType<MemoryStore["list"]>;
      try {
        page = store.list({ cursor: request.params?.cursor, limit: 1000 });
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
      }
      return {
        resources: page.items.map((item) => ({
          uri: resourceUri(runtime.namespace, item.key),
          name: item.key,
          mimeType: mimeTypeOf(item.key),
          size: item.bytes,
        })),
        ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
      };
    }),
  );

  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    runtime.calls.run(() => {
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
      let memory: ReturnType<MemoryStore["get"]>;
      try {
        memory = openStore(runtime, parsed.namespace).get(parsed.key);
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message, { uri });
      }
      if (memory === undefined) {
        throw new McpError(RESOURCE_NOT_FOUND, `No memory at ${uri}`, { uri });
      }
      return { contents: [{ uri, mimeType: mimeTypeOf(memory.key), text: memory.text }] };
    }),
  );

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: "recall",
        title: "Recall memories",
        description: "Recall the memories most relevant to a query and put them in context.",
        arguments: [
          { name: "query", description: "What to recall.", required: true },
          { name: "k", description: "How many memories (1 to 50, default 5).", required: false },
        ],
      },
    ],
  }));

  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    runtime.calls.run(async () => {
      if (request.params.name !== "recall") {
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      }
      const query = request.params.arguments?.query;
      const kText = request.params.arguments?.k;
      const k = kText === undefined || kText === "" ? undefined : Number(kText);
      if (typeof query !== "string") {
        throw new McpError(ErrorCode.InvalidParams, "The recall prompt needs a query argument");
      }
      let hits: ReturnType<MemoryStore["recall"]>["hits"];
      try {
        const store = openStore(runtime, runtime.namespace);
        hits = (await recallMemories({ store, semantic: runtime.semantic }, query, { k })).hits;
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
      }
      const body =
        hits.length === 0
          ? "No stored memory matches this query."
          : hits
              .map(
                (hit) =>
                  `<memory key=${JSON.stringify(hit.key)} lines="${hit.line_start}-${hit.line_end}">\n${hit.excerpt}\n</memory>`,
              )
              .join("\n");
      return {
        description: `Memories relevant to: ${query}`,
        messages: [
          {
            role: "user" as const,
            content: {
              type: "text" as const,
              text: `Memories relevant to "${query}" (best first):\n\n${body}`,
            },
          },
        ],
      };
    }),
  );

  return server;
}
