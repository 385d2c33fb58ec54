import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { REFUSAL_LINES_PER_SECOND, RefusalLog, type RefusalReason } from "./refusals.js";

/** A refusal log writing JSON lines into an array, on a clock the test moves. */
function logOf() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const clock = { ms: 0 };
  const counted: RefusalReason[] = [];
  const refusals = new RefusalLog(
    log,
    (reason) => counted.push(reason),
    () => clock.ms,
  );
  return { refusals, lines, clock, counted };
}

describe("the refusal log", () => {
  it("logs each refusal with its reason, peer and request id, at warn", () => {
    const { refusals, lines } = logOf();
    refusals.refused({ reason: "unauthenticated", status: 401, peer: "10.0.0.7", requestId: "r1" });
    refusals.refused({ reason: "namespace", token: "alice", namespace: "bob", peer: "::1" });
    expect(lines).toMatchObject([
      { level: 40, refused: "unauthenticated", status: 401, peer: "10.0.0.7", request_id: "r1" },
      { level: 40, refused: "namespace", token: "alice", namespace: "bob", peer: "::1" },
    ]);
    expect(lines[0]?.msg).toBe("refused: no valid bearer token");
  });

  it("logs at most its lines a second per reason, counts every refusal, and says how many it left out", () => {
    const { refusals, lines, clock, counted } = logOf();
    // A flood of 401s over three seconds, with a few 429s among them.
    let sent = 0;
    for (const ms of [0, 400, 999, 1000, 1500, 2999]) {
      clock.ms = ms;
      for (let i = 0; i < 100; i++) {
        refusals.refused({ reason: "unauthenticated", peer: "10.0.0.7" });
        sent++;
      }
      refusals.refused({ reason: "in-flight", peer: "10.0.0.8" });
    }
    refusals.flush();
    const logged = (reason: string) => lines.filter((line) => line.refused === reason).length;
    // Seconds 0, 1 and 2 each allowed the most lines; the 429s were each under their own bound.
    expect(logged("unauthenticated")).toBe(3 * REFUSAL_LINES_PER_SECOND);
    expect(logged("in-flight")).toBe(6);
    const summary = lines.find((line) => line.suppressed !== undefined);
    expect(summary?.suppressed).toEqual({
      unauthenticated: sent - 3 * REFUSAL_LINES_PER_SECOND,
    });
    expect(summary?.msg).toMatch(/^left out \d+ refusal lines/);
    // The metrics count all of them.
    expect(counted.filter((reason) => reason === "unauthenticated")).toHaveLength(sent);
    // Nothing more to say: a second flush writes nothing.
    const before = lines.length;
    refusals.flush();
    expect(lines).toHaveLength(before);
  });
});
