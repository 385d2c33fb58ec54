/**
 * A shared server's tenancy, against real hms-mcp processes: the tokens file (namespaces,
 * read-only, reload on change and on SIGHUP), reads that never create a namespace, and
 * --max-namespaces.
 */
import { spawnSync } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  call,
  cleanEnv,
  type HttpProcess,
  hmsMcpBin,
  ok,
  refused,
  startHttpProcess,
  startStdio,
  storeNamespaces,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** `hms-mcp token create ...`: the token and the tokens-file line it prints. */
function createToken(args: string[]): { token: string; line: string } {
  const result = spawnSync(process.execPath, [hmsMcpBin(), "token", "create", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const lines = result.stdout.split("\n").map((line) => line.trim());
  const token = lines[1] as string;
  const line = lines[3] as string;
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(JSON.parse(line)).toMatchObject({ name: args[1] });
  return { token, line };
}

/** Waits until `check` passes (a reload is polled), failing after a generous deadline. */
async function eventually(check: () => Promise<void>, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/**
 * Puts `text` in `file` in one step (a new file renamed over it, as an editor saves): the
 * server's poll never sees it part-written. (A poll between writeFileSync's truncation and its
 * write used to reload an empty file, and a broken file written next then kept that empty set
 * "in force"; the server now waits for a change to settle, tested below.)
 */
function replaceFile(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

/** Whether a client with `token` can open a session at all (401 fails the connect). */
async function accepted(server: HttpProcess, token: string): Promise<boolean> {
  try {
    const client = await server.connect(token);
    await client.close();
    return true;
  } catch {
    return false;
  }
}

describe("a tokens file", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const admin = "admin-token-".repeat(3);
  const alice = createToken(["--name", "alice", "--namespaces", "alice,team-*"]);
  const reader = createToken(["--name", "reader", "--namespaces", "alice", "--read-only"]);
  let server: HttpProcess;
  let asAdmin: Client;
  let asAlice: Client;
  let asReader: Client;

  beforeAll(async () => {
    writeFileSync(tokensFile, `${alice.line}\n\n${reader.line}\n`);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
      env: { HMS_MCP_TOKEN: admin },
    });
    asAdmin = await server.connect(admin);
    asAlice = await server.connect(alice.token);
    asReader = await server.connect(reader.token);
    await ok(asAdmin, "remember", { namespace: "bob", key: "secret.md", text: "bob's secret" });
  });
  afterAll(async () => {
    for (const client of [asAdmin, asAlice, asReader]) await client?.close();
    await server?.stop();
    data.remove();
  });

  it("lets a token use its namespaces, exact and by prefix", async () => {
    await ok(asAlice, "remember", { namespace: "alice", key: "a.md", text: "alice's" });
    await ok(asAlice, "remember", { namespace: "team-red", key: "t.md", text: "team's" });
    expect(await ok(asAlice, "get", { namespace: "team-red", key: "t.md" })).toMatchObject({
      text: "team's",
    });
    // The all-access token (HMS_MCP_TOKEN) sees them too.
    expect(await ok(asAdmin, "get", { namespace: "alice", key: "a.md" })).toMatchObject({
      text: "alice's",
    });
  });

  it("refuses a namespace outside a token's grants with the same answer whether it exists or not", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["get", { key: "secret.md" }],
      ["list", {}],
      ["recall", { query: "secret" }],
      ["search", { text: "secret" }],
      ["stats", {}],
      ["remember", { key: "x.md", text: "intrusion" }],
      ["forget", { key: "secret.md" }],
    ];
    for (const [tool, args] of calls) {
      const existing = await call(asAlice, tool, { ...args, namespace: "bob" });
      const missing = await call(asAlice, tool, { ...args, namespace: "carol" });
      expect(existing.isError).toBe(true);
      // The full answers (text, structured content, _meta) differ only by the name asked for.
      expect(JSON.stringify(existing).replaceAll("bob", "NAME")).toBe(
        JSON.stringify(missing).replaceAll("carol", "NAME"),
      );
      expect(existing.structuredContent).toBeUndefined();
    }
    const answer = await refused(asAlice, "get", { namespace: "bob", key: "secret.md" });
    expect(answer.code).toBe("NOT_FOUND");
    expect(answer.text).toBe(
      "NOT_FOUND: namespace bob does not exist or this token may not use it",
    );
    // Nothing was written into bob, and carol was not created.
    expect(await ok(asAdmin, "get", { namespace: "bob", key: "secret.md" })).toMatchObject({
      text: "bob's secret",
    });
    expect(await ok(asAdmin, "list", { namespace: "bob" }).then((page) => page.items)).toHaveLength(
      1,
    );
    expect(storeNamespaces(data.dir).join(" ")).not.toMatch(/x\.md/);
  });

  it("tells each token the namespaces it may use, and nothing of the others", async () => {
    await ok(asAlice, "remember", { namespace: "team-blue", key: "t.md", text: "blue's" });
    const names = async (client: Client) =>
      ok<{
        namespaces: { name: string }[];
        default: string;
        namespace_arg: boolean;
        access: string;
      }>(client, "namespaces", {});
    // alice: her own and her team-* namespaces (bob exists, but is not hers); the server's
    // default is outside her grants, so it is not listed.
    const forAlice = await names(asAlice);
    expect(forAlice.namespaces.map((n) => n.name)).toEqual(
      expect.arrayContaining(["alice", "team-blue"]),
    );
    expect(forAlice.namespaces.map((n) => n.name)).not.toContain("bob");
    expect(forAlice.namespaces.map((n) => n.name)).not.toContain("default");
    expect(forAlice).toMatchObject({
      default: "default",
      namespace_arg: true,
      access: "read-write",
    });
    // The reader: only alice, read-only.
    expect(await names(asReader)).toEqual({
      namespaces: [{ name: "alice" }],
      default: "default",
      namespace_arg: true,
      access: "read-only",
    });
    // HMS_MCP_TOKEN: every namespace, the server's default among them.
    const forAdmin = await names(asAdmin);
    expect(forAdmin.namespaces.map((n) => n.name)).toEqual(
      expect.arrayContaining(["alice", "bob", "default", "team-blue", "team-red"]),
    );
    // Its list is in name order, and asking again gives the same (asking creates nothing).
    const sorted = forAdmin.namespaces.map((n) => n.name);
    expect(sorted).toEqual([...sorted].sort());
    expect(await names(asAdmin)).toEqual(forAdmin);
  });

  it("refuses a read-only token's writes with FORBIDDEN and serves its reads", async () => {
    await ok(asAlice, "remember", { namespace: "alice", key: "r.md", text: "readable" });
    expect(await ok(asReader, "get", { namespace: "alice", key: "r.md" })).toMatchObject({
      text: "readable",
    });
    for (const [tool, args] of [
      ["remember", { key: "r.md", text: "overwritten" }],
      ["forget", { key: "r.md" }],
      ["move", { from: "r.md", to: "moved.md" }],
    ] as const) {
      const answer = await refused(asReader, tool, { ...args, namespace: "alice" });
      expect(answer.code).toBe("FORBIDDEN");
      expect(answer.text).toMatch(/token reader is read-only/);
    }
    expect(await ok(asReader, "get", { namespace: "alice", key: "r.md" })).toMatchObject({
      text: "readable",
    });
  });

  it("refuses requests without a known token", async () => {
    expect(await accepted(server, "")).toBe(false);
    expect(await accepted(server, `${alice.token}x`)).toBe(false);
    expect(await accepted(server, alice.line)).toBe(false);
  });

  it("reloads when the file changes, and keeps the previous tokens when it is not valid", async () => {
    const carol = createToken(["--name", "carol", "--namespaces", "carol"]);
    expect(await accepted(server, carol.token)).toBe(false);
    writeFileSync(tokensFile, `${alice.line}\n${reader.line}\n${carol.line}\n`);
    await eventually(async () => expect(await accepted(server, carol.token)).toBe(true));

    const before = server.stderr().length;
    replaceFile(tokensFile, `${carol.line}\n{"name": "broken", "sha256": "00"}\n`);
    await eventually(async () =>
      expect(server.stderr().slice(before)).toMatch(
        /tokens file not reloaded, the previous tokens stay in force: .*line 2 \(\\"broken\\"\): sha256: expected the token's sha256/,
      ),
    );
    // alice is still in force: the broken file changed nothing.
    expect(await accepted(server, alice.token)).toBe(true);
    writeFileSync(tokensFile, `${alice.line}\n${reader.line}\n`);
    await eventually(async () => expect(await accepted(server, carol.token)).toBe(false));
  });

  it("keeps the tokens in force while a file rewritten in place is empty or half-written, however long the writer pauses", async () => {
    // A writer that truncates the file and then writes it (as writeFileSync and many editors
    // do) may be run late by a busy machine: the file can stay empty, or cut in a line, for
    // longer than the server's wait for a change to settle. The server saw it settled, read
    // it, and refused alice with 401 until the next change. Here the writer waits at each step
    // until the server has read what it left, so every step is seen, however slow either is.
    const dave = createToken(["--name", "dave", "--namespaces", "dave"]);
    const rewritten = `${alice.line}\n${dave.line}\n`;
    const cut = alice.line.length + 20;
    const file = await open(tokensFile, "w");
    try {
      let mark = server.stderr().length;
      await eventually(async () =>
        expect(server.stderr().slice(mark)).toMatch(
          /tokens file not reloaded, the previous tokens stay in force: .*holds no token/,
        ),
      );
      await ok(asAlice, "stats", { namespace: "alice" });
      expect(await accepted(server, alice.token)).toBe(true);

      mark = server.stderr().length;
      await file.write(rewritten.slice(0, cut));
      await eventually(async () =>
        expect(server.stderr().slice(mark)).toMatch(
          /tokens file not reloaded, the previous tokens stay in force: .*line 2: not a JSON object/,
        ),
      );
      await ok(asAlice, "stats", { namespace: "alice" });
      expect(await accepted(server, dave.token)).toBe(false);

      await file.write(rewritten.slice(cut));
    } finally {
      await file.close();
    }
    // The whole file is applied once it has settled: dave in, the reader out.
    await eventually(async () => expect(await accepted(server, dave.token)).toBe(true));
    expect(await accepted(server, reader.token)).toBe(false);
    writeFileSync(tokensFile, `${alice.line}\n${reader.line}\n`);
    await eventually(async () => expect(await accepted(server, dave.token)).toBe(false));
  });

  it("reloads on SIGHUP", async () => {
    const hup = createToken(["--name", "hup", "--namespaces", "hup"]);
    writeFileSync(tokensFile, `${alice.line}\n${hup.line}\n`);
    const before = server.stderr().length;
    server.child.kill("SIGHUP");
    await eventually(async () => {
      expect(server.stderr().slice(before)).toMatch(
        /"reason":"SIGHUP","tokens":2,.*tokens file reloaded/,
      );
      expect(await accepted(server, hup.token)).toBe(true);
    });
    expect(server.child.exitCode).toBeNull();
    writeFileSync(tokensFile, `${alice.line}\n${reader.line}\n`);
  });
});

describe("reads", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`never create a namespace (${transport})`, async () => {
      const data = tempDir();
      const started =
        transport === "stdio"
          ? await startStdio({ dataDir: data.dir, args: ["--namespace-arg"] })
          : await startHttpProcess({ dataDir: data.dir, args: ["--namespace-arg"] });
      const client = "client" in started ? started.client : await started.connect();
      try {
        const before = storeNamespaces(data.dir);
        for (let i = 0; i < 10; i++) {
          const namespace = `ghost-${i}`;
          expect((await refused(client, "get", { namespace, key: "a.md" })).code).toBe("NOT_FOUND");
          expect(await ok(client, "list", { namespace })).toMatchObject({ items: [] });
          expect(await ok(client, "recall", { namespace, query: "anything" })).toMatchObject({
            hits: [],
          });
          expect(await ok(client, "stats", { namespace })).toMatchObject({ memories: 0 });
        }
        expect(storeNamespaces(data.dir)).toEqual(before);
        // A write creates the namespace, and its reads see it.
        await ok(client, "remember", { namespace: "ghost-0", key: "a.md", text: "here now" });
        expect(await ok(client, "get", { namespace: "ghost-0", key: "a.md" })).toMatchObject({
          text: "here now",
        });
      } finally {
        await client.close();
        if ("stop" in started) await started.stop();
        data.remove();
      }
    });
  }
});

describe("--max-namespaces", () => {
  it("refuses to create one more namespace with LIMIT_REACHED, and serves those that exist", async () => {
    const data = tempDir();
    const server = await startStdio({
      dataDir: data.dir,
      args: ["--namespace-arg", "--max-namespaces", "3"],
    });
    try {
      // The default namespace, opened at start, is the first.
      await ok(server.client, "remember", { namespace: "one", key: "a.md", text: "1" });
      await ok(server.client, "remember", { namespace: "two", key: "a.md", text: "2" });
      const answer = await refused(server.client, "remember", {
        namespace: "three",
        key: "a.md",
        text: "3",
      });
      expect(answer.code).toBe("LIMIT_REACHED");
      expect(answer.text).toMatch(/namespace three cannot be created: .*most namespaces \(3/);
      expect(answer.meta.limit).toBe(3);
      await ok(server.client, "remember", { namespace: "two", key: "b.md", text: "still" });
      expect(await ok(server.client, "list", { namespace: "three" })).toMatchObject({ items: [] });
      expect(storeNamespaces(data.dir)).toHaveLength(3);
    } finally {
      await server.close();
      data.remove();
    }
  });
});

describe("a stdio server", () => {
  it("refuses --tokens-file, which applies to HTTP only", () => {
    const data = tempDir();
    const file = join(data.dir, "tokens.jsonl");
    writeFileSync(file, "");
    const result = spawnSync(
      process.execPath,
      [hmsMcpBin(), "--data-dir", data.dir, "--tokens-file", file],
      { env: cleanEnv(), encoding: "utf8", input: "" },
    );
    data.remove();
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      "hms-mcp: --tokens-file applies to HTTP only (--transport http): a stdio server is its parent's own process and serves it every namespace\n",
    );
  });
});
