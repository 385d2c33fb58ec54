// `hms watch` against a real hms-mcp: another `hms` process's writes are printed as they
// happen, one line each (or JSON lines), and Ctrl-C ends it cleanly, its server with it.
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { runHms, startHms, tempDir } from "@hms/test-support";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const { dir, remove } = tempDir("hms-cli-");
  cleanups.push(remove);
  return dir;
}

/** Resolves once `stream` has carried text that `matches` accepts (all of it so far). */
function untilSeen(stream: NodeJS.ReadableStream, matches: (text: string) => boolean) {
  let text = "";
  return new Promise<string>((resolve) => {
    const listener = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (matches(text)) {
        stream.off("data", listener);
        resolve(text);
      }
    };
    stream.on("data", listener);
  });
}

/** Starts `hms ...args watch ...` and resolves once it listens. */
async function startWatch(args: string[]) {
  const started = startHms(args);
  cleanups.push(() => started.child.kill("SIGKILL"));
  await untilSeen(started.child.stderr as NodeJS.ReadableStream, (text) =>
    text.includes("(Ctrl-C to stop)"),
  );
  return started;
}

/** The processes (other than this one) whose command line mentions `marker`. */
function processesMentioning(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function write(data: string, path: string, text: string): Promise<void> {
  expect((await runHms(["--data-dir", data, "write", path], {}, { input: text })).code).toBe(0);
}

function interrupt(child: ChildProcess) {
  child.kill("SIGINT");
}

describe("hms watch", () => {
  it("prints each change under a directory as it happens, and ends on Ctrl-C", async () => {
    const data = dataDir();
    const { child, done } = await startWatch(["--data-dir", data, "watch", "notes"]);
    const seen = untilSeen(child.stdout as NodeJS.ReadableStream, (text) =>
      text.includes("delete "),
    );
    await write(data, "notes/a.md", "one\n");
    await write(data, "elsewhere.md", "not under notes\n");
    expect((await runHms(["--data-dir", data, "mv", "notes/a.md", "notes/b.md"])).code).toBe(0);
    expect((await runHms(["--data-dir", data, "rm", "notes/b.md"])).code).toBe(0);
    await seen;
    interrupt(child);
    const run = await done;
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    // Changes to one file in quick succession may be told as one; each is told after it.
    expect(lines.at(-1)).toBe("delete /memories/notes/b.md");
    expect(lines).toContain("move /memories/notes/a.md -> /memories/notes/b.md");
    expect(lines.every((line) => line.includes("/memories/notes/"))).toBe(true);
    expect(run.stderr).toBe("hms: watching /memories/notes (Ctrl-C to stop)\n");
    // Its hms-mcp went with it.
    for (let i = 0; i < 100 && processesMentioning(data).length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(processesMentioning(data)).toEqual([]);
  });

  it("ends, its server with it, once nobody reads what it prints (`hms watch | head -1`)", async () => {
    const data = dataDir();
    await write(data, "/memories/notes/a.md", "first\n");
    const { child, done } = await startWatch(["--data-dir", data, "watch", "/memories/notes"]);
    child.stdout?.destroy();
    // The next change is printed to a pipe nobody reads: the watch ends as on Ctrl-C.
    await write(data, "/memories/notes/a.md", "second\n");
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("hms: watching /memories/notes (Ctrl-C to stop)\n");
    for (let i = 0; i < 100 && processesMentioning(data).length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(processesMentioning(data)).toEqual([]);
  });

  it("--json prints one JSON object a line", async () => {
    const data = dataDir();
    const { child, done } = await startWatch(["--data-dir", data, "--json", "watch"]);
    const seen = untilSeen(child.stdout as NodeJS.ReadableStream, (text) => text.includes("\n"));
    await write(data, "plan.md", "ship\n");
    await seen;
    interrupt(child);
    const run = await done;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split("\n")[0] as string)).toEqual({
      op: "create",
      path: "/memories/plan.md",
      from_path: null,
    });
  });

  it("refuses a path outside /memories", async () => {
    const run = await runHms(["--data-dir", dataDir(), "watch", "/etc"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^hms: "\/etc" is not a memory path: Invalid memory path \/etc/);
  });
});
