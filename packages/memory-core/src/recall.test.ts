// The memory_recall format and input checks against vectors/recall.json, whose expected
// strings were produced by the Python package (vectors/generate-recall.py): the two packages
// must give Claude the same characters.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MemoryToolError } from "./errors.js";
import { formatRecall, parseRecallInput, recallToolDefinition } from "./recall.js";

interface RecallVectors {
  tool: unknown;
  format_cases: Array<{
    name: string;
    hits: Array<{
      path: string;
      score: number;
      excerpt: string;
      line_start: number;
      line_end: number;
      updated_at?: string;
    }>;
    modified_after?: string;
    modified_before?: string;
    output: string;
  }>;
  input_cases: Array<{
    name: string;
    input: unknown;
    query?: string;
    k?: number;
    modified_after?: string;
    modified_before?: string;
    error?: string;
    error_code?: string;
  }>;
}

const vectors = JSON.parse(
  readFileSync(new URL("../vectors/recall.json", import.meta.url), "utf8"),
) as RecallVectors;

describe("memory_recall tool definition", () => {
  it("is Python's, key for key and character for character", () => {
    expect(JSON.stringify(recallToolDefinition())).toBe(JSON.stringify(vectors.tool));
  });
});

describe("memory_recall result text", () => {
  for (const vector of vectors.format_cases) {
    it(vector.name, () => {
      const hits = vector.hits.map((hit) => ({
        path: hit.path,
        score: hit.score,
        excerpt: hit.excerpt,
        lineStart: hit.line_start,
        lineEnd: hit.line_end,
        ...(hit.updated_at === undefined ? {} : { updatedAt: hit.updated_at }),
      }));
      const range = {
        modifiedAfter: vector.modified_after,
        modifiedBefore: vector.modified_before,
      };
      expect(formatRecall(hits, range)).toBe(vector.output);
    });
  }
});

describe("memory_recall input checks", () => {
  for (const vector of vectors.input_cases) {
    it(vector.name, () => {
      if (vector.error === undefined) {
        expect(parseRecallInput(vector.input)).toEqual({
          query: vector.query,
          k: vector.k,
          ...(vector.modified_after === undefined ? {} : { modifiedAfter: vector.modified_after }),
          ...(vector.modified_before === undefined
            ? {}
            : { modifiedBefore: vector.modified_before }),
        });
        return;
      }
      let thrown: unknown;
      try {
        parseRecallInput(vector.input);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MemoryToolError);
      expect((thrown as MemoryToolError).message).toBe(vector.error);
      expect((thrown as MemoryToolError).code).toBe(vector.error_code);
    });
  }
});
