import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { HmsMcpNotFoundError } from "./errors.js";

/** How to start an hms-mcp process. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

const SCRIPT = /\.[cm]?js$/;

/** How to install hms-mcp where `connect()` with no connection finds it. */
export const INSTALL_HINT =
  "Install it in your project with `npm install hms-mcp` (then it is found in node_modules)";

/**
 * The hms-mcp to start when no connection is given: `HMS_MCP_BIN` (an executable, or a `.js`
 * file run with this Node), else the `hms-mcp` package installed for the project in `cwd`
 * (in `node_modules` of `cwd` or of a directory above it), else
 * `hms-mcp` on PATH. Throws {@link HmsMcpNotFoundError}, saying how to get one, when there is
 * none.
 */
export function findHmsMcp(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): ServerCommand {
  const configured = env.HMS_MCP_BIN;
  if (configured) {
    if (!existsSync(configured)) {
      throw new HmsMcpNotFoundError(
        `HMS_MCP_BIN is set to ${configured}, which does not exist. Point it at the hms-mcp ` +
          "executable (packages/hms-mcp/dist/cli.js in a build of the Holographic Memory for " +
          "Claude repository), or unset it to use hms-mcp from node_modules or PATH.",
      );
    }
    return SCRIPT.test(configured)
      ? { command: process.execPath, args: [configured] }
      : { command: configured, args: [] };
  }
  const installed = inNodeModules(cwd);
  if (installed) return { command: process.execPath, args: [installed] };
  const onPath = whichOnPath("hms-mcp", env.PATH ?? "");
  if (onPath) return { command: onPath, args: [] };
  throw new HmsMcpNotFoundError(
    `No hms-mcp server to start: it is not installed in ${cwd} (node_modules) nor on PATH. ` +
      `${INSTALL_HINT}; or pass connection: { command, args } to start one, or ` +
      "connection: { url } to use a running one; or set HMS_MCP_BIN to the hms-mcp executable. " +
      "hms-mcp needs Node.js 22 or 24; ./scripts/setup.sh in the Holographic Memory for Claude " +
      "repository builds it as packages/hms-mcp/dist/cli.js.",
  );
}

/**
 * The program of the `hms-mcp` package installed in `node_modules` of `cwd` or of a directory
 * above it (where Node looks for packages; NODE_PATH and global folders are not the project's).
 */
function inNodeModules(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const manifest = join(dir, "node_modules", "hms-mcp", "package.json");
    if (existsSync(manifest)) {
      const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: unknown };
      const script =
        typeof bin === "string" ? bin : (bin as Record<string, unknown> | undefined)?.["hms-mcp"];
      if (typeof script !== "string") return undefined;
      const program = resolve(dirname(manifest), script);
      return existsSync(program) ? program : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
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
