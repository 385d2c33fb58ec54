import { MEMORY_ROOT, validateMemoryPath } from "@hms/memory-paths";
import { utf8Path } from "./arguments.js";
import { CliError, EXIT } from "./errors.js";

/**
 * The memory path a command-line argument names. `notes/a.md`, `/memories/notes/a.md` and
 * `memories/notes/a.md` are the same file; no argument (or `/`) is the root. The result is
 * checked with the memory tool's own path rules, so `hms` refuses what Claude's tool would.
 */
export function memoryPath(argument: string | undefined): string {
  if (argument !== undefined) utf8Path(argument, "the path");
  let path = (argument ?? "").trim() === "" ? MEMORY_ROOT : (argument ?? "");
  if (path === "/") path = MEMORY_ROOT;
  if (path === "memories" || path.startsWith("memories/")) path = `/${path}`;
  if (!path.startsWith("/")) path = `${MEMORY_ROOT}/${path}`;
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  try {
    validateMemoryPath(path);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new CliError(`${JSON.stringify(argument)} is not a memory path: ${why}`, EXIT.usage);
  }
  return path;
}
