import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
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

/** The program name that means "hms-mcp, wherever the application has it" as a command. */
export const HMS_MCP_COMMAND = "hms-mcp";

/**
 * The hms-mcp to start when no connection is given, or when the command is the bare name
 * `hms-mcp`. In order:
 * 1. `HMS_MCP_BIN` (an executable, or a `.js` file run with this Node);
 * 2. the `hms-mcp` package in `node_modules` of `cwd` or of a directory above it (the
 *    application's project, as `npx` and npm scripts find it);
 * 3. the `hms-mcp` package that this package's own installation resolves (`beside`): the one
 *    installed with the tool, wherever the program runs from (a service started in `/`, a
 *    global install, pnpm's layout);
 * 4. `hms-mcp` on PATH.
 * A package is run with this Node, by its `bin` entry. Throws {@link HmsMcpNotFoundError},
 * saying where it looked and how to get one, when there is none.
 */
export function findHmsMcp(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
  beside: () => string | undefined = besideThisPackage,
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
  const installed = inNodeModules(cwd) ?? programOf(beside());
  if (installed) return { command: process.execPath, args: [installed] };
  const onPath = whichOnPath(HMS_MCP_COMMAND, env.PATH ?? "");
  if (onPath) return { command: onPath, args: [] };
  throw new HmsMcpNotFoundError(
    `No hms-mcp server to start: HMS_MCP_BIN is not set, and hms-mcp is neither in ` +
      `node_modules (of ${cwd} or above, or beside this package) nor on PATH. ` +
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
    if (existsSync(manifest)) return programOf(manifest);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The manifest of the `hms-mcp` package as this package's own code would import it (hms-mcp is
 * an optional peer: installers link it beside this package when the application has it), or
 * undefined when there is none to resolve.
 */
function besideThisPackage(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("hms-mcp/package.json");
  } catch {
    return undefined; // not installed, or a bundler left no resolvable module behind
  }
}

/** The program named by the `hms-mcp` bin entry of the manifest at `manifest`, if it exists. */
function programOf(manifest: string | undefined): string | undefined {
  if (manifest === undefined || !existsSync(manifest)) return undefined;
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: unknown };
  const script =
    typeof bin === "string" ? bin : (bin as Record<string, unknown> | undefined)?.[HMS_MCP_COMMAND];
  if (typeof script !== "string") return undefined;
  const program = resolve(dirname(manifest), script);
  return existsSync(program) ? program : undefined;
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
 * The server's log level unless the caller chose one: a library's user wants its own stderr
 * quiet, so only the server's warnings and errors reach it (and a failed connect still shows
 * the server's last lines). `HMS_MCP_LOG_LEVEL` in this process's environment or in `extra`,
 * or `--log-level` among the server's arguments, chooses another.
 */
export const DEFAULT_SERVER_LOG_LEVEL = "warn";

/**
 * The environment of a server process: `HMS_MCP_LOG_LEVEL={@link DEFAULT_SERVER_LOG_LEVEL}`,
 * a few safe variables of this process (`PATH`, `HOME`, ...), every `HMS_MCP_*` variable of
 * this process (so `HMS_MCP_DATA_DIR` and the like apply) except `HMS_MCP_TOKEN` and
 * `HMS_MCP_BIN`, then `extra`.
 */
export function serverEnvironment(
  extra: Record<string, string> = {},
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const result: Record<string, string> = { HMS_MCP_LOG_LEVEL: DEFAULT_SERVER_LOG_LEVEL };
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
