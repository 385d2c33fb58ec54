/**
 * What `hms` refuses at its boundary (issues 37 and 35), on the built program as a process
 * and real hms-mcp servers: paths that are not UTF-8 (the command line's own bytes), input
 * past the server's limit (counted in bytes), a server that never answers, a URL with a
 * password, a refused namespace, and a Node.js without node:sqlite.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { constants } from "node:os";
import { join } from "node:path";
import { MAX_ANSWER_BYTES } from "@hms/protocol";
import {
  cleanEnv,
  type HmsRun,
  hmsCliBin,
  hmsMcpBin,
  runHms,
  startHttpServer,
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
beforeAll(async () => {
  server = await startSharedServer();
});
afterAll(() => server.stop());

function scratch(): string {
  const { dir, remove } = tempDir("hms-cli-");
  cleanups.push(remove);
  return dir;
}

/**
 * Runs `hms` as a process whose arguments may hold any bytes: each Buffer is handed over
 * byte for byte (through the shell's printf), as a terminal would.
 */
function runHmsBytes(args: (string | Buffer)[], input?: string): Promise<HmsRun> {
  const quoted = args.map((arg) => {
    const bytes = typeof arg === "string" ? Buffer.from(arg) : arg;
    const octal = [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
    return `"$(printf '${octal}')"`;
  });
  const child = spawn(
    "/bin/sh",
    ["-c", `exec "${process.execPath}" "${hmsCliBin()}" ${quoted.join(" ")}`],
    { env: cleanEnv(), stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] },
  );
  if (input !== undefined) child.stdin?.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) =>
      resolve({ code: code ?? 128 + constants.signals[signal as NodeJS.Signals], stdout, stderr }),
    );
  });
}

/** Every memory file of a store, as `hms --json ls -R` lists them (none when it has none). */
async function paths(at: string[]): Promise<string[]> {
  const run = await hms([...at, "--json", "ls", "-R"]);
  return run.code === 0 ? JSON.parse(run.stdout).map((entry: { path: string }) => entry.path) : [];
}

const FF = Buffer.from([0x63, 0x2f, 0xff, 0x2e, 0x6d, 0x64]); // c/\xff.md
const FE = Buffer.from([0x63, 0x2f, 0xfe, 0x2e, 0x6d, 0x64]); // c/\xfe.md
const NOT_UTF8 = (what: string, shown: string) =>
  `hms: ${what} "${shown}" is not UTF-8: hms takes paths as UTF-8 text, and two such names would become one; nothing was done\n`;

describe("paths that are not UTF-8 (issue 37, 2)", () => {
  it("are refused by every command that takes a path, and nothing is written", async () => {
    const at = server.namespace().args;
    const source = writeMemoryFolder(scratch(), { "c/x.md": "x\n" });
    expect((await hms([...at, "import", "--from", source])).code).toBe(0);
    // Before, \xff and \xfe both became U+FFFD: the second write replaced the first. As a
    // process, the bytes are read back from /proc/self/cmdline and shown.
    for (const args of [
      ["write", FF],
      ["write", FE],
      ["mv", "c/x.md", FE],
    ]) {
      const run = await runHmsBytes([...at, ...args], "text\n");
      const shown = (args.at(-1) === FF ? "c/\\xff.md" : "c/\\xfe.md") as string;
      expect(run, args.map(String).join(" ")).toEqual({
        code: 2,
        stdout: "",
        stderr: NOT_UTF8("the path", shown),
      });
    }
    // Every other command and flag that takes a path, run as a function here: with no
    // command line to read the bytes from, hms says it cannot tell them from U+FFFD itself.
    const bad = "c/\uFFFD.md";
    for (const [args, what] of [
      [["ls", bad], "the path"],
      [["cat", "-n", bad], "the path"],
      [["rm", bad], "the path"],
      [["mv", bad, "c/y.md"], "the path"],
      [["restore", bad, "--version", "1"], "the path"],
      [["history", bad], "the path"],
      [["diff", bad], "the path"],
      [["watch", bad], "the path"],
      [["edit", bad], "the path"],
      [["recall", "x", "--under", bad], "the path"],
      [["prune", "--unused-for", "1d", "--under", bad], "the path"],
      [["write", "c/z.md", "--file", bad], "--file"],
      [["export", "--to", bad], "--to"],
      [["import", "--from", bad], "--from"],
      [["reembed", "--model-dir", bad], "--model-dir"],
    ] as const) {
      const run = await hms([...at, ...args], {}, { input: "text\n" });
      expect(run, args.join(" ")).toEqual({
        code: 2,
        stdout: "",
        stderr: `hms: ${what} "c/\uFFFD.md" holds U+FFFD, the character Node.js puts for bytes that are not UTF-8 (or that character itself, which hms cannot tell apart here): hms takes paths as UTF-8 text, and two such names would become one; nothing was done\n`,
      });
    }
    expect(await paths(at)).toEqual(["/memories/c/x.md"]);
    // So is a data directory (where hms would make a store of another name).
    const data = scratch();
    const local = await runHmsBytes([
      "--data-dir",
      Buffer.concat([Buffer.from(`${data}/`), FF]),
      "ls",
    ]);
    expect(local).toEqual({
      code: 2,
      stdout: "",
      stderr: NOT_UTF8("--data-dir", `${data}/c/\\xff.md`),
    });
  });

  it("takes U+FFFD itself, typed as UTF-8, as the character it is", async () => {
    const at = server.namespace().args;
    const wrote = await runHmsBytes([...at, "write", "c/\uFFFD.md"], "kept\n");
    expect(wrote).toMatchObject({ code: 0, stderr: "" });
    expect(await paths(at)).toEqual(["/memories/c/\uFFFD.md"]);
  });
});

describe("hms import and names that are not UTF-8 (issue 37, 3)", () => {
  it("refuses such a file by its escaped name, and imports the rest with --skip-refused", async () => {
    const at = server.namespace().args;
    const source = writeMemoryFolder(scratch(), { "good.md": "good\n" });
    const folder = join(source, "memories");
    writeFileSync(Buffer.from(`${folder}/\xff.md`, "latin1"), "bad\n");
    mkdirSync(Buffer.from(`${folder}/d\xfe`, "latin1"));
    writeFileSync(Buffer.from(`${folder}/d\xfe/under.md`, "latin1"), "under\n");
    const refusals = [
      `refused ${folder}/d\\xfe/: its name is not UTF-8 (shown with \\x for each byte that is not): memory paths are UTF-8 text; rename it`,
      `refused ${folder}/\\xff.md: its name is not UTF-8 (shown with \\x for each byte that is not): memory paths are UTF-8 text; rename it`,
    ];

    const refused = await runHms([...at, "import", "--from", source]);
    expect(refused).toEqual({
      code: 1,
      stderr: "",
      stdout: `${refusals.join("\n")}\nnothing imported: 2 refused (fix them, or pass --skip-refused to import the other 1)\n`,
    });
    const dryRun = await runHms([...at, "import", "--from", source, "--skip-refused", "--dry-run"]);
    expect(dryRun).toEqual({
      code: 0,
      stderr: "",
      stdout: `${refusals.join("\n")}\nwould import /memories/good.md\ndry run: 1 would be imported, nothing written\n`,
    });
    expect(await paths(at)).toEqual([]);
    const skipped = await runHms([...at, "import", "--from", source, "--skip-refused"]);
    expect(skipped).toMatchObject({ code: 0, stderr: "" });
    expect(skipped.stdout).toBe(`imported 1 memory from ${source}; skipped 2 refused\n`);
    expect(await paths(at)).toEqual(["/memories/good.md"]);
  });
});

describe("input past the server's limit (issue 37, 6)", () => {
  const LIMIT =
    "over the server's limit of 32768 bytes per file (raise it with hms-mcp's --max-text-bytes; for the server hms starts, set HMS_MCP_MAX_TEXT_BYTES)";

  it("stops reading stdin once it passes the limit, and writes nothing", async () => {
    const at = server.namespace().args;
    // An endless writer, as `yes aaaa | hms write`: this test writes until hms stops reading
    // (its end of the pipe closes), counting the bytes it handed over, up to 64 MiB.
    const child = spawn(process.execPath, [hmsCliBin(), ...at, "write", "inf.md"], {
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const chunk = Buffer.alloc(64 * 1024, "aaaa\n");
    let handed = 0;
    let closed = false;
    child.stdin.on("error", () => {
      closed = true;
    });
    child.stdin.on("close", () => {
      closed = true;
    });
    while (!closed && handed < 64 * 1024 * 1024) {
      handed += chunk.length;
      if (!child.stdin.write(chunk)) {
        await new Promise<void>((resolve) => {
          child.stdin.once("drain", resolve);
          child.stdin.once("close", resolve);
        });
      }
    }
    child.stdin.destroy();
    expect(await exited).toBe(1);
    expect(stderr).toBe(`hms: stdin holds more than 32768 bytes, ${LIMIT}; nothing written\n`);
    // hms stopped taking input long before the writer was done (the pipe holds some 64 KiB).
    expect(handed).toBeLessThan(16 * 1024 * 1024);
    expect(await paths(at)).toEqual([]);
  });

  it("reads no more of a --file than the limit, /dev/zero included", async () => {
    const at = server.namespace().args;
    const zero = await runHms([...at, "write", "zero.md", "--file", "/dev/zero"]);
    expect(zero).toEqual({
      code: 1,
      stdout: "",
      stderr: `hms: /dev/zero holds more than 32768 bytes, ${LIMIT}; nothing written\n`,
    });
    const big = join(scratch(), "big.md");
    writeFileSync(big, "");
    truncateSync(big, 40 * 1024 * 1024); // sparse: its size, not its bytes
    const file = await runHms([...at, "write", "big.md", "--file", big]);
    expect(file.stderr).toBe(`hms: ${big} holds 41943040 bytes, ${LIMIT}; nothing written\n`);
    expect(await paths(at)).toEqual([]);
  });

  it("refuses what an editor left past the limit, and keeps it", async () => {
    const at = server.namespace().args;
    const editor = join(scratch(), "paste");
    writeFileSync(editor, '#!/bin/sh\nhead -c 50000000 /dev/zero > "$1"\n', { mode: 0o755 });
    const run = await runHms([...at, "edit", "pasted.md"], { EDITOR: editor });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^hms: the text is 50000000 bytes, ${LIMIT.replace(/[()]/g, "\\$&")}; nothing saved; your text is kept at .*pasted\\.md\\n$`,
      ),
    );
    expect(await paths(at)).toEqual([]);
  });

  it("refuses a huge file to import by its size, unread, and a .jsonl line longer than any export's", async () => {
    const at = server.namespace().args;
    const source = writeMemoryFolder(scratch(), { "a.md": "alpha\n" });
    const huge = join(source, "memories", "huge.md");
    writeFileSync(huge, "");
    truncateSync(huge, 3 * 1024 * 1024 * 1024); // 3 GiB, sparse: Node's readFile refuses it whole
    const folder = await runHms([...at, "--json", "import", "--from", source, "--skip-refused"]);
    expect(folder).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(folder.stdout)).toMatchObject({
      imported: 1,
      refused: [{ source: huge, reason: `3221225472 bytes, ${LIMIT}` }],
    });
    expect(await paths(at)).toEqual(["/memories/a.md"]);

    // An export of b.md, with a line longer than any export line can be put before it.
    const other = server.namespace().args;
    expect((await hms([...other, "write", "b.md"], {}, { input: "b\n" })).code).toBe(0);
    const jsonl = join(scratch(), "export.jsonl");
    expect((await hms([...other, "export", "--to", jsonl])).code).toBe(0);
    const [header, record] = readFileSync(jsonl, "utf8").trim().split("\n") as [string, string];
    const long = {
      ...JSON.parse(record),
      key: "/memories/long.md",
      text: "x".repeat(MAX_ANSWER_BYTES),
    };
    writeFileSync(jsonl, `${header}\n${JSON.stringify(long)}\n${record}\n`);
    const lines = await runHms([...at, "--json", "import", "--from", jsonl, "--skip-refused"]);
    expect(lines).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(lines.stdout).refused).toEqual([
      {
        source: `${jsonl}:2`,
        reason: `a line of more than ${MAX_ANSWER_BYTES} bytes, longer than any memory of an hms export`,
      },
    ]);
    expect(await paths(at)).toEqual(["/memories/a.md", "/memories/b.md"]);
  });
});

describe("--url (issue 37, 4 and 9; issue 35, 3)", () => {
  it("says a server that takes the connection and never answers did not answer, within --timeout", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const host = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    const said = (seconds: string) =>
      `hms: the server at ${host} did not answer within ${seconds}; is it hms-mcp, and is it running well? (--timeout SECONDS waits longer)\n`;
    // Before: "answered HTTP -32001", after 60 s.
    for (const args of [["ls"], ["namespaces"]]) {
      const run = await runHms(["--url", `http://${host}/mcp`, "--timeout", "1", ...args]);
      expect(run, args[0]).toEqual({ code: 3, stdout: "", stderr: said("1 second") });
    }
    // The default for --url, as --help says.
    const help = await hms(["--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "--timeout <seconds> how long to wait for the server's first answer (default: 10 with --url, 60 for the server hms starts)",
    );
  });

  it("refuses a URL with a user name or password, and shows neither in any message", async () => {
    for (const url of [
      `${server.url.replace("//", "//alice9:s3cret@")}`,
      "http://alice9:s3cret@127.0.0.1:notaport/mcp",
    ]) {
      const run = await runHms(["--url", url, "ls"]);
      expect(run.code, url).toBe(2);
      expect(run.stderr, url).not.toContain("s3cret");
      expect(run.stderr, url).not.toContain("alice9");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
    const run = await runHms(["--url", server.url.replace("//", "//alice9:s3cret@"), "ls"]);
    expect(run.stderr).toBe(
      `hms: --url ${server.url.replace("//", "//***@")} carries a user name or password, which hms does not send: hms-mcp takes a token, set it in HMS_MCP_TOKEN (a password on the command line is also visible to every user of this machine); give the URL without them\n`,
    );
  });

  it("exits 1 when the server refuses the namespace, as docs/cli says of a refusal", async () => {
    const created = execFileSync(
      process.execPath,
      [hmsMcpBin(), "token", "create", "--name", "alice", "--namespaces", "alice"],
      { encoding: "utf8", env: cleanEnv() },
    )
      .split("\n")
      .map((line) => line.trim());
    const [token, entry] = [created[1] as string, created[3] as string];
    const tokens = join(scratch(), "tokens.jsonl");
    writeFileSync(tokens, `${entry}\n`);
    const guarded = await startHttpServer({
      dataDir: scratch(),
      args: ["--namespace-arg", "--tokens-file", tokens],
    });
    cleanups.push(() => guarded.stop());
    const at = ["--url", guarded.url];
    const env = { HMS_MCP_TOKEN: token };
    expect(
      (await runHms([...at, "--namespace", "alice", "write", "a.md"], env, { input: "a\n" })).code,
    ).toBe(0);
    const bob = await runHms([...at, "--namespace", "bob", "ls"], env);
    expect(bob).toEqual({
      code: 1,
      stdout: "",
      stderr: `hms: the server at ${new URL(guarded.url).host} says: namespace bob does not exist or this token may not use it; name one with --namespace (\`hms namespaces\` lists those this token may use)\n`,
    });
  });
});

/** A Node.js on this machine without node:sqlite (its own Node 20), for the next test. */
function nodeWithoutSqlite(): string | undefined {
  const candidates = new Set(["/usr/bin/node", "/usr/local/bin/node"]);
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.add(join(dir, "node"));
  for (const node of candidates) {
    try {
      const answer = execFileSync(
        node,
        ["-p", 'typeof process.getBuiltinModule?.("node:sqlite")'],
        { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
      );
      if (answer.trim() === "undefined") return node;
    } catch {
      // Not there, or not a Node.js.
    }
  }
  return undefined;
}

describe("an unsupported Node.js (issue 35, 2)", () => {
  it("says what the server it started said: no node:sqlite, and which Node.js to use", async () => {
    const node = nodeWithoutSqlite();
    // This machine's own Node.js is 20 (CONTRIBUTING.md): the Node.js a user may still run.
    expect(node, "a Node.js without node:sqlite on this machine (its Node 20)").toBeDefined();
    const data = scratch();
    const run = await new Promise<HmsRun>((resolve, reject) => {
      const child = spawn(node as string, [hmsCliBin(), "--data-dir", data, "ls"], {
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect(run).toMatchObject({ code: 3, stdout: "" });
    // Before: "hms-mcp refused the stats call: the server failed to carry out the call; see its log".
    expect(run.stderr).toMatch(
      /^hms: could not start hms-mcp: Node\.js v\d+\.\d+\.\d+ has no node:sqlite, the SQLite the store runs on: use Node\.js 24\.\d+\.\d+ or a later 24, or 22\.\d+\.\d+ or a later 22\n$/,
    );
  });
});
