import { displayPath } from "./text.js";
import { checkMemoryPath, MEMORY_ROOT, validateMemoryPath } from "./validate.js";

// Every helper validates the paths it is given (throwing MemoryPathError), so a caller can
// never derive a path from an invalid one, and never has to split a path itself. A path the
// helpers only read may name a file an older version let in (the rules for new names are not
// applied to it); a path they make (joinPath, rebasePath) must meet every rule.

/** `path` unchanged if it may name an existing file; throws MemoryPathError otherwise. */
function existing(path: string): string {
  const error = checkMemoryPath(path, { existing: true });
  if (error) throw error;
  return path;
}

/** The names below `/memories`: `/memories/a/b.md` gives `["a", "b.md"]`, `/memories` `[]`. */
export function pathNames(path: string): string[] {
  existing(path);
  return path === MEMORY_ROOT ? [] : path.slice(MEMORY_ROOT.length + 1).split("/");
}

/** Levels below `/memories`: `/memories` is 0, `/memories/a` is 1, `/memories/a/b` is 2. */
export function pathDepth(path: string): number {
  return pathNames(path).length;
}

/** The directory holding `path`, or `null` for `/memories` itself. */
export function parentPath(path: string): string | null {
  existing(path);
  if (path === MEMORY_ROOT) return null;
  return path.slice(0, path.lastIndexOf("/"));
}

/** The last name of `path`: `/memories/a/b.md` gives `b.md`, `/memories` gives `memories`. */
export function baseName(path: string): string {
  existing(path);
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The proper ancestors of `path`, from `/memories` down to its parent:
 * `/memories/a/b/c.md` gives `["/memories", "/memories/a", "/memories/a/b"]`.
 */
export function ancestorPaths(path: string): string[] {
  const names = pathNames(path);
  const out: string[] = [];
  let current = MEMORY_ROOT;
  for (const name of names) {
    out.push(current);
    current = `${current}/${name}`;
  }
  return out;
}

/**
 * `directory` followed by `relative` (one name or several joined by `/`), validated as a
 * whole: `joinPath("/memories/a", "b/c.md")` gives `/memories/a/b/c.md`. Throws
 * `MemoryPathError` if the result is not a valid memory path (so `..` cannot escape).
 */
export function joinPath(directory: string, relative: string): string {
  existing(directory);
  return validateMemoryPath(`${directory}/${relative}`);
}

/** Whether `path` lies strictly below `ancestor` (`/memories/a/b` is under `/memories/a`). */
export function isUnder(path: string, ancestor: string): boolean {
  existing(path);
  existing(ancestor);
  return path.startsWith(`${ancestor}/`);
}

/** Whether `path` is `ancestor` or lies below it. `/memories/ab` is not under `/memories/a`. */
export function isSameOrUnder(path: string, ancestor: string): boolean {
  existing(path);
  existing(ancestor);
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * Moves `path` from below `from` to the same place below `to`:
 * `rebasePath("/memories/a/x/y.md", "/memories/a", "/memories/b")` gives `/memories/b/x/y.md`.
 * `path` must be `from` or lie under it. Throws `MemoryPathError` if the result breaks
 * a rule (a deeper destination can push a path over the length or depth limits).
 */
export function rebasePath(path: string, from: string, to: string): string {
  if (!isSameOrUnder(path, from)) {
    throw new RangeError(`${displayPath(path)} is not ${displayPath(from)} or under it`);
  }
  validateMemoryPath(to);
  return validateMemoryPath(to + path.slice(from.length));
}
