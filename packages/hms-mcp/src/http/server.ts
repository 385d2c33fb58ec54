import { randomUUID } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InitializeRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ALL_ACCESS, type Grant, type Tokens } from "../auth/tokens.js";
import { isLoopback } from "../config/config.js";
import { connectServer } from "../mcp/connect.js";
import { createMcpServer } from "../mcp/server.js";
import {
  authInfoOf,
  observeHttpRequest,
  refuseHttp,
  requestIdOfResponse,
} from "../observe/http.js";
import { METRICS_PATH, serveMetricsOnMcpListener } from "../observe/metrics-http.js";
import { flowOf } from "../runtime/flows.js";
import type { Runtime } from "../runtime/runtime.js";
import { Cors, isPreflight } from "./cors.js";
import { EventStream } from "./event-stream.js";
import { BodiesBeingRead, InFlight, type RequestLimits, UnreadAnswers } from "./limits.js";
import { PeerConnections, peerOf } from "./peers.js";
import { isProbe, serveProbe } from "./probes.js";
import { SessionRate } from "./session-rate.js";
import { type SessionLimits, SessionRegistry } from "./sessions.js";
import { isUiRequest, serveUi, serveUiEntrance, UI_PATH, uiEntrance } from "./ui.js";

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /**
   * The tokens requests must carry (a request's Authorization header gives its grant; none or
   * an unknown one: 401), and which tell of reloads; absent: no tokens.
   */
  readonly tokens: Pick<Tokens, "authenticate" | "current" | "onReload"> | undefined;
  readonly allowedOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
  /** Largest request body in bytes. */
  readonly maxBodyBytes: number;
  /** Sessions per client and in all, and their idle timeout. */
  readonly sessions?: Partial<SessionLimits>;
  /** Requests in flight and unread answer bytes. */
  readonly requests?: Partial<RequestLimits>;
  /** Serve the web inspector's files under /ui (`--ui`). */
  readonly ui?: boolean;
  /** New sessions one client (token) may open per second (bursts of twice that). */
  readonly sessionsPerSecond?: number;
  /** How long a request's headers, and its headers and body, may take to arrive. */
  readonly deadlines?: Partial<RequestDeadlines>;
  /** Most connections open from one peer (IPv4 address, IPv6 /64); 0: no cap. */
  readonly maxConnectionsPerPeer?: number;
}

/** How long a request may take to arrive, in ms; then its connection is closed (408). */
export interface RequestDeadlines {
  /** From the request's first byte until its headers have all come. */
  readonly headersMs: number;
  /** From the request's first byte until its body has all come. */
  readonly requestMs: number;
}

/** The bounds a server has when its options name none. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  perClient: 100,
  total: 1000,
  idleMs: 30 * 60_000,
};
export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  inFlightPerClient: 16,
  inFlightTotal: 64,
  bufferedBytes: 64 * 1024 * 1024,
};
export const DEFAULT_REQUEST_DEADLINES: RequestDeadlines = {
  headersMs: 10_000,
  requestMs: 30_000,
};
/** Default of `--max-connections-per-peer`. */
export const DEFAULT_CONNECTIONS_PER_PEER = 256;

/**
 * How often Node checks the deadlines of the requests still arriving: a connection is closed
 * at its deadline or up to this much later.
 */
const DEADLINE_CHECK_MS = 1000;
/**
 * How long an idle keep-alive connection stays open (Node's default is 5 s). A client drops an
 * idle connection a little before the time the server announces (undici, behind fetch: 1 s
 * before), but a client whose event loop lags longer than that sends its next request on a
 * connection the server is closing, and the request fails ("other side closed"): it happened to
 * the tests' HTTP clients at load average 30. A minute leaves room for any lag, and is what
 * proxies in front of a server commonly keep (nginx's upstream keepalive_timeout is 60 s).
 */
export const KEEP_ALIVE_MS = 65_000;
/** How long a connection over its peer's cap has to send its request and be told why (429). */
const REFUSED_CONNECTION_GRACE_MS = 1000;

/** `defaults`, with each value `given` sets (an undefined value keeps the default). */
function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const merged = { ...defaults };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/** Seconds a refused client is told to wait before it tries again (Retry-After). */
const RETRY_AFTER_S = 1;
/** Default of `--max-new-sessions-per-second`. */
export const DEFAULT_SESSIONS_PER_SECOND = 20;

/** A running HTTP listener. */
export interface HttpEndpoint {
  /** The endpoint's URL, with the port actually bound. */
  readonly url: string;
  /** The web inspector's URL, when it is served (`ui`). */
  readonly uiUrl: string | undefined;
  /** Stops accepting connections and closes every session. */
  close(): Promise<void>;
}

interface Session {
  /** The grant of the session's token as last known: its latest request's, or a reload's. */
  grant: Grant;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  /** The session's GET stream, where change notifications go. */
  readonly events: EventStream;
  close(): Promise<void>;
  /** A session with an event stream open is in use, though it sends no request. */
  streaming(): boolean;
}

/** A JSON-RPC id, as an error answer echoes it. */
type JsonRpcId = string | number | null;

function send(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  code = -32000,
  id: JsonRpcId = null,
  headers = {},
) {
  // The request's id comes back in the error's data too, as the SDK's errors carry it.
  const data = { request_id: requestIdOfResponse(res) };
  send(res, status, { jsonrpc: "2.0", error: { code, message, data }, id }, headers);
}

/** The id of a parsed JSON-RPC message, when it has a valid one; null otherwise. */
function idOf(message: unknown): JsonRpcId {
  if (typeof message !== "object" || message === null || !("id" in message)) return null;
  const { id } = message as { id: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/**
 * The body as text, or why there is none: "too large" once it is over `max` bytes, "busy" once
 * it is large and the bodies being read hold their budget (reading stops there), "cut" when
 * the connection closed before all of it came (the client left, or its deadline passed and
 * Node closed the connection).
 */
async function readBody(
  req: IncomingMessage,
  max: number,
  reading: BodiesBeingRead,
): Promise<{ text: string } | { missing: "too large" | "busy" | "cut" }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let taken = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > max) return { missing: "too large" };
      if (!reading.take((chunk as Buffer).length, size)) return { missing: "busy" };
      taken = size;
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { missing: "cut" };
  } finally {
    reading.give(taken);
  }
  if (!req.complete) return { missing: "cut" };
  return { text: Buffer.concat(chunks).toString("utf8") };
}

/** Whether `req` opens a session's event stream: a GET on the MCP endpoint. */
function isEventStream(req: IncomingMessage, endpoint: string): boolean {
  return req.method === "GET" && new URL(req.url ?? "/", "http://localhost").pathname === endpoint;
}

/** Refuses a body over the bound and closes the connection, so the rest is never read. */
function tooLarge(res: ServerResponse, max: number): void {
  res.shouldKeepAlive = false;
  jsonRpcError(res, 413, `Request body is over ${max} bytes`);
}

/** What an `initialize` request lacks, in a sentence (it failed InitializeRequestSchema). */
function initializeProblem(message: unknown): string {
  const parsed = InitializeRequestSchema.safeParse(message);
  const issues = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "(message)"}: ${issue.message}`,
      );
  return `Invalid params: initialize needs params.protocolVersion, params.capabilities and params.clientInfo (name, version); ${issues.slice(0, 5).join("; ")}`;
}

/** Host header values a loopback listener answers to (DNS-rebinding protection). */
function loopbackHosts(host: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set([
    "localhost",
    "127.0.0.1",
    "[::1]",
    host.includes(":") ? `[${host}]` : host,
  ]);
  const allowed = new Set<string>();
  for (const name of names) {
    allowed.add(`${name}:${port}`);
    if (port === 80) allowed.add(name);
  }
  for (const value of extra) allowed.add(value.toLowerCase());
  return allowed;
}

/**
 * Serves MCP over streamable HTTP: one session (one MCP server) per client session, all
 * sharing the runtime's stores. A connection over its peer's cap is refused (429) before
 * anything else, and a request must all come within the deadlines (408). A CORS preflight
 * from an allowed page is answered first (a browser sends no token with it). Every other
 * request is checked in this order: bearer token (401, with nothing else said), Host and
 * Origin (403), path (404), its body read (413, 400), requests in flight (429 for this
 * client, 503 for the server), then handed to the session's transport. Sessions are capped
 * per token (the grant's name), so one client can only evict its own; requests in flight per
 * flow (a token of the tokens file, else a session), as the fair order of tool calls is.
 */
export async function startHttp(runtime: Runtime, options: HttpOptions): Promise<HttpEndpoint> {
  const sessions = new SessionRegistry<Session>(
    withDefaults(DEFAULT_SESSION_LIMITS, options.sessions),
    (id, client, why) => {
      if (why === "revoked") {
        runtime.log.info(
          { session: id, token: client },
          "closing a session: its token is no longer in the tokens file",
        );
      } else {
        runtime.log.warn(
          { session: id },
          why === "idle"
            ? "closing a session unused for the idle timeout"
            : "closing this client's least recently used session: it is over its session cap",
        );
      }
    },
  );
  // A reloaded tokens file takes effect in open sessions too: a session whose token is gone (or
  // now names another client) is closed, its event stream with it; the others hear only of
  // the namespaces their token may still read (Subscriptions' mayHear asks session.grant).
  const { tokens } = options;
  const stopRegranting = tokens?.onReload(() => {
    for (const [id, session] of sessions.entries()) {
      const now = tokens.current(session.grant);
      if (now === undefined || now.name !== session.grant.name) sessions.close(id, "revoked");
      else session.grant = now;
    }
  });
  const limits = withDefaults(DEFAULT_REQUEST_LIMITS, options.requests);
  const inFlight = new InFlight(limits);
  // Bodies still coming count in flight for none: the bytes they hold are bounded as the bound
  // in flight bounded them before (the most requests in flight, each with the largest body).
  const reading = new BodiesBeingRead(limits.inFlightTotal * options.maxBodyBytes);
  const unread = new UnreadAnswers(limits.bufferedBytes, (bytes) =>
    runtime.log.warn(
      { bytes },
      "closing a connection whose client does not read its answer: unread answers are over the bound",
    ),
  );
  const cors = new Cors(options.allowedOrigins);
  const sessionRate = new SessionRate(options.sessionsPerSecond ?? DEFAULT_SESSIONS_PER_SECOND);
  let hosts: Set<string> | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // The inspector's files hold no data: they are served without the token, which the page
    // asks for and sends with its MCP calls like any client (and the Host check still holds).
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (isProbe(pathname)) {
      await serveProbe(runtime, pathname, req, res);
      return;
    }
    if (options.ui === true && isUiRequest(pathname)) {
      if (hosts !== undefined && !hosts.has((req.headers.host ?? "").toLowerCase())) {
        res.writeHead(403).end();
      } else if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405, { allow: "GET, HEAD" }).end();
      } else {
        serveUi(res, pathname, options.path);
      }
      return;
    }
    // A person's browser at the root (or at /ui of a server without --ui) is shown the way.
    const entrance = uiEntrance(pathname, req.method, options.ui === true, options.path);
    if (entrance !== undefined) {
      if (hosts !== undefined && !hosts.has((req.headers.host ?? "").toLowerCase())) {
        res.writeHead(403).end();
      } else {
        serveUiEntrance(res, entrance, options.path);
      }
      return;
    }
    const hostHeader = (req.headers.host ?? "").toLowerCase();
    const hostAllowed = hosts === undefined || hosts.has(hostHeader);
    const { observe } = runtime;
    if (pathname === METRICS_PATH) {
      const access = { hostAllowed, authenticate: tokens?.authenticate.bind(tokens) };
      if (await serveMetricsOnMcpListener(observe, req, res, access)) return;
    }
    const origin = req.headers.origin;
    const originAllowed = cors.allows(origin, hostHeader);
    if (isPreflight(req)) {
      if (!hostAllowed || !originAllowed) {
        res.writeHead(403).end();
        return;
      }
      cors.grant(req, res);
      cors.preflight(res);
      return;
    }
    // An allowed page can read every answer, errors included.
    if (hostAllowed && originAllowed) cors.grant(req, res);

    const grant = tokens ? tokens.authenticate(req.headers.authorization) : ALL_ACCESS;
    if (grant === undefined) {
      refuseHttp(observe, req, res, { reason: "unauthenticated", status: 401 });
      send(res, 401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="hms-mcp"' });
      return;
    }
    // The MCP SDK hands req.auth to each handler as extra.authInfo: the call's grant (and what
    // the request observer logs of it).
    const auth = authInfoOf(req, res, grant, tokens !== undefined);
    (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    // Sessions are bounded per token (serve). Requests in flight are bounded per flow (a token
    // of the tokens file; else a session), as the fair order of tool calls is: one client's
    // requests cannot starve another's.
    const sessionHeader = req.headers["mcp-session-id"];
    const flow = flowOf(grant, typeof sessionHeader === "string" ? sessionHeader : undefined);
    if (!hostAllowed) {
      refuseHttp(observe, req, res, { reason: "host", status: 403 });
      jsonRpcError(res, 403, `Host ${JSON.stringify(hostHeader)} is not allowed`);
      return;
    }
    if (!originAllowed) {
      refuseHttp(observe, req, res, { reason: "origin", status: 403 });
      jsonRpcError(
        res,
        403,
        `Origin ${JSON.stringify(origin)} is not allowed; start the server with --allowed-origins to accept it`,
      );
      return;
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== options.path) {
      jsonRpcError(res, 404, `Not found: the MCP endpoint is ${options.path}`);
      return;
    }

    // The body is read before the request counts in flight: a client that sends its body
    // slowly, or never, holds only its own connection (until the request deadline), never a
    // slot another request needs.
    let parsedBody: unknown;
    if (req.method === "POST") {
      const parsed = await readJsonBody(req, res);
      if (parsed === undefined) return;
      parsedBody = parsed.message;
    }
    const id = idOf(parsedBody);

    const admitted = inFlight.admit(flow);
    if (typeof admitted !== "function") {
      if (admitted.status === 429) {
        refuseHttp(observe, req, res, {
          reason: "in-flight",
          status: 429,
          token: tokens && grant.name,
        });
      }
      jsonRpcError(res, admitted.status, admitted.message, -32000, id, {
        "retry-after": String(RETRY_AFTER_S),
      });
      return;
    }
    res.once("close", admitted);
    // Once the whole answer is handed to the socket (the transport may still be writing it
    // after its handler returned), what the client has not taken yet is accounted.
    res.once("prefinish", () => unread.track(res));
    try {
      await serve(req, res, grant, parsedBody, id, admitted);
    } finally {
      admitted();
    }
  };

  /**
   * The JSON-RPC message of a POST's body, or undefined once the request has been answered
   * (or its connection closed) because the body is too large, not JSON, a batch or cut short.
   */
  const readJsonBody = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ message: unknown } | undefined> => {
    // A declared length over the bound is refused before a byte of the body is read (and,
    // with Expect: 100-continue, before the client sends it); the connection is closed.
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > options.maxBodyBytes) {
      tooLarge(res, options.maxBodyBytes);
      return undefined;
    }
    if (req.headers.expect?.toLowerCase() === "100-continue") res.writeContinue();
    const body = await readBody(req, options.maxBodyBytes, reading);
    if ("missing" in body) {
      if (body.missing === "too large") tooLarge(res, options.maxBodyBytes);
      else if (body.missing === "busy") {
        res.shouldKeepAlive = false;
        jsonRpcError(
          res,
          503,
          `The server is busy reading large request bodies (${reading.bytes} bytes, the most is ${reading.budget}); retry shortly`,
          -32000,
          null,
          { "retry-after": String(RETRY_AFTER_S) },
        );
      } else if (
        (req.socket.errored as NodeJS.ErrnoException | null)?.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ) {
        runtime.log.info(
          { peer: peerOf(req.socket.remoteAddress) },
          "closed a connection whose request body did not all come within the request timeout",
        );
      }
      return undefined;
    }
    let message: unknown;
    try {
      message = JSON.parse(body.text);
    } catch {
      jsonRpcError(res, 400, "Parse error: the body is not JSON", -32700);
      return undefined;
    }
    if (Array.isArray(message)) {
      // MCP removed JSON-RPC batches in protocol 2025-06-18, and no MCP client sends them.
      // A batch's answers are held until the last is ready and sent as one string, so one
      // request could make the server hold a hundred export pages at once.
      jsonRpcError(
        res,
        400,
        "Invalid Request: JSON-RPC batches are not supported; send one message per request",
        -32600,
      );
      return undefined;
    }
    return { message };
  };

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    grant: Grant,
    parsedBody: unknown,
    id: JsonRpcId,
    release: () => void,
  ) => {
    const clientKey = grant.name;
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      // A session is found only with the token that opened it.
      const session = sessions.use(sessionId, clientKey);
      if (session === undefined) {
        jsonRpcError(res, 404, "Session not found; initialize a new session", -32001, id);
        return;
      }
      session.grant = grant;
      if (req.method === "GET") {
        // The session's event stream (change notifications): open for as long as the client
        // keeps it, so it is not a request in flight.
        release();
        session.events.watch(res);
      }
      await session.transport.handleRequest(req, res, parsedBody);
      return;
    }
    if (req.method !== "POST") {
      jsonRpcError(res, 400, "Bad request: no session; start one with an initialize request");
      return;
    }
    if (!isInitializeRequest(parsedBody)) {
      if ((parsedBody as { method?: unknown } | null)?.method === "initialize") {
        jsonRpcError(res, 400, initializeProblem(parsedBody), -32602, id);
      } else {
        jsonRpcError(
          res,
          400,
          "Bad request: no session; start one with an initialize request",
          -32000,
          id,
        );
      }
      return;
    }
    if (runtime.calls.stopping) {
      jsonRpcError(res, 503, "The server is shutting down", -32000, id);
      return;
    }
    if (!sessionRate.take(clientKey)) {
      refuseHttp(runtime.observe, req, res, {
        reason: "new-sessions",
        status: 429,
        token: clientKey,
      });
      jsonRpcError(
        res,
        429,
        "Too many new sessions from this client: reuse a session, or retry in a moment",
        -32000,
        id,
        { "retry-after": String(sessionRate.retryAfter(clientKey)) },
      );
      return;
    }
    if (!sessions.hasRoom(clientKey)) {
      jsonRpcError(
        res,
        503,
        `The server holds the most sessions it keeps (${sessions.size}); retry later`,
        -32000,
        id,
        { "retry-after": String(RETRY_AFTER_S) },
      );
      return;
    }
    const events = new EventStream();
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes,
      onsessioninitialized: (id) => {
        session = {
          grant,
          transport,
          server,
          events,
          close: () => server.close(),
          streaming: () => events.open,
        };
        sessions.add(id, clientKey, session);
        runtime.log.info({ session: id, token: tokens ? clientKey : undefined }, "session opened");
      },
      onsessionclosed: (id) => {
        sessions.remove(id);
        runtime.log.info({ session: id }, "session closed");
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    };
    // A client that lets its change notifications pile up unread loses its session.
    const server = createMcpServer(
      runtime,
      events.outlet(() => void server.close().catch(() => {})),
      { mayHear: (namespace) => (session?.grant ?? grant).allows(namespace) },
    );
    await connectServer(server, transport);
    await transport.handleRequest(req, res, parsedBody);
  };

  let active = 0;
  let drained: (() => void) | undefined;
  const deadlines = withDefaults(DEFAULT_REQUEST_DEADLINES, options.deadlines);
  const peers = new PeerConnections(options.maxConnectionsPerPeer ?? DEFAULT_CONNECTIONS_PER_PEER);
  // Connections over their peer's cap, answered 429 (if their request comes within the grace).
  const overCap = new WeakSet<Socket>();
  const http: HttpServer = createServer(
    {
      // Node closes a connection whose request has not all come by these deadlines (408),
      // checking every DEADLINE_CHECK_MS; a request that has come is served however long it
      // takes.
      headersTimeout: deadlines.headersMs,
      requestTimeout: deadlines.requestMs,
      connectionsCheckingInterval: DEADLINE_CHECK_MS,
      keepAliveTimeout: KEEP_ALIVE_MS,
    },
    (req, res) => {
      observeHttpRequest(runtime.observe, req, res);
      // A session's event stream (GET on the endpoint) never ends by itself: closing waits
      // for calls in progress, not for it (it is cut with the connections).
      if (!isEventStream(req, options.path)) {
        active++;
        res.once("close", () => {
          active--;
          if (active === 0) drained?.();
        });
      }
      if (overCap.has(req.socket)) {
        refuseOverCap(req, res);
        return;
      }
      handle(req, res).catch((error: unknown) => {
        runtime.log.error({ err: error }, "HTTP request failed");
        if (!res.headersSent) jsonRpcError(res, 500, "Internal server error", -32603);
        else res.end();
      });
    },
  );

  // Before anything is known of a client, its address: a peer over its cap of connections has
  // the new one answered 429 and closed (or just closed, if no request comes within the
  // grace), so one address cannot hold every socket; other peers are not touched.
  http.on("connection", (socket: Socket) => {
    runtime.scheduler.arrived();
    const { admitted } = peers.admit(socket);
    if (admitted) return;
    overCap.add(socket);
    const grace = setTimeout(() => socket.destroy(), REFUSED_CONNECTION_GRACE_MS);
    grace.unref();
    socket.once("close", () => clearTimeout(grace));
  });
  const refuseOverCap = (req: IncomingMessage, res: ServerResponse) => {
    const peer = peerOf(req.socket.remoteAddress);
    refuseHttp(runtime.observe, req, res, { reason: "connections", status: 429 });
    res.shouldKeepAlive = false;
    jsonRpcError(
      res,
      429,
      `Too many connections from this address (${peers.countOf(peer)}, the most is ${options.maxConnectionsPerPeer ?? DEFAULT_CONNECTIONS_PER_PEER}); reuse connections (keep-alive) or retry once some have closed`,
      -32000,
      null,
      { "retry-after": String(RETRY_AFTER_S) },
    );
  };

  // A client that sends Expect: 100-continue is told to go on only once the request passed the
  // checks above and its declared length is within the bound (Node would otherwise say so at
  // once, and the client would send its whole body to be refused).
  http.on("checkContinue", (req, res) => http.emit("request", req, res));

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  if (isLoopback(options.host) || options.allowedHosts.length > 0) {
    hosts = loopbackHosts(options.host, port, options.allowedHosts);
    if (!isLoopback(options.host)) {
      // A remote listener with --allowed-hosts accepts only those names.
      hosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
    }
  }
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;

  return {
    url: `http://${shownHost}:${port}${options.path}`,
    uiUrl: options.ui === true ? `http://${shownHost}:${port}${UI_PATH}` : undefined,
    async close() {
      stopRegranting?.();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      // Let requests in progress finish and send their responses (bounded).
      if (active > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, 5000).unref();
        });
      }
      await sessions.closeAll();
      http.closeAllConnections();
      await closed;
    },
  };
}
