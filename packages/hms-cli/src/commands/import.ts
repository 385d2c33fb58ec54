import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { checkMemoryPath, MEMORY_ROOT } from "@hms/memory-paths";
import { MAX_PAGE, MEMORY_FILE_TAG, TOOLS } from "@hms/protocol";
import { CliError, EXIT } from "../errors.js";
import { onInterrupt } from "../interrupt.js";
import { sizeRefusal, utf8Text } from "../memories.js";
import type { Output } from "../output.js";
import { progressBar } from "../progress.js";

/** A memory to write. */
interface Planned {
  key: string;
  text: string;
  tags: string[];
  metadata?: Record<string, unknown>;
}

/** Something in the source that will not be imported, and why. */
export interface Refusal {
  source: string;
  reason: string;
}

/** Why a hidden file or folder (`.DS_Store`, `.git`) is left out: not an error, a note. */
const HIDDEN =
  "hidden (a name starting with a dot is not a memory file: Claude's memory tool hides and refuses them)";

interface ImportOptions {
  overwrite: boolean;
  dryRun: boolean;
  skipRefused: boolean;
}

/**
 * `hms import --from DIR|FILE.jsonl`. A directory is what the Anthropic SDK's filesystem
 * memory tool keeps: its base path (holding `memories/`) or that `memories/` folder itself.
 * Everything is checked before anything is written: unsafe names, files over the server's
 * size limit, text that is not UTF-8, symbolic links and files that already exist are listed
 * as refusals, and then nothing is imported (unless --skip-refused). A write that still fails
 * (another writer got there first, the disk filled) rolls back every file this import wrote.
 */
export async function importFrom(
  backend: HmsMemoryBackend,
  source: string,
  options: ImportOptions,
  out: Output,
): Promise<void> {
  const { planned, refusals, skipped } = source.endsWith(".jsonl")
    ? { ...(await planJsonl(source)), skipped: [] }
    : await planDirectory(source, backend.maxFileBytes);
  const existing = await existingVersions(backend);
  const writes: Planned[] = [];
  for (const item of planned) {
    if (existing.has(item.key) && !options.overwrite) {
      refusals.push({ source: item.key, reason: "exists in the store (--overwrite replaces it)" });
    } else {
      writes.push(item);
    }
  }
  const blocked = refusals.length > 0 && !options.skipRefused;
  const summary = {
    from: source,
    imported: options.dryRun || blocked ? 0 : writes.length,
    would_import: writes.map((item) => item.key),
    refused: refusals,
    skipped,
    dry_run: options.dryRun,
  };
  const notes = skipped.map((note) => `skipped ${note.source}: ${note.reason}`);
  if (blocked || options.dryRun) {
    out.result(summary, () =>
      [...notes, describePlan(writes, refusals, options, blocked)].join("\n"),
    );
    if (blocked) process.exitCode = EXIT.failed;
    return;
  }
  await writeAll(backend, writes, existing, out);
  out.result(summary, () => {
    const left = refusals.length > 0 ? `; skipped ${refusals.length} refused` : "";
    return [
      ...notes,
      `imported ${writes.length} memor${writes.length === 1 ? "y" : "ies"} from ${source}${left}`,
    ].join("\n");
  });
}

function describePlan(
  writes: Planned[],
  refusals: Refusal[],
  options: ImportOptions,
  blocked: boolean,
): string {
  const lines = refusals.map((refusal) => `refused ${refusal.source}: ${refusal.reason}`);
  if (options.dryRun) lines.push(...writes.map((item) => `would import ${item.key}`));
  if (blocked) {
    lines.push(
      `nothing imported: ${refusals.length} refused (fix them, or pass --skip-refused to import the other ${writes.length})`,
    );
  } else {
    lines.push(`dry run: ${writes.length} would be imported, nothing written`);
  }
  return lines.join("\n");
}

/**
 * The memory files of a filesystem memory directory. Hidden files and folders (`.DS_Store`,
 * `.git`) are skipped with a note: the memory tool never shows or writes them.
 */
async function planDirectory(
  source: string,
  maxBytes: number,
): Promise<{ planned: Planned[]; refusals: Refusal[]; skipped: Refusal[] }> {
  const root = await memoriesFolder(source);
  const planned: Planned[] = [];
  const refusals: Refusal[] = [];
  const skipped: Refusal[] = [];
  const walk = async (directory: string, names: string[]) => {
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const file = join(directory, entry.name);
      const key = [MEMORY_ROOT, ...names, entry.name].join("/");
      if (entry.name.startsWith(".")) {
        skipped.push({ source: entry.isDirectory() ? `${file}/` : file, reason: HIDDEN });
      } else if (entry.isSymbolicLink()) {
        refusals.push({ source: file, reason: "a symbolic link (not followed)" });
      } else if (entry.isDirectory()) {
        await walk(file, [...names, entry.name]);
      } else if (!entry.isFile()) {
        refusals.push({ source: file, reason: "not a regular file" });
      } else {
        const refusal = await checkFile(file, key, maxBytes);
        if (typeof refusal === "string") refusals.push({ source: file, reason: refusal });
        else planned.push(refusal);
      }
    }
  };
  await walk(root, []);
  return { planned, refusals, skipped };
}

/** The folder that holds the memory files: `DIR/memories`, or DIR itself if named so. */
async function memoriesFolder(source: string): Promise<string> {
  const isDirectory = async (path: string) => {
    try {
      return (await stat(path)).isDirectory();
    } catch {
      return false;
    }
  };
  if (await isDirectory(join(source, "memories"))) return join(source, "memories");
  if (basename(source) === "memories" && (await isDirectory(source))) return source;
  throw new CliError(
    `${source} is not a filesystem memory directory: it holds no memories/ folder and is not ` +
      "one (give the SDK tool's base path, or its memories/ folder, or a .jsonl export)",
    EXIT.usage,
  );
}

/** A file as a memory file to write, or why it cannot be one. */
async function checkFile(file: string, key: string, maxBytes: number): Promise<Planned | string> {
  const pathError = checkMemoryPath(key);
  if (pathError) return pathError.message;
  const bytes = await readFile(file);
  const tooLarge = sizeRefusal(bytes.length, maxBytes);
  if (tooLarge !== undefined) return tooLarge;
  // Byte for byte: a byte order mark, CRLF and a missing last newline are kept.
  const text = utf8Text(bytes);
  if (text === undefined) return "not UTF-8 text";
  return { key, text, tags: [MEMORY_FILE_TAG] };
}

/** The memories of an `hms export --to FILE.jsonl`. */
async function planJsonl(source: string): Promise<{ planned: Planned[]; refusals: Refusal[] }> {
  let content: string;
  try {
    content = await readFile(source, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${source}: ${(error as Error).message}`, EXIT.usage);
  }
  const lines = content.split("\n").filter((line) => line.trim() !== "");
  const header = parseLine(lines[0] ?? "", source, 1) as { format?: unknown };
  if (header.format !== "hms-export") {
    throw new CliError(
      `${source} is not an hms export: its first line has no "format": "hms-export"`,
      EXIT.usage,
    );
  }
  const planned: Planned[] = [];
  const refusals: Refusal[] = [];
  lines.slice(1).forEach((line, index) => {
    const where = `${source}:${index + 2}`;
    const record = TOOLS.get.output.safeParse(parseLine(line, source, index + 2));
    if (!record.success) {
      const issue = record.error.issues[0];
      refusals.push({
        source: where,
        reason: `${issue?.path.join(".") || "line"}: ${issue?.message}`,
      });
      return;
    }
    const { key, text, tags, metadata } = record.data;
    planned.push({ key, text, tags, metadata });
  });
  return { planned, refusals };
}

function parseLine(line: string, source: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new CliError(`${source}:${number} is not JSON`, EXIT.usage);
  }
}

/** The version of every key in the namespace. */
async function existingVersions(backend: HmsMemoryBackend): Promise<Map<string, number>> {
  const versions = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const page = await backend.call("list", {
      limit: MAX_PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const item of page.items) versions.set(item.key, item.version);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return versions;
}

/** What to put back if the import fails: a created key to delete, or a replaced memory. */
type Undo =
  | { key: string; version: number; previous: undefined }
  | { key: string; version: number; previous: Planned };

/** Writes every memory; on the first failure, undoes every write this import made. */
async function writeAll(
  backend: HmsMemoryBackend,
  writes: Planned[],
  existing: Map<string, number>,
  out: Output,
): Promise<void> {
  const undo: Undo[] = [];
  const progress = progressBar("import", out);
  progress.start(writes.length);
  // Stopped (Ctrl-C) between writes: the server it started stops too, so nothing can be
  // undone; running the import again would refuse every file already written.
  const stopped = onInterrupt(() => {
    if (undo.length === 0) return;
    progress.stop();
    process.stderr.write(
      "hms: the import stopped part way (the files it wrote stay): run it again with --skip-refused to import the rest\n",
    );
  });
  try {
    for (const item of writes) {
      const version = existing.get(item.key);
      const fields = {
        key: item.key,
        text: item.text,
        tags: item.tags,
        metadata: item.metadata ?? {},
      };
      if (version === undefined) {
        const written = await backend.call("remember", { ...fields, if_absent: true });
        undo.push({ key: item.key, version: written.version, previous: undefined });
      } else {
        const before = await backend.call("get", { key: item.key });
        const written = await backend.call("remember", { ...fields, expected_version: version });
        undo.push({
          key: item.key,
          version: written.version,
          previous: {
            key: before.key,
            text: before.text,
            tags: before.tags,
            metadata: before.metadata,
          },
        });
      }
      progress.increment();
    }
  } catch (error) {
    stopped();
    progress.stop();
    const failed = await rollBack(backend, undo);
    const why = error instanceof Error ? error.message : String(error);
    const left = failed.length === 0 ? "" : `; could not undo ${failed.join(", ")}`;
    throw new CliError(
      `import failed (${why}); undid the ${undo.length} writes it had made${left}`,
    );
  }
  stopped();
  progress.stop();
}

async function rollBack(backend: HmsMemoryBackend, undo: Undo[]): Promise<string[]> {
  const failed: string[] = [];
  for (const step of undo.reverse()) {
    try {
      if (step.previous === undefined) {
        await backend.call("forget", { key: step.key, expected_version: step.version });
      } else {
        const { text, tags, metadata } = step.previous;
        await backend.call("remember", {
          key: step.key,
          text,
          tags,
          metadata: metadata ?? {},
          expected_version: step.version,
        });
      }
    } catch {
      failed.push(step.key);
    }
  }
  return failed;
}
