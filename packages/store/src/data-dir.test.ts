import { describe, expect, it } from "vitest";
import { defaultDataDir } from "./data-dir.js";

describe("defaultDataDir", () => {
  it("follows XDG on Linux", () => {
    expect(defaultDataDir({ XDG_DATA_HOME: "/x/data" }, "linux", "/home/u")).toBe(
      "/x/data/hms-mcp",
    );
    expect(defaultDataDir({}, "linux", "/home/u")).toBe("/home/u/.local/share/hms-mcp");
    expect(defaultDataDir({ XDG_DATA_HOME: "relative" }, "linux", "/home/u")).toBe(
      "/home/u/.local/share/hms-mcp",
    );
  });

  it("uses the platform's place on macOS", () => {
    expect(defaultDataDir({}, "darwin", "/Users/u")).toBe(
      "/Users/u/Library/Application Support/hms-mcp",
    );
  });
});
