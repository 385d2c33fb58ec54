import { describe, expect, it } from "vitest";
import { BodiesBeingRead, SMALL_BODY_BYTES } from "./limits.js";

describe("BodiesBeingRead", () => {
  it("takes large bodies up to the budget, then refuses them, and takes small ones always", () => {
    const reading = new BodiesBeingRead(SMALL_BODY_BYTES * 4);
    // A large body grows to three times the small part.
    expect(reading.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES)).toBe(true);
    expect(reading.take(SMALL_BODY_BYTES * 2, SMALL_BODY_BYTES * 3)).toBe(true);
    // Another one goes past its small part: over the budget, refused, nothing taken.
    expect(reading.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES)).toBe(true);
    expect(reading.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES * 2)).toBe(false);
    expect(reading.bytes).toBe(SMALL_BODY_BYTES * 4);
    // An ordinary body is still read, over the budget.
    expect(reading.take(1000, 1000)).toBe(true);
    expect(reading.bytes).toBe(SMALL_BODY_BYTES * 4 + 1000);
    // Once the first is whole, there is room again.
    reading.give(SMALL_BODY_BYTES * 3);
    expect(reading.take(SMALL_BODY_BYTES, SMALL_BODY_BYTES * 2)).toBe(true);
  });
});
