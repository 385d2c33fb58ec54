import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_FILE_TAG } from "@hms/protocol";
import { type Bounded, readFileAtMost, readStreamAtMost } from "../bounded-read.js";
import { CliError, EXIT } from "../errors.js";
import { boundedRefusal, getMemory, pathKind, sizeRefusal, utf8Text } from "../memories.js";
import { humanBytes, type Output } from "../output.js";

/** What `hms write` and `hms edit` report of a save. */
export interface Saved {
  key: string;
  version: number;
  bytes: number;
  created: boolean;
}

/**
 * `hms write path [--file FILE]`: creates the file, or replaces its text, with the bytes of
 * FILE or of stdin, exactly (CRLF, a missing last newline and all). A replaced file keeps its
 * tags and metadata, and is written with compare-and-set on the version just read.
 */
export async function write(
  backend: HmsMemoryBackend,
  path: string,
  options: { file?: string },
  out: Output,
): Promise<void> {
  const text = await readText(options.file, backend.maxFileBytes, out);
  await refuseDirectory(backend, path);
  const saved = await save(backend, path, text, await getMemory(backend, path));
  out.result(saved, () => describeSave(saved));
}

/**
 * The text to write: FILE's bytes, or stdin's, as UTF-8. Reading stops once the input passes
 * the server's limit (`yes | hms write x` ends at once, refused), and nothing is written.
 */
async function readText(file: string | undefined, max: number, out: Output): Promise<string> {
  let read: Bounded;
  if (file !== undefined) {
    try {
      read = await readFileAtMost(file, max);
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
    }
  } else {
    if (out.io.stdin.isTTY) {
      throw new CliError(
        "hms write reads the text from stdin (hms write PATH < FILE) or --file FILE; to type it, use hms edit PATH",
        EXIT.usage,
      );
    }
    read = await readStreamAtMost(out.io.stdin as AsyncIterable<Buffer>, max);
  }
  if (read.over) {
    throw new CliError(`${file ?? "stdin"} holds ${boundedRefusal(read, max)}; nothing written`);
  }
  const text = utf8Text(read.bytes);
  if (text === undefined) {
    throw new CliError(`${file ?? "stdin"} is not UTF-8 text; nothing written`);
  }
  return text;
}

/** Refuses a path that is a directory (some file lies under it): a file cannot replace it. */
export async function refuseDirectory(backend: HmsMemoryBackend, path: string): Promise<void> {
  if ((await pathKind(backend, path)) === "directory") {
    throw new CliError(`${path} is a directory: name a file in it, such as ${path}/notes.md`);
  }
}

/**
 * Writes `text` at `path`: over `opened` (the version read before, with compare-and-set:
 * VERSION_CONFLICT if it changed since), or as a new file (EXISTS if one appeared since).
 */
export async function save(
  backend: HmsMemoryBackend,
  path: string,
  text: string,
  opened: { version: number; tags: string[]; metadata: Record<string, unknown> } | undefined,
): Promise<Saved> {
  const bytes = Buffer.byteLength(text, "utf8");
  const tooLarge = sizeRefusal(bytes, backend.maxFileBytes);
  if (tooLarge !== undefined) throw new CliError(`${path} not written: ${tooLarge}`);
  const written = await backend.call(
    "remember",
    opened === undefined
      ? { key: path, text, tags: [MEMORY_FILE_TAG], if_absent: true }
      : {
          key: path,
          text,
          tags: opened.tags,
          metadata: opened.metadata,
          expected_version: opened.version,
        },
  );
  return { key: path, version: written.version, bytes, created: opened === undefined };
}

export function describeSave(saved: Saved): string {
  return `${saved.created ? "created" : "wrote"} ${saved.key} (version ${saved.version}, ${humanBytes(saved.bytes)})`;
}
