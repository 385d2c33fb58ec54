import { type Logger, pino } from "pino";
import type { LogLevel } from "./config/config.js";

/**
 * The server's logger: JSON lines on stderr (file descriptor 2), written synchronously so
 * nothing is lost on exit. stdout belongs to the MCP protocol under stdio.
 */
export function createLogger(level: LogLevel): Logger {
  return pino(
    { name: "hms-mcp", level, base: { pid: process.pid } },
    pino.destination({ dest: 2, sync: true }),
  );
}

/** Longest run of access lines one write carries: a pipe takes a write of this size whole. */
const ACCESS_WRITE_BYTES = 4096;
/** Access lines wait until they make this many bytes (about 8 lines), or for the flush below. */
const ACCESS_BATCH_BYTES = 2048;
/** Longest an access line waits to be written, in ms. */
const ACCESS_FLUSH_MS = 1000;
/** Most access-line bytes waiting for a stderr that does not take them; later lines are dropped. */
const ACCESS_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * The access log's logger: the same JSON lines on the same stderr, but written in batches off
 * the event loop, as nginx buffers its access log (`buffer=`, `flush=`): about 8 lines a write,
 * each line at most a second late, rather than one blocking write per request. Each write to
 * stderr (a pipe, mostly) wakes the process reading it; one per request cost a stdio server
 * and its client tens of microseconds a call. The lines of the last second can be lost to a
 * `kill -9` (on exit they are written), an access line may follow a later line of the server's
 * other logger (its `time` is right), and while stderr does not take them, at most 16 MiB wait.
 */
export function createAccessLogger(level: LogLevel): Logger {
  const destination = pino.destination({
    dest: 2,
    sync: false,
    minLength: ACCESS_BATCH_BYTES,
    maxWrite: ACCESS_WRITE_BYTES,
    periodicFlush: ACCESS_FLUSH_MS,
    maxLength: ACCESS_BUFFER_BYTES,
  });
  const logger = pino({ name: "hms-mcp", level, base: { pid: process.pid } }, destination);
  accessDestinations.set(logger, destination);
  return logger;
}

/** The destinations of the loggers createAccessLogger made, to end them. */
const accessDestinations = new WeakMap<Logger, ReturnType<typeof pino.destination>>();

/**
 * Writes what `logger` still holds, waiting at most a second (a stderr nobody reads must not
 * hold a server's shutdown); a logger of createAccessLogger is then ended (its flush timer
 * stopped; stderr stays open). Any other logger is only flushed.
 */
export async function closeLogger(logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => logger.flush(() => resolve())),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ACCESS_FLUSH_MS);
    }),
  ]);
  clearTimeout(timer);
  const destination = accessDestinations.get(logger);
  accessDestinations.delete(logger);
  destination?.end();
}
