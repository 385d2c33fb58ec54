import { Writable } from "node:stream";
import { SingleBar } from "cli-progress";
import type { Output } from "./output.js";

/** A progress bar on stderr, shown only to a person at a terminal (never with --json). */
export interface Progress {
  start(total: number): void;
  increment(): void;
  /** Sets how much is done. */
  update(done: number): void;
  stop(): void;
}

export function progressBar(label: string, out: Output): Progress {
  const stream = out.io.stderr;
  if (out.json || !stream.isTTY || !(stream instanceof Writable)) {
    return { start() {}, increment() {}, update() {}, stop() {} };
  }
  const bar = new SingleBar({
    format: `${label} [{bar}] {value}/{total}`,
    stream,
    hideCursor: true,
    clearOnComplete: true,
  });
  return {
    start: (total) => bar.start(total, 0),
    increment: () => bar.increment(),
    update: (done) => bar.update(done),
    stop: () => bar.stop(),
  };
}
