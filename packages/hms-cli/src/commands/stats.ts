import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { humanBytes, type Output } from "../output.js";

/** `hms stats`: the namespace's size, limits, recall build and server. */
export async function stats(backend: HmsMemoryBackend, out: Output): Promise<void> {
  const stats = await backend.stats();
  out.result(stats, () => {
    const rows: [string, string][] = [
      ["namespace", stats.namespace],
      ["memories", String(stats.memories)],
      ["bytes", `${stats.bytes} (${humanBytes(stats.bytes)})`],
      ["max file size", humanBytes(stats.max_text_bytes)],
      [
        "recall",
        stats.recall.model ? `${stats.recall.build} (${stats.recall.model})` : stats.recall.build,
      ],
      ["waiting to be embedded", String(stats.recall.pending)],
      ["schema version", String(stats.schema_version)],
      ["server", `${stats.server.name} ${stats.server.version}`],
    ];
    const { replacing, pending, embedded } = stats.recall;
    if (replacing) {
      const done = embedded ?? stats.memories - pending;
      rows.push([
        "re-embedding",
        `${done} of ${done + pending} done, replacing ${replacing}'s vectors`,
      ]);
    }
    if (stats.recall.failure) rows.push(["recall failure", stats.recall.failure]);
    const width = Math.max(...rows.map(([name]) => name.length));
    return rows
      .map(([name, value]) => `${out.colors.bold(name.padEnd(width))}  ${value}`)
      .join("\n");
  });
}
