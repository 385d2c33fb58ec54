/**
 * Which store the page shows: the data directory (or database) the server was started with,
 * as far as the token is told (`stats`' store: the path for the server's own token, the name
 * for a token of a tokens file). A person who started a server on the wrong directory sees it.
 */
import { useInspector } from "./hooks.js";
import type { Inspector } from "./state.js";

export function StorePlace({ app, long = false }: { app: Inspector; long?: boolean }) {
  const state = useInspector(app);
  const store = state.stats?.store;
  if (store === undefined) return null;
  const kind = store.engine === "sqlite" ? "data directory" : "PostgreSQL database";
  const where = store.location ?? store.name;
  return (
    <span class="store-place" title={`${kind} ${where}`} data-testid="store-place">
      {long ? `This server keeps its memories in the ${kind} ` : `${kind} `}
      <code>{where}</code>
      {long ? "." : ""}
    </span>
  );
}
