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
    process.stdout.write(record.text);
    return;
  }
  const lines = record.text.split("\n");
  const width = String(lines.length).length;
  const numbered = lines.map(
    (line, index) => `${out.colors.dim(String(index + 1).padStart(width))}  ${line}`,
  );
  out.result(record, () => numbered.join("\n"));
}
