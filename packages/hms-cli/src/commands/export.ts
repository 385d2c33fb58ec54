import { open, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError } from "../errors.js";
import { makeDirectory } from "../make-directory.js";
import { exportAll } from "../memories.js";
import type { Output } from "../output.js";
import { progressBar } from "../progress.js";

/** The first line of a JSON Lines export; every later line is one memory. */
export interface ExportHeader {
  format: "hms-export";
  format_version: 1;
  namespace: string;
  exported_at: string;
  memories: number;
}

/**
 * `hms export --to DIR`: the memory files as plain files, laid out as the Anthropic SDK's
 * filesystem memory tool keeps them (`DIR/memories/...`), so a user can move either way.
 * `hms export --to FILE.jsonl`: every memory of the namespace with its version, tags,
 * metadata and times, one JSON object per line after a header line.
 */
export async function exportTo(
  backend: HmsMemoryBackend,
  target: string,
  options: { force: boolean },
  out: Output,
): Promise<void> {
  const stats = await backend.stats();
  const jsonl = target.endsWith(".jsonl");
  const progress = progressBar("export", out);
  progress.start(stats.memories);
  let count = 0;
  try {
    if (jsonl) {
      count = await exportJsonl(backend, target, stats.namespace, options.force, () => {
        progress.increment();
      });
    } else {
      count = await exportDirectory(backend, target, options.force, () => progress.increment());
    }
  } catch (error) {
    const { code, syscall, path } = error as NodeJS.ErrnoException;
    if (syscall === undefined) throw error;
    // A file system's refusal (no such directory, no permission, a full disk), in one line.
    throw new CliError(`cannot export to ${target}: ${syscall} ${path ?? target} failed (${code})`);
  } finally {
    progress.stop();
  }
  out.result({ to: target, format: jsonl ? "jsonl" : "directory", memories: count }, () => {
    const what = jsonl ? ["memory", "memories"] : ["memory file", "memory files"];
    return `exported ${count} ${count === 1 ? what[0] : what[1]} to ${target}`;
  });
}

async function exportJsonl(
  backend: HmsMemoryBackend,
  file: string,
  namespace: string,
  force: boolean,
  onMemory: () => void,
): Promise<number> {
  const lines: string[] = [];
  for await (const memory of exportAll(backend, { memoryFilesOnly: false })) {
    lines.push(JSON.stringify(memory));
    onMemory();
  }
  const header: ExportHeader = {
    format: "hms-export",
    format_version: 1,
    namespace,
    exported_at: new Date().toISOString(),
    memories: lines.length,
  };
  await writeNew(file, `${[JSON.stringify(header), ...lines].join("\n")}\n`, force);
  return lines.length;
}

async function exportDirectory(
  backend: HmsMemoryBackend,
  directory: string,
  force: boolean,
  onFile: () => void,
): Promise<number> {
  let count = 0;
  for await (const memory of exportAll(backend, { memoryFilesOnly: true })) {
    // Keys are memory paths, checked by the store: no "..", no backslashes, no dot-names.
    const relative = memory.key.slice(MEMORY_ROOT.length + 1);
    const file = join(directory, "memories", ...relative.split("/"));
    await makeDirectory(dirname(file));
    await writeNew(file, memory.text, force);
    count += 1;
    onFile();
  }
  await makeDirectory(join(directory, "memories"));
  return count;
}

/** Writes a file, refusing to replace one unless `force` (an export never loses a file). */
async function writeNew(file: string, text: string, force: boolean): Promise<void> {
  if (force) {
    await writeFile(file, text);
    return;
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new CliError(`${file} exists; pass --force to overwrite it`);
    }
    throw error;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}
