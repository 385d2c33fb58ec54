/**
 * deploy/nginx.conf, as an operator installs it, in front of a real hms-mcp: Debian's nginx
 * over TLS with a certificate this test makes (openssl), the example's own settings with only
 * the name, the ports and the certificate's paths put in. An MCP client subscribes through it
 * and hears another client's change: the event stream is passed on as the server writes it
 * (the example's `proxy_buffering off`, checked with the server's X-Accel-Buffering header
 * ignored), not held back in nginx's buffers (without it, nothing is heard in a minute). Plain HTTP is sent
 * to HTTPS. scripts/setup.sh installs nginx and openssl.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { get as httpGet, type IncomingMessage } from "node:http";
import { connect as connectTcp } from "node:net";
import { join } from "node:path";
import tls from "node:tls";
import { fileURLToPath } from "node:url";
import {
  freePort,
  type HttpProcess,
  hear,
  memoryUri,
  ok,
  startHttpProcess,
  tempDir,
} from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const EXAMPLE = fileURLToPath(new URL("../../../../deploy/nginx.conf", import.meta.url));
const NGINX = process.env.HMS_NGINX ?? "/usr/sbin/nginx";
const TOKEN = "nginx-test-token-".repeat(3);
/** Far above the milliseconds a notification takes on a busy machine: only a held one misses it. */
const HEAR_WITHIN_MS = 60_000;

const work = tempDir();
let server: HttpProcess;
let nginx: ChildProcess;
let nginxLog = "";
let httpsPort: number;
let httpPort: number;

/** deploy/nginx.conf with this test's name, ports and certificate, in a main config of its own. */
function nginxConfig(upstreamPort: number): string {
  const site = readFileSync(EXAMPLE, "utf8")
    .replaceAll("memory.example.com", "localhost")
    .replace("server 127.0.0.1:8765;", `server 127.0.0.1:${upstreamPort};`)
    .replace("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`)
    .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
    .replace(/^\s*listen \[::\]:\d+.*$/gm, "")
    // hms-mcp's event streams carry X-Accel-Buffering: no, which nginx honours by itself; with
    // it ignored (as a proxy between may drop it), the example's own proxy_buffering off is
    // what keeps the stream flowing, and what this test checks.
    .replace(
      "proxy_buffering off;",
      "proxy_buffering off;\n        proxy_ignore_headers X-Accel-Buffering;",
    )
    .replace("/etc/ssl/certs/localhost.pem", join(work.dir, "cert.pem"))
    .replace("/etc/ssl/private/localhost.key", join(work.dir, "key.pem"));
  expect(site).toContain(join(work.dir, "cert.pem"));
  expect(site).toContain(`listen 127.0.0.1:${httpsPort} ssl`);
  expect(site).toContain("proxy_ignore_headers X-Accel-Buffering;");
  return [
    "daemon off;",
    "worker_processes 1;",
    `pid ${join(work.dir, "nginx.pid")};`,
    "error_log stderr warn;",
    "events { worker_connections 256; }",
    "http {",
    "  access_log off;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
      (kind) => `  ${kind}_temp_path ${join(work.dir, `${kind}_temp`)};`,
    ),
    site,
    "}",
  ].join("\n");
}

/** Resolves once something accepts connections on `port`, trying again every 50 ms. */
async function listening(port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connectTcp(port, "127.0.0.1");
      socket.once("connect", () => resolve(socket.end() !== undefined));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (attempt > 1200 || nginx.exitCode !== null) {
      throw new Error(`nginx did not listen on ${port}:\n${nginxLog}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
      "-keyout",
      join(work.dir, "key.pem"),
      "-out",
      join(work.dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  // This process's TLS clients (fetch) trust the test's certificate, as a client would the
  // operator's.
  tls.setDefaultCACertificates([
    ...tls.getCACertificates("default"),
    readFileSync(join(work.dir, "cert.pem"), "utf8"),
  ]);
  server = await startHttpProcess({
    dataDir: work.dir,
    args: ["--allowed-hosts", "localhost", "--log-level", "info"],
    env: { HMS_MCP_TOKEN: TOKEN },
  });
  httpsPort = await freePort();
  httpPort = await freePort();
  const config = join(work.dir, "nginx.conf");
  writeFileSync(config, nginxConfig(Number(new URL(server.url).port)));
  nginx = spawn(NGINX, ["-p", work.dir, "-c", config], { stdio: ["ignore", "ignore", "pipe"] });
  nginx.stderr?.on("data", (chunk: Buffer) => {
    nginxLog += chunk.toString("utf8");
  });
  await listening(httpsPort);
}, 120_000);
afterAll(async () => {
  if (nginx?.exitCode === null) {
    const exited = new Promise((resolve) => nginx.once("exit", resolve));
    nginx.kill("SIGQUIT");
    await exited;
  }
  await server?.stop();
  work.remove();
});

/** A client of hms-mcp through nginx, over TLS, by the name the certificate holds. */
async function throughNginx(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`https://localhost:${httpsPort}/mcp`),
    { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } },
  );
  const client = new Client({ name: "behind-nginx", version: "0" });
  await client.connect(transport);
  return client;
}

describe("deploy/nginx.conf in front of hms-mcp", () => {
  it("serves MCP over TLS, and a subscriber hears another client's change through it", async () => {
    const listener = await throughNginx();
    const writer = await throughNginx();
    try {
      const heard = hear(listener);
      await listener.subscribeResource({ uri: memoryUri("default", "/memories/plan.md") });
      await ok(writer, "remember", { key: "/memories/plan.md", text: "# Plan\nthrough nginx\n" });
      let timer: NodeJS.Timeout | undefined;
      const change = await Promise.race([
        heard.until((update) => update.uri === memoryUri("default", "/memories/plan.md")),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no change heard through nginx in ${HEAR_WITHIN_MS} ms`)),
            HEAR_WITHIN_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      expect(change.uri).toBe(memoryUri("default", "/memories/plan.md"));
      const read = await ok<{ text: string }>(listener, "get", { key: "/memories/plan.md" });
      expect(read.text).toBe("# Plan\nthrough nginx\n");
    } finally {
      await listener.close();
      await writer.close();
    }
  }, 120_000);

  it("sends plain HTTP to HTTPS, and refuses a client without the token", async () => {
    const plain = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet({ port: httpPort, host: "127.0.0.1", path: "/mcp", headers: { host: "localhost" } })
        .once("response", resolve)
        .once("error", reject),
    );
    plain.resume();
    expect(plain.statusCode).toBe(301);
    expect(plain.headers.location).toBe("https://localhost/mcp");
    const anonymous = await fetch(`https://localhost:${httpsPort}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(anonymous.status).toBe(401);
  });
});
