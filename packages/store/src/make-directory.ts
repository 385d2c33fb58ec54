import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates the directory `dir` and its missing parents (each with `mode`), one level at a time,
 * and throws the system's error (ENOENT, EACCES, ENOTDIR, EROFS...) when one cannot be made.
 *
 * Not `mkdirSync(dir, { recursive: true })`: Node 20's never returns when a parent exists but
 * refuses new entries with ENOENT, as `/proc` does (it makes the parent again, and again), so
 * `--data-dir /proc/x` spun at full CPU instead of failing.
 */
export function makeDirectory(dir: string, mode: number): void {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let path = target; !existsSync(path); path = dirname(path)) {
    missing.push(path);
    if (dirname(path) === path) break;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      // Made meanwhile by another process: fine, if it is a directory.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isDirectory(path)) throw error;
    }
  }
  if (!isDirectory(target)) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${target}'`), {
      code: "EEXIST",
      path: target,
    });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
