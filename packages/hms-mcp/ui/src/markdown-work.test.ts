/**
 * The markdown preview's parse does work in proportion to the text, on the inputs that once
 * froze the page (issue 37, defect 8: 1.4 MB of `[[[](` held Chromium's main thread 29 s).
 *
 * Work is counted, not timed: while a parse runs, every string search, copy and trim, every
 * array join and every regular expression run is wrapped to add up the characters it can touch
 * (a search from `from` to where it stops, a copy's length, a trim's whole string, a regular
 * expression's input from where it starts to where it stops, or what a sticky one consumes).
 * Each hostile text is parsed at n and at 2n characters (64 Ki and 128 Ki: the ratio, not the
 * size, tells the shape, and the parse before touched over a billion characters of `[[[](` at
 * 64 Ki already); linear work doubles, quadratic work quadruples. The count
 * does not see a regular expression backtrack within its input, so the inputs that made one
 * backtrack quadratically get a bound on time instead, far from both sides: each is parsed at
 * the largest size in about 20 ms here; the code before took 3.5 s on 25 KB and 59 s on 100 KB
 * of the first (load 10), which is about four hours at 1.5 MiB.
 */
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMarkdown } from "./markdown.js";

/** The largest text the inspector's tests let a file hold. */
const LARGEST = 1_572_864;
/**
 * The smaller size each hostile text is counted at: at this size the parse before touched
 * about 20,000 characters per character of `[[[](` (over the budget below by 20 times) where
 * the linear one touches at most 160.
 */
const N = 65_536;
/**
 * Characters a parse may touch per character of text; the most measured is 160 (a spaced rule: every line is tried as one). The parse
 * before went past it within the first few thousand `[` of `[[[](`.
 */
const BUDGET_PER_CHARACTER = 1000;

/**
 * Characters touched by the built-in string, array and regular expression work `run` does.
 * Past `budget`, it stops `run` by throwing: quadratic work fails at once instead of running on
 * (synchronous work cannot be stopped by a test's time limit).
 */
function work(run: () => void, budget = Number.POSITIVE_INFINITY): number {
  let touched = 0;
  const restores: (() => void)[] = [];
  /** Wraps `target[name]` to add `cost(this, args, result)` to what is touched. */
  const wrap = (
    target: object,
    name: string,
    // Each cost reads its own method's arguments: typed `never` here, so any of them fits.
    cost: (self: never, args: never, result: never) => number,
  ) => {
    const methods = target as Record<string, (...args: unknown[]) => unknown>;
    const original = methods[name] as (...args: unknown[]) => unknown;
    methods[name] = function (this: unknown, ...args: unknown[]) {
      const self = this instanceof RegExp ? { re: this, from: this.lastIndex } : this;
      const result = original.apply(this, args);
      touched += 1 + Math.max(0, cost(self as never, args as never, result as never));
      if (touched > budget) throw new OverBudget(budget);
      return result;
    };
    restores.push(() => {
      methods[name] = original;
    });
  };
  const S = String.prototype;
  const whole = (self: string) => self.length;
  const made = (_: string, __: unknown[], result: string) => result.length;
  wrap(
    S,
    "indexOf",
    (self: string, [needle, from = 0]: [string, number], at: number) =>
      (at === -1 ? self.length : at + needle.length) - from,
  );
  wrap(
    S,
    "lastIndexOf",
    (self: string, [, from = self.length]: [string, number], at: number) =>
      Math.min(from, self.length) - Math.max(at, 0),
  );
  wrap(S, "includes", (self: string, [, from = 0]: [string, number]) => self.length - from);
  wrap(S, "startsWith", (_: string, [needle]: [string]) => needle.length);
  wrap(S, "endsWith", (_: string, [needle]: [string]) => needle.length);
  for (const name of ["slice", "substring", "substr", "repeat", "concat", "padStart", "padEnd"]) {
    wrap(S, name, made);
  }
  for (const name of ["trim", "trimStart", "trimEnd", "split", "replace", "replaceAll", "match"]) {
    wrap(S, name, whole);
  }
  for (const name of ["search", "toLowerCase", "toUpperCase", "normalize"]) wrap(S, name, whole);
  wrap(Array.prototype, "join", (_: unknown[], __: unknown[], result: string) => result.length);
  // RegExp.prototype.test, String.prototype.replace and split with a regular expression all
  // call exec once it is not the built-in one. A sticky expression is tried at one position:
  // it touches what it consumes.
  wrap(
    RegExp.prototype,
    "exec",
    (
      { re, from }: { re: RegExp; from: number },
      [input]: [string],
      match: RegExpExecArray | null,
    ) => {
      if (re.sticky) return match === null ? 0 : match[0].length;
      const start = re.global ? from : 0;
      return (match === null ? input.length : match.index + match[0].length) - start;
    },
  );
  try {
    run();
  } finally {
    for (const restore of restores.reverse()) restore();
  }
  return touched;
}

class OverBudget extends Error {
  constructor(budget: number) {
    super(`more than ${budget} characters touched`);
  }
}

/** `unit` repeated to `length` characters. */
const fill = (unit: string, length: number) =>
  unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** Texts that once took the parse seconds to hours at the largest size, and their kin. */
const HOSTILE: Record<string, (n: number) => string> = {
  "links never closed `[[[](`": (n) => fill("[[[](", n),
  "images never closed `![a](`": (n) => fill("![a](", n),
  "link openers `[a](`": (n) => fill("[a](", n),
  "one run of `[` then `](`": (n) => `${"[".repeat(n - 2)}](`,
  "link targets broken by a line end, one `)` at the end": (n) => `${fill("[a](b\n", n - 1)})`,
  "one paragraph of short lines": (n) => fill("a\n", n),
  "a quote of short lines": (n) => fill(">a\n", n),
  "a wide table head over many short rows": (n) =>
    `|${"a|".repeat(n / 8)}\n|${"-|".repeat(n / 8)}\n${fill("|\n", n / 2 - 4)}`,
  "emphasis openers `*a `": (n) => fill("*a ", n),
  "strong openers `**a `": (n) => fill("**a ", n),
  "underscores `_a `": (n) => fill("_a ", n),
  "strike openers `~~a `": (n) => fill("~~a ", n),
  "code span runs `` ` `` ``": (n) => fill("` ``", n),
  "code span runs of every length": (n) => {
    let text = "";
    for (let run = 1; text.length < n; run++) text += `${"`".repeat(run)}a`;
    return text.slice(0, n);
  },
  "autolink openers `<http://a`": (n) => fill("<http://a", n),
  "bare URLs ending in punctuation": (n) => fill(" http://a.,", n),
  "`h` after every space": (n) => fill(" h", n),
  "list items": (n) => fill("- a\n", n),
  "nested list items": (n) => fill("- a\n  - b\n    - c\n", n),
  "list items apart": (n) => fill("- a\n\n", n),
  "lazy list lines": (n) => fill("- a\nb\n", n),
  "nested quotes": (n) => `${">".repeat(n - 5)} deep`,
  "an unclosed fence": (n) => `\`\`\`\n${fill("a\n", n - 4)}`,
  escapes: (n) => fill("\\*", n),
  "emphasis around links": (n) => fill("*[a](b)", n),
  "a link in each label": (n) => fill("[[a](b)", n),
  "image openers `![`": (n) => fill("![", n),
  "a spaced rule broken at its end": (n) => `-${fill(" -", n - 2)}x`,
  "a table rule broken at its end": (n) => `a|b\n${fill("|-", n - 5)}x`,
  "everything at once": (n) => fill("[*a*](`b` **c** _d_ ~~e~~ <x> http://y\n", n),
};

describe("the markdown parse's work", () => {
  it("is counted: a search forward from every position counts as quadratic", () => {
    // The meter itself: the kind of scan the parse once did, on text with no `)` in it.
    const scan = (n: number) => {
      const text = fill("[a](", n);
      return work(() => {
        for (let i = 0; i < text.length; i += 4) text.indexOf(")", i);
      });
    };
    expect(scan(2 * 65_536) / scan(65_536)).toBeGreaterThan(3.5);
  });

  for (const [name, make] of Object.entries(HOSTILE)) {
    it(`doubles, no more, with the text: ${name}`, () => {
      const atN = work(() => parseMarkdown(make(N)), BUDGET_PER_CHARACTER * N);
      const at2N = work(() => parseMarkdown(make(2 * N)), BUDGET_PER_CHARACTER * 2 * N);
      // Linear: 2 (and a little for what is not in proportion); quadratic: 4.
      expect(at2N / atN, `${atN} characters touched at n, ${at2N} at 2n`).toBeLessThan(2.5);
    });
  }
});

describe("the markdown parse's regular expressions", () => {
  /** Each of these made a regular expression try a run of spaces from each of its spaces. */
  const BACKTRACKING: Record<string, string> = {
    "a heading with a long run of spaces": `# a${" ".repeat(LARGEST - 4)}x`,
    "a fence with a long run of spaces": `\`\`\`${" ".repeat(LARGEST - 4)}\``,
    "a link target with a long run of spaces before a quote": `[a](a${" ".repeat(LARGEST - 7)}")`,
  };
  let worker: Worker;
  beforeAll(async () => {
    // The parse runs in a thread of its own, which the bound below can stop: a parse that
    // backtracks for hours would otherwise hold this test (and the run) for hours.
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL("./markdown.ts", import.meta.url))],
      bundle: true,
      format: "iife",
      globalName: "markdown",
      write: false,
      logLevel: "error",
    });
    const parser = bundle.outputFiles[0]?.text ?? "";
    const answer =
      "const { parentPort } = require('node:worker_threads');\n" +
      "parentPort.on('message', (text) => parentPort.postMessage(markdown.parseMarkdown(text).length));";
    worker = new Worker(`${parser}\n${answer}`, { eval: true });
  });
  afterAll(() => worker?.terminate());

  for (const [name, text] of Object.entries(BACKTRACKING)) {
    it(`do not backtrack quadratically: ${name}`, async () => {
      expect(text.length).toBe(LARGEST);
      const answer = new Promise<number>((resolve) => worker.once("message", resolve));
      worker.postMessage(text);
      // About 20 ms here; the code before took hours (see the top of this file).
      const blocks = await Promise.race([answer, delay(10_000, "still parsing after 10 s")]);
      expect(blocks).toBe(1);
    });
  }
});
