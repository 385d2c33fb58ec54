/**
 * Request ids: one per request, in its log lines and its error answers, so that a client's
 * report ("request 4f1c... failed") leads to the server's lines about it. A client may send
 * its own (HTTP: the `x-request-id` header; stdio and in process: `_meta["hms-mcp/request-id"]`
 * of the request); one that is not a short run of safe characters is replaced by a new one,
 * so that nothing a client sends can forge or break a log line.
 */
import { randomUUID } from "node:crypto";

/** The HTTP header carrying a request's id, both ways. */
export const REQUEST_ID_HEADER = "x-request-id";

/** Where a request's `_meta` carries its id (stdio, in process). */
export const REQUEST_ID_META_KEY = "hms-mcp/request-id";

/** Longest request id a client may send, in characters. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits and `.`, `_`, `:`, `=`, `-`, starting with a letter or digit. */
const REQUEST_ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:=-]{0,${MAX_REQUEST_ID_LENGTH - 1}}$`);

/** `given` when it is a valid request id, else a new one (a random UUID). */
export function requestIdOf(given: unknown): string {
  return isRequestId(given) ? given : randomUUID();
}

/** Whether `value` is a request id a client may send. */
export function isRequestId(value: unknown): value is string {
  return typeof value === "string" && REQUEST_ID.test(value);
}
