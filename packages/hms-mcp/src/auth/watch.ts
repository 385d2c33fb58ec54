/**
 * Keeps a server's tokens in step with its tokens file, without a restart: reloaded at once on
 * SIGHUP, and when a poll sees the file changed, once it has settled.
 */
import { stat, statSync } from "node:fs";
import type { Logger } from "pino";
import type { Tokens } from "./tokens.js";

/** How often the tokens file is checked for changes, in ms. */
const TOKENS_POLL_MS = 500;

/** What a poll compares of the file: a write changes mtime or size, a rename over it ino. */
export interface FileStamp {
  readonly mtimeMs: number;
  readonly size: number;
  readonly ino: number;
}

/** What the poll knows between checks: the stamp it saw last, and whether it was a change. */
export interface PollState {
  readonly seen: FileStamp;
  readonly changed: boolean;
}

/**
 * One poll of the tokens file: the next state, and whether to reload now. A change is reloaded
 * only once the file has settled, its stamp the same at two polls in a row: a writer that
 * truncates the file and then writes it may be polled in between. What it leaves meanwhile is
 * never put in force even when it settles (a writer run late by a busy machine): an empty file
 * is refused by Tokens.reload, and a line cut short does not parse.
 */
export function settle(state: PollState, now: FileStamp): { state: PollState; reload: boolean } {
  const same =
    now.mtimeMs === state.seen.mtimeMs &&
    now.size === state.seen.size &&
    now.ino === state.seen.ino;
  return { state: { seen: now, changed: !same }, reload: same && state.changed };
}

/** The stamp of a file that cannot be stat'ed (removed, say), as fs.watchFile reports it. */
const MISSING: FileStamp = { mtimeMs: 0, size: 0, ino: 0 };

/**
 * Reloads the tokens file on SIGHUP (the operator says it is ready) and when a poll sees it
 * changed and then the same at the next poll (see {@link settle}): a change is applied within
 * about two poll intervals. Polled rather than watched, so an editor's replace-by-rename is
 * seen too. A file that is not valid keeps the tokens in force, and the log says why. Returns
 * the function that stops watching.
 */
export function watchTokens(tokens: Tokens, file: string, log: Logger): () => void {
  const reload = (reason: string) => {
    try {
      tokens.reload();
      log.info({ reason, tokens: tokens.size }, "tokens file reloaded");
    } catch (error) {
      log.error(
        { reason },
        `tokens file not reloaded, the previous tokens stay in force: ${(error as Error).message}`,
      );
    }
  };
  const onSighup = () => reload("SIGHUP");

  let state: PollState = { seen: stampOf(file), changed: false };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    stat(file, (error, stats) => {
      if (stopped) return;
      const polled = settle(state, error === null ? stats : MISSING);
      state = polled.state;
      if (polled.reload) reload("changed");
      schedule();
    });
  };
  // Each check is scheduled when the last is done, and keeps no process alive.
  const schedule = () => {
    timer = setTimeout(check, TOKENS_POLL_MS).unref();
  };

  process.on("SIGHUP", onSighup);
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
    process.off("SIGHUP", onSighup);
  };
}

function stampOf(file: string): FileStamp {
  try {
    return statSync(file);
  } catch {
    return MISSING;
  }
}
