import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError } from "../errors.js";
import { type ListedFile, listFiles, pathKind } from "../memories.js";
import { humanBytes, type Output } from "../output.js";

/** One line of `hms ls`: a file, or a directory with what lies under it. */
export interface Entry {
  path: string;
  type: "file" | "directory";
  bytes: number;
  /** Files: the version. */
  version?: number;
  /** Files: the last change; directories: the newest change under them. */
  updated_at: string;
  /** Directories: how many files lie under them. */
  files?: number;
}

/** `hms ls [-R] [path]`: a directory's entries (every file under it with -R), or one file. */
export async function ls(
  backend: HmsMemoryBackend,
  path: string,
  options: { recursive: boolean },
  out: Output,
): Promise<void> {
  const kind = await pathKind(backend, path);
  if (kind === "missing") throw new CliError(`${path} does not exist`);
  const files = await listFiles(backend, kind === "file" ? path : underPrefix(path));
  const entries =
    kind === "file"
      ? files.filter((file) => file.key === path).map(fileEntry)
      : options.recursive
        ? files.map(fileEntry)
        : children(path, files);
  out.result(entries, () => {
    if (entries.length === 0) return `${path} is empty`;
    const rows = entries.map((entry) => [
      humanBytes(entry.bytes),
      entry.version === undefined ? "" : `v${entry.version}`,
      entry.updated_at.replace("T", " ").replace(/\.\d+Z$/, "Z"),
      entry.type === "directory" ? out.colors.blue(`${entry.path}/`) : entry.path,
    ]);
    return out.table(["SIZE", "VERSION", "UPDATED", "PATH"], rows, [
      "right",
      "right",
      "left",
      "left",
    ]);
  });
}

function underPrefix(directory: string): string {
  return directory === MEMORY_ROOT ? `${MEMORY_ROOT}/` : `${directory}/`;
}

function fileEntry(file: ListedFile): Entry {
  return {
    path: file.key,
    type: "file",
    bytes: file.bytes,
    version: file.version,
    updated_at: file.updated_at,
  };
}

/** The directory's own entries: its files, and its subdirectories summed up. */
function children(directory: string, files: ListedFile[]): Entry[] {
  const prefix = underPrefix(directory);
  const entries = new Map<string, Entry>();
  for (const file of files) {
    const rest = file.key.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash === -1) {
      entries.set(file.key, fileEntry(file));
      continue;
    }
    const path = prefix + rest.slice(0, slash);
    const entry = entries.get(path) ?? {
      path,
      type: "directory",
      bytes: 0,
      updated_at: file.updated_at,
      files: 0,
    };
    entry.bytes += file.bytes;
    entry.files = (entry.files ?? 0) + 1;
    if (file.updated_at > entry.updated_at) entry.updated_at = file.updated_at;
    entries.set(path, entry);
  }
  return [...entries.values()];
}
