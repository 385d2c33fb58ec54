import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { cleanEnv, exited, hmsMcpBin, ok, startStdio, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

const packageJson = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
);

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(env),
    encoding: "utf8",
    input: "",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the hms-mcp command", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("prints its version", () => {
    const result = run(["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(packageJson.version);
  });

  it("documents every flag and its environment variable in --help", () => {
    const result = run(["--help"]);
    expect(result.status).toBe(0);
    const help = result.stdout.replace(/\s+/g, " ");
    for (const [flag, env] of [
      ["--data-dir", "HMS_MCP_DATA_DIR"],
      ["--namespace <name>", "HMS_MCP_NAMESPACE"],
      ["--namespace-arg", "HMS_MCP_NAMESPACE_ARG"],
      ["--transport", "HMS_MCP_TRANSPORT"],
      ["--host", "HMS_MCP_HOST"],
      ["--port", "HMS_MCP_PORT"],
      ["--path", "HMS_MCP_PATH"],
      ["--max-text-bytes", "HMS_MCP_MAX_TEXT_BYTES"],
      ["--max-open-namespaces", "HMS_MCP_MAX_OPEN_NAMESPACES"],
      ["--max-namespaces", "HMS_MCP_MAX_NAMESPACES"],
      ["--tokens-file", "HMS_MCP_TOKENS_FILE"],
      ["--busy-timeout", "HMS_MCP_BUSY_TIMEOUT"],
      ["--synchronous", "HMS_MCP_SYNCHRONOUS"],
      ["--log-level", "HMS_MCP_LOG_LEVEL"],
      ["--allow-remote", "HMS_MCP_ALLOW_REMOTE"],
      ["--allowed-origins", "HMS_MCP_ALLOWED_ORIGINS"],
      ["--allowed-hosts", "HMS_MCP_ALLOWED_HOSTS"],
      ["--model-dir", "HMS_MCP_MODEL_DIR"],
      ["--reembed", "HMS_MCP_REEMBED"],
      ["--embed-workers", "HMS_MCP_EMBED_WORKERS"],
      ["--embed-threads", "HMS_MCP_EMBED_THREADS"],
      ["--embed-runtime", "HMS_MCP_EMBED_RUNTIME"],
      ["--recall-wait", "HMS_MCP_RECALL_WAIT"],
      ["--database-url", "HMS_MCP_DATABASE_URL"],
      ["--pg-pool-size", "HMS_MCP_PG_POOL_SIZE"],
      ["--no-migrate", "HMS_MCP_NO_MIGRATE"],
    ]) {
      expect(help).toContain(flag);
      expect(help).toContain(env);
    }
    expect(help).toContain("HMS_MCP_TOKEN");
    // The all-access token comes from the environment only, never from a flag (ps shows flags).
    expect(help).not.toMatch(/--token\b(?!s-file)/);
  });

  it("refuses bad settings with a message and a non-zero exit", () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["--port", "70000"], {}, /--port.*integer from 0 to 65535/],
      [["--namespace", "Bad/Name"], {}, /namespace "Bad\/Name" is not valid/],
      [["--transport", "carrier-pigeon"], {}, /Allowed choices are stdio, http/],
      [["--max-text-bytes", "0"], {}, /integer from 1 to/],
      [["--path", "mcp"], {}, /URL path starting with/],
      [["--token", "x"], {}, /unknown option '--token'/],
      [[], { HMS_MCP_NAMESPACE_ARG: "maybe" }, /HMS_MCP_NAMESPACE_ARG="maybe" is not a boolean/],
      [[], { HMS_MCP_TOKEN: "" }, /HMS_MCP_TOKEN is set but empty/],
      [[], { HMS_MCP_PORT: "eighty" }, /integer from 0 to 65535/],
      [["--synchronous", "off"], {}, /Allowed choices are full, normal/],
      [["--embed-threads", "0"], {}, /integer from 1 to 64/],
      [["--embed-runtime", "gpu"], {}, /Allowed choices are auto, native, wasm/],
      [[], { HMS_MCP_EMBED_RUNTIME: "cuda" }, /Allowed choices are auto, native, wasm/],
      [["--embed-workers", "0"], {}, /--embed-workers.*integer from 1 to 16/],
      [[], { HMS_MCP_EMBED_WORKERS: "two" }, /integer from 1 to 16/],
      [["--recall-wait", "-1"], {}, /integer from 0 to 60000/],
      [[], { HMS_MCP_MODEL_DIR: " " }, /HMS_MCP_MODEL_DIR\) is empty/],
      [[], { HMS_MCP_REEMBED: "1" }, /no --model-dir was given/],
    ];
    for (const [args, env, message] of cases) {
      const result = run(["--data-dir", data.dir, ...args], env);
      expect({ args, env, status: result.status === 0 ? 0 : "failed" }).toEqual({
        args,
        env,
        status: "failed",
      });
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe("");
    }
  });

  it("takes settings from HMS_MCP_* variables, flags winning", async () => {
    const server = await startStdio({
      dataDir: data.dir,
      args: ["--namespace", "from-flag"],
      env: {
        HMS_MCP_NAMESPACE: "from-env",
        HMS_MCP_MAX_TEXT_BYTES: "100",
        HMS_MCP_NAMESPACE_ARG: "1",
      },
    });
    try {
      expect(await ok(server.client, "stats")).toMatchObject({
        namespace: "from-flag",
        max_text_bytes: 100,
      });
      expect(await ok(server.client, "stats", { namespace: "other" })).toMatchObject({
        namespace: "other",
      });
    } finally {
      await server.close();
    }
  });

  it("writes nothing but JSON-RPC to stdout under stdio", async () => {
    const child = spawn(
      process.execPath,
      [hmsMcpBin(), "--data-dir", data.dir, "--log-level", "trace"],
      {
        env: cleanEnv(),
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const messages: unknown[] = [];
    const stdoutLines: string[] = [];
    const done = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        stdoutLines.push(line);
        messages.push(JSON.parse(line));
        if (messages.length === 4) resolve();
      });
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "get", arguments: { key: 1 } },
    });
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope", arguments: {} } });
    await done;
    child.stdin.end();
    expect(await exited(child)).toBe(0);
    for (const message of messages) expect(message).toMatchObject({ jsonrpc: "2.0" });
    expect(messages.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3, 4]);
    expect(stdoutLines).toHaveLength(4);
    expect(stderr).toContain("hms-mcp serving on stdio");
  });
});
