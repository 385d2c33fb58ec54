import { describe, expect, it } from "vitest";
import { describeStderr, StderrTail } from "./stderr-tail.js";

describe("StderrTail", () => {
  it("keeps the last 10 non-empty lines, trailing spaces and \\r removed", () => {
    const tail = new StderrTail();
    for (let i = 1; i <= 12; i += 1) tail.push(`line ${i} \t\r\n\n`);
    expect(tail.lines()).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i + 3}`));
  });

  it("decodes UTF-8 split across chunks and shows an unfinished last line", () => {
    const tail = new StderrTail();
    const bytes = Buffer.from("né\nfatal: ü", "utf8");
    for (const byte of bytes) tail.push(Buffer.from([byte]));
    expect(tail.lines()).toEqual(["né", "fatal: ü"]);
  });

  it("cuts a long line at 500 code points, even one that never ends", () => {
    const tail = new StderrTail();
    tail.push("😀".repeat(100_000));
    expect(tail.lines()).toEqual([`${"😀".repeat(500)}…`]);
  });

  it("words the stderr part of a failed connect", () => {
    expect(describeStderr(["a", "b"], true)).toBe("\nIts stderr ended with:\na\nb");
    expect(describeStderr([], true)).toBe(" It wrote nothing on stderr.");
    expect(describeStderr([], false)).toBe("");
  });
});
