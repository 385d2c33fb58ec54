import { describe, expect, it } from "vitest";
import { codePointLength, humanSize, numberedLine, splitLines } from "./format.js";

describe("splitLines", () => {
  it.each<[string, string[]]>([
    ["", []],
    ["\n", [""]],
    ["a", ["a"]],
    ["a\n", ["a"]],
    ["a\nb", ["a", "b"]],
    ["a\nb\n", ["a", "b"]],
    ["a\n\n", ["a", ""]],
    ["\n\n", ["", ""]],
    ["a\r\nb\r\n", ["a\r", "b\r"]],
    ["a\rb", ["a\rb"]],
  ])("%j has the lines %j", (text, lines) => {
    expect(splitLines(text)).toEqual(lines);
  });
});

describe("humanSize", () => {
  it.each<[number, string]>([
    [0, "0B"],
    [1, "1B"],
    [512, "512B"],
    [1023, "1023B"],
    [1024, "1K"],
    [1126, "1.1K"],
    [1228, "1.2K"], // 1.199...
    [1280, "1.3K"], // exactly 1.25: half up, like toFixed(1); Python's :.1f gives 1.2
    [1792, "1.8K"], // exactly 1.75
    [2047, "2.0K"], // 1.999 rounds up to 2.0 and keeps its decimal, like toFixed(1)
    [5632, "5.5K"],
    [10 * 1024, "10K"],
    [1024 * 1024 - 1, "1024.0K"], // still under 1M, so shown in K
    [1024 * 1024, "1M"],
    [1.25 * 1024 * 1024, "1.3M"],
    [1.2 * 1024 * 1024, "1.2M"],
    [1024 ** 3, "1G"], // Math.log would put this at 1024M on some platforms
    [1024 ** 4, "1024G"], // G is the largest unit
    [1_127_428_916, "1.1G"], // 1.05G and a bit
  ])("%d bytes is %s", (bytes, shown) => {
    expect(humanSize(bytes)).toBe(shown);
  });

  it("agrees with the TypeScript SDK's toFixed(1) wherever that is exact", () => {
    // The SDK formula on exact binary fractions (every bytes / 1024^k is one).
    const sdk = (bytes: number) => {
      let i = 0;
      while (i < 3 && bytes >= 1024 ** (i + 1)) i++;
      const size = bytes / 1024 ** i;
      return (size % 1 === 0 ? String(size) : size.toFixed(1)) + ["B", "K", "M", "G"][i];
    };
    for (let bytes = 0; bytes <= 300_000; bytes += 13) expect(humanSize(bytes)).toBe(sdk(bytes));
    for (let bytes = 1024 ** 2 - 5000; bytes <= 1024 ** 2 + 5000; bytes++) {
      expect(humanSize(bytes)).toBe(sdk(bytes));
    }
  });
});

describe("numberedLine and codePointLength", () => {
  it("right-aligns the line number in 6 columns, then a tab", () => {
    expect(numberedLine(1, "a")).toBe("     1\ta");
    expect(numberedLine(123456, "")).toBe("123456\t");
    expect(numberedLine(1234567, "x")).toBe("1234567\tx");
  });

  it("counts code points, a surrogate pair once", () => {
    expect(codePointLength("")).toBe(0);
    expect(codePointLength("abc")).toBe(3);
    expect(codePointLength("😀😀")).toBe(2);
    expect(codePointLength("a\ud800b")).toBe(3);
    expect(codePointLength("\udc00\ud800")).toBe(2);
  });
});
