import { describe, expect, it } from "vitest";
import { isRequestId, MAX_REQUEST_ID_LENGTH, requestIdOf } from "./request-id.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("keeps a client's id made of safe characters, up to the longest allowed", () => {
    for (const id of [
      "a",
      "4f1c2d9e-0b7a-4c55-9a0e-6f2b8c1d3e4f",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "Root=1-5759e988-bd862e3fe1be46a994272793",
      "job:42.attempt_3",
      "x".repeat(MAX_REQUEST_ID_LENGTH),
    ]) {
      expect(isRequestId(id)).toBe(true);
      expect(requestIdOf(id)).toBe(id);
    }
  });

  it("replaces one that is missing, too long, or could break or forge a log line", () => {
    for (const given of [
      undefined,
      "",
      "x".repeat(MAX_REQUEST_ID_LENGTH + 1),
      "a b",
      "a\nb",
      'a"b',
      "a/b",
      "-leading",
      "é",
      ["a", "b"],
      42,
      { id: "a" },
    ]) {
      const id = requestIdOf(given);
      expect(id).toMatch(UUID);
      expect(id).not.toBe(given);
    }
    // A new one each time.
    expect(requestIdOf(undefined)).not.toBe(requestIdOf(undefined));
  });
});
