import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkContextManagement } from "./context-management";

/** A text block of a scripted assistant reply. */
export interface ScriptedTextBlock {
  type: "text";
  text: string;
}

/** A tool call of a scripted assistant reply; `id` is generated when omitted. */
export interface ScriptedToolUseBlock {
  type: "tool_use";
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export type ScriptedBlock = ScriptedTextBlock | ScriptedToolUseBlock;

/** What the API says it cleared from the request's context (context editing), as sent. */
export interface ScriptedContextManagement {
  applied_edits: Array<{ type: string; [field: string]: unknown }>;
}

/**
 * One assistant reply. `stop_reason` defaults to `tool_use` when a tool is called, else
 * `end_turn`; `context_management`, when given, is the reply's report of the context edits
 * applied (the API sends it when the request asked for context editing).
 */
export interface ScriptedTurn {
  content: ScriptedBlock[];
  stop_reason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
  context_management?: ScriptedContextManagement;
}

/** A reply, or a function that builds the reply from the request it answers. */
export type ScriptStep = ScriptedTurn | ((request: MessagesRequest) => ScriptedTurn);

/** The parts of a Messages API request body the scripted model reads; the rest is recorded as sent. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: unknown[];
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

/** A request the scripted model received, recorded for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: MessagesRequest;
}

export interface ScriptedModelOptions {
  /** The replies, served in order, one per `POST /v1/messages`. */
  turns: ScriptStep[];
  /** Interface to bind; loopback by default. */
  host?: string;
  /** Port to bind; 0 (the default) picks a free one. */
  port?: number;
}

export interface ScriptedModel {
  /** Base URL to give the SDK as `baseURL` / `base_url`. */
  readonly url: string;
  /** Every Messages request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** How many scripted replies have not been served yet. */
  remaining(): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Starts a loopback HTTP server that answers the Anthropic Messages API (`POST /v1/messages`,
 * plain JSON or server-sent events when the request asks to stream) with scripted replies.
 *
 * `GET /requests` returns the recorded requests as JSON, so a test in another language can
 * assert on what its SDK sent. A request after the script is exhausted, or one that is not a
 * well-formed Messages request (its `context_management` included: see
 * context-management.ts), gets a 400 `invalid_request_error` (which SDKs do not retry).
 */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const steps = [...options.turns];
  const requests: RecordedRequest[] = [];
  let served = 0;
  // The tools of each reply's conversation: a request that continues a thread
  // (`thread: { type: "continue", previous_message_id }`) sends none; the thread holds them.
  const toolsOfReply = new Map<string, unknown>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      sendError(res, 500, "api_error", `scripted model failed: ${String(error)}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/requests") {
      sendJson(res, 200, requests);
      return;
    }
    if (req.method !== "POST" || path !== "/v1/messages") {
      sendError(
        res,
        404,
        "not_found_error",
        `scripted model serves POST /v1/messages, not ${req.method} ${path}`,
      );
      return;
    }

    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      sendError(res, 400, "invalid_request_error", `request body is not JSON: ${String(error)}`);
      return;
    }
    const tools = toolsOf(body, toolsOfReply);
    const problem =
      checkRequest(body) ??
      checkContextManagement(body as Record<string, unknown>, req.headers["anthropic-beta"], tools);
    if (problem) {
      sendError(res, 400, "invalid_request_error", problem);
      return;
    }
    const request = body as MessagesRequest;
    requests.push({ method: req.method, path, headers: req.headers, body: request });

    const step = steps[served];
    if (step === undefined) {
      sendError(
        res,
        400,
        "invalid_request_error",
        `scripted model: the script has no reply left (it had ${steps.length}; this is request ${requests.length})`,
      );
      return;
    }
    served += 1;
    const turn = typeof step === "function" ? step(request) : step;
    const message = toMessage(turn, request.model);
    toolsOfReply.set(message.id, tools);
    if (request.stream === true) {
      sendStream(res, message);
    } else {
      sendJson(res, 200, message);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    requests,
    remaining: () => steps.length - served,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The request's tools, or the thread's it continues when it sends none. */
function toolsOf(body: unknown, toolsOfReply: Map<string, unknown>): unknown {
  if (typeof body !== "object" || body === null) return undefined;
  const { tools, thread } = body as { tools?: unknown; thread?: { previous_message_id?: unknown } };
  if (tools !== undefined) return tools;
  const previous = thread?.previous_message_id;
  return typeof previous === "string" ? toolsOfReply.get(previous) : undefined;
}

function checkRequest(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "request body must be a JSON object";
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || b.model === "") return "`model` must be a non-empty string";
  if (typeof b.max_tokens !== "number") return "`max_tokens` must be a number";
  if (!Array.isArray(b.messages) || b.messages.length === 0) {
    return "`messages` must be a non-empty array";
  }
  return undefined;
}

interface Message {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Array<ScriptedTextBlock | Required<ScriptedToolUseBlock>>;
  stop_reason: string;
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
  context_management?: ScriptedContextManagement;
}

function toMessage(turn: ScriptedTurn, model: string): Message {
  const content = turn.content.map((block) =>
    block.type === "tool_use" ? { ...block, id: block.id ?? newId("toolu") } : { ...block },
  );
  const callsTool = content.some((block) => block.type === "tool_use");
  return {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.stop_reason ?? (callsTool ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
    ...(turn.context_management ? { context_management: turn.context_management } : {}),
  };
}

/** Writes the message as the Messages API's event stream: start, one block at a time, stop. */
function sendStream(res: ServerResponse, message: Message): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: Record<string, unknown>) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event("message_start", {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 1 },
    ...(message.context_management ? { context_management: message.context_management } : {}),
  });
  event("message_stop", {});
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "request-id": newId("req") });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, status, { type: "error", error: { type, message } });
}

function newId(prefix: string): string {
  return `${prefix}_scripted_${randomBytes(8).toString("hex")}`;
}
