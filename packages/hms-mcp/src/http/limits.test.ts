import { describe, expect, it } from "vitest";
import { BodiesBeingRead, InFlight, SMALL_BODY_BYTES } from "./limits.js";

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

describe("InFlight", () => {
  const limits = { inFlightPerClient: 2, inFlightTotal: 3, bufferedBytes: 0 };

  it("refuses a client over its bound with 429, and the busy over the bound in all with 503", () => {
    const inFlight = new InFlight(limits);
    const a = [inFlight.admit("a"), inFlight.admit("a")];
    expect(a.every((admitted) => typeof admitted === "function")).toBe(true);
    expect(inFlight.admit("a")).toMatchObject({ status: 429 });
    expect(typeof inFlight.admit("b")).toBe("function");
    // b has one in flight, and the server its 3: b waits.
    expect(inFlight.admit("b")).toMatchObject({
      status: 503,
      message: "The server is busy: 3 requests in flight (the most is 3); retry shortly",
    });
  });

  it("admits clients with nothing in flight into a reserve of one client's bound, then refuses them too", () => {
    const inFlight = new InFlight(limits);
    inFlight.admit("a");
    inFlight.admit("a");
    inFlight.admit("b");
    const quiet = ["c", "d"].map((client) => inFlight.admit(client));
    expect(quiet.every((admitted) => typeof admitted === "function")).toBe(true);
    expect(inFlight.admit("e")).toMatchObject({ status: 503 });
    (quiet[0] as () => void)();
    expect(typeof inFlight.admit("e")).toBe("function");
  });
});
