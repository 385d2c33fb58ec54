/**
 * A write refused for a full disk is counted in hms_disk_full_total (and as a tool call with
 * outcome STORAGE_FULL): a real hms-mcp over stdio with its metrics on their own port, its
 * SQLite store on a small tmpfs that the test fills. SQLite only: on PostgreSQL the disk is
 * the database server's.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  call,
  fillDisk,
  mountTmpfs,
  ok,
  parseExposition,
  sampleValue,
  scrape,
  startStdio,
} from "@hms/test-support";
import { describe, expect, it } from "vitest";

/** The metrics as the server at `url` serves them now. */
async function samplesAt(url: string) {
  const { status, text } = await scrape(url);
  expect(status).toBe(200);
  return parseExposition(text);
}

describe("a full disk in the metrics", () => {
  it("counts the refused write in hms_disk_full_total", async () => {
    const disk = mountTmpfs(8);
    const server = await startStdio({
      dataDir: disk.dir,
      args: ["--metrics-port", "0", "--log-level", "info"],
    });
    try {
      // The start-up line says where the metrics are (it may follow the connect by a moment).
      let url: string | undefined;
      for (let poll = 0; poll < 300 && url === undefined; poll++) {
        url = /"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.stderr())?.[1];
        if (url === undefined) await sleep(100);
      }
      if (url === undefined) throw new Error(`no metrics URL in the log:\n${server.stderr()}`);
      await ok(server.client, "remember", { key: "a.md", text: "one" });
      expect(sampleValue(await samplesAt(url), "hms_disk_full_total")).toBe(0);

      fillDisk(disk.dir);
      // About 20 KB, more than a fresh store's write-ahead log has room for.
      const text = Array.from({ length: 4000 }, (_, i) => `w${i}`).join(" ");
      const full = await call(server.client, "remember", { key: "b.md", text });
      expect(full.isError).toBe(true);
      expect(JSON.stringify(full.content)).toContain("STORAGE_FULL");

      const samples = await samplesAt(url);
      expect(sampleValue(samples, "hms_disk_full_total")).toBe(1);
      const refused = { tool: "remember", outcome: "STORAGE_FULL" };
      expect(sampleValue(samples, "hms_tool_calls_total", refused)).toBe(1);
    } finally {
      await server.close();
      disk.remove();
    }
  });
});
