/**
 * deploy/Containerfile built and run with Debian's podman (runtime runc, `default_ulimits =
 * []` in a CONTAINERS_CONF file, vfs storage in a directory of the test's own), and
 * deploy/hms-mcp.service checked by `systemd-analyze verify` (no systemd runs the tests).
 *
 * No registry of container images is reachable here, so the test makes the image the file
 * names in its FROM line itself: Node.js 24's binary from its npm package (the one running
 * this test) with the libraries it links, npm, Debian's static busybox for a shell, a user
 * `node` (uid 1000) as in the official image; and substitutes that one line. Everything else
 * is the file as shipped, with hms-mcp installed from this workspace's packed tarballs (the
 * file's deploy/packages/ way; their dependencies come from the npm registry, reached from the
 * build on the host's network). The container runs on the host's network too: this sandbox
 * cannot publish ports. scripts/setup.sh installs podman, runc and busybox-static.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, hmsMcpOnPath, ok, tempDir } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DEPLOY = fileURLToPath(new URL("../../../../deploy/", import.meta.url));
const PACKAGES = fileURLToPath(new URL("../../../", import.meta.url));
const PODMAN = process.env.HMS_PODMAN ?? "/usr/bin/podman";
const FROM = "FROM docker.io/library/node:24-bookworm-slim";
const BASE = "localhost/hms-test-node24-base:latest";
const IMAGE = "localhost/hms-mcp-test:latest";
const TOKEN = "podman-test-token-".repeat(3);
/** What hms-mcp needs of the workspace: itself and the packages it depends on. */
const WORKSPACE_PACKAGES = ["hms-mcp", "protocol", "store", "store-postgres", "memory-paths"];

const work = tempDir("hms-podman-");
const storage = join(work.dir, "storage");
const env = { ...process.env, CONTAINERS_CONF: join(work.dir, "containers.conf") };
let port: number;

/** Runs podman on the test's own storage; returns stdout, throwing with stderr on failure. */
function podman(args: string[], timeout = 600_000): string {
  const result = spawnSync(
    PODMAN,
    [
      "--root",
      join(storage, "root"),
      "--runroot",
      join(storage, "run"),
      "--storage-driver",
      "vfs",
      ...args,
    ],
    { env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) {
    throw new Error(
      `podman ${args.slice(0, 2).join(" ")} failed (${result.status}): ${result.stderr}`,
    );
  }
  return result.stdout;
}

/**
 * The CA certificates this host's Node and npm trust: the system's bundle, then the files
 * NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and npm's `cafile` name when they are other files.
 */
function hostCertificates(): string {
  const system = "/etc/ssl/certs/ca-certificates.crt";
  const npmCafile = spawnSync("npm", ["config", "get", "cafile"], { encoding: "utf8" }).stdout;
  const files = new Set([system]);
  for (const file of [
    process.env.NODE_EXTRA_CA_CERTS,
    process.env.SSL_CERT_FILE,
    npmCafile?.trim(),
  ]) {
    if (file !== undefined && file.startsWith("/") && existsSync(file)) files.add(file);
  }
  return [...files].map((file) => readFileSync(file, "utf8")).join("\n");
}

/** The FROM image: Node.js 24, npm, a shell, the user node, and the CA certificates for npm. */
function makeBase(): void {
  const root = join(work.dir, "rootfs");
  for (const dir of [
    "bin",
    "usr/bin",
    "usr/local/bin",
    "usr/local/lib/node_modules",
    "etc/ssl/certs",
    "root",
    "home/node",
    "tmp",
  ]) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  copyFileSync(process.execPath, join(root, "usr/local/bin/node"));
  chmodSync(join(root, "usr/local/bin/node"), 0o755);
  // The shared libraries node links, where the dynamic loader looks for them.
  for (const lib of execFileSync("ldd", [process.execPath], { encoding: "utf8" }).match(/\/\S+/g) ??
    []) {
    mkdirSync(join(root, dirname(lib)), { recursive: true });
    copyFileSync(realpathSync(lib), join(root, lib));
  }
  copyFileSync("/bin/busybox", join(root, "bin/busybox"));
  for (const tool of [
    "sh",
    "mkdir",
    "chown",
    "chmod",
    "rm",
    "ls",
    "cat",
    "id",
    "cp",
    "env",
    "sleep",
  ]) {
    symlinkSync("/bin/busybox", join(root, "bin", tool));
  }
  symlinkSync("/bin/busybox", join(root, "usr/bin/env"));
  const npmCli = realpathSync(
    execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim(),
  );
  cpSync(dirname(dirname(npmCli)), join(root, "usr/local/lib/node_modules/npm"), {
    recursive: true,
  });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
  writeFileSync(join(root, "etc/ssl/certs/ca-certificates.crt"), hostCertificates());
  writeFileSync(
    join(root, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n",
  );
  writeFileSync(join(root, "etc/group"), "root:x:0:\nnode:x:1000:\n");
  chmodSync(join(root, "tmp"), 0o1777);
  chownSync(join(root, "home/node"), 1000, 1000);
  const tar = join(work.dir, "rootfs.tar");
  execFileSync("tar", ["-C", root, "-cf", tar, "."]);
  // npm in the build trusts what this host trusts, whether the host says so through
  // NODE_EXTRA_CA_CERTS or an npmrc `cafile` (a network that inspects TLS signs with its own
  // CA, and without it npm in the build retries for many minutes before it fails).
  const changes = [
    "ENV PATH=/usr/local/bin:/usr/bin:/bin",
    "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
  ];
  podman(["import", ...changes.flatMap((change) => ["--change", change]), tar, BASE]);
}

/** The build context: deploy/ as shipped, the workspace's tarballs in packages/, FROM substituted. */
function makeContext(): string {
  const context = join(work.dir, "context");
  cpSync(DEPLOY, context, { recursive: true });
  for (const name of WORKSPACE_PACKAGES) {
    execFileSync("pnpm", ["pack", "--pack-destination", join(context, "packages")], {
      cwd: join(PACKAGES, name),
      stdio: "ignore",
    });
  }
  const shipped = readFileSync(join(DEPLOY, "Containerfile"), "utf8");
  const lines = shipped.split("\n");
  expect(lines.filter((line) => line === FROM)).toHaveLength(1);
  writeFileSync(
    join(context, "Containerfile.test"),
    lines.map((line) => (line === FROM ? `FROM ${BASE}` : line)).join("\n"),
  );
  return context;
}

/** GET /healthz until it answers 200, every 100 ms, at most 1,200 times. */
async function healthy(): Promise<void> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the container never answered /healthz:\n${podman(["logs", "hms-test-1"])}`);
}

/** Runs the image on the test's volume and secret, as docs/operations.md does. */
function runContainer(name: string): void {
  podman([
    "run",
    "-d",
    "--name",
    name,
    "--network",
    "host",
    "-v",
    "hms-test-data:/data",
    "--secret",
    "hms-mcp-token",
    "-e",
    "HMS_MCP_TOKEN_FILE=/run/secrets/hms-mcp-token",
    "-e",
    `HMS_MCP_PORT=${port}`,
    IMAGE,
    "--log-level",
    "info",
  ]);
}

async function client(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const connected = new Client({ name: "podman-test", version: "0" });
  await connected.connect(transport);
  return connected;
}

beforeAll(async () => {
  writeFileSync(
    env.CONTAINERS_CONF,
    '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n',
  );
  port = await freePort();
  makeBase();
  const context = makeContext();
  podman(
    [
      "build",
      "--format",
      "docker",
      "--network",
      "host",
      "-t",
      IMAGE,
      "-f",
      join(context, "Containerfile.test"),
      context,
    ],
    1_200_000,
  );
  writeFileSync(join(work.dir, "token"), TOKEN);
  podman(["secret", "create", "hms-mcp-token", join(work.dir, "token")]);
  podman(["volume", "create", "hms-test-data"]);
}, 1_500_000);
afterAll(() => {
  for (const args of [
    ["rm", "-f", "-a"],
    ["volume", "rm", "-f", "hms-test-data"],
    ["secret", "rm", "hms-mcp-token"],
    ["rmi", "-a", "-f"],
  ]) {
    try {
      podman(args);
    } catch {
      // already gone
    }
  }
  work.remove();
});

describe("deploy/Containerfile with podman", () => {
  it("runs hms-mcp as the user node, healthy, serving only the secret's token, its data in the volume", async () => {
    runContainer("hms-test-1");
    await healthy();
    expect(podman(["exec", "hms-test-1", "id", "-u"]).trim()).toBe("1000");
    expect(podman(["healthcheck", "run", "hms-test-1"]).trim()).toMatch(/^(healthy)?$/);
    const anonymous = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(anonymous.status).toBe(401);
    const writer = await client(TOKEN);
    await ok(writer, "remember", { key: "/memories/deployed.md", text: "kept in the volume\n" });
    await writer.close();
    podman(["stop", "-t", "30", "hms-test-1"]);
    expect(podman(["inspect", "--format", "{{.State.ExitCode}}", "hms-test-1"]).trim()).toBe("0");

    // A new container on the same volume serves what the first wrote.
    runContainer("hms-test-2");
    await healthy();
    const reader = await client(TOKEN);
    const read = await ok<{ text: string }>(reader, "get", { key: "/memories/deployed.md" });
    expect(read.text).toBe("kept in the volume\n");
    await reader.close();
    podman(["stop", "-t", "30", "hms-test-2"]);
  }, 600_000);
});

describe("deploy/hms-mcp.service", () => {
  it("passes systemd-analyze verify, with hms-mcp where ExecStart looks for it", () => {
    const onPath = hmsMcpOnPath();
    try {
      const unit = join(work.dir, "hms-mcp.service");
      const shipped = readFileSync(join(DEPLOY, "hms-mcp.service"), "utf8");
      expect(shipped).toContain("ExecStart=/usr/local/bin/hms-mcp\n");
      writeFileSync(
        unit,
        shipped.replace(
          "ExecStart=/usr/local/bin/hms-mcp",
          `ExecStart=${join(onPath.dir, "hms-mcp")}`,
        ),
      );
      const result = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    } finally {
      onPath.remove();
    }
  });
});
