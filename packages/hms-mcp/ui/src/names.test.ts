import { describe, expect, it } from "vitest";
import { keyFromName } from "./names.js";

describe("keyFromName", () => {
  it("puts a typed name under /memories/", () => {
    expect(keyFromName(" notes/today.md ")).toEqual({ key: "/memories/notes/today.md" });
    expect(keyFromName("/memories/日本語.md")).toEqual({ key: "/memories/日本語.md" });
  });

  it("says what is wrong with a name it cannot use", () => {
    for (const typed of [
      "",
      "  ",
      "notes/",
      "a//b.md",
      "../x.md",
      "a/./b.md",
      "/etc/x",
      "a\u0007",
    ]) {
      expect(keyFromName(typed)).toHaveProperty("problem");
    }
  });
});
