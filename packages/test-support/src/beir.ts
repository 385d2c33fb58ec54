/**
 * Reading a BEIR data set (SciFact) in place, as the benchmarks do: its JSON-lines files and
 * its relevance judgements.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The records of a JSON-lines file. */
export function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The relevance judgements of one split (`qrels/<split>.tsv` under `dir`): query id to the set
 * of relevant document ids (score > 0).
 */
export function readQrels(dir: string, split: string): Map<string, Set<string>> {
  const qrels = new Map<string, Set<string>>();
  const lines = readFileSync(join(dir, "qrels", `${split}.tsv`), "utf8")
    .split("\n")
    .slice(1);
  for (const line of lines) {
    const [query, doc, score] = line.trim().split("\t");
    if (!query || doc === undefined || Number(score) <= 0) continue;
    const relevant = qrels.get(query) ?? new Set<string>();
    relevant.add(doc);
    qrels.set(query, relevant);
  }
  return qrels;
}
