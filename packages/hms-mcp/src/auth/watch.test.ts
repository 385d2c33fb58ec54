import { describe, expect, it } from "vitest";
import { type FileStamp, type PollState, settle } from "./watch.js";

/** The reloads that polls seeing `stamps` in turn make, starting from the first stamp. */
function reloads(stamps: FileStamp[]): boolean[] {
  let state: PollState = { seen: stamps[0] as FileStamp, changed: false };
  return stamps.slice(1).map((stamp) => {
    const polled = settle(state, stamp);
    state = polled.state;
    return polled.reload;
  });
}

const whole: FileStamp = { mtimeMs: 1000, size: 300, ino: 7 };

describe("settle", () => {
  it("reloads a change once the next poll sees the file the same, and only once", () => {
    const added = { ...whole, mtimeMs: 2000, size: 450 };
    expect(reloads([whole, whole, added, added, added])).toEqual([false, false, true, false]);
  });

  it("never reloads the empty file a rewrite in place leaves between two polls", () => {
    const truncated = { ...whole, mtimeMs: 2000, size: 0 };
    const rewritten = { ...whole, mtimeMs: 2250 };
    expect(reloads([whole, truncated, rewritten, rewritten])).toEqual([false, false, true]);
  });

  it("waits while the file keeps changing, whichever of mtime, size and inode changes", () => {
    const stamps = [
      whole,
      { ...whole, mtimeMs: 2000 },
      { ...whole, mtimeMs: 2000, size: 10 },
      { ...whole, mtimeMs: 2000, size: 10, ino: 8 },
      { ...whole, mtimeMs: 2000, size: 10, ino: 8 },
    ];
    expect(reloads(stamps)).toEqual([false, false, false, true]);
  });
});
