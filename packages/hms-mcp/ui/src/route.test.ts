import { describe, expect, it } from "vitest";
import { formatRoute, parseRoute } from "./route.js";

describe("routes", () => {
  it("round-trip a namespace, a file, a line and a view", () => {
    const route = {
      namespace: "team",
      file: "/memories/a b/ü.md",
      line: 12,
      end: 14,
      view: "history",
    } as const;
    const hash = formatRoute(route);
    expect(hash.startsWith("#ns=team&file=/memories/")).toBe(true);
    expect(parseRoute(hash)).toEqual(route);
  });

  it("leave out what is not understood", () => {
    expect(parseRoute("#file=/etc/passwd&line=-3&view=edit&token=x")).toEqual({});
    expect(parseRoute("")).toEqual({});
    expect(formatRoute({})).toBe("");
    expect(formatRoute({ file: "/memories/a.md", view: "lines" })).toBe("#file=/memories/a.md");
  });
});
