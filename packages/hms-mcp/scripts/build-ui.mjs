// The web inspector's build: ui/src (TypeScript and Preact) bundled and minified into
// dist/ui/app.js, ui/app.css into dist/ui/app.css, and ui/index.html and ui/icon.svg copied beside
// them. The server serves these files under /ui. Everything is in the bundle: the page loads
// nothing from anywhere else. The esbuild metafile goes to dist/ for bundled-licenses.mjs.
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "ui");
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: { app: join(root, "ui", "src", "main.tsx"), "app.css": join(root, "ui", "app.css") },
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome109", "firefox115", "safari16"],
  minify: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
// esbuild names a CSS entry app.css.css; the page asks for app.css.
renameSync(join(out, "app.css.css"), join(out, "app.css"));
for (const file of ["index.html", "icon.svg"])
  copyFileSync(join(root, "ui", file), join(out, file));
writeFileSync(join(root, "dist", "metafile-ui.json"), JSON.stringify(result.metafile));

const sizes = Object.entries(result.metafile.outputs).map(
  ([file, { bytes }]) => `${file.split("/").pop()?.replace("app.css.css", "app.css")} ${bytes} B`,
);
console.error(`build-ui: dist/ui/ (${sizes.join(", ")})`);
