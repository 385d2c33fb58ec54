/**
 * Every MCP request a connection answers, seen from its transport: one access line at `info`
 * (method, tool, namespace, token, peer, outcome, ms and the request id; never a memory's
 * text or a query, and the keys named only at `debug`), the tool call metrics, the refusals
 * decided inside a call (a namespace the token may not use, a read-only token's write), and
 * the request id added to every JSON-RPC error answer (`error.data.request_id`).
 *
 * It sits between the MCP SDK's Server and its transport (stdio, an HTTP session, the
 * in-process link), wrapping what the Server set as the transport's `onmessage` and the
 * transport's `send`: a request is stamped as it arrives and logged as its answer leaves, so
 * the time covers its wait for a turn, and requests the SDK itself answers (an unknown
 * method, invalid params) are seen too.
 */

import { randomUUID } from "node:crypto";
import { ERROR_META_KEY, isErrorCode, NAMESPACE_META_KEY, TOOL_SCHEMAS } from "@hms/protocol";
import { NAMESPACE_PATTERN } from "@hms/store";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Grant } from "../auth/tokens.js";
import { parseResourceUri } from "../mcp/resources.js";
import type { Runtime } from "../runtime/runtime.js";
import type { HttpRequestInfo } from "./http.js";
import { isRequestId, REQUEST_ID_META_KEY } from "./request-id.js";

const TOOL_NAMES: ReadonlySet<string> = new Set(TOOL_SCHEMAS.map((tool) => tool.name));
/** An MCP method name as a log line may show it (a client may send anything there). */
const METHOD = /^[a-z][A-Za-z0-9_/]{0,63}$/;
/** The arguments of the memory tools that name keys: logged only at debug. */
const PATH_ARGUMENTS = ["key", "prefix", "from", "to", "from_prefix", "to_prefix"] as const;
/** Longest key a debug line shows, in UTF-16 units. */
const MAX_LOGGED_PATH = 512;

/** JSON-RPC and MCP error codes, as an outcome. */
const RPC_OUTCOMES: Readonly<Record<number, string>> = {
  [-32700]: "parse_error",
  [-32600]: "invalid_request",
  [-32601]: "method_not_found",
  [-32602]: "invalid_params",
  [-32603]: "internal_error",
  [-32002]: "resource_not_found",
};

/** One request between its arrival and its answer. */
interface Pending {
  readonly at: number;
  readonly method: string;
  readonly tool: string | undefined;
  readonly namespace: string | undefined;
  /** The client's id, or the HTTP listener's; made only when a line or an error needs one. */
  requestId: string | undefined;
  readonly grant: Grant | undefined;
  readonly token: string | undefined;
  readonly peer: string | undefined;
  readonly paths: Record<string, string> | undefined;
}

/** Observes the requests of each transport `server` is connected to from now on. */
export function observeRequests(server: Server, runtime: Runtime): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    observeTransport(transport, runtime);
  };
}

function observeTransport(transport: Transport, runtime: Runtime): void {
  const received = transport.onmessage;
  const send = transport.send.bind(transport);
  const pending = new Map<string | number, Pending>();
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ("method" in message && "id" in message) {
      pending.set(message.id, arrived(message, extra, runtime));
    }
    received?.(message, extra);
  };
  transport.send = (message, options) => {
    if (("result" in message || "error" in message) && message.id !== undefined) {
      const request = pending.get(message.id);
      if (request !== undefined) {
        pending.delete(message.id);
        answered(request, message, runtime);
      }
    }
    return send(message, options);
  };
}

/** What a request's log line and metrics need, taken as it arrives. */
function arrived(
  message: { method: string; params?: { [key: string]: unknown } | undefined },
  extra: MessageExtraInfo | undefined,
  runtime: Runtime,
): Pending {
  const http = extra?.authInfo?.extra as Partial<HttpRequestInfo> | undefined;
  const params = message.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const method = METHOD.test(message.method) ? message.method : "(invalid)";
  let tool: string | undefined;
  let namespace: string | undefined;
  let named: Record<string, unknown> | undefined;
  if (method === "tools/call") {
    const name = params?.name;
    tool = typeof name === "string" && TOOL_NAMES.has(name) ? name : "unknown";
    named = params?.arguments as Record<string, unknown> | undefined;
    namespace = namespaceOf(named?.namespace, runtime);
  } else if (method.startsWith("resources/") || method.startsWith("prompts/")) {
    const uri = params?.uri;
    const parsed = typeof uri === "string" ? parseResourceUri(uri) : undefined;
    namespace = namespaceOf(parsed?.namespace ?? meta?.[NAMESPACE_META_KEY], runtime);
  }
  return {
    at: performance.now(),
    method,
    tool,
    namespace,
    requestId:
      http?.requestId ??
      (isRequestId(meta?.[REQUEST_ID_META_KEY]) ? meta[REQUEST_ID_META_KEY] : undefined),
    grant: http?.grant,
    token: http?.token,
    peer: http?.peer,
    paths: runtime.accessLog.isLevelEnabled("debug") ? pathsOf(named, params?.uri) : undefined,
  };
}

/** A namespace a request names, as a log line may show it; none: the server's own. */
function namespaceOf(named: unknown, runtime: Runtime): string {
  if (named === undefined) return runtime.namespace;
  return typeof named === "string" && NAMESPACE_PATTERN.test(named) ? named : "(invalid)";
}

/** The keys a call names (debug lines only), each cut to {@link MAX_LOGGED_PATH}. */
function pathsOf(
  args: Record<string, unknown> | undefined,
  uri: unknown,
): Record<string, string> | undefined {
  const paths: Record<string, string> = {};
  for (const name of PATH_ARGUMENTS) {
    const value = args?.[name];
    if (typeof value === "string") paths[name] = value.slice(0, MAX_LOGGED_PATH);
  }
  if (typeof uri === "string") paths.uri = uri.slice(0, MAX_LOGGED_PATH);
  return Object.keys(paths).length > 0 ? paths : undefined;
}

/** The request's id: its own, else a new one from now on. */
function idOf(request: Pending): string {
  request.requestId ??= randomUUID();
  return request.requestId;
}

/** The answer to `request` is leaving: its id into an error, its line, metrics and refusals. */
function answered(request: Pending, message: JSONRPCMessage, runtime: Runtime): void {
  const seconds = (performance.now() - request.at) / 1000;
  let outcome = "ok";
  if ("error" in message) {
    const { error } = message;
    outcome = RPC_OUTCOMES[error.code] ?? "error";
    const data = error.data;
    if (data === undefined || (typeof data === "object" && data !== null && !Array.isArray(data))) {
      error.data = { ...(data as object | undefined), request_id: idOf(request) };
    }
  } else if ("result" in message && message.result.isError === true) {
    const meta = message.result._meta as Record<string, { code?: unknown }> | undefined;
    const code = meta?.[ERROR_META_KEY]?.code;
    outcome = isErrorCode(code) ? code : "error";
  }
  const { observe } = runtime;
  if (request.tool !== undefined) observe.meter?.toolCall(request.tool, outcome, seconds);
  if (runtime.accessLog.isLevelEnabled("info")) {
    runtime.accessLog.info(
      {
        request_id: idOf(request),
        method: request.method,
        tool: request.tool,
        namespace: request.namespace,
        token: request.token,
        peer: request.peer,
        outcome,
        ms: Math.round(seconds * 100_000) / 100,
        paths: request.paths,
      },
      "request",
    );
  }
  const refusal = refusalOf(request, outcome);
  if (refusal !== undefined) {
    observe.refusals.refused({
      reason: refusal,
      peer: request.peer,
      token: request.token,
      namespace: request.namespace,
      requestId: idOf(request),
    });
  }
}

/** Whether an answer refused the request for its token's grant, and why. */
function refusalOf(request: Pending, outcome: string): "namespace" | "read-only" | undefined {
  if (request.grant === undefined || request.namespace === undefined) return undefined;
  if (outcome === "FORBIDDEN") return "read-only";
  const notFound = outcome === "NOT_FOUND" || outcome === "resource_not_found";
  if (notFound && NAMESPACE_PATTERN.test(request.namespace)) {
    return request.grant.allows(request.namespace) ? undefined : "namespace";
  }
  return undefined;
}
