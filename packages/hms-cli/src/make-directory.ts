import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/**
 * Creates the directory `dir` and its missing parents, one level at a time, and rejects with
 * the system's error (ENOENT, EACCES, ENOTDIR, EROFS...) when one cannot be made.
 *
 * Not `mkdir(dir, { recursive: true })`: Node's (22 and 24) never settles when a parent exists
 * but refuses new entries with ENOENT, as `/proc` does (it makes the parent again, and again),
 * so `hms export --to /proc/x` spun at full CPU instead of failing. (@hms/store and the
 * embedder hold the same for their directories: no package below all three runs on Node only.)
 */
export async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let path = resolve(dir); !(await isDirectory(path)); path = dirname(path)) {
    missing.push(path);
    if (dirname(path) === path) break;
  }
  for (const path of missing.reverse()) {
    try {
      await mkdir(path);
    } catch (error) {
      // Made meanwhile by another process: fine, if it is a directory.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !(await isDirectory(path))) {
        throw error;
      }
    }
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
