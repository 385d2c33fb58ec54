/**
 * hms-mcp on PostgreSQL (--database-url), against a real PostgreSQL cluster of its own (this
 * file stops and starts it): starting and refusing to start, `hms-mcp migrate`, UNAVAILABLE
 * while the database is away and recovery without a restart, the /healthz and /readyz probes,
 * and a database URL's password never printed.
 */
import { spawnSync } from "node:child_process";
import {
  cleanEnv,
  hmsMcpBin,
  ok,
  type PostgresServer,
  refused,
  startHttpProcess,
  startPostgres,
  startStdio,
  tempDir,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A password the cluster never checks (trust authentication), so it can be looked for. */
const PASSWORD = "pw-Zq81-never-printed";

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(env),
    encoding: "utf8",
    input: "",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Exactly one line on stderr, starting with `prefix`, no stack trace, nothing on stdout. */
function expectOneLine(result: ReturnType<typeof run>, prefix: string, pattern: RegExp): void {
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")).toHaveLength(2);
  expect(result.stderr.startsWith(prefix)).toBe(true);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain(PASSWORD);
}

/** `url` with the user's password set to {@link PASSWORD}. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

async function probe(base: string, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL(path, base));
  return { status: response.status, body: await response.text() };
}

let pg: PostgresServer;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(() => pg?.remove());

describe("a server on PostgreSQL", () => {
  it("serves the tools from the database, every namespace in it", async () => {
    const url = pg.createDatabase("serve");
    const first = await startStdio({ databaseUrl: url, args: ["--namespace-arg"] });
    try {
      await ok(first.client, "remember", { key: "/memories/a.md", text: "alpha\nbeta\n" });
      await ok(first.client, "remember", { key: "k", text: "in b", namespace: "b" });
      const stats = await ok<{ memories: number; max_text_bytes: number }>(first.client, "stats");
      expect(stats.memories).toBe(1);
      expect(stats.max_text_bytes).toBeGreaterThan(0);
    } finally {
      await first.close();
    }
    // A second process on the same database sees what the first wrote.
    const second = await startStdio({ databaseUrl: url, args: ["--namespace-arg"] });
    try {
      const got = await ok<{ text: string; version: number }>(second.client, "get", {
        key: "/memories/a.md",
      });
      expect(got.text).toBe("alpha\nbeta\n");
      const other = await ok<{ text: string }>(second.client, "get", { key: "k", namespace: "b" });
      expect(other.text).toBe("in b");
      // Reads never create a namespace, as on SQLite.
      await refused(second.client, "get", { key: "k", namespace: "never-written" });
      expect(
        pg.psql("SELECT name FROM hms_namespaces ORDER BY name", new URL(url).pathname.slice(1)),
      ).toBe("b\ndefault\n");
    } finally {
      await second.close();
    }
  });

  it("refuses a URL that is not PostgreSQL's without repeating it", () => {
    const result = run(["--database-url", `mysql://root:${PASSWORD}@localhost/db`]);
    expect(result.status).toBe(2);
    expectOneLine(result, "hms-mcp: ", /its scheme is mysql: .*postgres:\/\/ or postgresql:\/\//);
  });

  it("refuses --data-dir with --database-url, and says which to drop", () => {
    const data = tempDir();
    try {
      const result = run(["--data-dir", data.dir], {
        HMS_MCP_DATABASE_URL: withPassword(pg.url),
      });
      expect(result.status).toBe(2);
      expectOneLine(result, "hms-mcp: ", /drop --data-dir .* or drop\s+--database-url/);
    } finally {
      data.remove();
    }
  });

  it("refuses a missing --model-dir, and PostgreSQL's flags without a URL", () => {
    const hybrid = run(["--database-url", pg.url, "--model-dir", "/nonexistent"]);
    expect(hybrid.status).toBe(2);
    expectOneLine(hybrid, "hms-mcp: ", /--model-dir \/nonexistent: .* is not installed/);
    const pool = run(["--pg-pool-size", "4", "--no-migrate"]);
    expect(pool.status).toBe(2);
    expectOneLine(pool, "hms-mcp: ", /--pg-pool-size and --no-migrate apply to PostgreSQL only/);
  });

  it("says in one line, without the password, that the database cannot be reached or used", () => {
    const unreachable = run(["--database-url", `postgres://hms:${PASSWORD}@127.0.0.1:1/hms`]);
    expect(unreachable.status).toBe(2);
    expectOneLine(
      unreachable,
      "hms-mcp: ",
      /cannot use the PostgreSQL database postgres:\/\/hms:\*\*\*@127\.0\.0\.1:1\/hms \(connect ECONNREFUSED/,
    );
    const stranger = new URL(withPassword(pg.url));
    stranger.username = "nobody";
    const refusedLogin = run(["--database-url", stranger.toString()]);
    expect(refusedLogin.status).toBe(2);
    expectOneLine(refusedLogin, "hms-mcp: ", /role "nobody" does not exist/);
  });

  it("with --no-migrate refuses an old schema until `hms-mcp migrate` has run", async () => {
    const url = pg.createDatabase("migrate");
    const early = run(["--database-url", url, "--no-migrate"]);
    expect(early.status).toBe(2);
    expectOneLine(early, "hms-mcp: ", /schema is at version 0 .* run `hms-mcp migrate/);

    const migrated = run(["migrate", "--database-url", withPassword(url)]);
    expect(migrated.status).toBe(0);
    expect(migrated.stderr).toMatch(/migrated from schema 0 to \d+/);
    expect(migrated.stderr).not.toContain(PASSWORD);
    const again = run(["migrate"], { HMS_MCP_DATABASE_URL: url });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/is at schema \d+, nothing to do/);

    const server = await startStdio({ databaseUrl: url, args: ["--no-migrate"] });
    try {
      await ok(server.client, "remember", { key: "k", text: "migrated" });
    } finally {
      await server.close();
    }
  });

  it("`hms-mcp migrate` exits 1 with one line when the database is unreachable, 2 without a URL", () => {
    const result = run(["migrate", "--database-url", `postgres://hms:${PASSWORD}@127.0.0.1:1/x`]);
    expect(result.status).toBe(1);
    expectOneLine(result, "hms-mcp migrate: ", /cannot use the PostgreSQL database .*ECONNREFUSED/);
    const missing = run(["migrate"]);
    expect(missing.status).toBe(2);
    expectOneLine(missing, "hms-mcp migrate: ", /--database-url .* is not usable: it is missing/);
  });
});

describe("the database going away and coming back", () => {
  it("answers UNAVAILABLE and readyz 503 while it is stopped, and serves again after, without a restart", async () => {
    const url = withPassword(pg.createDatabase("outage"));
    const server = await startHttpProcess({ databaseUrl: url, args: ["--log-level", "debug"] });
    const client = await server.connect();
    let stopped = false;
    try {
      await ok(client, "remember", { key: "k", text: "before" });
      expect(await probe(server.url, "/readyz")).toEqual({ status: 200, body: '{"status":"ok"}' });

      pg.stopServer();
      stopped = true;
      const down = await refused(client, "get", { key: "k" });
      expect(down.code).toBe("UNAVAILABLE");
      expect(down.text).toMatch(/PostgreSQL database is unreachable/);
      const write = await refused(client, "remember", { key: "k", text: "during" });
      expect(write.code).toBe("UNAVAILABLE");
      const ready = await probe(server.url, "/readyz");
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({
        status: "unavailable",
        reason: "the database is unreachable",
      });
      // The process is alive and serving HTTP all along.
      expect(await probe(server.url, "/healthz")).toEqual({ status: 200, body: '{"status":"ok"}' });
      expect(server.child.exitCode).toBe(null);

      pg.start();
      stopped = false;
      const got = await ok<{ text: string; version: number }>(client, "get", { key: "k" });
      expect(got.text).toBe("before");
      await ok(client, "remember", { key: "k", text: "after", expected_version: got.version });
      expect((await probe(server.url, "/readyz")).status).toBe(200);
      // Neither the log (at debug) nor any answer named the password.
      expect(server.stderr()).not.toContain(PASSWORD);
      expect(down.text).not.toContain(PASSWORD);
    } finally {
      if (stopped) pg.start();
      await client.close();
      await server.stop();
    }
  });
});

describe("the probes", () => {
  it("answer without a token on SQLite; other methods are refused", async () => {
    const data = tempDir();
    const token = "probe-token-".padEnd(40, "x");
    const server = await startHttpProcess({
      dataDir: data.dir,
      env: { HMS_MCP_TOKEN: token },
      args: ["--log-level", "info"],
    });
    try {
      expect(await probe(server.url, "/healthz")).toEqual({ status: 200, body: '{"status":"ok"}' });
      expect(await probe(server.url, "/readyz")).toEqual({ status: 200, body: '{"status":"ok"}' });
      const post = await fetch(new URL("/readyz", server.url), { method: "POST" });
      expect(post.status).toBe(405);
      // The MCP endpoint still needs the token.
      expect((await fetch(server.url, { method: "POST", body: "{}" })).status).toBe(401);
    } finally {
      await server.stop();
      data.remove();
    }
  });
});
