/**
 * The version of the hms-mcp tool contract. A server states it in its MCP `initialize` result
 * as `capabilities.experimental["hms-mcp"].protocolVersion`; a client reads it once at connect
 * time and refuses a server that speaks another version. Raise it on any change a client of
 * the previous version would misread (a new required argument, a changed answer shape, a new
 * meaning of an error code); additions a client can ignore keep the number.
 *
 * Version 1: the thirteen tools below, tree operations (`move`/`forget` with `tree`, and
 * `remember` keeping memory files a well-formed tree). Added since, within version 1 (a client
 * must not count on them from every version-1 server): `stats.recall.embedded`,
 * `embedded_per_second` and `replacing`; recall's `modified_after` and `modified_before` (a server before them
 * refuses them as unknown arguments, so a filter is never silently dropped) and each hit's
 * `updated_at` (absent before); the `namespaces` tool, `history`'s `dropped` (what the
 * history dropped and why; servers before it omit it), and `stats.store` (which data
 * directory or database; absent before).
 */
export const PROTOCOL_VERSION = 1;

/** The key of the server's entry in `capabilities.experimental`. */
export const CAPABILITY_KEY = "hms-mcp";

/** What hms-mcp puts under `capabilities.experimental["hms-mcp"]`. */
export interface HmsCapability {
  readonly protocolVersion: number;
}

/** The experimental capabilities object a server of this protocol version sends. */
export function experimentalCapabilities(): Record<string, HmsCapability> {
  return { [CAPABILITY_KEY]: { protocolVersion: PROTOCOL_VERSION } };
}

/**
 * The protocol version a server stated in its `experimental` capabilities, or undefined when it
 * stated none (it is not hms-mcp).
 */
export function statedProtocolVersion(experimental: unknown): number | undefined {
  if (typeof experimental !== "object" || experimental === null) return undefined;
  const entry = (experimental as Record<string, unknown>)[CAPABILITY_KEY];
  if (typeof entry !== "object" || entry === null) return undefined;
  const version = (entry as Record<string, unknown>).protocolVersion;
  return Number.isSafeInteger(version) ? (version as number) : undefined;
}
