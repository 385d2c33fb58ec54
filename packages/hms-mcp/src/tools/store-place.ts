/**
 * Which store a server serves, as the `stats` tool tells it (the web inspector shows it in its
 * header, so a person sees which data directory or database they look at). The operator's own
 * token (HMS_MCP_TOKEN, or no token on stdio, in-process or loopback HTTP) is told where it is:
 * the data directory's absolute path, or the database's URL without user, password and
 * parameters. A token of the tokens file is told only the store's name (the directory's last
 * name, or the database's): it may use some namespaces of this server, and where the server
 * keeps its files, or which host its database is on, is the operator's, not the tenant's.
 */
import { basename } from "node:path";

export interface StorePlace {
  readonly engine: "sqlite" | "postgresql";
  /** The data directory's own name, or the database's name. */
  readonly name: string;
  /** Where it is: told only to the operator's token. */
  readonly location?: string;
}

/** The place of a server's store, from its configuration (`databaseUrl` on PostgreSQL). */
export function storePlace(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): StorePlace {
  if (options.databaseUrl === undefined) {
    return { engine: "sqlite", name: basename(options.dataDir), location: options.dataDir };
  }
  let url: URL;
  try {
    url = new URL(options.databaseUrl);
  } catch {
    return { engine: "postgresql", name: "(a database URL that does not parse)" };
  }
  const name = decodeURIComponent(url.pathname.replace(/^\//, "")) || "postgres";
  // The server's own spelling of where, without who (user, password) or how (parameters, which
  // may name key files or hold a password).
  const database = encodeURIComponent(name);
  const socket = url.searchParams.get("host");
  const location =
    url.hostname === "" && socket !== null
      ? `postgresql:///${database}?host=${encodeURIComponent(socket)}`
      : `postgresql://${url.host}/${database}`;
  return { engine: "postgresql", name, location };
}

/** What a caller is told of `place`: all of it for the operator's token, else its name. */
export function placeFor(place: StorePlace, operator: boolean): StorePlace {
  return operator ? place : { engine: place.engine, name: place.name };
}
