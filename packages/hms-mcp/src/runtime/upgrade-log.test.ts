import { Writable } from "node:stream";
import type { UpgradeEvent } from "@hms/store";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { upgradeLogger } from "./upgrade-log.js";

/** A real pino logger at info level writing into an array of parsed lines. */
function capture(): { lines: { level: number; msg: string; done?: number }[]; log: pino.Logger } {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: pino({ level: "info" }, sink) };
}

const store = { file: "/data/namespaces/ns-x.sqlite", namespace: "default" };
const task = "rebuilding the full-text index of 100,000 memories";
const progress = (done: number): UpgradeEvent => ({
  type: "progress",
  ...store,
  task,
  done: done * 1000,
  total: 100000,
});

afterEach(() => vi.useRealTimers());

describe("upgradeLogger", () => {
  it("logs a start, the step, progress every 10% only, and the end, all at info", async () => {
    const { lines, log } = capture();
    const onUpgrade = upgradeLogger(log);
    onUpgrade({
      type: "start",
      ...store,
      fromVersion: 4,
      toVersion: 7,
      memories: 100000,
      work: ["rebuild the full-text index"],
    });
    onUpgrade({ type: "step", ...store, task });
    for (let i = 1; i <= 100; i++) onUpgrade(progress(i));
    onUpgrade({ type: "end", ...store, fromVersion: 4, toVersion: 7, ms: 12345 });
    await new Promise((resolve) => setImmediate(resolve));

    expect(lines.every((line) => line.level === 30)).toBe(true);
    expect(lines[0]?.msg).toBe(
      "store upgrade: namespace default is upgraded from schema 4 to 7 (100,000 memories): " +
        "rebuild the full-text index; this can take a while on a big store, and the server " +
        "answers once it is done",
    );
    expect(lines[1]?.msg).toBe(`store upgrade: ${task}`);
    const shown = lines.filter((line) => line.done !== undefined).map((line) => line.done);
    expect(shown).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((n) => n * 1000));
    expect(lines.at(-1)?.msg).toBe(
      "store upgrade: namespace default is at schema 7, upgraded in 12.3 s",
    );
  });

  it("does not warn of a long wait when nothing in the upgrade is slow", async () => {
    const { lines, log } = capture();
    upgradeLogger(log)({
      type: "start",
      ...store,
      fromVersion: 6,
      toVersion: 7,
      memories: 2,
      work: [],
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => line.msg)).toEqual([
      "store upgrade: namespace default is upgraded from schema 6 to 7 (2 memories)",
    ]);
  });

  it("logs progress after 5 s without a line, however little was done", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { lines, log } = capture();
    const onUpgrade = upgradeLogger(log);
    onUpgrade({ type: "step", ...store, task });
    onUpgrade(progress(1));
    vi.setSystemTime(Date.now() + 5000);
    onUpgrade(progress(2));
    onUpgrade(progress(3));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((line) => line.done !== undefined).map((line) => line.done)).toEqual([
      2000,
    ]);
  });
});
