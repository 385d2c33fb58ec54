/**
 * The Prometheus metrics of real hms-mcp processes: /metrics on the HTTP listener behind the
 * token (a token of the tokens file needs the `metrics` grant, as `hms-mcp token create
 * --metrics` makes it), what is counted, that no label holds a key, a query or a text, the
 * per-namespace series behind their flag, --no-metrics, and --metrics-port on a stdio server
 * (a full disk: metrics-disk-full.test.ts).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  call,
  cleanEnv,
  type HttpProcess,
  hmsMcpBin,
  ok,
  parseExposition,
  type Sample,
  sampleValue,
  scrape,
  startHttpProcess,
  startStdio,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "./http-raw.js";

/** `hms-mcp token create ...`: the token and the tokens-file line it prints. */
function createToken(args: string[]): { token: string; line: string } {
  const result = spawnSync(process.execPath, [hmsMcpBin(), "token", "create", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const lines = result.stdout.split("\n").map((line) => line.trim());
  return { token: lines[1] as string, line: lines[3] as string };
}

/** A tokens-file line for `token`, granted `namespaces` (no metrics). */
function tokenLine(name: string, token: string, namespaces: string[]): string {
  const sha256 = createHash("sha256").update(token).digest("hex");
  return JSON.stringify({ name, sha256, namespaces, access: "read-write" });
}

/**
 * Scrapes until `ready` holds for the samples (the store's totals are counted in the
 * background), at most `tries` times; returns the last samples.
 */
async function scrapeUntil(
  url: string,
  token: string | undefined,
  ready: (samples: Sample[]) => boolean,
  tries = 300,
): Promise<{ samples: Sample[]; text: string }> {
  for (let i = 1; ; i++) {
    const { status, text } = await scrape(url, token);
    expect(status).toBe(200);
    const samples = parseExposition(text);
    if (ready(samples) || i === tries) return { samples, text };
    await sleep(100);
  }
}

/** What each test writes, each string unlike anything a metric would say of itself. */
const SECRET_KEY = "zq-key-4410";
const SECRET_TEXT = "zq-text-8821 the memory's own words";
const SECRET_QUERY = "zq-query-1937";
const SECRET_TOOL = "zq-tool-5546";

describe("/metrics on the HTTP listener", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const admin = "admin-token-".repeat(3);
  const alice = "alice-token-".repeat(3);
  const scraper = createToken(["--name", "scraper", "--metrics"]);
  let server: HttpProcess;
  let metricsUrl: string;
  let asAlice: Client;

  beforeAll(async () => {
    // The scraper's line is the command's own: a metrics grant and no namespace.
    expect(JSON.parse(scraper.line)).toMatchObject({ namespaces: [], metrics: true });
    writeFileSync(tokensFile, `${tokenLine("alice", alice, ["alice"])}\n${scraper.line}\n`);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile, "--metrics-totals-refresh", "1"],
      env: { HMS_MCP_TOKEN: admin },
    });
    metricsUrl = new URL("/metrics", server.url).href;
    asAlice = await server.connect(alice);
  });
  afterAll(async () => {
    await asAlice?.close();
    await server?.stop();
    data.remove();
  });

  it("answers only a token granted metrics", async () => {
    const none = await scrape(metricsUrl);
    expect(none.status).toBe(401);
    const wrong = await scrape(metricsUrl, "not-a-token");
    expect(wrong.status).toBe(401);
    const denied = await scrape(metricsUrl, alice);
    expect(denied.status).toBe(403);
    expect(denied.text).toContain("token create --metrics");
    const granted = await scrape(metricsUrl, scraper.token);
    expect(granted.status).toBe(200);
    expect(granted.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
    // HMS_MCP_TOKEN opens everything, the metrics too; the scraper's token opens nothing else.
    expect((await scrape(metricsUrl, admin)).status).toBe(200);
    await expect(
      server.connect(scraper.token).then((c) => ok(c, "stats", { namespace: "alice" })),
    ).rejects.toThrow(/NOT_FOUND/);
    const samples = parseExposition(granted.text);
    expect(sampleValue(samples, "hms_auth_refusals_total", { reason: "unauthenticated" })).toBe(2);
    expect(sampleValue(samples, "hms_auth_refusals_total", { reason: "metrics" })).toBe(1);
    // prom-client's process defaults.
    expect(sampleValue(samples, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(sampleValue(samples, "nodejs_eventloop_lag_seconds")).toBeDefined();
  });

  it("counts calls, sessions, subscriptions, refusals and the store, with no key, query or text in a label", async () => {
    await ok(asAlice, "remember", {
      namespace: "alice",
      key: `/memories/${SECRET_KEY}.md`,
      text: SECRET_TEXT,
    });
    await ok(asAlice, "recall", { namespace: "alice", query: SECRET_QUERY });
    await ok(asAlice, "search", { namespace: "alice", text: SECRET_QUERY });
    expect(
      (await call(asAlice, "get", { namespace: "alice", key: "/memories/none.md" })).isError,
    ).toBe(true);
    expect(
      (await call(asAlice, "get", { namespace: "bob", key: `${SECRET_KEY}.md` })).isError,
    ).toBe(true);
    await expect(call(asAlice, SECRET_TOOL, { key: SECRET_KEY })).rejects.toThrow(/Unknown tool/);
    await asAlice.subscribeResource({ uri: "hms-mcp://alice/%2Fmemories" });

    // Until the store's totals were counted again after the write (every second here).
    const { samples, text } = await scrapeUntil(
      metricsUrl,
      scraper.token,
      (s) => sampleValue(s, "hms_memories") === 1,
    );
    const calls = (labels: Record<string, string>) =>
      sampleValue(samples, "hms_tool_calls_total", labels);
    expect(calls({ tool: "remember", outcome: "ok" })).toBe(1);
    expect(calls({ tool: "recall", outcome: "ok" })).toBe(1);
    expect(calls({ tool: "get", outcome: "NOT_FOUND" })).toBe(2);
    expect(calls({ tool: "unknown", outcome: "invalid_params" })).toBe(1);
    expect(sampleValue(samples, "hms_tool_call_duration_seconds_count", { tool: "remember" })).toBe(
      1,
    );
    // Alice's get in bob, and the scraper's stats in the test before.
    expect(sampleValue(samples, "hms_auth_refusals_total", { reason: "namespace" })).toBe(2);
    expect(sampleValue(samples, "hms_sessions")).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, "hms_subscriptions")).toBe(1);
    expect(sampleValue(samples, "hms_fair_queue_wait_seconds_count")).toBeGreaterThanOrEqual(6);
    expect(sampleValue(samples, "hms_http_requests_total", { status: "200" })).toBeGreaterThan(0);
    expect(sampleValue(samples, "hms_disk_full_total")).toBe(0);
    // The default namespace (made at start) and alice.
    expect(sampleValue(samples, "hms_namespaces")).toBe(2);
    expect(sampleValue(samples, "hms_store_bytes")).toBe(Buffer.byteLength(SECRET_TEXT));
    expect(sampleValue(samples, "hms_store_totals_age_seconds")).toBeGreaterThanOrEqual(0);
    const engine = samples.find((s) => s.name === "hms_build_info")?.labels.engine;
    if (engine === "postgres") {
      expect(sampleValue(samples, "hms_pg_pool_connections", { state: "in_use" })).toBeDefined();
      expect(sampleValue(samples, "hms_pg_pool_waiting")).toBe(0);
    } else {
      expect(engine).toBe("sqlite");
      expect(sampleValue(samples, "hms_store_disk_bytes")).toBeGreaterThan(0);
    }
    // Nothing the client chose appears: not the key, the text, the query or the tool's name,
    // and by default no namespace either.
    for (const secret of ["zq-", "alice"]) expect(text).not.toContain(secret);
    expect(samples.some((sample) => "namespace" in sample.labels)).toBe(false);
  });
});

describe("metrics by flag", () => {
  it("--metrics-per-namespace adds each namespace's memories and bytes", async () => {
    const data = tempDir();
    const server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--metrics-per-namespace", "--metrics-totals-refresh", "1"],
    });
    try {
      const client = await server.connect();
      await ok(client, "remember", { namespace: "red", key: "a.md", text: "12345" });
      await ok(client, "remember", { namespace: "blue", key: "b.md", text: "123" });
      await client.close();
      const url = new URL("/metrics", server.url).href;
      const { samples } = await scrapeUntil(
        url,
        undefined,
        (s) => sampleValue(s, "hms_namespace_bytes", { namespace: "blue" }) === 3,
      );
      expect(sampleValue(samples, "hms_namespace_bytes", { namespace: "red" })).toBe(5);
      expect(sampleValue(samples, "hms_namespace_memories", { namespace: "red" })).toBe(1);
      expect(sampleValue(samples, "hms_memories")).toBe(2);
    } finally {
      await server.stop();
      data.remove();
    }
  });

  it("--no-metrics serves none: /metrics is not found", async () => {
    const data = tempDir();
    const server = await startHttpProcess({ dataDir: data.dir, args: ["--no-metrics"] });
    try {
      const answer = await scrape(new URL("/metrics", server.url).href);
      expect(answer.status).toBe(404);
      expect(answer.text).not.toContain("hms_");
      expect(server.stderr()).toContain('"metrics":false');
    } finally {
      await server.stop();
      data.remove();
    }
  });

  it("--metrics-port serves a stdio server's metrics on loopback, with no token", async () => {
    const data = tempDir();
    const server = await startStdio({
      dataDir: data.dir,
      args: ["--metrics-port", "0", "--log-level", "info"],
    });
    try {
      // The start-up line says where (it may follow the connect by a moment).
      let url: string | undefined;
      for (let i = 0; i < 300 && url === undefined; i++) {
        url = /"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.stderr())?.[1];
        if (url === undefined) await sleep(100);
      }
      expect(url).toBeDefined();
      await ok(server.client, "remember", { key: "a.md", text: "one" });
      await ok(server.client, "get", { key: "a.md" });
      const { samples } = await scrapeUntil(url as string, undefined, () => true, 1);
      expect(sampleValue(samples, "hms_tool_calls_total", { tool: "get", outcome: "ok" })).toBe(1);
      expect(sampleValue(samples, "hms_sessions")).toBe(1);
      // Only /metrics, and only to loopback names (no DNS rebinding).
      const port = new URL(url as string).port;
      expect((await raw(url as string, { method: "GET", path: "/mcp" })).status).toBe(404);
      const rebound = await raw(url as string, {
        method: "GET",
        headers: { host: `evil.example:${port}` },
      });
      expect(rebound.status).toBe(403);
    } finally {
      await server.close();
      data.remove();
    }
  });
});
