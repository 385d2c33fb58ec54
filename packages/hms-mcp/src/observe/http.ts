/**
 * What the HTTP listener tells the observer: each request's id (the client's `x-request-id`
 * when valid, else a new one, sent back in the same header), each response's status (the
 * metrics), and the refusals it answers itself (401, 403, 429), with the client's address.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Grant } from "../auth/tokens.js";
import type { Meter } from "./meter.js";
import type { RefusalLog, RefusalReason } from "./refusals.js";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-id.js";

/** What the HTTP layer tells of a request (`authInfo.extra`), beside its grant. */
export interface HttpRequestInfo {
  readonly grant: Grant;
  /** The client's address. */
  readonly peer: string;
  /** The request's id (the x-request-id header's, or a new one), already in its answer's header. */
  readonly requestId: string;
  /** The token's name (undefined when the server takes no tokens). */
  readonly token: string | undefined;
}

/** The parts of the observer the HTTP listener tells (observer.ts's Observer has them). */
export interface HttpObserver {
  readonly meter: Meter | undefined;
  readonly refusals: RefusalLog;
}

/** Gives `req` its id, in `res`'s header, and counts `res`'s status once sent; returns the id. */
export function observeHttpRequest(
  observer: HttpObserver,
  req: IncomingMessage,
  res: ServerResponse,
): string {
  const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
  res.setHeader(REQUEST_ID_HEADER, requestId);
  const { meter } = observer;
  if (meter !== undefined) res.once("finish", () => meter.httpRequest(res.statusCode));
  return requestId;
}

/** The id `observeHttpRequest` gave the request `res` answers. */
export function requestIdOfResponse(res: ServerResponse): string | undefined {
  const id = res.getHeader(REQUEST_ID_HEADER);
  return typeof id === "string" ? id : undefined;
}

/** The client's address, as refusal and access lines show it. */
export function peerAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? "unknown";
}

/** Counts and logs a refusal of `req` that the HTTP listener answers with `status`. */
export function refuseHttp(
  observer: HttpObserver,
  req: IncomingMessage,
  res: ServerResponse,
  why: { readonly reason: RefusalReason; readonly status: number; readonly token?: string },
): void {
  observer.refusals.refused({
    ...why,
    peer: peerAddress(req),
    requestId: requestIdOfResponse(res),
  });
}

/**
 * What the MCP SDK hands each handler of `req` as `extra.authInfo`: its `grant`, and for the
 * request observer its peer, id and token name (none when the server takes no tokens).
 */
export function authInfoOf(
  req: IncomingMessage,
  res: ServerResponse,
  grant: Grant,
  tokensRequired: boolean,
): AuthInfo & { readonly clientId: string } {
  const info: HttpRequestInfo = {
    grant,
    peer: peerAddress(req),
    requestId: requestIdOfResponse(res) ?? "",
    token: tokensRequired ? grant.name : undefined,
  };
  return { token: "", clientId: grant.name, scopes: [], extra: { ...info } };
}
