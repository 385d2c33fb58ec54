import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { describe, expect, it } from "vitest";
import { generateTrace } from "./trace";

describe("generateTrace", () => {
  it("is the same trace for the same seed and a different one for another seed", () => {
    const a = generateTrace({ seed: 7, length: 300 });
    expect(generateTrace({ seed: 7, length: 300 })).toEqual(a);
    expect(generateTrace({ seed: 8, length: 300 })).not.toEqual(a);
    expect(a).toHaveLength(300);
  });

  it("has every kind of command in a realistic mix", () => {
    const trace = generateTrace({ seed: 1, length: 2000 });
    const counts = new Map<string, number>();
    for (const step of trace) counts.set(step.kind, (counts.get(step.kind) ?? 0) + 1);
    for (const kind of ["view_dir", "view_file", "create", "str_replace", "insert", "rename"]) {
      expect(counts.get(kind), kind).toBeGreaterThan(50);
    }
    expect(counts.get("delete")).toBeGreaterThan(50);
    // Views dominate, as they do for an agent reading its memory before writing.
    const views = (counts.get("view_dir") ?? 0) + (counts.get("view_file") ?? 0);
    expect(views / trace.length).toBeGreaterThan(0.4);
  });

  it("is a valid run for the SDK's filesystem memory tool: no command fails", async () => {
    const dir = await mkdtemp(join(tmpdir(), "trace-"));
    try {
      const tool = await BetaLocalFilesystemMemoryTool.init(dir);
      for (const [i, { command }] of generateTrace({ seed: 1, length: 2000 }).entries()) {
        // biome-ignore lint/suspicious/noExplicitAny: the dispatch is by the command's own name
        const run = (tool as any)[command.command].bind(tool) as (c: unknown) => Promise<string>;
        await expect(run(command), `step ${i}: ${JSON.stringify(command)}`).resolves.toEqual(
          expect.any(String),
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // 2,000 fsync'd writes: seconds alone, longer beside other suites (over 120 s once, while
    // every package's tests ran at load 35). The limit only stops a hung test.
  }, 600_000);
});
