import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { CliError } from "../errors.js";
import { getMemory, pathKind } from "../memories.js";
import type { Output } from "../output.js";

/** `hms cat path`: the file's text as stored, or with `-n` numbered as Claude's view shows it. */
export async function cat(
  backend: HmsMemoryBackend,
  path: string,
  options: { lineNumbers: boolean },
  out: Output,
): Promise<void> {
  const record = await getMemory(backend, path);
  if (record === undefined) {
    if ((await pathKind(backend, path)) === "directory") {
      throw new CliError(`${path} is a directory: \`hms ls ${path}\` lists what is in it`);
    }
    throw new CliError(`${path} does not exist (\`hms ls\` lists the files)`);
  }
  if (out.json) {
    out.result(record, () => "");
    return;
  }
  if (!options.lineNumbers) {
    out.print(record.text);
    return;
  }
  const numbered = viewLines(record.text).map(
    (line) => `${out.colors.dim(line.slice(0, LINE_NUMBER_WIDTH))}${line.slice(LINE_NUMBER_WIDTH)}`,
  );
  out.result(record, () => numbered.join("\n"));
}

/** Width of the line-number column of the memory tool's `view` (memory-core's format.ts). */
const LINE_NUMBER_WIDTH = 6;

/**
 * `text`'s lines numbered as the memory tool's `view` numbers them (memory-core's
 * `splitLines` and `numberedLine`, which hms-cli may not import; a test holds the two
 * equal): lines end at LF only (a CR stays in its line); a final LF ends the last line and
 * starts no empty one; each line is its number right-aligned in 6 columns, a tab, the line.
 */
export function viewLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line, index) => `${String(index + 1).padStart(LINE_NUMBER_WIDTH)}\t${line}`);
}
