import { describe, expect, it } from "vitest";
import { TOOL_NAMES, TOOLS, toolJsonSchemas } from "./tools.js";

describe("tool schemas", () => {
  it("accept the answers hms-mcp sends and refuse a malformed one", () => {
    const hit = { key: "/memories/a.md", score: 1, excerpt: "x", line_start: 1, line_end: 2 };
    expect(TOOLS.recall.output.parse({ hits: [hit], build: "lexical" }).hits[0]).toEqual(hit);
    expect(TOOLS.recall.output.safeParse({ hits: [{ ...hit, line_start: 0 }] }).success).toBe(
      false,
    );
    expect(TOOLS.forget.output.safeParse({ deleted: -1 }).success).toBe(false);
  });

  it("take recall's time range, and hits with or without updated_at (older servers)", () => {
    const range = { modified_after: "2026-07-01T00:00:00Z", modified_before: "2026-07-08T00:00Z" };
    expect(TOOLS.recall.input.parse({ query: "q", ...range })).toEqual({ query: "q", ...range });
    expect(TOOLS.recall.input.safeParse({ query: "q", modified_after: 1 }).success).toBe(false);
    const hit = { key: "/memories/a.md", score: 1, excerpt: "x", line_start: 1, line_end: 2 };
    const dated = { ...hit, updated_at: "2026-07-02T10:00:00.000Z" };
    expect(TOOLS.recall.output.parse({ hits: [dated], build: "hybrid" }).hits[0]).toEqual(dated);
    expect(TOOLS.recall.output.parse({ hits: [hit], build: "lexical" }).hits[0]).toEqual(hit);
  });

  it("describe the namespaces a token may use, and refuse an answer without access", () => {
    const answer = {
      namespaces: [{ name: "alice" }, { name: "default" }],
      default: "default",
      namespace_arg: true,
      access: "read-only",
    };
    expect(TOOLS.namespaces.output.parse(answer)).toEqual(answer);
    const { access: _, ...withoutAccess } = answer;
    expect(TOOLS.namespaces.output.safeParse(withoutAccess).success).toBe(false);
    expect(TOOLS.namespaces.input.safeParse({ token: "x" }).success).toBe(false);
  });

  it("refuse unknown arguments (inputs are strict)", () => {
    expect(TOOLS.get.input.safeParse({ key: "k", extra: 1 }).success).toBe(false);
    expect(TOOLS.get.input.safeParse({ key: "k" }).success).toBe(true);
  });

  it("add the namespace argument to the JSON input schema only when asked", () => {
    const plain = toolJsonSchemas(TOOLS.get).input as { properties: object };
    const withNamespace = toolJsonSchemas(TOOLS.get, true).input as { properties: object };
    expect(Object.keys(plain.properties)).toEqual(["key"]);
    expect(Object.keys(withNamespace.properties)).toEqual(["key", "namespace"]);
  });

  it("list the names in tools/list order", () => {
    expect(TOOL_NAMES).toEqual([
      "remember",
      "recall",
      "search",
      "get",
      "list",
      "forget",
      "move",
      "stats",
      "export",
      "history",
      "diff",
      "restore",
      "unused",
      "namespaces",
    ]);
  });
});
