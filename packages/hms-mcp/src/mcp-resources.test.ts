import { describe, expect, it } from "vitest";
import { parseResourceUri, resourceUri } from "./mcp-resources.js";

describe("memory resource URIs", () => {
  it("percent-encode the whole key into one path segment", () => {
    const uri = resourceUri("default", "/memories/a b/ü?#%.md");
    expect(uri).toBe("hms-mcp://default/%2Fmemories%2Fa%20b%2F%C3%BC%3F%23%25.md");
    expect(parseResourceUri(uri)).toEqual({ namespace: "default", key: "/memories/a b/ü?#%.md" });
  });

  it("reject URIs that are not memory resources", () => {
    for (const uri of ["file:///etc/passwd", "hms-mcp://default", "hms-mcp://default/%E0%A4%A"]) {
      expect(parseResourceUri(uri)).toBeUndefined();
    }
  });
});
