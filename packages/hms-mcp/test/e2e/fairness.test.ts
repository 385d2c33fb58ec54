/**
 * Tool calls of different clients share the server fairly, against a real server on either
 * engine: while one token has a backlog of recalls and exports, another token's call runs
 * after at most the few of them already running, not after the whole backlog; and a token's
 * calls past its bound in flight are refused (429, Retry-After) rather than queued. Told by
 * the order in which answers come, never by timing.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HttpProcess, ok, startHttpProcess, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, rawSession, toolCall } from "./http-raw.js";

const WORDS =
  "memory project deadline meeting notes design review budget client release plan risk team".split(
    " ",
  );

/** A memory file of some 2 KB of words, different for each `i`. */
function fileText(i: number): string {
  const words: string[] = [];
  for (let w = 0; w < 300; w++) words.push(WORDS[(i * 7 + w * 13) % WORDS.length] as string);
  return `# Notes ${i}\n${words.join(" ")}\n`;
}

/** The tokens file's line of a read-write token named `name` for the default namespace. */
function tokenLine(name: string, token: string): string {
  return JSON.stringify({
    name,
    sha256: createHash("sha256").update(token).digest("hex"),
    namespaces: ["default"],
    access: "read-write",
  });
}

const tokenA = "token-of-a-".repeat(4);
const tokenB = "token-of-b-".repeat(4);

/** A server with tokens a and b, `args`, and 400 memory files under /memories/. */
function seededServer(args: string[]): () => HttpProcess {
  const data = tempDir();
  let server: HttpProcess;
  beforeAll(async () => {
    const tokensFile = join(data.dir, "tokens.jsonl");
    writeFileSync(tokensFile, `${tokenLine("a", tokenA)}\n${tokenLine("b", tokenB)}\n`);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--log-level", "info", "--tokens-file", tokensFile, ...args],
    });
    const client = await server.connect(tokenB);
    for (let i = 0; i < 400; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, (_, j) =>
          ok(client, "remember", { key: `/memories/notes-${i + j}.md`, text: fileText(i + j) }),
        ),
      );
    }
    await client.close();
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });
  return () => server;
}

/** A JSON-RPC request body. */
function request(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** Token a's burst: `count` requests (`bodyOf` each), all sent at once. */
function burst(
  url: string,
  session: Record<string, string>,
  count: number,
  bodyOf: (i: number) => string = recallOrExport,
) {
  let answered = 0;
  const statuses = Array.from({ length: count }, (_, i) =>
    raw(url, { headers: session, body: bodyOf(i) }).then((answer) => {
      answered++;
      return answer;
    }),
  );
  return { answers: Promise.all(statuses), answered: () => answered };
}

/** Recalls and exports of the memory files, in turn. */
function recallOrExport(i: number): string {
  return i % 2 === 0
    ? toolCall(100 + i, "recall", { query: `${WORDS[i % WORDS.length]} notes`, k: 20 })
    : toolCall(100 + i, "export", { prefix: "/memories/", limit: 200 });
}

/** Requests other than tool calls, in turn: recall prompts and resource lists. */
function promptOrList(i: number): string {
  return i % 2 === 0
    ? request(100 + i, "prompts/get", {
        name: "recall",
        arguments: { query: `${WORDS[i % WORDS.length]} notes`, k: "20" },
      })
    : request(100 + i, "resources/list", {});
}

/**
 * Token a's backlog, and the most of it that may be answered between the moment b's call is
 * sent and its answer.
 */
const BACKLOG = 60;
const MOST_DURING = 20;

/**
 * Sends token a a backlog of {@link BACKLOG} requests (`bodyOf`), then token b's get once a's
 * first answer came, and checks that b was answered after only a few of a's.
 */
async function expectNotHeldUp(url: string, bodyOf: (i: number) => string): Promise<void> {
  const sessionA = await rawSession(url, { authorization: `Bearer ${tokenA}` });
  const sessionB = await rawSession(url, { authorization: `Bearer ${tokenB}` });
  const count = BACKLOG;
  const a = burst(url, sessionA, count, bodyOf);
  // Once a's first answer came, the server is working through a's backlog.
  while (a.answered() === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const before = a.answered();
  const got = await raw(url, {
    headers: sessionB,
    body: toolCall(1, "get", { key: "/memories/notes-7.md" }),
  });
  const during = a.answered() - before;
  expect(got.status).toBe(200);
  expect(JSON.parse(got.body).result.structuredContent).toMatchObject({ text: fileText(7) });
  // a still had a backlog when b was answered...
  expect(count - a.answered()).toBeGreaterThanOrEqual(10);
  // ...and b did not wait for it: only for the calls of a already running when it came (on
  // SQLite one; on PostgreSQL at most a quarter of the pool's 10 connections) and those that
  // end while b's request comes and b's own call runs, not for the backlog (before the fair
  // order, b came after 39 of 40 on SQLite, 24 to 33 of 40 on PostgreSQL; 59 and 38-51 of
  // 60). Those are sometimes more than a few: 11 on PostgreSQL beside another suite's
  // servers, 12 on SQLite alone, which a bound of 10 in a backlog of 40 left no room for.
  expect(during).toBeLessThanOrEqual(MOST_DURING);
  const answers = await a.answers;
  expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(200));
  expect(answers.every((answer) => JSON.parse(answer.body).result !== undefined)).toBe(true);
}

describe("a token's backlog of recalls and exports", () => {
  const server = seededServer(["--max-in-flight-per-token", "64"]);

  it("does not hold up another token's call: it runs after the few calls already running", () =>
    expectNotHeldUp(server().url, recallOrExport));
});

describe("a token's backlog of recall prompts and resource lists", () => {
  const server = seededServer(["--max-in-flight-per-token", "64"]);

  it("waits in the same fair order as tool calls: another token's call does not wait for it", () =>
    expectNotHeldUp(server().url, promptOrList));
});

describe("a token's calls past its bound in flight", () => {
  const server = seededServer([]);

  it("are refused with 429 and Retry-After, and another token's calls are served", async () => {
    const url = server().url;
    const sessionA = await rawSession(url, { authorization: `Bearer ${tokenA}` });
    const sessionB = await rawSession(url, { authorization: `Bearer ${tokenB}` });
    const a = burst(url, sessionA, 60);
    const got = await raw(url, {
      headers: sessionB,
      body: toolCall(1, "get", { key: "/memories/notes-3.md" }),
    });
    expect(got.status).toBe(200);
    const answers = await a.answers;
    const refused = answers.filter((answer) => answer.status === 429);
    // --max-in-flight-per-token is 16: of 60 sent at once, most wait for none of them.
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.every((answer) => [200, 429].includes(answer.status))).toBe(true);
    expect(refused[0]?.headers["retry-after"]).toBe("1");
    expect(JSON.parse(refused[0]?.body ?? "{}").error.message).toContain(
      "Too many requests in flight: this client already has 16",
    );
  });
});
