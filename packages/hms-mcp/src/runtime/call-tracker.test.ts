import { describe, expect, it } from "vitest";
import { ToolError } from "../errors.js";
import { CallTracker } from "./call-tracker.js";

describe("CallTracker", () => {
  it("refuses new calls with UNAVAILABLE once stopping", async () => {
    const calls = new CallTracker();
    expect(calls.run(() => 42)).toBe(42);
    await calls.stop();
    expect(() => calls.run(() => 1)).toThrow(ToolError);
    try {
      calls.run(() => 1);
    } catch (error) {
      expect((error as ToolError).code).toBe("UNAVAILABLE");
    }
  });

  it("lets a call in flight finish before stop resolves", async () => {
    const calls = new CallTracker();
    const order: string[] = [];
    let stopped: Promise<void> | undefined;
    calls.run(() => {
      stopped = calls.stop().then(() => {
        order.push("stopped");
      });
      order.push("call finished");
    });
    await stopped;
    expect(order).toEqual(["call finished", "stopped"]);
  });
});
