import { describe, expect, it } from "vitest";
import { MemoryEngine } from "./engine.js";
import { InMemoryBackend } from "./in-memory-backend.js";

const WRITERS = 16;
const EDITS = 20; // per writer: 10 inserts and 10 replacements, interleaved

/** A random pause of 0-2 ms, or sometimes none, before each backend operation. */
async function jitter(): Promise<void> {
  const roll = Math.random();
  if (roll < 0.2) return;
  if (roll < 0.5) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
}

describe("concurrent writers of one file", () => {
  it(`${WRITERS} writers x ${EDITS} edits through separate engines: no update is lost`, async () => {
    const path = "/memories/shared.md";
    const counters = Array.from({ length: WRITERS }, (_, w) => `writer ${w}: 0`);
    let updates = 0;
    const backend = new InMemoryBackend({
      files: { [path]: `${counters.join("\n")}\n` },
      beforeOperation: async (operation) => {
        if (operation === "update") updates++;
        await jitter();
      },
    });

    const writer = async (w: number) => {
      // One engine per writer, as separate processes sharing a store would have.
      const memory = new MemoryEngine(backend);
      for (let e = 0; e < EDITS; e++) {
        if (e % 2 === 0) {
          await memory.insert({
            command: "insert",
            path,
            insert_line: (w * 7 + e) % WRITERS, // always within the file, which only grows
            insert_text: `note from writer ${w}, edit ${e}\n`,
          });
        } else {
          const done = (e - 1) / 2;
          await memory.str_replace({
            command: "str_replace",
            path,
            old_str: `writer ${w}: ${done}\n`,
            new_str: `writer ${w}: ${done + 1}\n`,
          });
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));

    const lines = (backend.snapshot()[path] as string).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(WRITERS + (WRITERS * EDITS) / 2);
    for (let w = 0; w < WRITERS; w++) {
      expect(
        lines.filter((l) => l === `writer ${w}: ${EDITS / 2}`),
        `writer ${w}`,
      ).toHaveLength(1);
      for (let e = 0; e < EDITS; e += 2) {
        expect(lines).toContain(`note from writer ${w}, edit ${e}`);
      }
    }
    // The writers really raced: many compare-and-set writes lost and were retried.
    expect(updates).toBeGreaterThan(WRITERS * EDITS * 1.5);
  }, 60_000);
});
