import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError, EXIT } from "../errors.js";
import { humanBytes, type Output } from "../output.js";
import { progressBar } from "../progress.js";

const DAY_MS = 86_400_000;

/** `90d` or `12w` as milliseconds. */
export function parseAge(value: string): number {
  const match = /^(\d{1,5})([dw])$/.exec(value.trim());
  if (!match) {
    throw new CliError(
      `--unused-for takes a number of days or weeks such as 90d or 12w, not ${JSON.stringify(value)}`,
      EXIT.usage,
    );
  }
  const n = Number(match[1]);
  return n * (match[2] === "w" ? 7 : 1) * DAY_MS;
}

/**
 * `hms prune --unused-for 90d`: the memory files nobody has read or written for that long.
 * Without `--yes` it only lists them (a dry run); with it, deletes each one unless it changed
 * since it was listed (compare-and-set), and reports what it kept.
 */
export async function prune(
  backend: HmsMemoryBackend,
  options: { unusedFor: string; under?: string; yes: boolean },
  out: Output,
): Promise<void> {
  const before = new Date(Date.now() - parseAge(options.unusedFor)).toISOString();
  const prefix =
    options.under === undefined || options.under === MEMORY_ROOT
      ? `${MEMORY_ROOT}/`
      : `${options.under}/`;
  const { files } = await backend.call("unused", { before, prefix, limit: 1000 });
  if (!options.yes) {
    out.result({ before, dry_run: true, files }, () => {
      if (files.length === 0) return `no memory file has gone unused since ${before}`;
      const rows = files.map((file) => [
        file.last_used.slice(0, 10),
        humanBytes(file.bytes),
        file.key,
      ]);
      return `${out.table(["LAST USED", "SIZE", "PATH"], rows)}\n${files.length} file${files.length === 1 ? "" : "s"} unused since ${before}; pass --yes to delete them`;
    });
    return;
  }
  const deleted: string[] = [];
  const kept: string[] = [];
  const progress = progressBar("prune", out);
  progress.start(files.length);
  try {
    for (const file of files) {
      try {
        await backend.call("forget", { key: file.key, expected_version: file.version });
        deleted.push(file.key);
      } catch {
        // Changed or deleted since it was listed: someone used it after all.
        kept.push(file.key);
      }
      progress.increment();
    }
  } finally {
    progress.stop();
  }
  out.result({ before, dry_run: false, deleted, kept }, () => {
    const lines = deleted.map((key) => `deleted ${key}`);
    if (kept.length > 0)
      lines.push(...kept.map((key) => `kept ${key} (changed since it was listed)`));
    lines.push(
      `deleted ${deleted.length} file${deleted.length === 1 ? "" : "s"} unused since ${before}`,
    );
    return lines.join("\n");
  });
}
