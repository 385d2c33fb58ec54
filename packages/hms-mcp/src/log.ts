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
