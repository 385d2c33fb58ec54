import { describe, expect, it } from "vitest";
import { SessionRegistry } from "./sessions.js";

/** A session that records whether it was closed. */
function session() {
  return {
    closed: false,
    async close() {
      this.closed = true;
    },
  };
}

describe("SessionRegistry", () => {
  it("closes a client's own least recently used session over its cap, never another's", () => {
    const evicted: string[] = [];
    const registry = new SessionRegistry<ReturnType<typeof session>>(
      { perClient: 2, total: 10, idleMs: 60_000 },
      (id) => evicted.push(id),
    );
    const others = session();
    registry.add("b1", "bob", others, 0);
    const [a1, a2, a3] = [session(), session(), session()];
    registry.add("a1", "alice", a1, 1);
    registry.add("a2", "alice", a2, 2);
    expect(registry.use("a1", "alice", 3)).toBe(a1); // a2 is now alice's oldest
    registry.add("a3", "alice", a3, 4);
    expect(evicted).toEqual(["a2"]);
    expect(a2.closed).toBe(true);
    expect(registry.use("b1", "bob", 5)).toBe(others);
    expect(others.closed).toBe(false);
    expect([registry.countOf("alice"), registry.countOf("bob")]).toEqual([2, 1]);
  });

  it("closes a session never used since it was opened before one in use", () => {
    const registry = new SessionRegistry({ perClient: 2, total: 10, idleMs: 60_000 });
    const working = session();
    registry.add("w", "alice", working, 0);
    expect(registry.use("w", "alice", 1)).toBe(working);
    for (let i = 0; i < 50; i++) registry.add(`flood/${i}`, "alice", session(), 2 + i);
    expect(registry.use("w", "alice", 100)).toBe(working);
    // The newest is kept: the session just opened is never the one closed for it.
    expect(registry.use("flood/49", "alice", 100)).toBeDefined();
    expect(registry.size).toBe(2);
  });

  it("refuses a new session once full, unless the client replaces its own", () => {
    const registry = new SessionRegistry({ perClient: 2, total: 3, idleMs: 60_000 });
    registry.add("a1", "alice", session(), 0);
    registry.add("a2", "alice", session(), 0);
    registry.add("b1", "bob", session(), 0);
    expect(registry.hasRoom("bob")).toBe(false);
    expect(registry.hasRoom("carol")).toBe(false);
    // Alice is at her cap: her new session replaces her oldest.
    expect(registry.hasRoom("alice")).toBe(true);
    registry.add("a3", "alice", session(), 1);
    expect(registry.size).toBe(3);
    expect(registry.use("a1", "alice", 2)).toBeUndefined();
    expect(registry.use("b1", "bob", 2)).toBeDefined();
  });

  it("finds a session only with the client that opened it, and not once idle", () => {
    const registry = new SessionRegistry({ perClient: 5, total: 5, idleMs: 1000 });
    const mine = session();
    registry.add("a1", "alice", mine, 0);
    registry.add("a2", "alice", session(), 0);
    expect(registry.use("a1", "mallory", 10)).toBeUndefined();
    expect(registry.use("a1", "alice", 500)).toBe(mine);
    expect(registry.use("a1", "alice", 1499)).toBe(mine);
    expect(registry.use("a1", "alice", 2499)).toBeUndefined();
    expect(mine.closed).toBe(true);
    registry.closeIdle(2500);
    expect(registry.size).toBe(0);
  });
});
