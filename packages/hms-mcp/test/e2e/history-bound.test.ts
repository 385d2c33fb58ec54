// The history of memory files stays bounded under the memory tool's churn, through a real
// hms-mcp with its default flags: files of 25 KB created and deleted, and one line of a 30 KB
// file edited, hundreds of times, by the same calls the memory tool makes (remember with
// if_absent or expected_version, forget). The namespace's store (SQLite: its files; on
// PostgreSQL, HMS_TEST_DATABASE_URL: its rows) stays under 16 MiB + 4x its live text, and the
// history still gives back what a person would ask for: the previous version of the file just
// edited and the file just deleted; the history tool says what it dropped and why.
import { ok, startStdio, tempDir, testStoreBytes } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MIB = 1024 * 1024;
const FILE = ["memory-file"];
const CYCLES = 400;

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** About `bytes` of lines of made-up words (compressing little, as PostgreSQL would try). */
function textOf(random: () => number, bytes: number, label: string): string {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    const words = Array.from({ length: 10 }, () =>
      Array.from({ length: 3 + Math.floor(random() * 6) }, () =>
        String.fromCharCode(97 + Math.floor(random() * 26)),
      ).join(""),
    );
    const line = `${label} ${n}: ${words.join(" ")}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

interface Change {
  op: string;
  version: number;
}
interface HistoryAnswer {
  changes: Change[];
  next_before: number | null;
  dropped?: { reason: string; changes: number; through: string; at: string }[];
}

describe("the history under the memory tool's churn, default flags", () => {
  const data = tempDir();
  let server: Awaited<ReturnType<typeof startStdio>>;
  const random = seeded(22);
  const largest: { total: number; parts: Record<string, number> }[] = [];
  let lastDeleted = "";
  let lastEdit = 0;
  let beforeLastEdit = 0;
  let bigText = "";

  beforeAll(async () => {
    server = await startStdio({ dataDir: data.dir, args: ["--log-level", "warn"] });
    const client = server.client;
    const lines = Array.from({ length: 400 }, (_, n) => `line ${n}: edit 0 ${"x".repeat(60)}`);
    let version = (
      await ok<{ version: number }>(client, "remember", {
        key: "/memories/big.md",
        text: lines.join("\n"),
        tags: FILE,
        if_absent: true,
      })
    ).version;
    for (let i = 0; i < CYCLES; i++) {
      const key = `/memories/churn/c${i}.md`;
      await ok(client, "remember", {
        key,
        text: textOf(random, 25_000, `c${i}`),
        tags: FILE,
        if_absent: true,
      });
      await ok(client, "forget", { key });
      lastDeleted = key;
      // A str_replace of one line, as the memory tool sends it: the whole text, compare-and-set.
      lines[Math.floor(random() * 400)] = `line edited in cycle ${i} ${"y".repeat(50)}`;
      beforeLastEdit = version;
      version = (
        await ok<{ version: number }>(client, "remember", {
          key: "/memories/big.md",
          text: lines.join("\n"),
          expected_version: version,
        })
      ).version;
      lastEdit = version;
      if (i % 50 === 49) largest.push(testStoreBytes(data.dir));
    }
    bigText = lines.join("\n");
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    data.remove();
  });

  it("keeps the namespace's store under 16 MiB + 4x its live text", async () => {
    const { bytes: live } = await ok<{ bytes: number }>(server.client, "stats");
    const bound = 16 * MIB + 4 * live;
    // Written: about 25 MB of files created and deleted and 400 versions of a 30 KB file.
    for (const seen of [...largest, testStoreBytes(data.dir)]) {
      expect(seen.total, `store bytes ${JSON.stringify(seen.parts)}`).toBeLessThan(bound);
    }
  });

  it("still gives back the previous version of the file just edited, and the file just deleted", async () => {
    const client = server.client;
    const previous = await ok<{ restored: { version: number }[] }>(client, "restore", {
      key: "/memories/big.md",
      version: beforeLastEdit,
      expected_version: lastEdit,
    });
    expect(previous.restored[0]?.version).toBeGreaterThan(lastEdit);
    const back = await ok<{ restored: { version: number }[] }>(client, "restore", {
      key: "/memories/big.md",
      version: lastEdit,
    });
    expect(back.restored).toHaveLength(1);
    expect((await ok<{ text: string }>(client, "get", { key: "/memories/big.md" })).text).toBe(
      bigText,
    );
    const [deletion] = (await ok<HistoryAnswer>(client, "history", { key: lastDeleted })).changes;
    expect(deletion?.op).toBe("delete");
    await ok(client, "restore", { key: lastDeleted, version: deletion?.version });
    expect(
      (await ok<{ bytes: number }>(client, "get", { key: lastDeleted })).bytes,
    ).toBeGreaterThan(24_000);
  });

  it("dropped the oldest first, and the history tool says so and why", async () => {
    const client = server.client;
    const oldest = await client.callTool({
      name: "history",
      arguments: { key: "/memories/churn/c0.md" },
    });
    const answer = oldest.structuredContent as unknown as HistoryAnswer;
    expect(answer.changes).toEqual([]);
    expect(answer.dropped?.map((drop) => drop.reason)).toEqual(["bytes"]);
    expect(answer.dropped?.[0]?.changes).toBeGreaterThan(100);
    const text = (oldest.content as { type: string; text: string }[])[0]?.text ?? "";
    expect(text).toMatch(
      /^No changes recorded\.\nDropped \d+ changes made up to \S+ to keep the history within its size \(--keep-mib; the oldest go first\), the last at \S+: older changes may be missing\.$/,
    );
  });
});
