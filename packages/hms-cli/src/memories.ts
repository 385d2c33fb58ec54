import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MAX_PAGE, MEMORY_FILE_TAG, type ToolResult } from "@hms/protocol";

/** One memory file as `list` shows it. */
export type ListedFile = ToolResult<"list">["items"][number];
/** One memory as `get` gives it. */
export type MemoryRecord = ToolResult<"get">;
/** One whole memory as `export` gives it. */
export type ExportedMemory = ToolResult<"export">["memories"][number];

/** Every memory file whose path starts with `prefix`, in key order, page by page. */
export async function listFiles(backend: HmsMemoryBackend, prefix: string): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.call("list", {
      prefix,
      tag: MEMORY_FILE_TAG,
      limit: MAX_PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    files.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return files;
}

/** Every whole memory of the namespace (or only memory files), fetched page by page. */
export async function* exportAll(
  backend: HmsMemoryBackend,
  options: { memoryFilesOnly: boolean },
): AsyncGenerator<ExportedMemory> {
  let cursor: string | undefined;
  do {
    const page = await backend.call("export", {
      ...(options.memoryFilesOnly ? { tag: MEMORY_FILE_TAG } : {}),
      ...(cursor === undefined ? {} : { cursor }),
    });
    yield* page.memories;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** Whether `path` is a file, a directory (some file lies under it), or nothing. */
export async function pathKind(
  backend: HmsMemoryBackend,
  path: string,
): Promise<"file" | "directory" | "missing"> {
  const page = await backend.call("list", { prefix: path, tag: MEMORY_FILE_TAG, limit: 2 });
  if (page.items.some((item) => item.key === path)) return "file";
  const under = await backend.call("list", { prefix: `${path}/`, tag: MEMORY_FILE_TAG, limit: 1 });
  return under.items.length > 0 || path === "/memories" ? "directory" : "missing";
}

/** The memory at `path`, or undefined when there is none. */
export async function getMemory(
  backend: HmsMemoryBackend,
  path: string,
): Promise<MemoryRecord | undefined> {
  try {
    return await backend.call("get", { key: path });
  } catch (error) {
    if ((error as { code?: unknown }).code === "NOT_FOUND") return undefined;
    throw error;
  }
}

/**
 * Why a text of `bytes` UTF-8 bytes cannot be a memory on a server taking at most `max`, and
 * how to raise the limit; undefined when it fits.
 */
export function sizeRefusal(bytes: number, max: number): string | undefined {
  if (bytes <= max) return undefined;
  return `${bytes} bytes, ${overLimit(max)}`;
}

/**
 * `over the server's limit of N bytes per file (how to raise it)`: why a text is refused
 * whose whole size is not known (reading stopped once it passed the limit).
 */
export function overLimit(max: number): string {
  return (
    `over the server's limit of ${max} bytes per file (raise it with hms-mcp's ` +
    "--max-text-bytes; for the server hms starts, set HMS_MCP_MAX_TEXT_BYTES)"
  );
}

/** Why a bounded read's input cannot be one memory file: its size, or that it is too long. */
export function boundedRefusal(over: { size?: number }, max: number): string {
  return over.size === undefined
    ? `more than ${max} bytes, ${overLimit(max)}`
    : `${over.size} bytes, ${overLimit(max)}`;
}

/** `bytes` as UTF-8 text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
