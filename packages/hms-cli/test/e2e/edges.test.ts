/**
 * What a person meets at the edges of `hms` (issue 23): reads of a store that does not exist,
 * paths that cannot be used, signals, --url errors in a person's words, `hms write` and `hms
 * edit` (with an editor script that edits as a person would, and a second writer between open
 * and save), and the smaller refusals. What rests on `hms` being a process (signals, a reader
 * going away, exit statuses) runs the built program (runHms, startHms); the rest runs it as a
 * function (hms), on the hms-mcp it starts where that is what is tested, else on one shared.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  cleanEnv,
  freePort,
  hmsCliBin,
  hmsMcpBin,
  readMemoryFolder,
  runHms,
  startHms,
  startHttpServer,
  storeFile,
  tempDir,
  writeMemoryFolder,
} from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hms, type SharedServer, startSharedServer } from "../run-here.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let server: SharedServer;
/** `--url URL --namespace NAME` of a namespace of its own on the shared server. */
const store = () => server.namespace().args;
beforeAll(async () => {
  server = await startSharedServer();
});
afterAll(() => server.stop());

function scratch(): string {
  const { dir, remove } = tempDir("hms-cli-");
  cleanups.push(remove);
  return dir;
}

/** The ids of the processes (other than this one) whose command line mentions `marker`. */
function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const line = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (line.includes(marker)) found.push(Number(entry));
    } catch {
      // It exited meanwhile.
    }
  }
  return found;
}

/** Waits until no process mentions `marker`, and says which remain if some do. */
async function noProcessLeft(marker: string): Promise<number[]> {
  // A process told to stop takes a moment to exit: wait for it (not a timed assertion).
  for (let waited = 0; waited < 100 && processesMentioning(marker).length > 0; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return processesMentioning(marker);
}

/** An executable script `name` holding `body` (sh), for $EDITOR. */
function script(name: string, body: string): string {
  const file = join(scratch(), name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The built hms-mcp program, run by itself. */
function hmsMcp(args: string[]) {
  return spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(),
    encoding: "utf8",
  });
}

const NO_STORE = (where: string, namespace = "default") =>
  `hms: no store at ${where} (namespace ${namespace}); \`hms import\` creates one, or check --data-dir / --namespace\n`;

describe("reads create nothing, and say when there is no store", () => {
  it("refuses every read of a data directory that holds no store, and leaves nothing", async () => {
    const typo = join(scratch(), "typo");
    for (const args of [
      ["ls"],
      ["ls", "-R"],
      ["cat", "a.md"],
      ["recall", "anything"],
      ["stats"],
      ["history"],
      ["export", "--to", join(scratch(), "out")],
    ]) {
      const run = await hms(["--data-dir", typo, ...args]);
      expect(run, args.join(" ")).toEqual({ code: 1, stdout: "", stderr: NO_STORE(typo) });
    }
    expect(existsSync(typo)).toBe(false);
  });

  it("refuses a mistyped namespace, lists the real ones by name, and creates none", async () => {
    const data = scratch();
    const source = writeMemoryFolder(scratch(), { "a.md": "alpha\n", "d/b.md": "béta\n" });
    expect((await hms(["--data-dir", data, "import", "--from", source])).code).toBe(0);
    const team = ["--data-dir", data, "--namespace", "team"];
    expect((await hms([...team, "import", "--from", source])).code).toBe(0);

    const typo = await hms(["--data-dir", data, "--namespace", "defualt", "ls"]);
    expect(typo).toEqual({ code: 1, stdout: "", stderr: NO_STORE(data, "defualt") });

    const listed = await hms(["--data-dir", data, "--json", "namespaces"]);
    expect(listed.code).toBe(0);
    const namespaces = JSON.parse(listed.stdout);
    expect(namespaces.map((ns: { name: string }) => ns.name)).toEqual(["default", "team"]);
    for (const ns of namespaces) {
      expect(ns).toMatchObject({
        memories: 2,
        bytes: 12,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(ns.disk_bytes).toBeGreaterThan(0);
    }
    const table = await hms(["--data-dir", data, "namespaces"]);
    expect(table.stdout).toMatch(/^NAMESPACE +MEMORIES +SIZE +ON DISK +LAST CHANGE\n/);
    expect(table.stdout).toMatch(/\ndefault +2 +12 B +\d+(\.\d)? [KM]iB +\d{4}-\d\d-\d\d /);
    expect(table.stdout).toMatch(/\nteam +2 /);

    const nowhere = join(scratch(), "nowhere");
    const none = await hms(["--data-dir", nowhere, "namespaces"]);
    expect(none).toEqual({
      code: 1,
      stdout: "",
      stderr: `hms: no store at ${nowhere}; \`hms import\` creates one, or check --data-dir\n`,
    });
    expect(existsSync(nowhere)).toBe(false);
  });

  it("runs an import's dry run on a data directory that does not exist, and makes none", async () => {
    const data = join(scratch(), "new");
    const source = writeMemoryFolder(scratch(), { "a.md": "alpha\n" });
    const dryRun = await hms(["--data-dir", data, "import", "--from", source, "--dry-run"]);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain("would import /memories/a.md");
    expect(existsSync(data)).toBe(false);
    // The import itself creates it.
    expect((await hms(["--data-dir", data, "import", "--from", source])).code).toBe(0);
    expect((await hms(["--data-dir", data, "cat", "a.md"])).stdout).toBe("alpha\n");
  });
});

describe("unusable paths fail at once, and hms leaves no process behind", () => {
  it("says in one line that /proc/... cannot hold a store", async () => {
    const where = "/proc/hms-cli-nope";
    expect(await hms(["--data-dir", where, "ls"])).toEqual({
      code: 1,
      stdout: "",
      stderr: NO_STORE(where),
    });
    const source = writeMemoryFolder(scratch(), { "a.md": "alpha\n" });
    const write = await hms(["--data-dir", where, "import", "--from", source]);
    expect(write.code).toBe(3);
    expect(write.stdout).toBe("");
    expect(write.stderr).toMatch(
      /^hms: could not start hms-mcp: cannot open namespace default in the data directory \/proc\/hms-cli-nope \(ENOENT: .*\); choose a directory this user can write with --data-dir \(HMS_MCP_DATA_DIR\), or fix its permissions\n$/,
    );
    expect(await noProcessLeft(where)).toEqual([]);
  });

  it("says in one line that an export cannot go under /proc", async () => {
    const data = scratch();
    const source = writeMemoryFolder(scratch(), { "a.md": "a\n" });
    expect((await hms(["--data-dir", data, "import", "--from", source])).code).toBe(0);
    // Node's recursive mkdir never settles there: hms spun at full CPU before.
    const run = await hms(["--data-dir", data, "export", "--to", "/proc/hms-export-test"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toBe(
      "hms: cannot export to /proc/hms-export-test: mkdir /proc/hms-export-test failed (ENOENT)\n",
    );
  });

  it("stops its server and its editor when told to stop, and keeps the text typed", async () => {
    const data = scratch();
    const source = writeMemoryFolder(scratch(), { "plan.md": "step one\n" });
    expect((await hms(["--data-dir", data, "import", "--from", source])).code).toBe(0);
    const pidFile = join(scratch(), "editor.pid");
    // An editor that is still open when hms is told to stop.
    const editor = script("slow-editor", `echo $$ > '${pidFile}'\nexec sleep 600`);
    const { child, done } = startHms(["--data-dir", data, "edit", "plan.md"], { EDITOR: editor });
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const editorPid = Number(readFileSync(pidFile, "utf8"));
    cleanups.push(() => {
      try {
        process.kill(editorPid, "SIGKILL");
      } catch {
        // Gone, as it should be.
      }
    });
    expect(processesMentioning(data).length).toBeGreaterThan(0); // its hms-mcp
    child.kill("SIGTERM");
    const run = await done;
    expect(run.code).toBe(143);
    const [kept, stopped] = run.stderr.trim().split("\n");
    expect(kept).toMatch(/^hms: not saved; your text is kept at .*plan\.md$/);
    expect(stopped).toBe("hms: stopped (SIGTERM)");
    expect(await noProcessLeft(data)).toEqual([]);
    expect(processesMentioning("sleep 600").filter((pid) => pid === editorPid)).toEqual([]);
    expect((await hms(["--data-dir", data, "cat", "plan.md"])).stdout).toBe("step one\n");
  });
});

describe("an import stopped part way", () => {
  it("says that the files it wrote stay, and how to import the rest", async () => {
    const data = scratch();
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`batch/${i}.md`] = `note ${i}\n`;
    const source = writeMemoryFolder(scratch(), files);
    const { child, done } = startHms(["--data-dir", data, "import", "--from", source]);
    // The store's memories, read straight from its file (a read takes no lock of the writer's).
    const inStore = (): number => {
      if (!existsSync(storeFile(data))) return 0;
      const db = new DatabaseSync(storeFile(data), { readOnly: true });
      try {
        return Number((db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n);
      } catch {
        return 0; // the store is being created
      } finally {
        db.close();
      }
    };
    // hms is frozen as soon as a file is in, so it cannot finish the 1,500 (one write a call,
    // each a round trip and a commit) before it is told to stop; then the stop is delivered.
    while (inStore() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill("SIGSTOP");
    child.kill("SIGINT");
    child.kill("SIGCONT");
    const run = await done;
    expect(run.code).toBe(130);
    expect(run.stderr).toBe(
      "hms: the import stopped part way (the files it wrote stay): run it again with --skip-refused to import the rest\nhms: stopped (SIGINT)\n",
    );
    const count = async (): Promise<number> => {
      const stats = await hms(["--data-dir", data, "--json", "stats"]);
      return stats.code === 0 ? JSON.parse(stats.stdout).memories : 0;
    };
    const written = await count();
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(1500);
    // As it says.
    const rest = await hms(["--data-dir", data, "import", "--from", source, "--skip-refused"]);
    expect(rest.code).toBe(0);
    expect(await count()).toBe(1500);
  });
});

describe("--url, and its errors in a person's words", () => {
  /** No line of `text` carries what a library said to a program. */
  function spokenToAPerson(text: string): void {
    for (const word of ["fetch failed", "connection.token", "{", "Streamable HTTP", "POSTing"]) {
      expect(text).not.toContain(word);
    }
    expect(text.trim().split("\n")).toHaveLength(1);
  }

  it("takes --url over an exported HMS_MCP_DATA_DIR, and names what is wrong with a token or a URL", async () => {
    const tokenRun = hmsMcp(["token", "create", "--name", "alice", "--namespaces", "*"]);
    const lines = tokenRun.stdout.split("\n").map((line) => line.trim());
    const [token, entry] = [lines[1] as string, lines[3] as string];
    const tokens = join(scratch(), "tokens.jsonl");
    writeFileSync(tokens, `${entry}\n`);
    const guarded = await startHttpServer({ dataDir: scratch(), args: ["--tokens-file", tokens] });
    cleanups.push(() => guarded.stop());
    const origin = new URL(guarded.url).origin;
    const host = new URL(guarded.url).host;
    const elsewhere = scratch();

    const ok = await hms(["--url", guarded.url, "ls"], {
      HMS_MCP_TOKEN: token,
      HMS_MCP_DATA_DIR: elsewhere,
    });
    expect(ok).toMatchObject({ code: 0, stderr: "" });
    expect(ok.stdout).toBe("/memories is empty\n");
    // Both as flags is still a mistake.
    const both = await hms(["--url", guarded.url, "--data-dir", elsewhere, "ls"]);
    expect(both).toMatchObject({ code: 2 });
    expect(both.stderr).toBe(
      "hms: give --url (a server) or --data-dir (a local store), not both\n",
    );

    const wrong = await hms(["--url", guarded.url, "ls"], { HMS_MCP_TOKEN: "wrong" });
    expect(wrong).toEqual({
      code: 3,
      stdout: "",
      stderr: `hms: the server at ${host} refused the token in HMS_MCP_TOKEN (HTTP 401): set HMS_MCP_TOKEN to the server's token\n`,
    });
    const none = await hms(["--url", guarded.url, "ls"]);
    expect(none.stderr).toBe(
      `hms: the server at ${host} needs a token (HTTP 401): set HMS_MCP_TOKEN to the server's token\n`,
    );
    const noPath = await hms(["--url", origin, "ls"], { HMS_MCP_TOKEN: token });
    expect(noPath).toEqual({
      code: 3,
      stdout: "",
      stderr: `hms: nothing is served at ${origin}/ (HTTP 404): did you mean ${origin}/mcp?\n`,
    });
    for (const run of [wrong, none, noPath]) spokenToAPerson(run.stderr);
  });

  it("lists the namespaces a server's token may use, and only those", async () => {
    const token = (name: string, namespaces: string) => {
      const lines = hmsMcp(["token", "create", "--name", name, "--namespaces", namespaces])
        .stdout.split("\n")
        .map((line) => line.trim());
      return { token: lines[1] as string, entry: lines[3] as string };
    };
    const admin = token("admin", "*");
    const team = token("team", "team-*");
    const tokens = join(scratch(), "tokens.jsonl");
    writeFileSync(tokens, `${admin.entry}\n${team.entry}\n`);
    const data = scratch();
    const guarded = await startHttpServer({
      dataDir: data,
      args: ["--namespace-arg", "--tokens-file", tokens],
    });
    cleanups.push(() => guarded.stop());
    const url = ["--url", guarded.url];
    for (const [namespace, text] of [
      ["team-a", "alpha\n"],
      ["team-b", "béta\n"],
      ["private", "secret\n"],
    ] as const) {
      const wrote = await hms(
        [...url, "--namespace", namespace, "write", "a.md"],
        { HMS_MCP_TOKEN: admin.token },
        { input: text },
      );
      expect(wrote.code).toBe(0);
    }

    const all = await hms([...url, "--json", "namespaces"], { HMS_MCP_TOKEN: admin.token });
    expect(all).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(all.stdout).map((ns: { name: string }) => ns.name)).toEqual([
      "default",
      "private",
      "team-a",
      "team-b",
    ]);

    // The team token may not use default, so this listing cannot go through a namespace.
    const mine = await hms([...url, "--json", "namespaces"], { HMS_MCP_TOKEN: team.token });
    expect(mine).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(mine.stdout)).toEqual([
      { name: "team-a", memories: 1, bytes: 6, updated_at: expect.stringMatching(/^\d{4}-/) },
      { name: "team-b", memories: 1, bytes: 6, updated_at: expect.stringMatching(/^\d{4}-/) },
    ]);
    const table = await hms([...url, "namespaces"], { HMS_MCP_TOKEN: team.token });
    expect(table.stdout).toMatch(/^NAMESPACE +MEMORIES +SIZE +LAST CHANGE\nteam-a +1 +6 B +\d{4}-/);
    expect(table.stdout).not.toContain("private");

    // Another command without --namespace says why, and where to look.
    const ls = await hms([...url, "ls"], { HMS_MCP_TOKEN: team.token });
    expect(ls.stderr).toBe(
      `hms: the server at ${new URL(guarded.url).host} says: namespace default does not exist or this token may not use it; name one with --namespace (\`hms namespaces\` lists those this token may use)\n`,
    );
    const wrong = await hms([...url, "namespaces"], { HMS_MCP_TOKEN: "wrong" });
    expect(wrong.code).toBe(3);
    spokenToAPerson(wrong.stderr);
  });

  it("says nothing answers at a closed port, and how to start the server", async () => {
    const port = await freePort();
    // As a process: the exit status itself.
    const run = await runHms(["--url", `http://127.0.0.1:${port}/mcp`, "ls"]);
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr: `hms: nothing answers at 127.0.0.1:${port}: is \`hms-mcp --transport http\` running?\n`,
    });
    spokenToAPerson(run.stderr);
  });
});

describe("hms write and hms edit", () => {
  // A memory folder as the SDK's filesystem memory tool makes it.
  const FILES = {
    "customers/acme.md": "# Acme Corp\r\nContact: Dana\r\nPrefers email\r\n",
    "notes/日本語のメモ.md": "東京の会議\n",
    "todo.md": "- ship the CLI",
    "empty.md": "",
    "deep/a/b/c.md": "nested\n",
    "bom.md": "\uFEFF# saved by an editor that writes a byte order mark\n",
  };

  it("edits a file in $EDITOR as a person would, and round-trips every other byte", async () => {
    const at = store();
    const source = writeMemoryFolder(scratch(), FILES);
    expect((await hms([...at, "import", "--from", source])).code).toBe(0);
    // The person changes one line of a CRLF file; the editor keeps its line ends.
    const editor = script("editor", "sed -i 's/Contact: Dana/Contact: Dana (mornings)/' \"$1\"");
    const edited = await hms([...at, "edit", "customers/acme.md"], {
      EDITOR: editor,
    });
    expect(edited.stderr).toBe("");
    expect(edited.code).toBe(0);
    expect(edited.stdout).toMatch(
      /^wrote \/memories\/customers\/acme\.md \(version \d+, 54 B\)\n$/,
    );

    const out = scratch();
    expect((await hms([...at, "export", "--to", out])).code).toBe(0);
    const expected = Object.fromEntries(
      Object.entries({
        ...FILES,
        "customers/acme.md": "# Acme Corp\r\nContact: Dana (mornings)\r\nPrefers email\r\n",
      }).map(([path, text]) => [path, Buffer.from(text)]),
    );
    expect(readMemoryFolder(out)).toEqual(expected);
    const history = JSON.parse(
      (await hms([...at, "--json", "history", "customers/acme.md"])).stdout,
    );
    expect(history.changes[0]).toMatchObject({ op: "update", command: "hms_edit" });

    // No change: nothing saved. A new file: created.
    const unchanged = await hms([...at, "edit", "todo.md"], { EDITOR: "true" });
    expect(unchanged.stdout).toBe("no change to /memories/todo.md; nothing saved\n");
    const appender = script("append", "printf 'a new note\\n' >> \"$1\"");
    const created = await hms([...at, "edit", "notes/new.md"], {
      EDITOR: appender,
    });
    expect(created.stdout).toMatch(/^created \/memories\/notes\/new\.md \(version \d+, 11 B\)\n$/);
    expect((await hms([...at, "cat", "notes/new.md"])).stdout).toBe("a new note\n");
  });

  it("saves nothing when another writer changed the file meanwhile, shows that change and keeps the text", async () => {
    const at = store();
    const source = writeMemoryFolder(scratch(), { "plan.md": "step one\nstep two\n" });
    expect((await hms([...at, "import", "--from", source])).code).toBe(0);
    const theirs = join(scratch(), "theirs.md");
    writeFileSync(theirs, "step one\nstep two\nstep three (theirs)\n");
    // While the file is open, another hms writes it; then the person edits their copy.
    const editor = script(
      "editor",
      [
        `"${process.execPath}" "${hmsCliBin()}" ${at.join(" ")} write plan.md --file "${theirs}" >/dev/null`,
        "sed -i 's/step two/step 2 (mine)/' \"$1\"",
      ].join("\n"),
    );
    const run = await hms([...at, "edit", "plan.md"], { EDITOR: editor });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^another writer \(hms_write\) changed it from version \d+ to \d+ while you edited it:\n/,
    );
    expect(run.stdout).toContain("+step three (theirs)\n");
    const match =
      /^hms: \/memories\/plan\.md changed while you edited it; nothing saved; your text is kept at (.*)\n$/.exec(
        run.stderr,
      );
    expect(match).not.toBeNull();
    expect(readFileSync(match?.[1] as string, "utf8")).toBe("step one\nstep 2 (mine)\n");
    expect((await hms([...at, "cat", "plan.md"])).stdout).toBe(readFileSync(theirs, "utf8"));
    const json = await hms([...at, "--json", "edit", "plan.md"], {
      EDITOR: script(
        "again",
        `"${process.execPath}" "${hmsCliBin()}" ${at.join(" ")} rm plan.md >/dev/null\necho x >> "$1"`,
      ),
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      key: "/memories/plan.md",
      saved: false,
      current_version: null,
      other_change: { by: "hms_rm", deleted: true },
    });
  });

  it("refuses to fall back on vi without a terminal, where it would wait for ever", async () => {
    const at = store();
    await hms([...at, "write", "plan.md"], {}, { input: "step one\n" });
    const run = await hms([...at, "edit", "plan.md"], { EDITOR: "", VISUAL: "" });
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "hms: no editor: set EDITOR (vi needs a terminal, and this is not one), or write the file with `hms write /memories/plan.md < FILE`\n",
    });
    expect((await hms([...at, "cat", "plan.md"])).stdout).toBe("step one\n");
  });

  it("writes stdin or --file byte for byte, creating or replacing, and refuses a directory", async () => {
    const at = store();
    const crlf = "line one\r\nline two";
    const created = await hms([...at, "write", "notes/日本.md"], {}, { input: crlf });
    expect(created.stdout).toMatch(/^created \/memories\/notes\/日本\.md \(version \d+, 18 B\)\n$/);
    expect((await hms([...at, "cat", "notes/日本.md"])).stdout).toBe(crlf);
    const file = join(scratch(), "new.md");
    writeFileSync(file, "replaced\n");
    const replaced = await hms([...at, "--json", "write", "notes/日本.md", "--file", file]);
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      key: "/memories/notes/日本.md",
      created: false,
      bytes: 9,
    });
    expect((await hms([...at, "cat", "notes/日本.md"])).stdout).toBe("replaced\n");

    const directory = await hms([...at, "write", "notes"], {}, { input: "x" });
    expect(directory).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "hms: /memories/notes is a directory: name a file in it, such as /memories/notes/notes.md\n",
    });
    const notText = await hms([...at, "write", "bin.md"], {}, { input: Buffer.from([0xff, 0xfe]) });
    expect(notText.stderr).toBe("hms: stdin is not UTF-8 text; nothing written\n");
  });
});

describe("the smaller edges", () => {
  it("says that a directory is a directory, to cat", async () => {
    const at = store();
    const source = writeMemoryFolder(scratch(), { "d/a.md": "x\n" });
    await hms([...at, "import", "--from", source]);
    expect(await hms([...at, "cat", "d"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "hms: /memories/d is a directory: `hms ls /memories/d` lists what is in it\n",
    });
  });

  it("restores a directory to a time with new versions only for the files that changed", async () => {
    const at = store();
    const source = writeMemoryFolder(scratch(), {
      "d/same.md": "same\n",
      "d/edited.md": "before\n",
    });
    await hms([...at, "import", "--from", source]);
    const moment = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await hms([...at, "write", "d/edited.md"], {}, { input: "after\n" });

    const restored = await hms([...at, "restore", "d", "--at", moment]);
    expect(restored.stdout).toMatch(/^restored \/memories\/d\/edited\.md as version \d+\n$/);
    const same = JSON.parse((await hms([...at, "--json", "history", "d/same.md"])).stdout);
    expect(same.changes.map((c: { op: string }) => c.op)).toEqual(["create"]);
    const again = await hms([...at, "restore", "d", "--at", moment]);
    expect(again.stdout).toBe(
      "nothing to restore: every file under /memories/d is as it was then\n",
    );
    const file = await hms([...at, "restore", "d/same.md", "--at", moment]);
    expect(file.stdout).toMatch(
      /^\/memories\/d\/same\.md already is as it was then \(version \d+\): nothing written\n$/,
    );
  });

  it("skips hidden files with a note, and says how to raise the size limit", async () => {
    const data = scratch();
    const source = writeMemoryFolder(scratch(), {
      "a.md": "alpha\n",
      ".DS_Store": "\0\0\0\x01Bud1",
      ".git/config": "[core]\n",
      "big.md": "x".repeat(40 * 1024),
    });
    const refused = await hms(["--data-dir", data, "import", "--from", source]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `skipped ${join(source, "memories", ".DS_Store")}: hidden (a name starting with a dot is not a memory file`,
    );
    expect(refused.stdout).toContain(`skipped ${join(source, "memories", ".git")}/: hidden`);
    expect(refused.stdout).toContain(
      "40960 bytes, over the server's limit of 32768 bytes per file (raise it with hms-mcp's --max-text-bytes; for the server hms starts, set HMS_MCP_MAX_TEXT_BYTES)",
    );
    // As it says: with the limit raised, everything but the hidden files is imported.
    const raised = await hms(["--data-dir", data, "import", "--from", source], {
      HMS_MCP_MAX_TEXT_BYTES: "65536",
    });
    expect(raised.code).toBe(0);
    expect(raised.stdout).toMatch(/\nimported 2 memories from /);
    const files = JSON.parse((await hms(["--data-dir", data, "--json", "ls", "-R"])).stdout);
    expect(files.map((file: { path: string }) => file.path)).toEqual([
      "/memories/a.md",
      "/memories/big.md",
    ]);
  });

  it("stops printing quietly when its reader goes away (`| head`), and still makes the change", async () => {
    const data = scratch();
    const at = ["--data-dir", data];
    await hms([...at, "import", "--from", writeMemoryFolder(scratch(), { "a.md": "a\n" })]);
    // The reader closes its end before hms prints anything: every write of hms's then fails
    // (EPIPE), as when `head` has read what it wanted. Before, hms died with a stack trace.
    const unread = async (args: string[], input?: string) => {
      const started = startHms(args, {}, input === undefined ? {} : { input });
      started.child.stdout?.destroy();
      return await started.done;
    };
    for (const args of [["--help"], [...at, "ls", "-R"], [...at, "--json", "ls", "-R"]]) {
      expect(await unread(args), args.join(" ")).toMatchObject({ code: 0, stderr: "" });
    }
    expect(await unread([...at, "write", "b.md"], "written unread\n")).toMatchObject({
      code: 0,
      stderr: "",
    });
    expect((await hms([...at, "cat", "b.md"])).stdout).toBe("written unread\n");
    // A failure still says why, on stderr, with its own exit code.
    expect(await unread([...at, "cat", "missing.md"])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("/memories/missing.md does not exist"),
    });
  });

  it("gives the server's refusals in words, without its error codes", async () => {
    const at = store();
    await hms([...at, "import", "--from", writeMemoryFolder(scratch(), { "a.md": "a\n" })]);
    expect(await hms([...at, "mv", "a.md", "a.md"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "hms: cannot move /memories/a.md onto itself\n",
    });
    for (const args of [
      ["diff", "a.md", "1", "99"],
      ["restore", "a.md", "--version", "99"],
    ]) {
      expect(await hms([...at, ...args]), args.join(" ")).toEqual({
        code: 1,
        stdout: "",
        stderr:
          "hms: the history of /memories/a.md has no version 99 (see its history for the versions kept)\n",
      });
    }
  });

  it("exits 2 on a bad flag, in hms and in hms-mcp alike", async () => {
    const cli = await runHms(["ls", "--bogus"]);
    expect(cli).toEqual({ code: 2, stdout: "", stderr: "hms: unknown option '--bogus'\n" });
    for (const args of [["--bogus"], ["token", "create", "--bogus"], ["fetch-model", "--bogus"]]) {
      const run = hmsMcp(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(run.stdout).toBe("");
    }
    const help = hmsMcp(["--help"]).stdout;
    const headings = [...help.matchAll(/^(\S[^\n]*):$/gm)].map((match) => match[1]);
    expect(headings).toEqual([
      "Common options",
      "HTTP and tokens",
      "Hybrid recall",
      "History",
      "PostgreSQL",
      "Metrics",
      "Commands",
    ]);
  });
});
