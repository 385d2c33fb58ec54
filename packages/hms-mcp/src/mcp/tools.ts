/**
 * The tools primitive: tools/list (the contract's tools, from @hms/protocol) and tools/call
 * (the namespace check, argument validation, the call's store, and the result or tool error).
 */
import { NAMESPACE_ARGUMENT, TOOL_SCHEMAS, toolJsonSchemas } from "@hms/protocol";
import { type Awaitable, checkNamespace } from "@hms/store";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { ALL_ACCESS, type Grant } from "../auth/tokens.js";
import { errorResult, ToolError, toToolError } from "../errors.js";
import { retryBusy } from "../runtime/busy.js";
import { after } from "../runtime/engines.js";
import { QueueFull } from "../runtime/fair-queue.js";
import { flowOf } from "../runtime/flows.js";
import { grantOf, openStore, type Runtime } from "../runtime/runtime.js";
import { RUNNERS } from "../tools/memory.js";
import { namespacesRunner } from "../tools/namespaces.js";
import { placeFor } from "../tools/store-place.js";
import type { ServerContext, ToolContext, ToolOutput } from "../tools/types.js";
import { NAMESPACE_DISABLED_MESSAGE } from "./namespace.js";
import { HEAVY_WEIGHT } from "./turns.js";

/** A tool as this server runs it: its input schema (with `namespace` if enabled) and runner. */
interface ServedTool {
  readonly input: z.ZodObject;
  /** Whether the tool only reads: it never creates a namespace, and a read-only token may run it. */
  readonly readOnly: boolean;
  /** Runs a call against the store of its namespace. */
  readonly run?: (
    args: Record<string, unknown>,
    context: ToolContext,
  ) => ToolOutput | Promise<ToolOutput>;
  /** A tool that opens no store runs this instead (with the server and the caller's grant). */
  readonly runOnServer?: (
    args: Record<string, unknown>,
    context: ServerContext,
  ) => ToolOutput | Promise<ToolOutput>;
}

/** The tools that open no store, by name. */
const SERVER_RUNNERS: Readonly<Record<string, ServedTool["runOnServer"]>> = {
  namespaces: namespacesRunner as ServedTool["runOnServer"],
};

const servedTools = new Map<boolean, Map<string, ServedTool>>();
const toolLists = new Map<boolean, Tool[]>();

/** Each tool's input schema and runner, computed once per mode (not per connection). */
function serveTools(namespaceArg: boolean): Map<string, ServedTool> {
  let served = servedTools.get(namespaceArg);
  if (served === undefined) {
    served = new Map();
    for (const tool of TOOL_SCHEMAS) {
      const input: z.ZodObject = namespaceArg
        ? tool.input.extend({ [NAMESPACE_ARGUMENT.name]: NAMESPACE_ARGUMENT.schema })
        : tool.input;
      // The input schema has accepted the arguments before the runner sees them.
      const runOnServer = SERVER_RUNNERS[tool.name];
      const run = (RUNNERS as unknown as Record<string, ServedTool["run"]>)[tool.name];
      served.set(tool.name, {
        input,
        readOnly: tool.annotations.readOnlyHint,
        ...(run === undefined ? {} : { run }),
        ...(runOnServer === undefined ? {} : { runOnServer }),
      });
    }
    servedTools.set(namespaceArg, served);
  }
  return served;
}

/**
 * The contract's tools, in its order, each with the JSON Schemas the protocol derives:
 * computed at the first tools/list of a mode and kept (deriving them takes a while, and a
 * client that only calls tools never needs them).
 */
function listTools(namespaceArg: boolean): Tool[] {
  let tools = toolLists.get(namespaceArg);
  if (tools === undefined) {
    tools = TOOL_SCHEMAS.map((tool): Tool => {
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
    toolLists.set(namespaceArg, tools);
  }
  return tools;
}

/** Longest name of the caller's (a tool or an argument) a message repeats, in code points. */
const MAX_ECHOED_NAME = 64;
/** Most unknown argument names a message lists. */
const MAX_LISTED_NAMES = 10;

/** A caller's name as a message shows it: cut to {@link MAX_ECHOED_NAME} code points. */
function echoName(name: string): string {
  // Enough UTF-16 units for the code points kept, so a huge name is never split whole.
  const points = Array.from(name.slice(0, MAX_ECHOED_NAME * 2 + 2));
  return points.length > MAX_ECHOED_NAME ? `${points.slice(0, MAX_ECHOED_NAME).join("")}…` : name;
}

/** Unknown argument names, listed up to {@link MAX_LISTED_NAMES} with a count of the rest. */
function unknownArguments(keys: readonly string[]): string {
  const listed = keys.slice(0, MAX_LISTED_NAMES).map(echoName).join(", ");
  const more = keys.length - MAX_LISTED_NAMES;
  return `unknown argument${keys.length > 1 ? "s" : ""} ${listed}${more > 0 ? ` and ${more} more` : ""}`;
}

/** The validation problems, `path: message` each, the first {@link MAX_LISTED_NAMES} of them. */
function describeIssues(error: z.ZodError): string {
  const described = error.issues
    .slice(0, MAX_LISTED_NAMES)
    .map((issue) => {
      const path = issue.path.map((part) => echoName(String(part))).join(".");
      if (issue.code === "unrecognized_keys") return unknownArguments(issue.keys);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
  const more = error.issues.length - MAX_LISTED_NAMES;
  return more > 0 ? `${described}; and ${more} more problems` : described;
}

/** Refuses a `namespace` argument unless the server was started with --namespace-arg. */
function checkNamespaceAllowed(runtime: Runtime, args: Record<string, unknown>): void {
  if (NAMESPACE_ARGUMENT.name in args && !runtime.namespaceArg) {
    throw new ToolError("NAMESPACE_DISABLED", NAMESPACE_DISABLED_MESSAGE);
  }
}

/**
 * The store a validated call of `grant` addresses; `caller` is the connection's server (one
 * per connection).
 */
function contextFor(
  runtime: Runtime,
  namespaceArg: unknown,
  access: { grant: Grant; write: boolean },
  caller: Server,
): Awaitable<ToolContext> {
  const namespace = namespaceArg === undefined ? runtime.namespace : checkNamespace(namespaceArg);
  return after(openStore(runtime, namespace, access), (store) => ({
    store,
    limits: runtime.limits,
    namespace,
    exists: () => runtime.exists(namespace),
    server: runtime.server,
    place: placeFor(runtime.place, access.grant === ALL_ACCESS),
    semantic: runtime.semantic,
    caller,
  }));
}

/** A client may name the command a call serves (`_meta["hms-mcp/command"]`, e.g. `str_replace`). */
export const COMMAND_META_KEY = "hms-mcp/command";
const COMMAND_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** What the history records as the command of a call: the client's name for it, or the tool. */
function commandOf(meta: Record<string, unknown> | undefined, tool: string): string {
  const named = meta?.[COMMAND_META_KEY];
  return typeof named === "string" && COMMAND_NAME.test(named) ? named : tool;
}

/**
 * The tools that read or write many memories (ranking, pages of texts, versions): each call
 * weighs this many of the others in the fair order between clients.
 */
const HEAVY_TOOLS = new Set(["recall", "search", "export", "history", "diff", "restore", "unused"]);

/** What a call of `tool` weighs in the fair order (runtime.scheduler). */
function weightOf(tool: string): number {
  return HEAVY_TOOLS.has(tool) ? HEAVY_WEIGHT : 1;
}

/** Answers tools/list and tools/call on `server` from `runtime`'s stores. */
export function registerTools(server: Server, runtime: Runtime): void {
  const served = serveTools(runtime.namespaceArg);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listTools(runtime.namespaceArg),
  }));

  // Every call waits its turn in the fair order between clients (runtime.scheduler), so one
  // client's burst of recalls does not hold up another's calls. On SQLite a call then runs to
  // its answer at once (hybrid recall waits for the embedding worker); on PostgreSQL it waits
  // for the database, holding one of the calls its client may run at once.
  server.setRequestHandler(CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = served.get(name);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const failed = (thrown: unknown): CallToolResult => {
      // A protocol error (an unknown tool) is the request's answer, not a tool error.
      if (thrown instanceof McpError) throw thrown;
      const { error, unexpected } = toToolError(
        thrown instanceof QueueFull ? new ToolError("UNAVAILABLE", thrown.message) : thrown,
      );
      if (unexpected) runtime.log.error({ err: thrown, tool: name }, "tool call failed");
      else runtime.log.debug({ tool: name, code: error.code }, error.message);
      return errorResult(error);
    };
    const succeeded = (output: ToolOutput): CallToolResult => ({
      content: [{ type: "text", text: output.text }],
      structuredContent: output.structured,
    });
    const flow = flowOf(grantOf(extra), extra.sessionId);
    try {
      return runtime.calls.run(() =>
        runtime.scheduler
          .run(flow, weightOf(name), () => {
            // Refused in its turn like any call, so a client's answers keep its calls' order.
            if (tool === undefined) {
              throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${echoName(name)}`);
            }
            checkNamespaceAllowed(runtime, args);
            const parsed = tool.input.safeParse(args);
            if (!parsed.success) {
              throw new ToolError("INVALID_ARGUMENT", describeIssues(parsed.error));
            }
            // The schemas only check values, never change them. Zod's parse copies objects, and
            // its copy of a record loses a "__proto__" key (assigning it sets the prototype), so
            // each tool gets the caller's own values, which the schema has just accepted.
            const { [NAMESPACE_ARGUMENT.name]: namespace, ...toolArgs } = Object.fromEntries(
              Object.keys(parsed.data).map((name) => [name, args[name]]),
            );
            const access = { grant: grantOf(extra), write: !tool.readOnly };
            // The store's history records which tool (or which command a client named) made
            // each change, and the token that made it; a call retried after a busy store is
            // attributed again.
            const attribution = {
              command: commandOf(request.params._meta, name),
              // A token of the tokens file has a name; HMS_MCP_TOKEN (or none) says nothing.
              actor: access.grant === ALL_ACCESS ? undefined : access.grant.name,
            };
            const { run, runOnServer } = tool;
            if (runOnServer !== undefined || run === undefined) {
              if (namespace !== undefined) checkNamespace(namespace);
              if (runOnServer === undefined) {
                throw new ToolError("INTERNAL", `no runner for ${name}`);
              }
              const answered = runOnServer(toolArgs, {
                names: () => runtime.engine.names(),
                grant: access.grant,
                defaultNamespace: runtime.namespace,
                namespaceArg: runtime.namespaceArg,
              });
              return answered instanceof Promise
                ? answered.then(succeeded, failed)
                : succeeded(answered);
            }
            const output = after(contextFor(runtime, namespace, access, server), (context) => {
              const answered = retryBusy(
                () => context.store.history.attributed(attribution, () => run(toolArgs, context)),
                runtime.busyTimeoutMs,
              );
              // A write's subscribers, here and in other processes, hear of it (notify/).
              if (!tool.readOnly) {
                const written = () => runtime.changes.written(context.namespace);
                if (answered instanceof Promise) answered.then(written, written);
                else written();
              }
              return answered;
            });
            return output instanceof Promise ? output.then(succeeded, failed) : succeeded(output);
          })
          .catch(failed),
      );
    } catch (thrown) {
      return Promise.resolve(failed(thrown));
    }
  });
}
