import { describe, expect, it } from "vitest";
import { runAsync, runSync, type Steps, step } from "./steps.js";

/** Adds two looked-up numbers; a failed second lookup answers -1 (caught inside the sequence). */
function* addSteps(lookup: (name: string) => number | Promise<number>): Steps<number> {
  const a = yield* step(lookup("a"));
  let b: number;
  try {
    b = yield* step(lookup("b"));
  } catch {
    b = -1;
  }
  return a + b;
}

const values: Record<string, number> = { a: 2, b: 3 };

describe("steps", () => {
  it("runSync answers at once, with no Promise, from synchronous lookups", () => {
    expect(runSync(addSteps((name) => values[name] as number))).toBe(5);
  });

  it("runSync refuses a lookup that answers with a Promise (an engine bug, not a wait)", () => {
    expect(() => runSync(addSteps(async (name) => values[name] as number))).toThrow(
      "a synchronous engine's lookup answered with a Promise",
    );
  });

  it("runAsync awaits each lookup and hands its answer back to the sequence", async () => {
    const answer = runAsync(addSteps(async (name) => values[name] as number));
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe(5);
  });

  it("runAsync throws a failed lookup inside the sequence, where it can be caught", async () => {
    const lookup = async (name: string) => {
      if (name === "b") throw new Error("connection lost");
      return values[name] as number;
    };
    expect(await runAsync(addSteps(lookup))).toBe(1);
  });

  it("runAsync rejects with a refusal the sequence throws after a lookup", async () => {
    function* refuse(): Steps<never> {
      yield* step(Promise.resolve(1));
      throw new Error("refused");
    }
    await expect(runAsync(refuse())).rejects.toThrow("refused");
  });
});
