/**
 * Where the inspector is, as the URL's fragment: the namespace, the open file, the line and
 * the view, e.g. `#ns=team&file=/memories/a.md&line=12&view=history`. Every view is a URL a
 * person can bookmark, reload or send; the token never is part of it.
 */

export type View = "lines" | "preview" | "history";

export interface Route {
  readonly namespace?: string;
  readonly file?: string;
  readonly line?: number;
  /** With line: the last line of a range to mark (a recall hit's). */
  readonly end?: number;
  readonly view?: View;
}

const VIEWS: readonly View[] = ["lines", "preview", "history"];

/** The route in `hash` (with or without its #); anything not understood is left out. */
export function parseRoute(hash: string): Route {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const route: { -readonly [K in keyof Route]: Route[K] } = {};
  const namespace = params.get("ns");
  if (namespace) route.namespace = namespace;
  const file = params.get("file");
  if (file?.startsWith("/memories/")) route.file = file;
  const line = Number(params.get("line"));
  if (Number.isInteger(line) && line > 0) {
    route.line = line;
    const end = Number(params.get("end"));
    if (Number.isInteger(end) && end >= line) route.end = end;
  }
  const view = params.get("view") as View | null;
  if (view !== null && VIEWS.includes(view)) route.view = view;
  return route;
}

/** The fragment for `route`, with its #; the default view (lines) is not written. */
export function formatRoute(route: Route): string {
  const params = new URLSearchParams();
  if (route.namespace) params.set("ns", route.namespace);
  if (route.file) params.set("file", route.file);
  if (route.line) params.set("line", String(route.line));
  if (route.line && route.end) params.set("end", String(route.end));
  if (route.view && route.view !== "lines") params.set("view", route.view);
  const text = params.toString().replaceAll("%2F", "/");
  return text === "" ? "" : `#${text}`;
}
