import { spawn } from "node:child_process";
import { HmsMcpError } from "@hms/memory-backend-hms";
import { TOOLS, type ToolName, type ToolResult } from "@hms/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CliError, EXIT } from "../errors.js";
import { onInterrupt, terminate } from "../interrupt.js";
import type { Io } from "../io.js";
import { humanBytes, type Output } from "../output.js";
import { hmsMcpBin, httpFailure, URL_TIMEOUT_SECONDS } from "../target.js";
import { checkUrl, redactUrls } from "../url.js";

/** One namespace as `hms namespaces` lists it (hms-mcp namespaces' summary). */
export interface NamespaceEntry {
  name: string;
  memories: number;
  bytes: number;
  updated_at: string | null;
  disk_bytes?: number;
}

/**
 * `hms namespaces`: the namespaces of the local data directory by name, with how many
 * memories each holds, their size and the last change. hms-mcp reads them (`hms-mcp
 * namespaces`) without opening, creating or upgrading any store. With `--url`, the
 * namespaces the token may use on that server (its `namespaces` tool), each described by its
 * `stats` and newest change; nothing is created there either.
 */
export async function namespaces(
  options: { dataDir?: string; url?: string; timeout?: number },
  out: Output,
): Promise<void> {
  const listing =
    options.url === undefined
      ? await localNamespaces(options.dataDir)
      : await serverNamespaces(options.url, options.timeout ?? URL_TIMEOUT_SECONDS, out.io);
  out.result(listing.namespaces, () => {
    if (listing.namespaces.length === 0) return `no namespace in ${listing.store}`;
    // A server does not say how much disk its stores take: no column for it then.
    const disk = listing.namespaces.some((ns) => ns.disk_bytes !== undefined);
    const rows = listing.namespaces.map((ns) => [
      ns.name,
      ns.memories,
      humanBytes(ns.bytes),
      ...(disk ? [ns.disk_bytes === undefined ? "" : humanBytes(ns.disk_bytes)] : []),
      ns.updated_at?.replace("T", " ").replace(/\.\d+Z$/, "Z") ?? "never",
    ]);
    const heads = ["NAMESPACE", "MEMORIES", "SIZE", ...(disk ? ["ON DISK"] : []), "LAST CHANGE"];
    const aligns: ("left" | "right")[] = ["left", "right", "right"];
    if (disk) aligns.push("right");
    return out.table(heads, rows, [...aligns, "left"]);
  });
}

interface Listing {
  /** Where the namespaces are: the data directory, or the server's URL. */
  store: string;
  namespaces: NamespaceEntry[];
}

/**
 * The namespaces a server's token may use (its `namespaces` tool), each with its `stats` and
 * newest change. A server without `--namespace-arg` serves only its default. This talks MCP
 * directly rather than through a memory backend, which needs a namespace the token may use
 * before it can connect: a token limited to `team-*` may not use `default`.
 */
async function serverNamespaces(address: string, timeout: number, io: Io): Promise<Listing> {
  const url = checkUrl(address);
  const token = io.env.HMS_MCP_TOKEN;
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
  });
  const client = new Client({ name: "hms", version: "0" });
  try {
    await client.connect(transport, { timeout: timeout * 1000 });
  } catch (error) {
    await client.close().catch(() => undefined);
    const failure = isTimeout(error)
      ? new HmsMcpError("TIMEOUT", "no answer", { cause: error })
      : error;
    throw new CliError(httpFailure(url, failure, timeout, io), EXIT.unreachable);
  }
  try {
    const answer = await callTool(client, "namespaces", {});
    const names = answer.namespace_arg
      ? answer.namespaces.map((ns) => ns.name)
      : answer.namespaces.some((ns) => ns.name === answer.default)
        ? [answer.default]
        : [];
    const entries: NamespaceEntry[] = [];
    for (const name of names) {
      const named = answer.namespace_arg ? { namespace: name } : {};
      const stats = await callTool(client, "stats", named);
      const { changes } = await callTool(client, "history", { ...named, prefix: "/", limit: 1 });
      entries.push({
        name,
        memories: stats.memories,
        bytes: stats.bytes,
        updated_at: changes[0]?.at ?? null,
      });
    }
    return { store: redactUrls(url.href), namespaces: entries };
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** Calls `tool` and returns its structured content, checked against the tool's schema. */
async function callTool<T extends ToolName>(
  client: Client,
  tool: T,
  args: Record<string, unknown>,
): Promise<ToolResult<T>> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  const said = result.content.find((part) => part.type === "text")?.text ?? "";
  if (result.isError) throw new CliError(`the server refused ${tool}: ${said}`);
  const checked = TOOLS[tool].output.safeParse(result.structuredContent);
  if (!checked.success) {
    throw new CliError(`the server's answer to ${tool} is not hms-mcp's; is it hms-mcp?`);
  }
  return checked.data as ToolResult<T>;
}

async function localNamespaces(dataDir: string | undefined): Promise<Listing> {
  const args = [hmsMcpBin(), "namespaces", "--json"];
  if (dataDir !== undefined) args.push("--data-dir", dataDir);
  const { status, stdout, stderr } = await run(args);
  if (status !== 0) {
    const said =
      stderr
        .trim()
        .split("\n")
        .at(-1)
        ?.replace(/^hms-mcp namespaces: /, "") ?? "";
    if (/^there is no data directory at /.test(said)) {
      throw new CliError(
        `no store at ${dataDir ?? "hms-mcp's default data directory"}; \`hms import\` ` +
          "creates one, or check --data-dir",
      );
    }
    throw new CliError(`could not list the namespaces: ${said || `hms-mcp exited ${status}`}`);
  }
  return JSON.parse(stdout) as Listing;
}

/** Runs `node hms-mcp ...` to its end, stopping it if hms is interrupted. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.HMS_MCP_TOKEN;
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const stop = onInterrupt(() => terminate(child.pid));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", (error) => {
      stop();
      reject(error);
    });
    child.once("close", (status) => {
      stop();
      resolve({ status, stdout, stderr });
    });
  });
}
