// End to end, many clients and many processes: concurrent edits of one file from several tool
// instances, persistence across server restarts, namespaces and tokens on one HTTP server, and
// recall. Real hms-mcp processes throughout.
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { hmsMcpCommand, startHttpServer, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

const data = tempDir();
afterAll(() => data.remove());

const TOKEN = "e2e-token-0123456789";
let server: Awaited<ReturnType<typeof startHttpServer>>;
beforeAll(async () => {
  server = await startHttpServer({
    dataDir: `${data.dir}/http`,
    args: ["--namespace-arg"],
    env: { HMS_MCP_TOKEN: TOKEN },
  });
});
afterAll(() => server?.stop());

function overHttp(namespace: string): Promise<HolographicMemoryTool> {
  return HolographicMemoryTool.connect({
    connection: { url: server.url, token: TOKEN },
    namespace,
  });
}

function overStdio(dir: string): Promise<HolographicMemoryTool> {
  return HolographicMemoryTool.connect({
    connection: hmsMcpCommand(["--data-dir", dir, "--log-level", "warn"]),
  });
}

async function closeAll(tools: HolographicMemoryTool[]): Promise<void> {
  await Promise.all(tools.map((tool) => tool.close()));
}

/** The lines of a file, read through the tool. */
async function linesOf(tool: HolographicMemoryTool, path: string): Promise<string[]> {
  const output = await tool.view({ command: "view", path });
  return output
    .split("\n")
    .slice(1)
    .map((row) => row.replace(/^ *\d+\t/, ""));
}

describe("concurrent edits of one file from several tool instances", () => {
  it("over HTTP: 4 clients x 10 inserts and 10 replacements each, no update lost", async () => {
    const tools = await Promise.all([1, 2, 3, 4].map(() => overHttp("race")));
    try {
      const [first] = tools as [HolographicMemoryTool];
      const counters = tools.map((_, t) => `counter ${t}: 0`);
      await first.create({
        command: "create",
        path: "/memories/race.md",
        file_text: `${counters.join("\n")}\n`,
      });
      await Promise.all(
        tools.map(async (tool, t) => {
          for (let i = 0; i < 10; i++) {
            await Promise.all([
              tool.insert({
                command: "insert",
                path: "/memories/race.md",
                insert_line: 0,
                insert_text: `client ${t} line ${i}\n`,
              }),
              tool.str_replace({
                command: "str_replace",
                path: "/memories/race.md",
                old_str: `counter ${t}: ${i}\n`,
                new_str: `counter ${t}: ${i + 1}\n`,
              }),
            ]);
          }
        }),
      );
      const lines = await linesOf(first, "/memories/race.md");
      expect(lines).toHaveLength(44);
      for (let t = 0; t < 4; t++) {
        expect(lines).toContain(`counter ${t}: 10`);
        for (let i = 0; i < 10; i++) expect(lines).toContain(`client ${t} line ${i}`);
      }
    } finally {
      await closeAll(tools);
    }
  });

  it("over stdio: 3 server processes on one data directory, no update lost", async () => {
    const dir = `${data.dir}/processes`;
    const tools = await Promise.all([1, 2, 3].map(() => overStdio(dir)));
    try {
      const [first] = tools as [HolographicMemoryTool];
      await first.create({ command: "create", path: "/memories/shared.md", file_text: "" });
      await Promise.all(
        tools.map(async (tool, t) => {
          await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              tool.insert({
                command: "insert",
                path: "/memories/shared.md",
                insert_line: 0,
                insert_text: `process ${t} edit ${i}`,
              }),
            ),
          );
        }),
      );
      const lines = await linesOf(first, "/memories/shared.md");
      expect([...lines].sort()).toEqual(
        [0, 1, 2]
          .flatMap((t) => Array.from({ length: 8 }, (_, i) => `process ${t} edit ${i}`))
          .sort(),
      );
    } finally {
      await closeAll(tools);
    }
  });
});

describe("the file tree and versions across tool instances (two server processes, one store)", () => {
  it("two tools creating /memories/a and /memories/a/b.md at once: never both", async () => {
    const dir = `${data.dir}/tree-race`;
    const [one, two] = await Promise.all([overStdio(dir), overStdio(dir)]);
    try {
      for (let round = 0; round < 12; round++) {
        const base = `/memories/r${round}`;
        const [file, under] = await Promise.allSettled([
          one.create({ command: "create", path: base, file_text: "a file\n" }),
          two.create({ command: "create", path: `${base}/b.md`, file_text: "under it\n" }),
        ]);
        const refusal = (result: PromiseSettledResult<string>) =>
          result.status === "rejected" ? (result.reason as HolographicMemoryError).message : null;
        if (file.status === "fulfilled") {
          expect(refusal(under), `round ${round}`).toBe(
            `Cannot create ${base}/b.md because ${base} is a file, not a directory. Choose a path that is not inside ${base}.`,
          );
        } else {
          expect(under.status, `round ${round}`).toBe("fulfilled");
          expect(refusal(file), `round ${round}`).toBe(
            `Cannot create ${base} because it is a directory. Create a file inside it instead (a path starting with ${base}/).`,
          );
        }
      }
      // Each round left exactly one of the two, as the other tool sees it too.
      const listing = await one.view({ command: "view", path: "/memories" });
      for (let round = 0; round < 12; round++) {
        const base = `/memories/r${round}`;
        const asFile = listing.includes(`\t${base}\n`) || listing.endsWith(`\t${base}`);
        const asDirectory = listing.includes(`\t${base}/\n`) || listing.endsWith(`\t${base}/`);
        expect(asFile !== asDirectory, `${base} in ${listing}`).toBe(true);
      }
    } finally {
      await closeAll([one, two]);
    }
  });

  it("a delete and re-create between another tool's read and write is not overwritten", async () => {
    const dir = `${data.dir}/aba`;
    const [writer, other] = await Promise.all([overStdio(dir), overStdio(dir)]);
    try {
      await writer.create({ command: "create", path: "/memories/n.md", file_text: "count: 1\n" });
      // Between the writer's read and its compare-and-set, the other tool deletes the file and
      // creates it again (same first line, one more). A version reused after the re-create
      // would let the stale write through and lose "fresh".
      const backend = writer.backend as HmsMemoryBackend;
      const update = backend.update.bind(backend);
      const attempts: string[] = [];
      backend.update = async (path, content, version) => {
        if (attempts.length === 0) {
          await other.delete({ command: "delete", path: "/memories/n.md" });
          await other.create({
            command: "create",
            path: "/memories/n.md",
            file_text: "count: 1\nfresh\n",
          });
        }
        attempts.push(content);
        return update(path, content, version);
      };
      await writer.str_replace({
        command: "str_replace",
        path: "/memories/n.md",
        old_str: "count: 1",
        new_str: "count: 2",
      });
      // The first write (computed from the old file) was refused; the retry re-read the new one.
      expect(attempts).toEqual(["count: 2\n", "count: 2\nfresh\n"]);
      expect(await linesOf(other, "/memories/n.md")).toEqual(["count: 2", "fresh"]);
    } finally {
      await closeAll([writer, other]);
    }
  });
});

describe("persistence", () => {
  it("keeps memory files across a restart of a stdio server", async () => {
    const dir = `${data.dir}/restart`;
    const before = await overStdio(dir);
    await before.create({
      command: "create",
      path: "/memories/notes/kept.md",
      file_text: "kept\n",
    });
    await before.str_replace({
      command: "str_replace",
      path: "/memories/notes/kept.md",
      old_str: "kept",
      new_str: "kept, edited",
    });
    await before.close();
    const after = await overStdio(dir);
    try {
      expect(await after.view({ command: "view", path: "/memories/notes/kept.md" })).toBe(
        "Here's the content of /memories/notes/kept.md with line numbers:\n     1\tkept, edited",
      );
      expect((await after.recall("edited")).map((hit) => hit.path)).toEqual([
        "/memories/notes/kept.md",
      ]);
    } finally {
      await after.close();
    }
  });

  it("keeps them across a restart of an HTTP server; the old connection fails clearly", async () => {
    const dir = `${data.dir}/http-restart`;
    const first = await startHttpServer({ dataDir: dir });
    const before = await HolographicMemoryTool.connect({ connection: { url: first.url } });
    await before.create({ command: "create", path: "/memories/a.md", file_text: "survives\n" });
    await first.stop();
    const lost = await before.view({ command: "view", path: "/memories" }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(HolographicMemoryError);
    expect((lost as HolographicMemoryError).code).toBe("CONNECTION_CLOSED");
    await before.close();
    const second = await startHttpServer({ dataDir: dir });
    const after = await HolographicMemoryTool.connect({ connection: { url: second.url } });
    try {
      expect(await after.view({ command: "view", path: "/memories/a.md" })).toBe(
        "Here's the content of /memories/a.md with line numbers:\n     1\tsurvives",
      );
    } finally {
      await after.close();
      await second.stop();
    }
  });
});

describe("namespaces on one HTTP server", () => {
  it("keep two users' memory files apart, under the same paths", async () => {
    const alice = await overHttp("alice");
    const bob = await overHttp("bob");
    try {
      await alice.create({
        command: "create",
        path: "/memories/profile.md",
        file_text: "Alice likes tea\n",
      });
      expect(await bob.view({ command: "view", path: "/memories" })).toBe(
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      );
      expect(await bob.recall("tea")).toEqual([]);
      await bob.create({
        command: "create",
        path: "/memories/profile.md",
        file_text: "Bob likes coffee\n",
      });
      expect(await linesOf(alice, "/memories/profile.md")).toEqual(["Alice likes tea"]);
      expect(await linesOf(bob, "/memories/profile.md")).toEqual(["Bob likes coffee"]);
      await bob.delete({ command: "delete", path: "/memories/profile.md" });
      expect(await linesOf(alice, "/memories/profile.md")).toEqual(["Alice likes tea"]);
    } finally {
      await closeAll([alice, bob]);
    }
  });

  it("refuse a client with a wrong token", async () => {
    await expect(
      HolographicMemoryTool.connect({
        connection: { url: server.url, token: "wrong" },
        namespace: "alice",
      }),
    ).rejects.toThrow(/it refused the request \(HTTP 401\)/);
  });
});

describe("recall", () => {
  let memory: HolographicMemoryTool;
  beforeAll(async () => {
    memory = await overHttp("recall");
    const files: Record<string, string> = {
      "/memories/customers/acme.md":
        "# Acme Corp\n- Industry: logistics\n- Prefers email follow-ups, never phone calls\n- Contact: Dana\n",
      "/memories/customers/globex.md": "# Globex\n- Prefers phone calls on Fridays\n",
      "/memories/projects/roadmap.md": "Q3: ship the importer\nQ4: hire two engineers\n",
      "/memories/style.md": "Answer briefly. Use bullet points.\n",
      "/memories/客户/阿克米.md": "# 阿克米公司\n- 行业：物流\n- 客户喜欢通过电子邮件跟进\n",
    };
    for (const [path, file_text] of Object.entries(files)) {
      await memory.create({ command: "create", path, file_text });
    }
    // A memory in the same store that is not a memory file: recall over files must skip it.
    await (memory.backend as HmsMemoryBackend).call("remember", {
      key: "crm/acme-email-follow-ups",
      text: "email follow-ups for Acme",
    });
  });
  afterAll(() => memory?.close());

  it("finds the most relevant file first, with an excerpt inside its line range", async () => {
    const hits = await memory.recall("how does Acme want follow-ups? email?", 3);
    expect(hits[0]?.path).toBe("/memories/customers/acme.md");
    expect(hits.every((hit) => hit.path.startsWith("/memories/"))).toBe(true);
    const top = hits[0] as (typeof hits)[number];
    const lines = await memory.view({
      command: "view",
      path: top.path,
      view_range: [top.lineStart, top.lineEnd],
    });
    const shown = lines
      .split("\n")
      .slice(1)
      .map((row) => row.replace(/^ *\d+\t/, ""))
      .join("\n");
    expect(shown).toContain(top.excerpt.replace(/\n$/, ""));
    expect(top.excerpt).toContain("email follow-ups");
  });

  it("scores on an absolute scale, not against the best hit: a weak best match scores low", async () => {
    // One file holds every rare word of the query: a strong match, though not 1.
    const strong = await memory.recall("Acme logistics Dana", 3);
    expect(strong[0]?.path).toBe("/memories/customers/acme.md");
    expect(strong[0]?.score).toBeGreaterThan(0.3);
    expect(strong[0]?.score).toBeLessThan(1);
    // No file holds "zeppelin", "hangar" or "bicycle": the best hit, matching only "phone",
    // scores low, where a score relative to it would be 1.
    const weak = await memory.recall("zeppelin hangar bicycle phone", 5);
    expect(weak.length).toBeGreaterThan(1);
    expect(weak[0]?.score).toBeLessThan(0.1);
    for (const [i, hit] of weak.entries()) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.score).toBeLessThanOrEqual(i === 0 ? 1 : (weak[i - 1]?.score ?? 1));
    }
  });

  it("as the memory_recall tool, lists each hit's path, lines, score, last change and excerpt", async () => {
    const output = await memory.recallTool().run({ query: "Acme email follow-ups", k: 1 });
    expect(output).toMatch(
      /^Found 1 memory file matching the query, most relevant first\. View a file with the memory tool to read all of it; view_range \[start, end\] shows just the lines given for a hit\.\n\n1\. \/memories\/customers\/acme\.md \(lines? \d+(-\d+)?, score 0\.[3-9]\d{3}, modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)\n {4}/,
    );
    expect(output).toContain("    - Prefers email follow-ups, never phone calls");
  });

  it("by time: only the files changed in the range, each hit with its last change", async () => {
    const timed = await overHttp("recall-by-time");
    try {
      const backend = timed.backend as HmsMemoryBackend;
      const create = (path: string) =>
        timed.create({ command: "create", path, file_text: "heron sighting\n" });
      await create("/memories/old.md");
      const first = (await backend.call("get", { key: "/memories/old.md" })).updated_at;
      // The next write must carry a later millisecond (the first was written before get answered).
      await new Promise((resolve) => setTimeout(resolve, 2));
      await create("/memories/new.md");
      const second = (await backend.call("get", { key: "/memories/new.md" })).updated_at;

      const newer = await timed.recall("heron", 5, { modifiedAfter: second });
      expect(newer.map((hit) => [hit.path, hit.updatedAt])).toEqual([["/memories/new.md", second]]);
      const older = await timed.recall("heron", 5, { modifiedBefore: second });
      expect(older.map((hit) => [hit.path, hit.updatedAt])).toEqual([["/memories/old.md", first]]);

      const text = await timed.recallTool().run({ query: "heron", modified_before: second });
      expect(text).toMatch(
        new RegExp(
          `^Found 1 memory file modified before ${second.replaceAll(".", "\\.")} matching the query, most relevant first\\. .*\n\n1\\. /memories/old\\.md \\(line 1, score 0\\.\\d{4}, modified ${first.replaceAll(".", "\\.")}\\)\n {4}heron sighting$`,
        ),
      );
      const refused = await Promise.resolve(
        timed.recallTool().run({ query: "heron", modified_after: "yesterday" }),
      ).catch((e: unknown) => e);
      expect((refused as Error).message).toBe(
        "Invalid `modified_after` parameter: expected an ISO 8601 time with a timezone, such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00.",
      );
    } finally {
      await timed.close();
    }
  });

  it("finds a Chinese file by a word inside an unspaced sentence, with its own line", async () => {
    const [hit, ...rest] = await memory.recall("电子邮件", 5);
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({ path: "/memories/客户/阿克米.md", lineEnd: 3 });
    // The only file holding the query's bigrams, all of them, though in a file longer (in
    // bigrams) than most: a good match, not 1.
    expect(hit?.score).toBeGreaterThan(0.2);
    expect(hit?.score).toBeLessThan(1);
    expect(hit?.excerpt).toContain("客户喜欢通过电子邮件跟进");
  });

  it("says so when nothing matches, and refuses bad input with the shared messages", async () => {
    expect(await memory.recallTool().run({ query: "zebra quantum" })).toBe(
      "No memory files matched the query. View /memories to see every file.",
    );
    const refused = await Promise.resolve(memory.recallTool().run({ query: "acme", k: 0 })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(HolographicMemoryError);
    expect((refused as Error).message).toBe("Invalid `k` parameter: 0. It should be from 1 to 50.");
    await expect(memory.recall("")).rejects.toThrow(
      "Invalid `query` parameter: it is empty. Give words or a question to search the memory files for.",
    );
  });
});
