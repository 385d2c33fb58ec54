/**
 * Which web pages may call the server, and the CORS headers that let a browser show them the
 * answers. A page is allowed when its Origin is listed in --allowed-origins, or when it is the
 * server's own origin (the Origin's host is the request's Host, which already passed the
 * DNS-rebinding check).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Request headers a browser client sends to an MCP endpoint. */
const ALLOWED_HEADERS = [
  "Accept",
  "Authorization",
  "Content-Type",
  "Last-Event-ID",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
].join(", ");

/** Answer headers a page must be able to read (the session id above all). */
const EXPOSED_HEADERS = [
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
  "Retry-After",
  "WWW-Authenticate",
].join(", ");

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

export class Cors {
  readonly #origins: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.#origins = new Set(allowedOrigins);
  }

  /** Whether a request with this Origin (and Host) may be served. No Origin: not a browser page. */
  allows(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.#origins.has(origin)) return true;
    return sameOrigin(origin, host);
  }

  /**
   * Sets the CORS headers of an allowed Origin on `res`, so every answer (errors included)
   * reaches the page. Call once `allows` said yes.
   */
  grant(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("access-control-expose-headers", EXPOSED_HEADERS);
    res.setHeader("vary", "Origin");
  }

  /** Answers a CORS preflight (OPTIONS with Access-Control-Request-Method) of an allowed Origin. */
  preflight(res: ServerResponse): void {
    res.writeHead(204, {
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": String(PREFLIGHT_MAX_AGE),
    });
    res.end();
  }
}

/** True for a CORS preflight request. */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
}

/** Whether `origin` names the host the request was sent to (http or https, same host:port). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === "") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return url.host.toLowerCase() === host.toLowerCase();
}
