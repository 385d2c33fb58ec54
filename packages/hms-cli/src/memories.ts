import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MAX_PAGE, MEMORY_FILE_TAG, type ToolResult } from "@hms/protocol";

/** One memory file as `list` shows it. */
export type ListedFile = ToolResult<"list">["items"][number];
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
