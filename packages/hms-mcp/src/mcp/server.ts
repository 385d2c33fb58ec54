/** One MCP server: hms-mcp's identity and instructions, with its tools, resources and prompts. */
import { experimentalCapabilities } from "@hms/protocol";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/index.js";
import { type Outlet, Subscriptions } from "../notify/subscriptions.js";
import { observeRequests } from "../observe/requests.js";
import type { Runtime } from "../runtime/runtime.js";
import { registerPrompts } from "./prompts.js";
import { registerResources, resourceUri } from "./resources.js";
import { registerTools } from "./tools.js";

const INSTRUCTIONS =
  "hms-mcp is a durable, searchable memory store. Use recall to find memories relevant to a " +
  "question (ranked, with excerpts and line ranges), search for literal text, get to read a " +
  "memory, remember to write one (with expected_version or if_absent for safe concurrent " +
  "edits), list to browse keys, move and forget to reorganize (tree: true moves or deletes a " +
  "key and everything under key/ at once). Errors start with a code such as NOT_FOUND or " +
  "VERSION_CONFLICT.";

/**
 * The SDK's JSON Schema validator, which a Server uses only to check the answer to an
 * elicitation it requests (hms-mcp requests none). Each Server would otherwise build its own
 * Ajv instance as it is created, a large part of a connection's setup; this one builds a single
 * instance, the SDK's default, the first time a schema is to be checked.
 */
let ajv: AjvJsonSchemaValidator | undefined;
const lazyValidator: jsonSchemaValidator = {
  getValidator: (schema) => {
    ajv ??= new AjvJsonSchemaValidator();
    return ajv.getValidator(schema);
  },
};

/** How one connection takes change notifications, beyond what the MCP server sends itself. */
export type ConnectionOutlet = Pick<Outlet, "blocked" | "onResume" | "overflow">;

/** What a connection may read, when that can change while it is open (HTTP: a token's grant). */
export interface ConnectionAccess {
  /** Whether the connection may read `namespace` now: it hears of changes there only then. */
  mayHear(namespace: string): boolean;
}

/**
 * A new MCP server for one connection (one stdio pipe or one HTTP session), sharing the
 * runtime's stores with every other connection. `outlet` says when the connection cannot take
 * notifications (HTTP's event stream); `access`, what it may hear of (default: everything).
 */
export function createMcpServer(
  runtime: Runtime,
  outlet: ConnectionOutlet = {},
  access?: ConnectionAccess,
): Server {
  const server = new Server(
    { name: runtime.server.name, version: runtime.server.version, title: "Holographic Memory" },
    {
      capabilities: {
        tools: {},
        // Subscriptions to memory files and directories, and list changes for subscribers.
        resources: { subscribe: true, listChanged: true },
        prompts: {},
        // The protocol version, so a client can refuse a server it would misread at connect time.
        experimental: experimentalCapabilities(),
      },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: lazyValidator,
    },
  );
  // The SDK reports here what it cannot answer: malformed messages (the client's doing, so
  // debug) and answers it failed to send (the server's, so warn: a call went unanswered).
  server.onerror = (error) => {
    const failedToSend = /^Failed to (send|enqueue)/.test(error.message);
    runtime.log[failedToSend ? "warn" : "debug"]({ err: error }, "MCP protocol error");
  };
  const subscriptions = new Subscriptions({
    hub: runtime.changes,
    log: runtime.log,
    resourceUri,
    maxSubscriptions: runtime.maxSubscriptions,
    mayHear: access === undefined ? undefined : (namespace) => access.mayHear(namespace),
    outlet: {
      updated: (params) => server.sendResourceUpdated(params),
      listChanged: () => server.sendResourceListChanged(),
      ...outlet,
    },
  });
  // The connection counts among the metrics' sessions, its subscriptions among theirs.
  const forget = runtime.observe.meter?.connection(subscriptions);
  server.onclose = () => {
    subscriptions.close();
    forget?.();
  };
  observeRequests(server, runtime);
  registerTools(server, runtime);
  registerResources(server, runtime, subscriptions);
  registerPrompts(server, runtime);
  return server;
}
