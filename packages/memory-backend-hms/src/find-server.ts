import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { HmsMcpNotFoundError } from "./errors.js";

/** How to start an hms-mcp process. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

const SCRIPT = /\.[cm]?js$/;

/**
 * The hms-mcp to start when no connection is given: `HMS_MCP_BIN` (an executable, or a `.js`
 * file run with this Node), else `hms-mcp` on PATH. Throws {@link HmsMcpNotFoundError}, saying
 * how to get one, when there is none.
 */
export function findHmsMcp(env: Record<string, string | undefined> = process.env): ServerCommand {
  const configured = env.HMS_MCP_BIN;
  if (configured) {
    if (!existsSync(configured)) {
      throw new HmsMcpNotFoundError(
        `HMS_MCP_BIN is set to ${configured}, which does not exist. Point it at the hms-mcp ` +
          "executable (packages/hms-mcp/dist/cli.js in a build of the Holographic Memory for " +
          "Claude repository), or unset it to use hms-mcp on PATH.",
      );
    }
    return SCRIPT.test(configured)
      ? { command: process.execPath, args: [configured] }
      : { command: configured, args: [] };
  }
  const onPath = whichOnPath("hms-mcp", env.PATH ?? "");
  if (onPath) return { command: onPath, args: [] };
  throw new HmsMcpNotFoundError(
    "No hms-mcp server to start. Pass connection: { command, args } to start one, or " +
      "connection: { url } to use a running one; or set HMS_MCP_BIN to the hms-mcp executable; " +
      "or put hms-mcp on PATH. hms-mcp needs Node.js 20.11+; ./scripts/setup.sh in the " +
      "Holographic Memory for Claude repository builds it as packages/hms-mcp/dist/cli.js.",
  );
}

/** The first executable file called `name` in the directories of `path`. */
function whichOnPath(name: string, path: string): string | undefined {
  const suffixes = process.platform === "win32" ? ["", ".cmd", ".exe", ".bat"] : [""];
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The variables the MCP SDK passes to a server by default (as `getDefaultEnvironment`). */
const INHERITED =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "SYSTEMROOT", "TEMP", "USERNAME"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * The environment of a server process: a few safe variables of this process (`PATH`, `HOME`,
 * ...), every `HMS_MCP_*` variable of this process (so `HMS_MCP_DATA_DIR` and the like apply)
 * except `HMS_MCP_TOKEN` and `HMS_MCP_BIN`, then `extra`.
 */
export function serverEnvironment(
  extra: Record<string, string> = {},
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = env[name];
    if (value !== undefined && !value.startsWith("()")) result[name] = value;
  }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith("HMS_MCP_")) continue;
    if (name === "HMS_MCP_TOKEN" || name === "HMS_MCP_BIN") continue;
    result[name] = value;
  }
  return { ...result, ...extra };
}
