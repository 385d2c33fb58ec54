/**
 * The web inspector's files (`hms-mcp --ui`): a page, a script and a stylesheet under /ui,
 * served from the package's `ui/` folder on the HTTP transport. They hold no data and need no
 * token: the page asks for the token and then calls the MCP endpoint like any client, so
 * every rule of the server (token, Origin, namespaces) applies to what it does.
 */
import { existsSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's ui/ folder: beside dist/ for the built server (dist/cli.js and its chunks),
 * two levels up for this source file (src/http/ui.ts, in tests).
 */
const UI_DIR = ((): string => {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, "..", "ui");
  return existsSync(built) ? built : join(here, "..", "..", "ui");
})();

/** The path the inspector is served under. */
export const UI_PATH = "/ui";

// A fixed list: a request can only ever name one of these files, never a path on disk.
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  [UI_PATH]: { file: "index.html", type: "text/html; charset=utf-8" },
  [`${UI_PATH}/`]: { file: "index.html", type: "text/html; charset=utf-8" },
  [`${UI_PATH}/app.js`]: { file: "app.js", type: "text/javascript; charset=utf-8" },
  [`${UI_PATH}/app.css`]: { file: "app.css", type: "text/css; charset=utf-8" },
};

// The page runs only its own script and talks only to this server.
const HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Whether `pathname` is one of the inspector's files. */
export function isUiRequest(pathname: string): boolean {
  return Object.hasOwn(FILES, pathname);
}

const cache = new Map<string, string>();

/** Sends the inspector's file at `pathname`; the page learns the MCP endpoint's path. */
export function serveUi(res: ServerResponse, pathname: string, endpointPath: string): void {
  const entry = FILES[pathname];
  if (entry === undefined) {
    res.writeHead(404).end();
    return;
  }
  let body = cache.get(entry.file);
  if (body === undefined) {
    body = readFileSync(join(UI_DIR, entry.file), "utf8");
    cache.set(entry.file, body);
  }
  if (entry.file === "index.html") {
    body = body.replace("{{ENDPOINT}}", encodeURI(endpointPath));
  }
  res.writeHead(200, { "content-type": entry.type, ...HEADERS }).end(body);
}
