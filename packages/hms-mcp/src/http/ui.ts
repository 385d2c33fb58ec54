/**
 * The web inspector's files (`hms-mcp --ui`): a page, a script and a stylesheet under /ui,
 * served from `dist/ui/` (the package's build bundles `ui/src/` there) on the HTTP transport.
 * They hold no data and need no token: the page asks for the token and then calls the MCP
 * endpoint like any client, so every rule of the server (token, Origin, namespaces) applies to
 * what it does. The site's root leads to the inspector, and a server without `--ui` says how
 * to turn it on rather than asking for a token.
 */
import { existsSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The built inspector: dist/ui/ beside the built server (dist/cli.js and its chunks), or the
 * package's dist/ui/ seen from this source file (src/http/ui.ts, in tests).
 */
const UI_DIR = ((): string => {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, "ui");
  return existsSync(built) ? built : join(here, "..", "..", "dist", "ui");
})();

/** The path the inspector is served under. */
export const UI_PATH = "/ui";

// A fixed list: a request can only ever name one of these files, never a path on disk.
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  [UI_PATH]: { file: "index.html", type: "text/html; charset=utf-8" },
  [`${UI_PATH}/`]: { file: "index.html", type: "text/html; charset=utf-8" },
  [`${UI_PATH}/app.js`]: { file: "app.js", type: "text/javascript; charset=utf-8" },
  [`${UI_PATH}/app.css`]: { file: "app.css", type: "text/css; charset=utf-8" },
  [`${UI_PATH}/icon.svg`]: { file: "icon.svg", type: "image/svg+xml" },
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

/**
 * What a GET of `pathname` that is not one of the inspector's files is answered with, when it
 * is a way in to the inspector: the site's root leads to it ("redirect"); without `--ui` the
 * root and /ui say how to turn it on ("off"). Undefined for every other request (the MCP
 * endpoint's own path is never taken).
 */
export function uiEntrance(
  pathname: string,
  method: string | undefined,
  ui: boolean,
  endpointPath: string,
): "redirect" | "off" | undefined {
  if ((method !== "GET" && method !== "HEAD") || pathname === endpointPath) return undefined;
  if (pathname === "/") return ui ? "redirect" : "off";
  return !ui && isUiRequest(pathname) ? "off" : undefined;
}

/** The answer to a {@link uiEntrance}: a redirect to /ui, or how to turn the inspector on. */
export function serveUiEntrance(
  res: ServerResponse,
  entrance: "redirect" | "off",
  endpointPath: string,
): void {
  if (entrance === "redirect") {
    res.writeHead(302, { location: UI_PATH, ...HEADERS }).end();
    return;
  }
  res
    .writeHead(404, { "content-type": "text/plain; charset=utf-8", ...HEADERS })
    .end(
      "This hms-mcp serves MCP at " +
        endpointPath +
        ". Its web inspector is off: start hms-mcp with --ui (or HMS_MCP_UI=1) beside " +
        "--transport http, then open /ui.\n",
    );
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
