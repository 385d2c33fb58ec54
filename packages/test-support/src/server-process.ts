/**
 * The hms-mcp program under test, as a process: where it is (`HMS_MCP_BIN`, else the
 * workspace build), a clean environment for it, temporary data directories, an HTTP server
 * process, and an `hms-mcp` command on PATH.
 *
 * This package does not depend on hms-mcp (hms-mcp's tests use it, so that would be a cycle):
 * it finds the workspace's `packages/hms-mcp` beside its own directory, and a package whose
 * tests start the server lists `hms-mcp` itself, so that it is built first.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { postgresBinDir } from "./postgres.js";

/** The workspace's `packages/hms-mcp/package.json` (this file is in `packages/test-support/*`). */
const HMS_MCP_MANIFEST = fileURLToPath(new URL("../../hms-mcp/package.json", import.meta.url));

/**
 * The hms-mcp program the tests run: `HMS_MCP_BIN` when set, else the workspace build
 * (`packages/hms-mcp/dist/cli.js`), found through the package's own `bin` field.
 */
export function hmsMcpBin(): string {
  const configured = process.env.HMS_MCP_BIN;
  if (configured) return resolve(configured);
  const { bin } = JSON.parse(readFileSync(HMS_MCP_MANIFEST, "utf8")) as {
    bin: Record<string, string>;
  };
  return resolve(dirname(HMS_MCP_MANIFEST), bin["hms-mcp"] as string);
}

/** How to start hms-mcp as a process: a `.js` file runs under this Node, anything else as is. */
export function hmsMcpCommand(args: string[] = []): { command: string; args: string[] } {
  const bin = hmsMcpBin();
  return /\.[cm]?js$/.test(bin)
    ? { command: process.execPath, args: [bin, ...args] }
    : { command: bin, args };
}

/**
 * This process's environment without any `HMS_MCP_*` variable (so a developer's settings do not
 * leak into a test server), plus `extra`.
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("HMS_MCP_")) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * The PostgreSQL cluster the e2e suite runs on, when it runs on PostgreSQL: the base URL of a
 * cluster (`postgres://USER@HOST:PORT/DB`) in HMS_TEST_DATABASE_URL, else undefined (SQLite).
 */
export function testDatabaseUrl(): string | undefined {
  return process.env.HMS_TEST_DATABASE_URL || undefined;
}

/** The database standing for each data directory, so servers sharing a directory share a store. */
const databases = new Map<string, string>();

/**
 * Where a test server keeps its store: `--data-dir DIR`, or, when the suite runs on PostgreSQL
 * (HMS_TEST_DATABASE_URL), `--database-url` of a database created for DIR the first time it
 * is named. A new directory is a new, empty store on either engine; servers given the same
 * directory share one store, as they would share the SQLite files.
 */
export function storeArgs(dataDir: string): string[] {
  const base = testDatabaseUrl();
  if (base === undefined) return ["--data-dir", dataDir];
  let url = databases.get(dataDir);
  if (url === undefined) {
    const name = `t_${process.pid}_${databases.size + 1}_${Date.now() % 1_000_000}`;
    execFileSync(join(postgresBinDir(), "psql"), [
      "-X",
      "-q",
      "-d",
      base,
      "-c",
      `CREATE DATABASE ${name}`,
    ]);
    const parsed = new URL(base);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    databases.set(dataDir, url);
  }
  return ["--database-url", url];
}

/**
 * The same store as {@link storeArgs}, as the options of an in-process server
 * (`connection: { inProcess }`): `{ dataDir }`, or `{ databaseUrl }` on PostgreSQL.
 */
export function storeOptions(dataDir: string): { dataDir: string } | { databaseUrl: string } {
  const [flag, value] = storeArgs(dataDir) as [string, string];
  return flag === "--database-url" ? { databaseUrl: value } : { dataDir: value };
}

/**
 * The namespaces a test server's store holds, on either engine: the SQLite store files in
 * DIR (one per namespace), or on PostgreSQL the namespaces of DIR's database (`storeArgs`).
 */
export function storeNamespaces(dataDir: string): string[] {
  const url = testDatabaseUrl() === undefined ? undefined : databases.get(dataDir);
  if (url !== undefined) {
    const psql = (sql: string) =>
      execFileSync(join(postgresBinDir(), "psql"), ["-X", "-q", "-t", "-A", "-d", url, "-c", sql], {
        encoding: "utf8",
      });
    // No server has run on the database yet: no schema, no namespace.
    if (psql("SELECT to_regclass('hms_namespaces') IS NOT NULL").trim() !== "t") return [];
    const names = psql("SELECT name FROM hms_namespaces ORDER BY name");
    return names.split("\n").filter((name) => name !== "");
  }
  try {
    return readdirSync(join(dataDir, "namespaces"))
      .filter((file) => file.endsWith(".sqlite"))
      .sort();
  } catch {
    return [];
  }
}

/** A fresh temporary directory and a function that removes it. */
export function tempDir(prefix = "hms-test-"): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Waits for a child process to exit; resolves with its exit code (null after a signal). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

/** An hms-mcp process serving streamable HTTP on a free loopback port. */
export interface HttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code (null after a signal). */
  stop(): Promise<number | null>;
}

/**
 * Starts `hms-mcp --transport http --port 0 --data-dir DIR [args]` and resolves once it says
 * where it listens (an info-level log line, so `--log-level` in `args` must be info, debug
 * or trace). `env` is added to a clean environment (e.g. `HMS_MCP_TOKEN`).
 */
export async function startHttpServer(options: {
  /** The store's data directory (on PostgreSQL: its database, see `storeArgs`). */
  dataDir?: string;
  /** A PostgreSQL database to serve instead of a data directory. */
  databaseUrl?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<HttpServer> {
  const level = options.args?.[options.args.indexOf("--log-level") + 1];
  if (options.args?.includes("--log-level") && !["info", "debug", "trace"].includes(level ?? "")) {
    throw new Error(
      "startHttpServer reads the info-level 'listening on' line: use --log-level info, debug or trace",
    );
  }
  const { command, args } = hmsMcpCommand([
    "--transport",
    "http",
    "--port",
    "0",
    ...serverStore(options),
    ...(options.args ?? []),
  ]);
  const child = spawn(command, args, {
    env: cleanEnv(options.env),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      stderr += `${line}\n`;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(line);
      if (match) resolveUrl(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`hms-mcp exited with ${code}:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited(child);
    },
  };
}

/** The flags naming a test server's store: an explicit database, else its data directory's. */
export function serverStore(options: { dataDir?: string; databaseUrl?: string }): string[] {
  if (options.databaseUrl !== undefined) return ["--database-url", options.databaseUrl];
  if (options.dataDir === undefined) throw new Error("give the server a dataDir or a databaseUrl");
  return storeArgs(options.dataDir);
}

/**
 * A directory holding an executable `hms-mcp` that runs the program under test, to put first
 * on PATH where code under test looks for `hms-mcp` by name. Returns the directory and a PATH
 * value with it in front.
 */
export function hmsMcpOnPath(): { dir: string; path: string; remove: () => void } {
  const { dir, remove } = tempDir("hms-mcp-bin-");
  const { command, args } = hmsMcpCommand();
  const quoted = [command, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const script = join(dir, "hms-mcp");
  writeFileSync(script, `#!/bin/sh\nexec ${quoted} "$@"\n`);
  chmodSync(script, 0o755);
  return { dir, path: [dir, process.env.PATH ?? ""].join(delimiter), remove };
}

/**
 * A named token made by `hms-mcp token create --name NAME --namespaces LIST`: the token a
 * client sends, and the line to put in a `--tokens-file`.
 */
export function createToken(name: string, namespaces: string): { token: string; line: string } {
  const { command, args } = hmsMcpCommand([
    "token",
    "create",
    "--name",
    name,
    "--namespaces",
    namespaces,
  ]);
  const lines = execFileSync(command, args, { env: cleanEnv(), encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim());
  const token = lines[1] ?? "";
  const line = lines[3] ?? "";
  if (!/^[A-Za-z0-9_-]{43}$/.test(token) || !line.startsWith("{")) {
    throw new Error(`hms-mcp token create printed no token and line:\n${lines.join("\n")}`);
  }
  return { token, line };
}
