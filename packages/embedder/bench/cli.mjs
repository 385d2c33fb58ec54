// What the embedder's benchmark scripts share on their command line: stop with a message on
// stderr (exit 2), read a flag that must be a positive integer, and find SciFact.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** A script's `fail` and `positive`, its messages prefixed with `name`. */
export function cliOf(name) {
  function fail(message) {
    process.stderr.write(`${name}: ${message}\n`);
    process.exit(2);
  }
  function positive(flag, text) {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      fail(`${flag} must be a positive integer, not ${text}`);
    }
    return value;
  }
  /** BEIR SciFact in shared/data/scifact beside the repository or above it; else fails. */
  function findSharedScifact() {
    for (let dir = resolve(here, "../../.."); ; dir = dirname(dir)) {
      const candidate = join(dir, "shared", "data", "scifact");
      if (existsSync(join(candidate, "corpus.jsonl"))) return candidate;
      if (dirname(dir) === dir) {
        fail(
          [
            "SciFact not found (no --data, no HMS_SCIFACT_DIR, and no shared/data/scifact beside the",
            "repository or above it). This benchmark reads BEIR's SciFact, which is not in this",
            "repository. Download it from BEIR's public dataset archive and unzip it:",
            "  curl -LO https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
            "  unzip scifact.zip",
            'then pass the folder it makes by its absolute path, --data "$PWD/scifact" (a relative',
            "path is taken from packages/embedder, where pnpm runs the benchmark), or set",
            "HMS_SCIFACT_DIR. The folder holds corpus.jsonl, queries.jsonl, qrels/test.tsv and",
            "qrels/train.tsv.",
          ].join("\n"),
        );
      }
    }
  }
  return { fail, positive, findSharedScifact };
}
