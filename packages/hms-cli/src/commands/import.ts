import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { checkMemoryPath, MEMORY_ROOT } from "@hms/memory-paths";
import { MAX_ANSWER_BYTES, MAX_PAGE, MEMORY_FILE_TAG, TOOLS } from "@hms/protocol";
import { readFileAtMost } from "../bounded-read.js";
import { escapedBytes } from "../bytes.js";
import { CliError, EXIT } from "../errors.js";
import { onInterrupt } from "../interrupt.js";
import { boundedLines } from "../lines.js";
import { boundedRefusal, sizeRefusal, utf8Text } from "../memories.js";
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

/** Why a file or folder whose name is not UTF-8 is refused. */
const NOT_UTF8_NAME =
  "its name is not UTF-8 (shown with \\x for each byte that is not): memory paths are UTF-8 text; rename it";

const DOT = 0x2e;

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
    ? { ...(await planJsonl(source, backend.maxFileBytes)), skipped: [] }
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
    if (blocked) out.exitCode = EXIT.failed;
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
    // Names as bytes: a name that is not UTF-8 would come back from a string readdir as
    // U+FFFD, a name that cannot be opened (and two such names as one).
    const entries = await readdir(directory, { withFileTypes: true, encoding: "buffer" });
    entries.sort((a, b) => Buffer.compare(a.name, b.name));
    for (const entry of entries) {
      const name = utf8Text(entry.name);
      const shown = join(directory, escapedBytes(entry.name)) + (entry.isDirectory() ? "/" : "");
      if (entry.name[0] === DOT) {
        skipped.push({ source: shown, reason: HIDDEN });
        continue;
      }
      if (name === undefined) {
        refusals.push({ source: shown, reason: NOT_UTF8_NAME });
        continue;
      }
      const file = join(directory, name);
      const key = [MEMORY_ROOT, ...names, name].join("/");
      if (entry.isSymbolicLink()) {
        refusals.push({ source: file, reason: "a symbolic link (not followed)" });
      } else if (entry.isDirectory()) {
        await walk(file, [...names, name]);
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
  // A huge file is refused by its size, unread.
  const read = await readFileAtMost(file, maxBytes);
  if (read.over) return boundedRefusal(read, maxBytes);
  // Byte for byte: a byte order mark, CRLF and a missing last newline are kept.
  const text = utf8Text(read.bytes);
  if (text === undefined) return "not UTF-8 text";
  return { key, text, tags: [MEMORY_FILE_TAG] };
}

/**
 * The memories of an `hms export --to FILE.jsonl`, read line by line: a line longer than any
 * export line can be (hms-mcp's largest answer) is refused unread, and a memory over the
 * server's size limit is refused by its size.
 */
async function planJsonl(
  source: string,
  maxBytes: number,
): Promise<{ planned: Planned[]; refusals: Refusal[] }> {
  const planned: Planned[] = [];
  const refusals: Refusal[] = [];
  let header = false;
  try {
    for await (const line of boundedLines(source, MAX_ANSWER_BYTES)) {
      const where = `${source}:${line.number}`;
      if (line.tooLong) {
        if (!header) throw new CliError(notAnExport(source), EXIT.usage);
        refusals.push({ source: where, reason: TOO_LONG_LINE });
        continue;
      }
      const text = utf8Text(line.bytes);
      if (text === undefined) {
        if (!header) throw new CliError(notAnExport(source), EXIT.usage);
        refusals.push({ source: where, reason: "not UTF-8 text" });
        continue;
      }
      if (text.trim() === "") continue;
      if (!header) {
        if (
          (parseLine(text, source, line.number) as { format?: unknown }).format !== "hms-export"
        ) {
          throw new CliError(notAnExport(source), EXIT.usage);
        }
        header = true;
        continue;
      }
      const record = TOOLS.get.output.safeParse(parseLine(text, source, line.number));
      if (!record.success) {
        const issue = record.error.issues[0];
        refusals.push({
          source: where,
          reason: `${issue?.path.join(".") || "line"}: ${issue?.message}`,
        });
        continue;
      }
      const { key, text: memory, tags, metadata } = record.data;
      const tooLarge = sizeRefusal(Buffer.byteLength(memory, "utf8"), maxBytes);
      if (tooLarge !== undefined) refusals.push({ source: where, reason: `${key}: ${tooLarge}` });
      else planned.push({ key, text: memory, tags, metadata });
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${source}: ${(error as Error).message}`, EXIT.usage);
  }
  if (!header) throw new CliError(notAnExport(source), EXIT.usage);
  return { planned, refusals };
}

const TOO_LONG_LINE = `a line of more than ${MAX_ANSWER_BYTES} bytes, longer than any memory of an hms export`;

function notAnExport(source: string): string {
  return `${source} is not an hms export: its first line has no "format": "hms-export"`;
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
    out.note(
      "the import stopped part way (the files it wrote stay): run it again with --skip-refused to import the rest",
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
