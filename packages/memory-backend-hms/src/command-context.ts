/**
 * Which memory tool command a call to hms-mcp serves, so that the server's history records
 * "str_replace" rather than the tool that carried it ("remember"). Carried with the async
 * context of the command, so commands running side by side on one connection never mix up.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

/** The `_meta` key hms-mcp reads the command from. */
export const COMMAND_META_KEY = "hms-mcp/command";

/** Runs `body` with every hms-mcp call it makes labelled as serving `command`. */
export function runAsCommand<T>(command: string, body: () => Promise<T>): Promise<T> {
  return current.run(command, body);
}

/** The command the calls of the running async context serve, if any. */
export function currentCommand(): string | undefined {
  return current.getStore();
}
