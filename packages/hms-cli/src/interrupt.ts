/**
 * What `hms` does when it is interrupted (Ctrl-C) or told to stop (SIGTERM, a closed
 * terminal): it stops what it started (the hms-mcp serving a local data directory, an editor),
 * says so in one line, and exits 128 + the signal's number, as a shell reports it.
 */
import { constants } from "node:os";

type Stop = () => void;

const stops = new Set<Stop>();
let editing = 0;
/** Set while a command runs until it is interrupted (`hms watch`): the signal ends it. */
let ending: ((signal: NodeJS.Signals) => void) | undefined;

/**
 * Resolves with the signal once hms is interrupted (Ctrl-C) or told to stop (SIGTERM,
 * SIGHUP), or with SIGPIPE once nobody reads its output: for a command that runs until then,
 * and then ends as usual (exit 0).
 */
export function untilInterrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    ending = (signal) => {
      ending = undefined;
      resolve(signal);
    };
  });
}

/**
 * Runs `stop` (synchronously) if hms is interrupted before the returned function is called.
 * Register the hms-mcp process a command started, or an editor and where its text is kept.
 */
export function onInterrupt(stop: Stop): () => void {
  stops.add(stop);
  return () => stops.delete(stop);
}

/**
 * Runs `body` with Ctrl-C left to the editor: a terminal sends SIGINT (and SIGQUIT) to the
 * editor and to hms alike, and an editor uses the key itself, so hms ignores them meanwhile.
 */
export async function whileEditing<T>(body: () => Promise<T>): Promise<T> {
  editing += 1;
  try {
    return await body();
  } finally {
    editing -= 1;
  }
}

/**
 * Installs the handlers; once, at start. Besides the signals: when the reader of hms's output
 * goes away (`hms ls -R | head`), writing to the pipe fails (EPIPE), which would end hms with
 * a stack trace. The rest of the output is dropped instead: the command still finishes (a
 * change it was asked to make is made) and exits with its own code, and one that runs until
 * interrupted (`hms watch`) ends as on Ctrl-C, since nobody reads what it prints.
 */
export function stopOnSignals(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
      ending?.("SIGPIPE");
    });
  }
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) {
    process.on(signal, () => {
      if (editing > 0 && (signal === "SIGINT" || signal === "SIGQUIT")) return;
      if (ending !== undefined && signal !== "SIGQUIT") {
        ending(signal);
        return;
      }
      for (const stop of [...stops].reverse()) {
        try {
          stop();
        } catch {
          // Already gone.
        }
      }
      process.stderr.write(`hms: stopped (${signal})\n`);
      process.exit(128 + constants.signals[signal]);
    });
  }
}

/** Sends SIGTERM to the process `pid`, if it is still there. */
export function terminate(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // It has exited already.
  }
}
