import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  backdateWrites,
  freePort,
  startHttpServer,
  tempDir,
  writeMemoryFolder,
} from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { hms, type SharedServer, startSharedServer } from "../run-here.js";

// `hms` run as a function (run-here.ts) against a real hms-mcp: the one this file shares over
// HTTP, each test in a namespace of its own, or one `hms` starts on a temporary data directory
// where that is what is tested. edges.test.ts runs the program as a process.
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let server: SharedServer;
beforeAll(async () => {
  server = await startSharedServer();
});
afterAll(() => server.stop());

/** `--url URL --namespace NAME` of a namespace of its own on the shared server. */
const store = () => server.namespace().args;

function dataDir(): string {
  const { dir, remove } = tempDir("hms-cli-");
  cleanups.push(remove);
  return dir;
}

/** Every memory file of the store in `data`, as `hms --json ls -R` lists it. */
async function everyFile(at: string[]): Promise<{ path: string }[]> {
  const run = await hms([...at, "--json", "ls", "-R"]);
  // A namespace nothing was ever written to holds no file.
  return run.code === 0 ? JSON.parse(run.stdout) : [];
}

/** An SDK filesystem memory directory (base path holding memories/) with `files`. */
function filesystemMemory(files: Record<string, string>): string {
  return writeMemoryFolder(dataDir(), files);
}

describe("hms on a store", () => {
  it("imports an SDK memory directory, then lists, prints and recalls", async () => {
    const at = store();
    const source = filesystemMemory({
      "customers/acme.md": "# Acme Corp\nPrefers email follow-ups.\nContact: Dana\n",
      "todo.md": "- ship the CLI\n",
    });

    const imported = await hms([...at, "import", "--from", source]);
    expect(imported).toMatchObject({ code: 0, stderr: "" });
    expect(imported.stdout).toContain("imported 2 memories");

    const root = await hms([...at, "ls"]);
    expect(root.code).toBe(0);
    expect(root.stdout).toMatch(/\/memories\/customers\/\n/);
    expect(root.stdout).toMatch(/\/memories\/todo\.md\n/);

    const recursive = await hms([...at, "--json", "ls", "-R"]);
    expect(JSON.parse(recursive.stdout).map((entry: { path: string }) => entry.path)).toEqual([
      "/memories/customers/acme.md",
      "/memories/todo.md",
    ]);

    const cat = await hms([...at, "cat", "customers/acme.md"]);
    expect(cat.stdout).toBe("# Acme Corp\nPrefers email follow-ups.\nContact: Dana\n");
    const numbered = await hms([...at, "cat", "-n", "/memories/customers/acme.md"]);
    // As Claude's view numbers them: 6 columns, a tab, and no line after the last newline.
    expect(numbered.stdout).toBe(
      "     1\t# Acme Corp\n     2\tPrefers email follow-ups.\n     3\tContact: Dana\n",
    );

    const recall = await hms([...at, "--json", "recall", "email follow-ups for Acme"]);
    const [hit] = JSON.parse(recall.stdout);
    expect(hit).toMatchObject({ key: "/memories/customers/acme.md", line_start: 1 });
    expect(hit.line_end).toBeGreaterThanOrEqual(2);
  });

  it("recalls by time: --since and --before take durations and ISO times", async () => {
    const at = store();
    const files = { "plans/launch.md": "# Launch\nShip on Friday.\n" };
    await hms([...at, "import", "--from", filesystemMemory(files)]);
    const keys = async (...args: string[]) => {
      const run = await hms([...at, "--json", "recall", "launch", ...args]);
      expect(run, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
      return JSON.parse(run.stdout).map((hit: { key: string }) => hit.key);
    };
    // Imported just now: changed within the last day, not before it.
    expect(await keys("--since", "1d")).toEqual(["/memories/plans/launch.md"]);
    expect(await keys("--before", "1d")).toEqual([]);
    expect(await keys("--since", "2w", "--before", "1w")).toEqual([]);
    const [hit] = JSON.parse(
      (await hms([...at, "--json", "recall", "launch", "--since", "2000-01-01T00:00:00+02:00"]))
        .stdout,
    );
    expect(hit.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const text = await hms([...at, "recall", "launch", "--since", hit.updated_at]);
    expect(text.stdout).toContain(`modified ${hit.updated_at}\n    # Launch`);
    const none = await hms([...at, "recall", "launch", "--before", "12h"]);
    expect(none.stdout).toBe("no memory changed in that time matches\n");

    for (const [args, why] of [
      [["--since", "yesterday"], "it is neither a duration nor a time"],
      [["--before", "2026-07-01"], "it has no timezone"],
    ] as const) {
      const run = await hms([...at, "recall", "launch", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toContain(why);
    }
    // A range that ends before it starts is refused on the command line, in its flags' words.
    const backwards = await hms([...at, "recall", "launch", "--since", "1d", "--before", "2d"]);
    expect(backwards).toMatchObject({ code: 2, stdout: "" });
    expect(backwards.stderr).toMatch(
      /^hms: --since \S+ is after --before \S+, so no file could match: give an earlier --since or a later --before\n$/,
    );
  });

  it("moves and deletes files and directories, and counts what is left", async () => {
    const at = store();
    const files = { "customers/acme.md": "# Acme Corp\n", "todo.md": "- ship the CLI\n" };
    await hms([...at, "import", "--from", filesystemMemory(files)]);

    expect((await hms([...at, "mv", "customers", "clients"])).stdout).toContain("(1 file)");
    expect((await hms([...at, "cat", "clients/acme.md"])).code).toBe(0);

    const refusedRm = await hms([...at, "rm", "clients"]);
    expect(refusedRm.code).toBe(1);
    expect(refusedRm.stderr).toBe(
      "hms: /memories/clients is a directory: use rm -r to delete it and what is under it\n",
    );
    expect((await hms([...at, "rm", "-r", "clients"])).code).toBe(0);
    const after = await hms([...at, "--json", "ls", "-R"]);
    expect(JSON.parse(after.stdout)).toHaveLength(1);

    const stats = await hms([...at, "--json", "stats"]);
    expect(JSON.parse(stats.stdout)).toMatchObject({ memories: 1, namespace: at.at(-1) });
  });

  it("keeps namespaces apart", async () => {
    const data = dataDir();
    const source = filesystemMemory({ "a.md": "alpha\n" });
    await hms(["--data-dir", data, "--namespace", "alice", "import", "--from", source]);
    // Bob's namespace exists (an import of nothing made it) and is empty; carol's does not.
    const nothing = dataDir();
    mkdirSync(join(nothing, "memories"));
    await hms(["--data-dir", data, "--namespace", "bob", "import", "--from", nothing]);
    const alice = await hms(["--data-dir", data, "--namespace", "alice", "--json", "ls", "-R"]);
    const bob = await hms(["--data-dir", data, "--namespace", "bob", "--json", "ls", "-R"]);
    expect(JSON.parse(alice.stdout)).toHaveLength(1);
    expect(JSON.parse(bob.stdout)).toEqual([]);
    const carol = await hms(["--data-dir", data, "--namespace", "carol", "ls"]);
    expect(carol.code).toBe(1);
    expect(carol.stderr).toContain("no store at");
  });

  it("exports to the SDK layout and back, and to JSON Lines with every field", async () => {
    const at = store();
    const files = { "notes/one.md": "first\n", "two.md": "second\n" };
    await hms([...at, "import", "--from", filesystemMemory(files)]);

    const out = dataDir();
    const exported = await hms([...at, "export", "--to", out]);
    expect(exported.stdout).toContain("exported 2 memory files");
    expect(readFileSync(join(out, "memories", "notes", "one.md"), "utf8")).toBe("first\n");
    expect(readFileSync(join(out, "memories", "two.md"), "utf8")).toBe("second\n");
    // An export never replaces a file unless told to.
    const again = await hms([...at, "export", "--to", out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists; pass --force to overwrite it");

    const jsonl = join(dataDir(), "all.jsonl");
    expect((await hms([...at, "export", "--to", jsonl])).code).toBe(0);
    const [header, ...records] = readFileSync(jsonl, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ format: "hms-export", format_version: 1, memories: 2 });
    expect(records.map((record) => [record.key, record.tags, record.text])).toEqual([
      ["/memories/notes/one.md", ["memory-file"], "first\n"],
      ["/memories/two.md", ["memory-file"], "second\n"],
    ]);
    for (const record of records) {
      expect(record).toMatchObject({
        version: expect.any(Number),
        hash: expect.stringMatching(/^sha256:/),
      });
    }

    // The JSON Lines file restores the namespace elsewhere; its memories-folder export too.
    const copy = store();
    expect((await hms([...copy, "import", "--from", jsonl])).code).toBe(0);
    const copied = await hms([...copy, "cat", "notes/one.md"]);
    expect(copied.stdout).toBe("first\n");
    const fromFolder = store();
    await hms([...fromFolder, "import", "--from", join(out, "memories")]);
    expect((await hms([...fromFolder, "cat", "two.md"])).stdout).toBe("second\n");
  });
});

describe("hms import refuses what is unsafe and imports nothing by halves", () => {
  it("lists every refusal and writes nothing, unless told to skip them", async () => {
    const at = store();
    const source = filesystemMemory({
      "good.md": "fine\n",
      ".hidden.md": "hidden\n",
      "big.md": "x".repeat(40 * 1024),
    });
    writeFileSync(join(source, "memories", "binary.md"), Buffer.from([0xff, 0xfe, 0x00]));
    symlinkSync("/etc/passwd", join(source, "memories", "link.md"));

    const refused = await hms([...at, "--json", "import", "--from", source]);
    expect(refused.code).toBe(1);
    const summary = JSON.parse(refused.stdout);
    expect(summary.imported).toBe(0);
    const reasons = Object.fromEntries(
      summary.refused.map((refusal: { source: string; reason: string }) => [
        refusal.source.split("/").pop(),
        refusal.reason,
      ]),
    );
    expect(reasons[".hidden.md"]).toBeUndefined(); // skipped with a note, not refused
    expect(summary.skipped.map((note: { source: string }) => note.source.split("/").pop())).toEqual(
      [".hidden.md"],
    );
    expect(reasons["big.md"]).toMatch(/40960 bytes, over the server's limit of \d+ bytes/);
    expect(reasons["binary.md"]).toBe("not UTF-8 text");
    expect(reasons["link.md"]).toBe("a symbolic link (not followed)");
    expect(await everyFile(at)).toEqual([]);

    const dryRun = await hms([...at, "import", "--from", source, "--skip-refused", "--dry-run"]);
    expect(dryRun.stdout).toContain("would import /memories/good.md");
    expect(await everyFile(at)).toEqual([]);

    const skipped = await hms([...at, "import", "--from", source, "--skip-refused"]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain("imported 1 memory");
  });

  it("refuses files that exist, and replaces them with --overwrite", async () => {
    const at = store();
    await hms([...at, "import", "--from", filesystemMemory({ "a.md": "old\n" })]);
    const source = filesystemMemory({ "a.md": "new\n" });
    const refused = await hms([...at, "import", "--from", source]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      "refused /memories/a.md: exists in the store (--overwrite replaces it)",
    );
    expect((await hms([...at, "cat", "a.md"])).stdout).toBe("old\n");
    expect((await hms([...at, "import", "--from", source, "--overwrite"])).code).toBe(0);
    expect((await hms([...at, "cat", "a.md"])).stdout).toBe("new\n");
  });

  it("undoes the files it wrote when a later write fails", async () => {
    const at = store();
    // The store holds a file "a"; the import brings 0.md (written first) and a/b.md, which
    // cannot exist under a file: the server refuses it, and 0.md must go again.
    await hms([...at, "import", "--from", filesystemMemory({ a: "a file\n" })]);
    const source = filesystemMemory({ "0.md": "zero\n", "a/b.md": "under a file\n" });
    const failed = await hms([...at, "import", "--from", source]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^hms: import failed \(.*PATH_CONFLICT.*\); undid the 1 writes it had made\n$/s,
    );
    const left = await everyFile(at);
    expect(left.map((entry: { path: string }) => entry.path)).toEqual(["/memories/a"]);
  });
});

describe("hms history, diff and restore", () => {
  it("shows a file's versions, what changed, and brings an old version back", async () => {
    const at = store();
    const source = filesystemMemory({ "plan.md": "step one\nstep two\n" });
    await hms([...at, "import", "--from", source]);
    writeFileSync(join(source, "memories", "plan.md"), "step one\nstep 2, changed\n");
    await hms([...at, "import", "--from", source, "--overwrite"]);

    const history = JSON.parse((await hms([...at, "--json", "history", "plan.md"])).stdout);
    expect(history.changes.map((change: { op: string }) => change.op)).toEqual([
      "update",
      "create",
    ]);
    const [latest, first] = history.changes;

    const diff = await hms([...at, "diff", "plan.md"]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("-step two\n+step 2, changed");
    const explicit = await hms([
      ...at,
      "--json",
      "diff",
      "plan.md",
      String(first.version),
      String(latest.version),
    ]);
    expect(JSON.parse(explicit.stdout)).toMatchObject({ added: 1, removed: 1 });

    const restored = await hms([...at, "restore", "plan.md", "--version", String(first.version)]);
    expect(restored.stdout).toMatch(/^restored \/memories\/plan\.md as version \d+\n$/);
    expect((await hms([...at, "cat", "plan.md"])).stdout).toBe("step one\nstep two\n");
    const after = JSON.parse((await hms([...at, "--json", "history", "plan.md"])).stdout);
    // Each change names the command that made it, hms's restore as hms's.
    expect(after.changes.map((change: { command: string }) => change.command)).toEqual([
      "hms_restore",
      "hms_import",
      "hms_import",
    ]);
  });

  it("says when the server's history dropped older changes, and why", async () => {
    // A server of its own: one that keeps 1 MiB of history.
    const small = await startHttpServer({ dataDir: dataDir(), args: ["--keep-mib", "1"] });
    cleanups.push(() => small.stop());
    const at = ["--url", small.url];
    // About 1.5 MB of files, imported and deleted: more history than the server keeps.
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`old/f${i}.md`] = `file ${i}\n${"some words ".repeat(2300)}\n`;
    expect((await hms([...at, "import", "--from", filesystemMemory(files)])).code).toBe(0);
    expect((await hms([...at, "rm", "-r", "old"])).code).toBe(0);
    const text = await hms([...at, "history", "old/f0.md"]);
    expect(text.stdout).toMatch(
      /^no changes recorded for \/memories\/old\/f0\.md\n\(older changes may be missing: \d+ dropped, made up to \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ, to keep the history within its size \(hms-mcp --keep-mib\)\)\n$/,
    );
    const json = JSON.parse((await hms([...at, "--json", "history", "old/f59.md"])).stdout);
    // The newest change, the last delete, is kept (the oldest went first).
    expect(json.changes[0]?.op).toBe("delete");
    expect(json.dropped).toEqual([
      {
        reason: "bytes",
        changes: expect.any(Number),
        through: expect.any(String),
        at: expect.any(String),
      },
    ]);
  });

  it("brings a directory back to a time, and lists its changes", async () => {
    const at = store();
    await hms([...at, "import", "--from", filesystemMemory({ "d/a.md": "kept\n" })]);
    const moment = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await hms([...at, "rm", "-r", "d"]);
    // The directory is gone; its history is still there, as is the root's.
    const changes = await hms([...at, "--json", "history", "d", "--since", moment]);
    expect(JSON.parse(changes.stdout).changes).toHaveLength(1);
    const root = JSON.parse((await hms([...at, "--json", "history", "--since", moment])).stdout);
    expect(root.changes.map((c: { op: string; key: string }) => `${c.op} ${c.key}`)).toEqual([
      "delete /memories/d/a.md",
    ]);
    const restored = await hms([...at, "restore", "/", "--at", moment]);
    expect(restored.stdout).toContain("restored /memories/d/a.md");
    expect((await hms([...at, "cat", "d/a.md"])).stdout).toBe("kept\n");
  });

  it("refuses a restore without --version or --at, and a directory by version", async () => {
    const at = store();
    await hms([...at, "import", "--from", filesystemMemory({ "d/a.md": "x\n" })]);
    const neither = await hms([...at, "restore", "d/a.md"]);
    expect(neither).toMatchObject({
      code: 2,
      stderr: "hms: give exactly one of --version N or --at TIME\n",
    });
    const byVersion = await hms([...at, "restore", "d", "--version", "1"]);
    expect(byVersion).toMatchObject({
      code: 2,
      stderr: "hms: /memories/d is a directory: restore it to a time with --at\n",
    });
  });
});

describe("hms prune", () => {
  it("lists files unused for a while, and deletes them only with --yes", async () => {
    // A store of hms's own starting: the read below is written to the store (for `unused`)
    // when the server that noted it stops, which a shared server would not do for 30 s.
    const data = dataDir();
    const at = ["--data-dir", data];
    const files = { "stale.md": "old\n", "read.md": "old but read\n", "fresh.md": "new\n" };
    await hms([...at, "import", "--from", filesystemMemory(files)]);
    backdateWrites(data, ["/memories/stale.md", "/memories/read.md"], "2025-01-01T00:00:00.000Z");
    expect((await hms([...at, "cat", "read.md"])).code).toBe(0); // a read counts as use

    const dryRun = await hms([...at, "prune", "--unused-for", "90d"]);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain("/memories/stale.md");
    expect(dryRun.stdout).not.toContain("/memories/read.md");
    expect(dryRun.stdout).toMatch(/1 file unused since .*; pass --yes to delete them/);
    // Still there (listing does not count as reading it).
    expect((await hms([...at, "ls", "stale.md"])).code).toBe(0);

    const pruned = await hms([...at, "--json", "prune", "--unused-for", "12w", "--yes"]);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ deleted: ["/memories/stale.md"], kept: [] });
    const left = JSON.parse((await hms([...at, "--json", "ls", "-R"])).stdout);
    expect(left.map((entry: { path: string }) => entry.path)).toEqual([
      "/memories/fresh.md",
      "/memories/read.md",
    ]);
  });

  it("refuses an age it cannot read", async () => {
    const run = await hms(["--data-dir", dataDir(), "prune", "--unused-for", "3 months"]);
    expect(run).toMatchObject({ code: 2 });
    expect(run.stderr).toContain("--unused-for takes a number of days or weeks such as 90d or 12w");
  });
});

describe("hms reembed", () => {
  it("gives every memory vectors of the model, and says so", async () => {
    const data = dataDir();
    const notes = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`n${i}.md`, `note ${i}: the weather on day ${i}\n`]),
    );
    await hms(["--data-dir", data, "import", "--from", filesystemMemory(notes)]);
    const run = await hms([
      "--data-dir",
      data,
      "--json",
      "reembed",
      "--model-dir",
      inject("modelDir"),
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      model: "all-MiniLM-L6-v2-int8",
      memories: 12,
      embedded: 12,
    });
  });

  it("refuses a server (it re-embeds when restarted) and a model directory that holds no model", async () => {
    const remote = await hms(["--url", "http://127.0.0.1:9/mcp", "reembed", "--model-dir", "/x"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("hms reembed works on a local data directory");
    const missing = await hms([
      "--data-dir",
      dataDir(),
      "reembed",
      "--model-dir",
      join(dataDir(), "none"),
    ]);
    expect(missing.code).toBe(3);
    // One line: what the server said when it would not start.
    expect(missing.stderr).toMatch(
      /^hms: could not start hms-mcp: --model-dir .* is not installed: .*\n$/,
    );
  });
});

describe("hms over HTTP", () => {
  it("uses a running server with the token from HMS_MCP_TOKEN, and says when it is wrong", async () => {
    const token = "t".repeat(40);
    const guarded = await startHttpServer({
      dataDir: dataDir(),
      args: ["--namespace-arg"],
      env: { HMS_MCP_TOKEN: token },
    });
    cleanups.push(() => guarded.stop());
    const source = filesystemMemory({ "remote.md": "over http\n" });
    const at = ["--url", guarded.url, "--namespace", "team"];
    expect((await hms([...at, "import", "--from", source], { HMS_MCP_TOKEN: token })).code).toBe(0);
    const cat = await hms([...at, "cat", "remote.md"], { HMS_MCP_TOKEN: token });
    expect(cat.stdout).toBe("over http\n");

    const wrong = await hms([...at, "ls"], { HMS_MCP_TOKEN: "wrong" });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/^hms: .*refused the token in HMS_MCP_TOKEN \(HTTP 401\)/);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exits 3 with one line when nothing listens at --url", async () => {
    const run = await hms(["--url", `http://127.0.0.1:${await freePort()}/mcp`, "ls"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^hms: .*127\.0\.0\.1:\d+/);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("the command line", () => {
  it("lists the subcommands in --help and in `hms help`", async () => {
    for (const args of [["--help"], ["help"]]) {
      const run = await hms(args);
      expect(run.code).toBe(0);
      const commands = [
        "ls",
        "cat",
        "recall",
        "rm",
        "mv",
        "history",
        "diff",
        "restore",
        "prune",
        "reembed",
      ];
      for (const command of [...commands, "stats", "export", "import"]) {
        expect(run.stdout).toMatch(new RegExp(`\\n  ${command} `));
      }
    }
  });

  it("answers a wrong command line with one line and exit code 2", async () => {
    for (const args of [["--bogus"], ["ls", "../etc"], ["recall", "x", "-k", "0"], ["import"]]) {
      const run = await hms(["--data-dir", dataDir(), ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(run.stdout).toBe("");
    }
  });

  it("prints no colour codes to a pipe, even in CI, and only with FORCE_COLOR when asked", async () => {
    const at = store();
    await hms([...at, "import", "--from", filesystemMemory({ "d/a.md": "x\n" })]);
    const piped = await hms([...at, "ls"], { CI: "true" });
    expect(piped.stdout).not.toContain("\u001b[");
    const forced = await hms([...at, "ls"], { FORCE_COLOR: "1" });
    expect(forced.stdout).toContain("\u001b[");
    const refused = await hms([...at, "ls"], { FORCE_COLOR: "1", NO_COLOR: "1" });
    expect(refused.stdout).not.toContain("\u001b[");
  });

  it("says a missing file is missing, with exit code 1", async () => {
    const at = store();
    await hms([...at, "import", "--from", filesystemMemory({ "a.md": "a\n" })]);
    const run = await hms([...at, "cat", "nope.md"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^hms: .*nope\.md.*\n$/);
  });
});
