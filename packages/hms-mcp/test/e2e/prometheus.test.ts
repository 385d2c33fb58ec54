/**
 * A real Prometheus (Debian's `prometheus`) scrapes a running hms-mcp with a metrics-only
 * token, as an operator would set it up, and a counter is read back through Prometheus's HTTP
 * API: the exposition is one Prometheus accepts, the token works, and the counts are right.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  cleanEnv,
  type HttpProcess,
  hmsMcpBin,
  ok,
  type PrometheusServer,
  startHttpProcess,
  startPrometheus,
  tempDir,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Polls `read` until it gives `wanted` (Prometheus scrapes every second), counting polls. */
async function until<T>(read: () => Promise<T>, wanted: T): Promise<T> {
  let last: T | undefined;
  for (let poll = 0; poll < 300; poll++) {
    last = await read();
    if (last === wanted) return last;
    await sleep(200);
  }
  return last as T;
}

describe("Prometheus scraping hms-mcp", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const alice = "alice-token-".repeat(3);
  let server: HttpProcess;
  let prometheus: PrometheusServer;

  beforeAll(async () => {
    const created = spawnSync(
      process.execPath,
      [hmsMcpBin(), "token", "create", "--name", "prometheus", "--metrics"],
      { env: cleanEnv(), encoding: "utf8" },
    );
    expect(created.status).toBe(0);
    const [, token, , line] = created.stdout.split("\n").map((text) => text.trim());
    const sha256 = createHash("sha256").update(alice).digest("hex");
    writeFileSync(
      tokensFile,
      `${line}\n${JSON.stringify({ name: "alice", sha256, namespaces: ["alice"], access: "read-write" })}\n`,
    );
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile],
    });
    const url = new URL(server.url);
    prometheus = await startPrometheus({
      target: url.host,
      path: "/metrics",
      bearerToken: token as string,
    });
  });
  afterAll(async () => {
    await prometheus?.stop();
    await server?.stop();
    data.remove();
  });

  it("reads the tool call counter through its query API", async () => {
    const client = await server.connect(alice);
    try {
      for (let i = 0; i < 3; i++) {
        await ok(client, "remember", { namespace: "alice", key: `n${i}.md`, text: `note ${i}` });
      }
      await ok(client, "get", { namespace: "alice", key: "n0.md" });
    } finally {
      await client.close();
    }
    // Each value is polled: a scrape that missed its 1 s timeout on a busy machine marks the
    // target's series stale until the next one succeeds.
    const remembered = 'sum(hms_tool_calls_total{job="hms",tool="remember",outcome="ok"})';
    expect(await until(() => prometheus.query(remembered), 3)).toBe(3);
    const got = 'hms_tool_calls_total{tool="get",outcome="ok"}';
    expect(await until(() => prometheus.query(got), 1)).toBe(1);
    expect(await until(() => prometheus.query('up{job="hms"}'), 1)).toBe(1);
    const healthy = async () => JSON.stringify(await prometheus.targets());
    const target = { job: "hms", health: "up", lastError: "" };
    expect(JSON.parse(await until(healthy, JSON.stringify([target])))).toEqual([target]);
    // The server counted its HTTP answers, and refused none of the scrapes.
    const answered = 'hms_http_requests_total{status="200"} > bool 0';
    expect(await until(() => prometheus.query(answered), 1)).toBe(1);
    const unauthenticated = 'hms_auth_refusals_total{reason="unauthenticated"}';
    expect(await until(() => prometheus.query(unauthenticated), 0)).toBe(0);
  });
});
