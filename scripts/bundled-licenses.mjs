// After a package's build (run from its directory): the licence of every third-party package
// bundled into its dist/ (hms-mcp's cli.js: the MCP SDK, zod, commander, pino, ...; its
// inspector's dist/ui/app.js: Preact; @hms/embedder: the tokenizer and ONNX Runtime Web), in
// dist/THIRD-PARTY-LICENSES.txt. Their MIT, ISC and Apache licences ask that a copy carry
// their notice; the bundle is such a copy. Reads the esbuild metafiles the build wrote, then
// removes them (they are not shipped).
//
//   node scripts/bundled-licenses.mjs [--dist DIR]
//     (--dist: where the build wrote, default ./dist; the bundle's input paths are relative to
//     the working directory either way, as esbuild wrote them)
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { dist: { type: "string" } } });
const dist = resolve(values.dist ?? "dist");
const own = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")).name;
const metafiles = readdirSync(dist).filter((name) => /^metafile-.*\.json$/.test(name));
if (metafiles.length === 0)
  throw new Error("bundled-licenses: no metafile in dist/; run tsup first");

const packages = new Map();
for (const name of metafiles) {
  const meta = JSON.parse(readFileSync(join(dist, name), "utf8"));
  for (const input of Object.keys(meta.inputs)) {
    // The last node_modules/<name> or node_modules/@scope/<name> in the path is the package.
    const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match === null) continue;
    const directory = join(process.cwd(), match[1], match[2]);
    if (!packages.has(match[2])) packages.set(match[2], directory);
  }
  rmSync(join(dist, name));
}

const sections = [];
for (const [name, directory] of [...packages].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
  const licenseFile = readdirSync(directory).find((file) => /^(licen[cs]e|copying)/i.test(file));
  if (licenseFile === undefined && !existsSync(join(directory, "package.json"))) continue;
  const text = licenseFile
    ? readFileSync(join(directory, licenseFile), "utf8").trim()
    : `(no licence file in the package; its package.json says ${manifest.license})`;
  sections.push(`${name}@${manifest.version} (${manifest.license})\n\n${text}`);
}
const header = `${own}'s dist/ bundles the following packages. Their licences follow.\n`;
writeFileSync(
  join(dist, "THIRD-PARTY-LICENSES.txt"),
  `${header}\n${sections.map((s) => `${"=".repeat(78)}\n${s}\n`).join("\n")}`,
);
console.error(`bundled-licenses: ${sections.length} packages in dist/THIRD-PARTY-LICENSES.txt`);
