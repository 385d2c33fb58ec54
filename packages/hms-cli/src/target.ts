import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  connectHmsBackend,
  HmsConnectionError,
  HmsMcpError,
  type HmsMemoryBackend,
} from "@hms/memory-backend-hms";
import { CliError, EXIT, type ExitCode } from "./errors.js";
import type { Io } from "./io.js";
import { checkUrl, redactUrls } from "./url.js";

/** Where the memories are: a local data directory (the default) or a running server. */
export interface TargetOptions {
  /** The server's data directory (default: hms-mcp's own default). */
  dataDir?: string;
  /** The namespace (store); on a server, it must run with `--namespace-arg`. */
  namespace?: string;
  /** A running `hms-mcp --transport http`; its token comes from HMS_MCP_TOKEN. */
  url?: string;
  /**
   * Local data dir only: start hms-mcp with this embedding model (`--model-dir`), replacing
   * the vectors of another model (`--reembed`).
   */
  reembedWith?: string;
  /**
   * How long to wait for the server's first answer, in seconds (default: 10 with --url, 60
   * for the server hms starts, which may first open or upgrade the store). Later calls wait
   * 60 s, or this long if it is longer.
   */
  timeout?: number;
}

/** The first answer of a server at --url within this long, unless --timeout says otherwise. */
export const URL_TIMEOUT_SECONDS = 10;
/** Each call's wait, and the first answer's of the server hms starts (a store may be opened). */
export const CALL_TIMEOUT_SECONDS = 60;

/**
 * What a command needs of the store: one that exists (a read, or a change of what is there:
 * a store that does not exist is a mistake to report, and nothing is created); nothing (a dry
 * run: a store that does not exist reads as empty, and nothing is created); or the right to
 * create it (import, write, edit).
 */
export type StoreNeed = "existing" | "nothing" | "create";

/**
 * Connects to the memories. A local data directory is served by an hms-mcp process of our
 * own (hms-mcp is this package's dependency), so `hms` and Claude's tool go through the same
 * rules, locks and limits; the store may be in use by another server at the same time. Unless
 * the command may create the store, that server runs with `--no-create`, so a mistyped
 * --data-dir or --namespace leaves nothing behind.
 */
export async function openTarget(
  options: TargetOptions,
  need: StoreNeed,
  io: Io,
): Promise<HmsMemoryBackend> {
  if (options.url !== undefined && options.dataDir !== undefined) {
    throw new CliError("give --url (a server) or --data-dir (a local store), not both", EXIT.usage);
  }
  if (options.url !== undefined && options.reembedWith !== undefined) {
    throw new CliError(
      "hms reembed works on a local data directory; a running server re-embeds when restarted with --model-dir and --reembed",
      EXIT.usage,
    );
  }
  const backend = await connect(options, need, io);
  if (need === "existing") {
    let exists: boolean | undefined;
    try {
      exists = (await backend.stats()).exists;
    } catch (error) {
      await backend.close();
      throw error;
    }
    // A server older than `exists` does not say: then the store is taken to exist.
    if (exists === false) {
      await backend.close();
      throw new CliError(noStoreMessage(options));
    }
  }
  return backend;
}

async function connect(options: TargetOptions, need: StoreNeed, io: Io): Promise<HmsMemoryBackend> {
  const namespace = options.namespace;
  const timeouts = (firstSeconds: number) => ({
    connectTimeoutMs: firstSeconds * 1000,
    timeoutMs: Math.max(firstSeconds, CALL_TIMEOUT_SECONDS) * 1000,
  });
  if (options.url !== undefined) {
    const url = checkUrl(options.url);
    const first = options.timeout ?? URL_TIMEOUT_SECONDS;
    try {
      return await connectHmsBackend({
        // An empty token sends none (rather than the library's look at this process's env).
        connection: { url, token: io.env.HMS_MCP_TOKEN ?? "" },
        ...(namespace === undefined ? {} : { namespace }),
        ...timeouts(first),
      });
    } catch (error) {
      throw new CliError(httpFailure(url, error, first, io), exitCodeOfHttpFailure(error));
    }
  }
  const args = [hmsMcpBin(), "--log-level", "warn"];
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
  if (options.reembedWith !== undefined) {
    args.push("--model-dir", options.reembedWith, "--reembed");
  }
  if (namespace !== undefined) args.push("--namespace", namespace);
  if (need !== "create") args.push("--no-create");
  // The server gets this run's HMS_MCP_* settings (HMS_MCP_MAX_TEXT_BYTES...).
  const env = Object.fromEntries(
    Object.entries(io.env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith("HMS_MCP_") &&
        !["HMS_MCP_TOKEN", "HMS_MCP_BIN"].includes(entry[0]) &&
        entry[1] !== undefined,
    ),
  );
  try {
    return await connectHmsBackend({
      connection: { command: process.execPath, args, env, stderr: "ignore" },
      ...timeouts(options.timeout ?? CALL_TIMEOUT_SECONDS),
    });
  } catch (error) {
    if (HmsConnectionError.isInstance(error) || HmsMcpError.isInstance(error)) {
      throw new CliError(startFailure(error.message), EXIT.unreachable);
    }
    throw error;
  }
}

/** What to say when the store a command reads does not exist. */
function noStoreMessage(options: TargetOptions): string {
  const namespace = options.namespace ?? "default";
  if (options.url !== undefined) {
    return (
      `there is no namespace ${namespace} at ${redactUrls(options.url)} (nothing was ever written to it); ` +
      "`hms import` creates it, or check --namespace"
    );
  }
  const where = options.dataDir ?? "hms-mcp's default data directory (see hms-mcp --help)";
  return (
    `no store at ${where} (namespace ${namespace}); \`hms import\` creates one, or check ` +
    "--data-dir / --namespace"
  );
}

/**
 * Why the server we started could not be reached, in one line: what it said when it
 * stopped (its stderr, which the message quotes), else the message's first line.
 */
function startFailure(message: string): string {
  const [head = "", tail] = message.split("\nIts stderr ended with:\n");
  const said = tail?.split("\n").map(loggedReason).filter(Boolean).at(-1);
  if (said !== undefined) return `could not start hms-mcp: ${said.replace(/^hms-mcp: /, "")}`;
  if (/timed out|did not answer within/i.test(head)) {
    return (
      "hms-mcp started but did not answer in time; try again (--timeout SECONDS waits longer), " +
      "or run hms-mcp by itself to see why"
    );
  }
  const first = head.split("\n")[0] ?? head;
  return first.replace(/^Could not connect to hms-mcp \([^)]*\): /, "could not start hms-mcp: ");
}

/**
 * What one line of hms-mcp's stderr says: a plain line as it is; a JSON log line (hms-mcp
 * logs JSON once it runs) by its error's message, else its `msg`, and nothing for a log line
 * below an error's level. The line may be cut short (the library keeps 500 characters of
 * each): the message is then read as the JSON string it starts with.
 */
export function loggedReason(line: string): string {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return trimmed;
  const field = (name: string) => {
    const match = new RegExp(`"${name}":("(?:[^"\\\\]|\\\\.)*")`).exec(trimmed);
    try {
      return match ? (JSON.parse(match[1] as string) as string) : undefined;
    } catch {
      return undefined;
    }
  };
  const level = Number(/^\{"level":(\d+)/.exec(trimmed)?.[1] ?? 0);
  if (level < 50) return "";
  return field("message") ?? field("msg") ?? "";
}

/** Network errors that mean nothing listens there (or it cannot be reached). */
const NOTHING_THERE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/**
 * A failure to reach the server at `url`, in a person's words, saying what to do: never
 * "fetch failed", a raw JSON body or the client library's option names.
 */
export function httpFailure(url: URL, error: unknown, timeoutSeconds: number, io: Io): string {
  const host = url.host;
  const mcpUrl = `${url.origin}/mcp`;
  const wrongPath = !url.pathname.replace(/\/+$/, "").endsWith("/mcp");
  const didYouMean = wrongPath ? `; did you mean ${mcpUrl}?` : "";
  if (HmsMcpError.isInstance(error) && error.code === "TIMEOUT") {
    // It took the connection and said nothing: not an HTTP answer of any kind.
    const seconds = `${timeoutSeconds} second${timeoutSeconds === 1 ? "" : "s"}`;
    return (
      `the server at ${host} did not answer within ${seconds}; is it hms-mcp, and is it ` +
      "running well? (--timeout SECONDS waits longer)"
    );
  }
  const code = causeCode(error);
  if (typeof code === "string") {
    if (NOTHING_THERE.has(code)) {
      return `nothing answers at ${host}: is \`hms-mcp --transport http\` running?`;
    }
    if (code === "ENOTFOUND") return `the host ${url.hostname} does not resolve; check --url`;
    if (/SSL|TLS|EPROTO/.test(code)) {
      return `${host} does not answer HTTPS; check --url (hms-mcp serves http:// unless a proxy adds TLS)`;
    }
  }
  if (code === 401) {
    const token = io.env.HMS_MCP_TOKEN ? "refused the token in HMS_MCP_TOKEN" : "needs a token";
    return `the server at ${host} ${token} (HTTP 401): set HMS_MCP_TOKEN to the server's token${didYouMean}`;
  }
  if (code === 403) {
    return `the server at ${host} refused the request (HTTP 403${serverSays(error)})`;
  }
  if (code === 404 || code === 405) {
    return wrongPath
      ? `nothing is served at ${url.href} (HTTP ${code}): did you mean ${mcpUrl}?`
      : `there is no MCP endpoint at ${url.href} (HTTP ${code}); check the server's --path`;
  }
  if (code === 429 || code === 503) {
    return `the server at ${host} is busy (HTTP ${code}${serverSays(error)}); try again shortly`;
  }
  if (typeof code === "number") {
    return `the server at ${host} answered HTTP ${code}${serverSays(error)}${didYouMean}`;
  }
  if (code === "NOT_FOUND" && error instanceof Error) {
    // The connect-time stats named a namespace this token may not use (or that is not there).
    const said = error.message.replace(/^NOT_FOUND: /, "");
    return `the server at ${host} says: ${said}; name one with --namespace (\`hms namespaces\` lists those this token may use)`;
  }
  if (HmsMcpError.isInstance(error) && error.code === "PROTOCOL") {
    return error.message.split("\n")[0] ?? error.message;
  }
  return `could not reach hms-mcp at ${url.href}${didYouMean}`;
}

/**
 * The exit code of a failure to use the server at --url: 1 when it answered and refused what
 * was asked (a namespace this token may not use: docs/cli's "refused"), else 3 (it could not
 * be reached, or would not let this client in at all: a wrong token is HTTP 401).
 */
export function exitCodeOfHttpFailure(error: unknown): ExitCode {
  return causeCode(error) === "NOT_FOUND" ? EXIT.failed : EXIT.unreachable;
}

/** The first `code` along the error's causes (an HTTP status, or a Node error code). */
function causeCode(error: unknown): string | number | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; depth++) {
    const { code, cause } = at as { code?: unknown; cause?: unknown };
    // A number is an HTTP status only from 100 to 599: JSON-RPC's codes are negative.
    const status = typeof code === "number" && code >= 100 && code <= 599;
    if (status || (typeof code === "string" && code !== "CONNECTION_CLOSED")) return code;
    at = cause;
  }
  return undefined;
}

/**
 * `: what the server said`, when its answer's body names a reason (hms-mcp's JSON error
 * bodies do), as plain words; else nothing.
 */
function serverSays(error: unknown): string {
  const message = error instanceof Error ? String(error.message) : "";
  const body = message.slice(message.indexOf("{"));
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    const inner = parsed.error;
    const said =
      typeof inner === "object" && inner !== null
        ? (inner as { message?: unknown }).message
        : (parsed.message ?? inner);
    return typeof said === "string" && said.length < 200 ? `: ${said}` : "";
  } catch {
    return "";
  }
}

/** The hms-mcp program installed with this package. */
export function hmsMcpBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("hms-mcp/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  const bin = manifest.bin["hms-mcp"];
  if (bin === undefined) throw new Error(`${manifestPath} names no hms-mcp program`);
  return join(dirname(manifestPath), bin);
}
