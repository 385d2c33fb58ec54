import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  connectHmsBackend,
  HmsConnectionError,
  HmsMcpError,
  type HmsMemoryBackend,
} from "@hms/memory-backend-hms";
import { CliError, EXIT } from "./errors.js";

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
}

/**
 * Connects to the memories. A local data directory is served by an hms-mcp process of our
 * own (hms-mcp is this package's dependency), so `hms` and Claude's tool go through the same
 * rules, locks and limits; the store may be in use by another server at the same time.
 */
export async function openTarget(options: TargetOptions): Promise<HmsMemoryBackend> {
  if (options.url !== undefined && options.dataDir !== undefined) {
    throw new CliError("give --url (a server) or --data-dir (a local store), not both", EXIT.usage);
  }
  if (options.url !== undefined && options.reembedWith !== undefined) {
    throw new CliError(
      "hms reembed works on a local data directory; a running server re-embeds when restarted with --model-dir and --reembed",
      EXIT.usage,
    );
  }
  try {
    if (options.url !== undefined) {
      return await connectHmsBackend({
        connection: { url: checkUrl(options.url) },
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      });
    }
    const args = [hmsMcpBin(), "--log-level", "warn"];
    if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
    if (options.reembedWith !== undefined) {
      args.push("--model-dir", options.reembedWith, "--reembed");
    }
    if (options.namespace !== undefined) args.push("--namespace", options.namespace);
    return await connectHmsBackend({
      connection: { command: process.execPath, args, stderr: "ignore" },
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (HmsConnectionError.isInstance(error) || HmsMcpError.isInstance(error)) {
      throw new CliError(oneLine(error.message), EXIT.unreachable);
    }
    throw error;
  }
}

/**
 * A connection failure in one line: when the server we started said why it stopped (its
 * stderr, which the message quotes), that; else the message's first line.
 */
function oneLine(message: string): string {
  const [head = "", tail] = message.split("\nIts stderr ended with:\n");
  const said = tail
    ?.split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
  return said === undefined
    ? (head.split("\n")[0] ?? head)
    : `could not start hms-mcp: ${said.replace(/^hms-mcp: /, "")}`;
}

function checkUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url ${JSON.stringify(url)} is not a URL`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`--url must be http:// or https://, not ${parsed.protocol}`, EXIT.usage);
  }
  return parsed;
}

/** The hms-mcp program installed with this package. */
function hmsMcpBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("hms-mcp/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  const bin = manifest.bin["hms-mcp"];
  if (bin === undefined) throw new Error(`${manifestPath} names no hms-mcp program`);
  return join(dirname(manifestPath), bin);
}
