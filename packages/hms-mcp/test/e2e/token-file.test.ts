/**
 * HMS_MCP_TOKEN_FILE: the all-access token read from a file (a container secret, a systemd
 * credential), so that it is in neither the environment nor the unit. A real server over
 * HTTP accepts the file's token and nothing else, beyond loopback too (--allow-remote); a
 * file that cannot give one token is refused at start, in one line.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, hmsMcpBin, startHttpServer, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

const work = tempDir();
afterAll(() => work.remove());
const TOKEN = "file-token-".repeat(4);

function start(env: Record<string, string>, args: string[] = []) {
  const result = spawnSync(
    process.execPath,
    [hmsMcpBin(), "--data-dir", work.dir, "--transport", "http", "--port", "0", ...args],
    { env: cleanEnv(env), encoding: "utf8", input: "", timeout: 60_000 },
  );
  return { status: result.status, stderr: result.stderr };
}

/** The status of an MCP initialize request to `url`, with `token` as the bearer if given. */
async function initialize(url: string, token?: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

describe("HMS_MCP_TOKEN_FILE", () => {
  it("gives the token, without its line ending, beyond loopback too", async () => {
    const file = join(work.dir, "token");
    writeFileSync(file, `${TOKEN}\n`);
    chmodSync(file, 0o400);
    const server = await startHttpServer({
      dataDir: work.dir,
      args: ["--host", "0.0.0.0", "--allow-remote", "--log-level", "info"],
      env: { HMS_MCP_TOKEN_FILE: file },
    });
    try {
      const url = server.url.replace("0.0.0.0", "127.0.0.1");
      expect(await initialize(url)).toBe(401);
      expect(await initialize(url, TOKEN.slice(1))).toBe(401);
      expect(await initialize(url, TOKEN)).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("refuses, in one line, a file that gives no single token, and both variables at once", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { HMS_MCP_TOKEN_FILE: join(work.dir, "nowhere") },
        /HMS_MCP_TOKEN_FILE .*nowhere cannot be read \(ENOENT\)/,
      ],
      [{ HMS_MCP_TOKEN_FILE: "" }, /HMS_MCP_TOKEN_FILE is set but empty/],
      [{ HMS_MCP_TOKEN_FILE: write("empty", "\n") }, /HMS_MCP_TOKEN_FILE .*empty is empty/],
      [
        { HMS_MCP_TOKEN_FILE: write("two", `${TOKEN}\n${TOKEN}\n`) },
        /holds more than one line: put the token alone in it/,
      ],
      [
        { HMS_MCP_TOKEN_FILE: write("one", TOKEN), HMS_MCP_TOKEN: TOKEN },
        /HMS_MCP_TOKEN and HMS_MCP_TOKEN_FILE both give the token: set one/,
      ],
    ];
    for (const [env, message] of cases) {
      const result = start(env);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.split("\n")).toHaveLength(2);
      expect(result.status).toBe(2);
    }
    // A short token from a file is refused beyond loopback, as one from HMS_MCP_TOKEN is.
    const short = start({ HMS_MCP_TOKEN_FILE: write("short", "short\n") }, [
      "--host",
      "0.0.0.0",
      "--allow-remote",
    ]);
    expect(short.stderr).toMatch(
      /5-byte HMS_MCP_TOKEN: beyond this machine a token must be at least 32 bytes/,
    );
    expect(short.status).toBe(2);
  });
});

function write(name: string, text: string): string {
  const file = join(work.dir, name);
  writeFileSync(file, text);
  return file;
}
