import { checkMemoryPath, compareCodePoints, pathNames } from "@hms/memory-paths";
import type { FileEntry } from "./backend.js";
import { MemoryToolError } from "./errors.js";
import { codePointLength, humanSize, numberedLine, splitLines } from "./format.js";
import { messages } from "./messages.js";

/**
 * A file as `view` shows it: the header, then its lines numbered from 1 (or the lines of
 * `range`), cut at a line boundary so the numbered lines take at most `maxChars` code points
 * (joined by `\n`); the first line is always shown even if longer. A cut adds a last line
 * naming the next line and the `view_range` to continue with.
 */
export function renderFile(
  path: string,
  content: string,
  range: readonly [number, number] | undefined,
  maxChars: number,
): string {
  const lines = splitLines(content);
  const total = lines.length;
  const header = messages.fileHeader(path);
  let first = 1;
  let last = total;
  if (range) {
    const [start, end] = range;
    const valid = start >= 1 && start <= total && (end === -1 || (end >= start && end <= total));
    if (!valid) {
      throw new MemoryToolError("out_of_range", messages.viewRange(start, end, path, total));
    }
    first = start;
    last = end === -1 ? total : end;
  }
  if (total === 0) return `${header}\n${messages.emptyFile}`;

  const shown: string[] = [];
  let used = 0;
  for (let n = first; n <= last; n++) {
    const line = numberedLine(n, lines[n - 1] as string);
    const cost = codePointLength(line) + (shown.length > 0 ? 1 : 0);
    if (shown.length > 0 && used + cost > maxChars) {
      const lastShown = n - 1;
      const end = range ? range[1] : -1;
      const note = messages.fileTruncated(path, lastShown, total, maxChars, end);
      return `${header}\n${shown.join("\n")}\n${note}`;
    }
    shown.push(line);
    used += cost;
  }
  return `${header}\n${shown.join("\n")}`;
}

interface Node {
  readonly name: string;
  readonly isDirectory: boolean;
  bytes: number;
  readonly children: Map<string, Node>;
}

/** Names a listing leaves out, with everything under them (the SDK header promises it). */
const EXCLUDED_NAMES = new Set(["node_modules"]);

/**
 * A directory as `view` shows it: the header; the directory's own line; then its entries up
 * to 2 levels down, depth first, sorted by name in code point order at each level (a file
 * before a directory of the same name), directories ending in `/`. Each line is
 * `{size}\t{path}`; a directory's size is the sum of the bytes of every file under it, at
 * any depth (entries not listed included). Entries named `node_modules` are left out with
 * everything under them. The entry lines take at most `maxChars` code points (joined by
 * `\n`, the directory's own line included); a cut adds a note.
 */
export function renderDirectory(path: string, files: readonly FileEntry[], maxChars: number) {
  const root: Node = { name: "", isDirectory: true, bytes: 0, children: new Map() };
  pathNames(path); // the directory's own path must be valid
  const prefix = `${path}/`;
  for (const file of files) {
    // A backend may hold keys that are not valid memory paths (written by other means);
    // they cannot be addressed by any command, so they are not shown. Names an older version
    // let in (look-alikes, see @hms/memory-paths) can be viewed and deleted, so they are.
    if (!file.path.startsWith(prefix)) continue;
    if (checkMemoryPath(file.path, { existing: true }) !== null) continue;
    // A valid path under `path`: its names below `path`, checked once above.
    const names = file.path.slice(prefix.length).split("/");
    root.bytes += file.bytes;
    let node = root;
    names.forEach((name, index) => {
      const isDirectory = index < names.length - 1;
      const key = `${isDirectory ? "d" : "f"}:${name}`;
      let child = node.children.get(key);
      if (!child) {
        child = { name, isDirectory, bytes: 0, children: new Map() };
        node.children.set(key, child);
      }
      child.bytes += file.bytes;
      node = child;
    });
  }

  const lines = [`${humanSize(root.bytes)}\t${path}`];
  const walk = (node: Node, prefix: string, depth: number) => {
    const children = [...node.children.values()].sort(
      (a, b) => compareCodePoints(a.name, b.name) || Number(a.isDirectory) - Number(b.isDirectory),
    );
    for (const child of children) {
      if (EXCLUDED_NAMES.has(child.name)) continue;
      const childPath = `${prefix}/${child.name}`;
      lines.push(`${humanSize(child.bytes)}\t${childPath}${child.isDirectory ? "/" : ""}`);
      if (child.isDirectory && depth < 2) walk(child, childPath, depth + 1);
    }
  };
  walk(root, path, 1);

  const header = messages.directoryHeader(path);
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const cost = codePointLength(lines[i] as string) + (i > 0 ? 1 : 0);
    if (i > 0 && used + cost > maxChars) {
      const note = messages.directoryTruncated(path, i - 1, lines.length - 1, maxChars);
      return `${header}\n${lines.slice(0, i).join("\n")}\n${note}`;
    }
    used += cost;
  }
  return `${header}\n${lines.join("\n")}`;
}
