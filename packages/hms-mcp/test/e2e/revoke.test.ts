/**
 * A tokens file reloaded while sessions are open, against a real hms-mcp process: what a token
 * may no longer read, its open event stream no longer hears of; a session whose token is gone
 * is closed, its event stream ended. (The e2e run on PostgreSQL runs this file too.)
 */
import { spawnSync } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
import { type IncomingMessage, request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  cleanEnv,
  type HttpProcess,
  hear,
  hmsMcpBin,
  memoryUri,
  ok,
  refused,
  startHttpProcess,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, rawSession } from "./http-raw.js";

/** `hms-mcp token create ...`: the token and its tokens-file line. */
function createToken(args: string[]): { token: string; line: string } {
  const result = spawnSync(process.execPath, [hmsMcpBin(), "token", "create", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  const lines = result.stdout.split("\n").map((line) => line.trim());
  return { token: lines[1] as string, line: lines[3] as string };
}

/** Waits until `check` passes, failing after a deadline far beyond a reload's few polls. */
async function eventually(check: () => void | Promise<void>, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

/** A session's event stream read raw: everything it carried, and whether it ended. */
interface EventStreamRead {
  text(): string;
  readonly ended: Promise<void>;
}

/** Opens the event stream (GET) of the raw session whose headers are `headers`. */
function openEventStream(url: string, headers: Record<string, string>): Promise<EventStreamRead> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "GET",
      agent: false,
      headers: { accept: "text/event-stream", ...headers },
    });
    req.on("response", (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        reject(new Error(`the event stream was refused: HTTP ${res.statusCode}`));
        return;
      }
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      const ended = new Promise<void>((done) => res.once("close", () => done()));
      resolve({ text: () => text, ended });
    });
    req.on("error", reject);
    req.end();
  });
}

/** A raw JSON-RPC request on a raw session; its parsed answer. */
async function rpc(
  url: string,
  session: Record<string, string>,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; answer: Record<string, unknown> | undefined }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const response = await raw(url, { headers: session, body });
  const answer =
    response.status === 200 ? (JSON.parse(response.body) as Record<string, unknown>) : undefined;
  return { status: response.status, answer };
}

describe("a tokens file reloaded while sessions are open", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const admin = "admin-token-".repeat(3);
  const other = createToken(["--name", "other", "--namespaces", "elsewhere"]);
  let server: HttpProcess;
  let asAdmin: Client;
  let adminHeard: ReturnType<typeof hear>;

  /** Puts `lines` in the tokens file in one step (a rename), as an editor saves. */
  function replaceTokens(lines: string[]): void {
    writeFileSync(`${tokensFile}.new`, `${lines.join("\n")}\n`);
    renameSync(`${tokensFile}.new`, tokensFile);
  }

  /**
   * Puts `lines` in force: the tokens file replaced, then reloaded on SIGHUP or by the server's
   * poll, until `inForce` passes (what the new file does, seen from outside).
   */
  async function reload(
    lines: string[],
    by: "SIGHUP" | "poll",
    inForce: () => Promise<void>,
  ): Promise<void> {
    replaceTokens(lines);
    if (by === "SIGHUP") server.child.kill("SIGHUP");
    await eventually(inForce);
  }

  /** Whether `token` may open a session. */
  async function accepted(token: string): Promise<boolean> {
    const answer = await raw(server.url, { headers: { authorization: `Bearer ${token}` } });
    return answer.status === 200;
  }

  /**
   * A raw session of `token`, subscribed to `/memories` of each of `namespaces`, with its event
   * stream open and proven to carry a change of each (so that hearing nothing later means
   * nothing was sent).
   */
  async function subscriber(token: string, namespaces: string[]) {
    const session = await rawSession(server.url, { authorization: `Bearer ${token}` });
    let id = 10;
    for (const namespace of namespaces) {
      const subscribed = await rpc(server.url, session, id++, "resources/subscribe", {
        uri: memoryUri(namespace, "/memories"),
      });
      expect(subscribed.answer).toMatchObject({ result: {} });
    }
    const stream = await openEventStream(server.url, session);
    for (const namespace of namespaces) {
      const key = `/memories/before-${id++}.md`;
      await ok(asAdmin, "remember", { namespace, key, text: "heard by the subscriber" });
      await eventually(() => expect(stream.text()).toContain(memoryUri(namespace, key)));
    }
    return { session, stream };
  }

  /**
   * Writes a secret into `namespace` (admin hears it: the server has read the change), then a
   * marker into `elsewhere`: once `stream` carries the marker, it would have carried the secret
   * first, had it been sent (one stream, sent in the order heard).
   */
  async function writeSecretThenMarker(namespace: string, stream: EventStreamRead, n: number) {
    const secret = `/memories/hr/layoffs-2027-${n}.md`;
    await ok(asAdmin, "remember", { namespace, key: secret, text: "confidential" });
    await adminHeard.until((h) => h.uri === memoryUri(namespace, secret));
    const marker = `/memories/marker-${n}.md`;
    await ok(asAdmin, "remember", { namespace: "elsewhere", key: marker, text: "public" });
    await eventually(() => expect(stream.text()).toContain(memoryUri("elsewhere", marker)));
    return secret;
  }

  beforeAll(async () => {
    replaceTokens([other.line]);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
      env: { HMS_MCP_TOKEN: admin },
    });
    asAdmin = await server.connect(admin);
    adminHeard = hear(asAdmin);
    for (const namespace of ["alice", "team-red", "elsewhere"]) {
      await asAdmin.subscribeResource({ uri: memoryUri(namespace, "/memories") });
    }
  });
  afterAll(async () => {
    await asAdmin?.close();
    await server?.stop();
    data.remove();
  });

  it("drops the subscriptions of a namespace the token lost: its open stream hears nothing more of it (SIGHUP)", async () => {
    const a = createToken(["--name", "a", "--namespaces", "alice,elsewhere"]);
    await reload([other.line, a.line], "SIGHUP", async () => {
      expect(await accepted(a.token)).toBe(true);
    });
    const { session, stream } = await subscriber(a.token, ["alice", "elsewhere"]);

    // The same token, now granted only elsewhere: in force once the session is refused alice.
    const line = JSON.parse(a.line) as Record<string, unknown>;
    line.namespaces = ["elsewhere"];
    let id = 100;
    await reload([other.line, JSON.stringify(line)], "SIGHUP", async () => {
      const read = await rpc(server.url, session, id++, "tools/call", {
        name: "list",
        arguments: { namespace: "alice" },
      });
      expect(JSON.stringify(read.answer)).toContain(
        "namespace alice does not exist or this token may not use it",
      );
    });

    const secret = await writeSecretThenMarker("alice", stream, 1);
    expect(stream.text()).not.toContain(encodeURIComponent(secret));
    expect(server.stderr()).toContain(
      "dropped subscriptions of a connection whose token may no longer read their namespace",
    );
  });

  it("drops them when a prefix pattern no longer matches (the file's poll)", async () => {
    const b = createToken(["--name", "b", "--namespaces", "team-*,elsewhere"]);
    await reload([other.line, b.line], "poll", async () => {
      expect(await accepted(b.token)).toBe(true);
    });
    const { session, stream } = await subscriber(b.token, ["team-red", "elsewhere"]);

    const line = JSON.parse(b.line) as Record<string, unknown>;
    line.namespaces = ["elsewhere", "team-blue"];
    let id = 100;
    await reload([other.line, JSON.stringify(line)], "poll", async () => {
      const read = await rpc(server.url, session, id++, "tools/call", {
        name: "list",
        arguments: { namespace: "team-red" },
      });
      expect(JSON.stringify(read.answer)).toContain("this token may not use it");
    });

    const secret = await writeSecretThenMarker("team-red", stream, 2);
    expect(stream.text()).not.toContain(encodeURIComponent(secret));
  });

  it("closes the session of a token removed from the file: its event stream ends, and its requests are refused", async () => {
    const c = createToken(["--name", "c", "--namespaces", "alice,elsewhere"]);
    await reload([other.line, c.line], "SIGHUP", async () => {
      expect(await accepted(c.token)).toBe(true);
    });
    const { session, stream } = await subscriber(c.token, ["alice"]);

    await reload([other.line], "poll", () => stream.ended);
    expect(server.stderr()).toContain(
      "closing a session: its token is no longer in the tokens file",
    );
    const text = stream.text();
    await ok(asAdmin, "remember", { namespace: "alice", key: "/memories/after.md", text: "x" });
    await adminHeard.until((h) => h.uri === memoryUri("alice", "/memories/after.md"));
    expect(stream.text()).toBe(text);
    expect((await rpc(server.url, session, 91, "ping")).status).toBe(401);
  });

  it("keeps the subscriptions of a token made read-only, and refuses its writes", async () => {
    const d = createToken(["--name", "d", "--namespaces", "alice"]);
    await reload([other.line, d.line], "SIGHUP", async () => {
      expect(await accepted(d.token)).toBe(true);
    });
    const asD = await server.connect(d.token);
    try {
      const heard = hear(asD);
      await asD.subscribeResource({ uri: memoryUri("alice", "/memories") });
      await ok(asD, "remember", { namespace: "alice", key: "/memories/d.md", text: "mine" });

      const line = JSON.parse(d.line) as Record<string, unknown>;
      line.access = "read-only";
      await reload([other.line, JSON.stringify(line)], "SIGHUP", async () => {
        const answer = await refused(asD, "remember", {
          namespace: "alice",
          key: "/memories/probe.md",
          text: "refused once read-only",
        });
        expect(answer.code).toBe("FORBIDDEN");
      });
      await ok(asAdmin, "remember", { namespace: "alice", key: "/memories/d.md", text: "theirs" });
      await heard.until(
        (h) => h.uri === memoryUri("alice", "/memories/d.md") && h.change?.op === "update",
      );
    } finally {
      await asD.close();
    }
  });
});
