import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./diff.js";

const UNIFIED = [
  "Index: /memories/a.md",
  "===================================================================",
  "--- /memories/a.md\tversion 1",
  "+++ /memories/a.md\tversion 3",
  "@@ -1,3 +1,3 @@",
  " # Acme",
  "-- Prefers phone",
  "+- Prefers email",
  " - Contact: Dana",
  "\\ No newline at end of file",
  "",
].join("\n");

describe("parseUnifiedDiff", () => {
  it("drops the file headers and numbers each line in the old and new text", () => {
    expect(parseUnifiedDiff(UNIFIED)).toEqual([
      { kind: "hunk", text: "@@ -1,3 +1,3 @@" },
      { kind: "same", text: "# Acme", oldLine: 1, newLine: 1 },
      { kind: "del", text: "- Prefers phone", oldLine: 2 },
      { kind: "add", text: "- Prefers email", newLine: 2 },
      { kind: "same", text: "- Contact: Dana", oldLine: 3, newLine: 3 },
      { kind: "note", text: "No newline at end of file" },
    ]);
  });

  it("gives nothing for an empty diff", () => {
    expect(parseUnifiedDiff("")).toEqual([]);
  });

  it("keeps a removed line that itself starts with --- inside a hunk", () => {
    const lines = parseUnifiedDiff("@@ -4 +4 @@\n---- rule\n+++ plus\n");
    expect(lines.slice(1)).toEqual([
      { kind: "del", text: "--- rule", oldLine: 4 },
      { kind: "add", text: "++ plus", newLine: 4 },
    ]);
  });
});
