/**
 * Connects an MCP server to a transport, answering a request whose params do not fit the
 * method's schema as JSON-RPC says: code -32602 (Invalid params), in a sentence.
 *
 * The MCP SDK (1.32) checks each request against the method's schema before any handler of
 * ours runs, and a failure reaches the client as -32603 (Internal error), or for tools/call as
 * -32602, either way with zod's issues as a JSON dump for its message. Only the answer can be
 * mended here, so it is mended where it leaves: the transport's `send`.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** One issue of a zod error, as its JSON message lists them. */
interface ZodIssueJson {
  readonly code: string;
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Requests whose method is remembered until they are answered, at most (a bound on memory). */
const MAX_REMEMBERED = 1024;

/** Connects `server` to `transport`, with invalid params answered as -32602 in a sentence. */
export async function connectServer(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const methods = new Map<RequestId, string>();
  const received = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && "id" in message && methods.size < MAX_REMEMBERED) {
      methods.set(message.id, message.method);
    }
    received?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!("id" in message) || !("result" in message || "error" in message)) {
      return send(message, options);
    }
    const { id } = message;
    const method = id === undefined || id === null ? undefined : methods.get(id);
    if (id !== undefined && id !== null) methods.delete(id);
    return send("error" in message ? readableError(message, method) : message, options);
  };
}

/**
 * `answer` with a schema failure's dump turned into -32602 and a sentence naming the method
 * and each field at fault; any other answer as it is.
 */
export function readableError(
  answer: JSONRPCErrorResponse,
  method: string | undefined,
): JSONRPCMessage {
  const { code, message } = answer.error;
  if (code !== ErrorCode.InternalError && code !== ErrorCode.InvalidParams) return answer;
  const issues = zodIssues(message.replace(/^Invalid [\w/]+ request: /, ""));
  if (issues === undefined) return answer;
  const fields = issues.slice(0, 5).map((issue) => {
    const field = issue.path.length === 0 ? "the request" : issue.path.join(".");
    return `${field}: ${issue.message.replace(/^Invalid input: /, "")}`;
  });
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : "";
  return {
    ...answer,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params${method === undefined ? "" : ` for ${method}`}: ${fields.join("; ")}${more}`,
    },
  };
}

/** The issues of a zod error's JSON message, or undefined when `text` is not one. */
function zodIssues(text: string): ZodIssueJson[] | undefined {
  if (!text.startsWith("[")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const isIssue = (value: unknown): value is ZodIssueJson =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as ZodIssueJson).code === "string" &&
    Array.isArray((value as ZodIssueJson).path) &&
    typeof (value as ZodIssueJson).message === "string";
  return parsed.every(isIssue) ? parsed : undefined;
}
