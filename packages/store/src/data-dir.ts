import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The folder under the user's data directory that holds hms-mcp's stores. */
export const APP_DIR = "hms-mcp";

/**
 * The per-user data directory for hms-mcp:
 * - Linux and other Unixes: `$XDG_DATA_HOME/hms-mcp`, else `~/.local/share/hms-mcp`
 *   (a relative `XDG_DATA_HOME` is ignored, as the XDG spec says);
 * - macOS: `~/Library/Application Support/hms-mcp`;
 * - Windows: `%LOCALAPPDATA%\hms-mcp`, else `~\AppData\Local\hms-mcp`.
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === "win32") {
    const local = env.LOCALAPPDATA;
    return join(local && isAbsolute(local) ? local : join(home, "AppData", "Local"), APP_DIR);
  }
  if (platform === "darwin") return join(home, "Library", "Application Support", APP_DIR);
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".local", "share"), APP_DIR);
}
