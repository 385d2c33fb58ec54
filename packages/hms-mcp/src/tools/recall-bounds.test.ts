/**
 * The recall tool reads k, modified_after and modified_before by the memory tool's own rule,
 * pinned for both by the memory tool's vectors (packages/memory-core/vectors/recall.json):
 * every case of those parameters that memory_recall accepts (null meaning "not given"
 * among them), the server's recall accepts, and every one it refuses, the server refuses.
 */
import { readFileSync } from "node:fs";
import { call } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";

interface InputCase {
  readonly name: string;
  readonly input: unknown;
  readonly error?: string;
}

const BOUNDS = ["k", "modified_after", "modified_before"];

/** The vectors' cases of a valid query with some of k, modified_after, modified_before only. */
const cases = (
  JSON.parse(
    readFileSync(new URL("../../../memory-core/vectors/recall.json", import.meta.url), "utf8"),
  ) as { input_cases: InputCase[] }
).input_cases.filter((c) => {
  if (typeof c.input !== "object" || c.input === null) return false;
  const keys = Object.keys(c.input);
  const { query } = c.input as { query?: unknown };
  return (
    query === "acme" &&
    keys.some((key) => BOUNDS.includes(key)) &&
    keys.every((key) => key === "query" || BOUNDS.includes(key))
  );
});

describe("recall's k and time bounds, by the memory tool's vectors", () => {
  let client: Client;
  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("covers null bounds, and accepted and refused cases alike", () => {
    expect(cases.some((c) => c.name === "null bounds are not given")).toBe(true);
    expect(cases.some((c) => c.name === "k is null: the default")).toBe(true);
    expect(cases.filter((c) => c.error !== undefined).length).toBeGreaterThan(10);
  });

  for (const c of cases) {
    it(`${c.error === undefined ? "accepts" : "refuses"} ${c.name}`, async () => {
      const answer = await call(client, "recall", c.input as Record<string, unknown>);
      expect(answer.isError === true, JSON.stringify(answer.content)).toBe(c.error !== undefined);
    });
  }
});
