/**
 * The hms-mcp inspector: browse, read, search, edit, rename, delete and restore memory files.
 * An MCP client like any other: it talks to the server only through its MCP endpoint, with
 * the token the person types. Built by the package's build (esbuild) into dist/ui/app.js.
 */
import { render } from "preact";
import { App } from "./App.js";
import { formatRoute, parseRoute } from "./route.js";
import { Inspector } from "./state.js";
import { applyTheme, storedTheme } from "./theme.js";

applyTheme(storedTheme());
const endpoint =
  document.querySelector<HTMLMetaElement>('meta[name="hms-mcp-endpoint"]')?.content ?? "/mcp";
const app = new Inspector(endpoint);

// Every place is a URL fragment: going somewhere writes it, and the fragment leads there (the
// Back button too).
app.navigate = (route) => {
  const hash = formatRoute(route);
  if (hash === window.location.hash || (hash === "" && window.location.hash === "")) {
    void app.applyRoute(route);
  } else {
    window.location.hash = hash;
  }
};
window.addEventListener("hashchange", () => void app.applyRoute(parseRoute(window.location.hash)));

const root = document.getElementById("root");
if (root !== null) render(<App app={app} />, root);
void app.start(parseRoute(window.location.hash));
