/**
 * Which client a request belongs to, for the bounds and the order that share the server
 * between clients (requests in flight, the fair order of tool calls): a token of the tokens
 * file is one client, whichever sessions it uses; without one (`HMS_MCP_TOKEN`, or no token)
 * every HTTP session is a client of its own, and a stdio server has one.
 */
import { ALL_ACCESS, type Grant } from "../auth/tokens.js";

/**
 * The flow of a request of `grant` on HTTP session `session` (undefined: stdio, or an HTTP
 * request that opens a session; those of one token share a flow).
 */
export function flowOf(grant: Grant, session: string | undefined): string {
  return grant === ALL_ACCESS ? `session:${session ?? ""}` : `token:${grant.name}`;
}
