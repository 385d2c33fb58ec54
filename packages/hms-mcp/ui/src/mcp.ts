/**
 * MCP over streamable HTTP, as any client speaks it: initialize once, then tools/call with the
 * bearer token; a session the server dropped (restart, idle expiry) is opened again and the
 * call, which never ran, is sent again. The inspector has no other way into the server.
 */

const PROTOCOL_VERSION = "2025-06-18";

/** A call the server refused: `code` is the contract's error code (VERSION_CONFLICT...). */
export class ToolFailure extends Error {
  readonly code: string;
  constructor(text: string) {
    const match = /^([A-Z_]+): ([\s\S]*)$/.exec(text);
    super(match ? (match[2] as string) : text);
    this.code = match ? (match[1] as string) : "INTERNAL";
  }
}

/** The server wants a token, or refused this one (HTTP 401). */
export class Unauthorized extends Error {}

/** What `initialize` tells of the server. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

interface JsonRpcAnswer {
  readonly result?: unknown;
  readonly error?: { readonly message: string };
}

interface CallResult {
  readonly isError?: boolean;
  readonly content?: readonly { readonly text?: string }[];
  readonly structuredContent?: unknown;
}

/** How long the event stream waits before it opens again once it ended, in ms. */
const REOPEN_MS = 1000;

export class McpClient {
  readonly #endpoint: string;
  readonly #token: string;
  #session: string | undefined;
  #nextId = 1;
  /** The URIs subscribed to: subscribed again on a new session. */
  readonly #subscribed = new Set<string>();

  constructor(endpoint: string, token: string) {
    this.#endpoint = endpoint;
    this.#token = token;
  }

  /** Opens the session; Unauthorized when the token is refused. */
  async connect(): Promise<ServerInfo> {
    this.#session = undefined;
    const { answer, response } = await this.#post({
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "hms-mcp-inspector", version: "2" },
      },
    });
    this.#session = response.headers.get("mcp-session-id") ?? undefined;
    await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (const uri of this.#subscribed) await this.#request("resources/subscribe", { uri });
    const result = answer?.result as { serverInfo?: ServerInfo } | undefined;
    return result?.serverInfo ?? { name: "hms-mcp", version: "" };
  }

  /**
   * Calls a tool and returns its structured content; a refusal throws ToolFailure. `command`
   * names the change in the server's history (e.g. inspector_edit).
   */
  async call(name: string, args: Record<string, unknown>, command?: string): Promise<unknown> {
    const message = () => ({
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        ...(command ? { _meta: { "hms-mcp/command": command } } : {}),
      },
    });
    let sent = await this.#post(message());
    if (sent.expired) {
      // The server dropped the session: the call never ran.
      await this.connect();
      sent = await this.#post(message());
    }
    const result = sent.answer?.result as CallResult;
    if (result.isError) {
      throw new ToolFailure((result.content ?? []).map((part) => part.text ?? "").join(""));
    }
    return result.structuredContent;
  }

  /**
   * Asks the server to tell of changes to `uri` (a memory file or directory): they arrive on
   * the event stream that {@link listen} reads. Kept across a new session.
   */
  async subscribe(uri: string): Promise<void> {
    this.#subscribed.add(uri);
    await this.#request("resources/subscribe", { uri });
  }

  async unsubscribe(uri: string): Promise<void> {
    this.#subscribed.delete(uri);
    await this.#request("resources/unsubscribe", { uri });
  }

  /**
   * Reads the session's event stream (a GET) and calls `onUpdated` with the URI of each file
   * the server says changed, until the returned function is called; a stream that ends is
   * opened again after a pause.
   */
  listen(onUpdated: (uri: string) => void): () => void {
    const controller = new AbortController();
    const read = async () => {
      while (!controller.signal.aborted) {
        try {
          const response = await fetch(this.#endpoint, {
            method: "GET",
            headers: { ...this.#headers(), accept: "text/event-stream" },
            signal: controller.signal,
          });
          if (response.ok && response.body !== null) {
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffered = "";
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffered += value;
              const events = buffered.split(/\r?\n\r?\n/);
              buffered = events.pop() ?? "";
              for (const event of events) {
                const uri = updatedUri(event);
                if (uri !== undefined) onUpdated(uri);
              }
            }
          }
        } catch {
          // Aborted, or the network dropped: opened again below unless stopped.
        }
        if (!controller.signal.aborted) await new Promise((done) => setTimeout(done, REOPEN_MS));
      }
    };
    void read();
    return () => controller.abort();
  }

  /** Ends the session on the server (logout); never fails. */
  async close(): Promise<void> {
    if (this.#session === undefined) return;
    const headers = this.#headers();
    this.#session = undefined;
    await fetch(this.#endpoint, { method: "DELETE", headers }).catch(() => undefined);
  }

  /** Sends a request other than a tool call; its result, or an error. */
  async #request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const message = () => ({ jsonrpc: "2.0", id: this.#nextId++, method, params });
    let sent = await this.#post(message());
    if (sent.expired) {
      await this.connect();
      sent = await this.#post(message());
    }
    return sent.answer?.result;
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (this.#session) {
      headers["mcp-session-id"] = this.#session;
      headers["mcp-protocol-version"] = PROTOCOL_VERSION;
    }
    return headers;
  }

  async #post(
    message: { id?: number } & Record<string, unknown>,
  ): Promise<{ answer?: JsonRpcAnswer; response: Response; expired?: boolean }> {
    let response: Response;
    try {
      response = await fetch(this.#endpoint, {
        method: "POST",
        headers: this.#headers(),
        body: JSON.stringify(message),
      });
    } catch {
      throw new Error("The server does not answer: is hms-mcp still running?");
    }
    if (response.status === 401) throw new Unauthorized("That token was refused.");
    if (response.status === 404 && this.#session) return { response, expired: true };
    if (message.id === undefined) return { response };
    const type = response.headers.get("content-type") ?? "";
    const text = await response.text();
    const answer = type.includes("text/event-stream")
      ? fromEventStream(text, message.id)
      : safeJson(text);
    if (answer?.error) throw new Error(answer.error.message);
    if (!response.ok || answer?.result === undefined) {
      throw new Error(`The server answered HTTP ${response.status}.`);
    }
    return { answer, response };
  }
}

function safeJson(text: string): JsonRpcAnswer | undefined {
  try {
    return JSON.parse(text) as JsonRpcAnswer;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC answer with `id` among the events of a text/event-stream body. */
export function fromEventStream(text: string, id: number): JsonRpcAnswer | undefined {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    const message = safeJson(data) as (JsonRpcAnswer & { id?: unknown }) | undefined;
    if (message?.id === id) return message;
  }
  return undefined;
}

/** The URI of a notifications/resources/updated among an event's data, else undefined. */
export function updatedUri(event: string): string | undefined {
  const data = event
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart())
    .join("\n");
  const message = safeJson(data) as
    | (JsonRpcAnswer & { method?: unknown; params?: { uri?: unknown } })
    | undefined;
  if (message?.method !== "notifications/resources/updated") return undefined;
  return typeof message.params?.uri === "string" ? message.params.uri : undefined;
}
