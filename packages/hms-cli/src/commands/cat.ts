import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import type { Output } from "../output.js";

/** `hms cat path`: the file's text as stored, or with `-n` numbered as Claude's view shows it. */
export async function cat(
  backend: HmsMemoryBackend,
  path: string,
  options: { lineNumbers: boolean },
  out: Output,
): Promise<void> {
  const record = await backend.call("get", { key: path });
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
