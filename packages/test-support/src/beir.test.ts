import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonl, readQrels } from "./beir.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataSet(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "beir-"));
  dirs.push(dir);
  mkdirSync(join(dir, "qrels"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("reading a BEIR data set", () => {
  it("reads every record of a JSON-lines file, blank lines skipped", () => {
    const dir = dataSet({ "queries.jsonl": '{"_id":"1","text":"a"}\n\n{"_id":"2","text":"b"}\n' });
    expect(readJsonl(join(dir, "queries.jsonl"))).toEqual([
      { _id: "1", text: "a" },
      { _id: "2", text: "b" },
    ]);
  });

  it("keeps the judged-relevant documents of each query, after the header", () => {
    const dir = dataSet({
      "qrels/test.tsv": "query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t1\n2\td3\t0\n3\td4\t2\n",
    });
    expect(readQrels(dir, "test")).toEqual(
      new Map([
        ["1", new Set(["d1", "d2"])],
        ["3", new Set(["d4"])],
      ]),
    );
  });
});
