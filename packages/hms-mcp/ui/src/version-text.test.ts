import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { isVersion, olderText } from "./version-text.js";

/** The diff the server's `diff` tool sends (src/history/tools.ts makes it the same way). */
const serverDiff = (older: string, newer: string) =>
  older === newer
    ? ""
    : createTwoFilesPatch(
        "/memories/a.md",
        "/memories/a.md",
        older,
        newer,
        "version 1",
        "version 2",
      );

const PAIRS: [string, string][] = [
  ["# A\n- one\n- two\n", "# A\n- one\n- two, changed\n- three\n"],
  ["# A\n- one\n- two\n", "# A\n- two\n"],
  ["no newline at the end", "no newline at the end\n"],
  ["a newline at the end\n", "a newline at the end"],
  ["", "# Made\n"],
  ["# Gone\n", ""],
  ["same", "same"],
  [
    Array.from({ length: 60 }, (_, n) => `line ${n}`).join("\n"),
    Array.from({ length: 60 }, (_, n) => (n % 17 === 3 ? `changed ${n}` : `line ${n}`)).join("\n"),
  ],
  ["a\n\n\nb\n", "a\n\nb\n\n"],
  ["tabs\tand \\ backslashes\n", "tabs\tand \\ backslashes\nand ünïcödé ✓\n"],
];

describe("an older version's text", () => {
  it("is rebuilt exactly from the text now and the diff to it", () => {
    for (const [older, newer] of PAIRS) {
      expect(olderText(newer, serverDiff(older, newer))).toBe(older);
    }
  });

  it("is not made up from a diff that does not fit the text", () => {
    const [older, newer] = PAIRS[0] as [string, string];
    expect(olderText("something else entirely\n", serverDiff(older, newer))).toBeUndefined();
    expect(olderText(newer, "not a diff")).toBeUndefined();
  });

  it("is checked against the version's size and hash", async () => {
    const text = "# Acme\n- ü\n";
    const encoded = new TextEncoder().encode(text);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoded));
    const hash = `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    const bytes = encoded.length;
    expect(await isVersion(text, bytes, hash)).toBe(true);
    expect(await isVersion(`${text} `, bytes + 1, hash)).toBe(false);
    expect(await isVersion(text, bytes + 1, hash)).toBe(false);
  });
});
