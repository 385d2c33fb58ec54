/**
 * What `hms-mcp backup` and `hms-mcp restore` share: the backup directory they write, and
 * PostgreSQL's own programs (pg_dump, pg_restore) run on a database URL without putting its
 * password on a command line, where `ps` shows it to every user of the machine.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { ConfigError } from "../config/config.js";
import { redactUrl, withoutPassword } from "../config/database-url.js";

/**
 * Creates the backup directory `dir` (mode 0700: it holds every memory), or accepts it when it
 * exists and is empty. Refuses one that holds anything: a backup never overwrites another.
 */
export function makeBackupDirectory(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return;
  }
  if (entries.length > 0) {
    throw new ConfigError(
      `--to ${dir} is not empty: back up into a new directory (one per backup, e.g. named by ` +
        "the date), so that no backup overwrites another",
    );
  }
}

/**
 * Runs PostgreSQL's `program` with `args`, and, when `url` is given, `dbFlag` naming the
 * database by its URL without the password, which goes in PGPASSWORD. Resolves to what it
 * printed on stdout; rejects with the first line it printed on stderr.
 */
export function pgTool(
  program: string,
  url: string | undefined,
  args: readonly string[],
  dbFlag = "--dbname",
): Promise<string> {
  const env = { ...process.env };
  const all = [...args];
  if (url !== undefined) {
    const parsed = new URL(url);
    if (parsed.password !== "") env.PGPASSWORD = decodeURIComponent(parsed.password);
    parsed.password = "";
    all.push(`${dbFlag}=${parsed.toString()}`);
  }
  return new Promise((resolveOutput, reject) => {
    const child = spawn(program, all, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new ConfigError(
              `${program} was not found: install PostgreSQL's client programs (of the server's ` +
                "major version or newer, e.g. apt-get install postgresql-client-15) or name " +
                "it with --pg-dump",
            )
          : error,
      );
    });
    child.once("close", (code) => {
      if (code === 0) return resolveOutput(stdout);
      const first = stderr.split("\n").find((line) => line.trim() !== "") ?? `exit ${code}`;
      const shown = url === undefined ? first : withoutPassword(first, url);
      reject(new Error(`${program} failed${url ? ` on ${redactUrl(url)}` : ""}: ${shown}`));
    });
  });
}
