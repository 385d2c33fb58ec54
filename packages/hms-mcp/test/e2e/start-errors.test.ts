/**
 * What a newcomer meets when the server cannot start: one line saying what is wrong and what to
 * do, no stack trace and no help after it; and the help itself (`hms-mcp help`, subcommands).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, hmsMcpBin, startHttpServer, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

function run(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const result = spawnSync(process.execPath, [...nodeArgs, hmsMcpBin(), ...args], {
    env: cleanEnv(env),
    encoding: "utf8",
    input: "",
    timeout: 60000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Exactly one line on stderr, starting with `hms-mcp`, and nothing on stdout. */
function expectOneLine(result: ReturnType<typeof run>, pattern: RegExp): void {
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")).toHaveLength(2);
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr).toMatch(/^hms-mcp/);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/Usage:|\n\s+at /);
}

describe("a server that cannot start", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("says in one line that the port is in use, and how to pick another", async () => {
    const first = await startHttpServer({ dataDir: data.dir, args: ["--log-level", "info"] });
    try {
      const port = new URL(first.url).port;
      const result = run(["--data-dir", data.dir, "--transport", "http", "--port", port]);
      expect(result.status).toBe(2);
      expectOneLine(
        result,
        new RegExp(
          `port ${port} is already in use on 127\\.0\\.0\\.1 .*--port 0 for any free port`,
        ),
      );
    } finally {
      await first.stop();
    }
  });

  it("says in one line that this Node has no node:sqlite, and which Node to start it with", () => {
    // Node 20 has no node:sqlite; Node 22 and 24 run without it when asked to.
    const result = run(["--data-dir", data.dir], {}, ["--no-experimental-sqlite"]);
    expect(result.status).toBe(2);
    expectOneLine(
      result,
      /cannot open namespace default: Node\.js v\d+\.\d+\.\d+ has no node:sqlite, the SQLite the store runs on: use Node\.js 24\.22\.3 or a later 24, or 22\.23\.5 or a later 22$/m,
    );
  });

  it("says in one line that the data directory cannot be used", () => {
    const file = join(data.dir, "not-a-directory");
    writeFileSync(file, "");
    const result = run(["--data-dir", file]);
    expect(result.status).toBe(2);
    expectOneLine(
      result,
      /cannot open namespace default in the data directory .*not-a-directory \(ENOTDIR: not a directory.*\); choose a directory this user can write with --data-dir/,
    );
  });

  it("says in one line what is wrong with a flag, without the help after it", () => {
    for (const [args, pattern] of [
      [
        ["--prot", "1"],
        /^hms-mcp: unknown option '--prot' \(Did you mean --port\?\) \(hms-mcp --help/,
      ],
      [["--port", "x"], /^hms-mcp: option '--port <port>' argument 'x' is invalid/],
      [["serve"], /^hms-mcp: too many arguments/],
    ] as const) {
      const result = run(["--data-dir", data.dir, ...args]);
      expect(result.status).toBe(2);
      expectOneLine(result, pattern);
    }
    // Every subcommand too: a usage error is exit 2, in one line.
    for (const args of [
      ["token", "create", "--bogus"],
      ["fetch-model", "--bogus"],
      ["copy", "--bogus"],
      ["migrate", "--bogus"],
    ]) {
      const result = run(args);
      expect(result.status, args.join(" ")).toBe(2);
      expectOneLine(result, new RegExp(`^hms-mcp ${args[0]}: .*'--bogus'|required option`));
    }
  });

  it("says in one line that its namespace cannot be created at --max-namespaces", () => {
    const full = tempDir();
    try {
      expect(run(["--data-dir", full.dir, "--namespace", "first"]).status).toBe(0);
      const result = run(["--data-dir", full.dir, "--max-namespaces", "1"]);
      expect(result.status).toBe(2);
      expectOneLine(
        result,
        /^hms-mcp: namespace default cannot be created: this server holds its most namespaces \(1, --max-namespaces\)/,
      );
    } finally {
      full.remove();
    }
  });

  it("refuses a token shorter than 32 bytes beyond loopback", () => {
    const args = ["--data-dir", data.dir, "--transport", "http", "--host", "0.0.0.0"];
    const result = run([...args, "--allow-remote"], { HMS_MCP_TOKEN: "x".repeat(31) });
    expect(result.status).toBe(2);
    expectOneLine(
      result,
      /refusing to listen on 0\.0\.0\.0 with a 31-byte HMS_MCP_TOKEN: .*at least 32 bytes.*hms-mcp token create/,
    );
  });

  it("says in one line which entry and field of the tokens file is wrong", () => {
    const file = join(data.dir, "tokens.jsonl");
    const sha256 = "a".repeat(64);
    writeFileSync(
      file,
      `${JSON.stringify({ name: "ok", sha256, namespaces: ["a"], access: "read-write" })}\n` +
        `${JSON.stringify({ name: "eve", sha256: "b".repeat(64), namespaces: ["A/B"], access: "read-write" })}\n`,
    );
    const result = run(["--data-dir", data.dir, "--transport", "http", "--tokens-file", file]);
    expect(result.status).toBe(2);
    expectOneLine(
      result,
      /^hms-mcp: --tokens-file: .*tokens\.jsonl line 2 \("eve"\): namespaces\.0: expected a namespace name, a prefix pattern such as user-\*, or \*$/m,
    );
  });
});

describe("the help", () => {
  it("is printed by `hms-mcp help` and lists the subcommands", () => {
    const help = run(["help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(run(["--help"]).stdout);
    for (const command of ["migrate", "copy", "fetch-model", "token create", "help [command]"]) {
      expect(help.stdout).toMatch(
        new RegExp(`^  hms-mcp ${command.replace(/[[\]]/g, "\\$&")} `, "m"),
      );
    }
  });

  it("puts the flags in sections: common, HTTP and tokens, hybrid recall, history, PostgreSQL, metrics", () => {
    const help = run(["--help"]).stdout;
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
    const sectionOf = (flag: string) => {
      const at = help.search(new RegExp(`^ {2}(-\\w, )?${flag} `, "m"));
      expect(at, flag).toBeGreaterThan(0);
      return [...help.slice(0, at).matchAll(/^(\S[^\n]*):$/gm)].at(-1)?.[1];
    };
    for (const [flag, section] of [
      ["--data-dir", "Common options"],
      ["--no-create", "Common options"],
      ["--help", "Common options"],
      ["--port", "HTTP and tokens"],
      ["--tokens-file", "HTTP and tokens"],
      ["--ui", "HTTP and tokens"],
      ["--model-dir", "Hybrid recall"],
      ["--keep-versions", "History"],
      ["--database-url", "PostgreSQL"],
      ["--metrics-port", "Metrics"],
      ["--no-migrate", "PostgreSQL"],
    ]) {
      expect(sectionOf(flag as string), flag).toBe(section);
    }
    // The heading names the area, so the descriptions no longer start with it.
    expect(help).not.toMatch(/^ {2}--\S+(?: <\w+>)? +(HTTP|PostgreSQL|hybrid recall|history): /m);
  });

  it("of a subcommand is printed by `hms-mcp help <command>`", () => {
    const token = run(["help", "token"]);
    expect(token.status).toBe(0);
    expect(token.stdout).toMatch(/^Usage: hms-mcp token create \[options\]/);
    expect(token.stdout).toContain("--namespaces <list>");
    const fetch = run(["help", "fetch-model"]);
    expect(fetch.status).toBe(0);
    expect(fetch.stdout).toMatch(/^Usage: hms-mcp fetch-model/);
    const migrate = run(["help", "migrate"]);
    expect(migrate.status).toBe(0);
    expect(migrate.stdout).toMatch(/^Usage: hms-mcp migrate \[options\]/);
    expect(migrate.stdout).toContain("--database-url <url>");
    const copy = run(["help", "copy"]);
    expect(copy.status).toBe(0);
    expect(copy.stdout).toMatch(/^Usage: hms-mcp copy \[options\]/);
    expect(copy.stdout).toContain("--from <source>");
  });
});

describe("hms-mcp token create", () => {
  it("refuses a namespace pattern the server would refuse, in one line", () => {
    const result = run(["token", "create", "--name", "x", "--namespaces", "team*x"]);
    expect(result.status).toBe(2);
    expectOneLine(result, /^hms-mcp token create: .*namespaces\.0: expected a namespace name/);
  });
});
