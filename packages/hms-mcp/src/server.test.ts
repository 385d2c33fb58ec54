import { describe, expect, it } from "vitest";
import { ToolError } from "./errors.js";
import { CallTracker, parseResourceUri, resourceUri } from "./server.js";

describe("CallTracker", () => {
  it("refuses new calls with UNAVAILABLE once stopping", async () => {
    const calls = new CallTracker();
    expect(calls.run(() => 42)).toBe(42);
    await calls.stop();
    expect(() => calls.run(() => 1)).toThrow(ToolError);
    try {
      calls.run(() => 1);
    } catch (error) {
      expect((error as ToolError).code).toBe("UNAVAILABLE");
    }
  });

  it("lets a call in flight finish before stop resolves", async () => {
    const calls = new CallTracker();
    const order: string[] = [];
    let stopped: Promise<void> | undefined;
    calls.run(() => {
      stopped = calls.stop().then(() => {
        order.push("stopped");
      });
      order.push("call finished");
    });
    await stopped;
    expect(order).toEqual(["call finished", "stopped"]);
  });
});

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
