/**
 * MCP clients of hms-mcp for tests: a client connected to a real server process over stdio or
 * HTTP, one linked in memory to a server running in the test's own process, and calls that
 * must succeed or fail.
 */
import { ERROR_META_KEY } from "@hms/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  cleanEnv,
  type HttpServer,
  hmsMcpBin,
  serverStore,
  startHttpServer,
  tempDir,
} from "./server-process.js";

export type TransportKind = "stdio" | "http";

/** Connects an MCP client and lists tools once, so the client validates structured results. */
async function ready(client: Client): Promise<Client> {
  await client.listTools();
  return client;
}

/** A stdio server process with a connected client. */
export async function startStdio(options: {
  /** The store's data directory (on PostgreSQL: its database, see `storeArgs`). */
  dataDir?: string;
  /** A PostgreSQL database to serve instead of a data directory. */
  databaseUrl?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Options for node itself, before the program (e.g. `--import`). */
  nodeArgs?: string[];
}): Promise<{ client: Client; pid: number; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(options.nodeArgs ?? []),
      hmsMcpBin(),
      ...serverStore(options),
      "--log-level",
      "warn",
      ...(options.args ?? []),
    ],
    env: cleanEnv(options.env),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "hms-mcp-test", version: "0" });
  await client.connect(transport);
  return {
    client: await ready(client),
    pid: transport.pid as number,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** A server process started with `--transport http --port 0`, and the URL it printed. */
export interface HttpProcess extends HttpServer {
  /** A new client session, optionally sending a bearer token. */
  connect(token?: string): Promise<Client>;
}

export async function startHttpProcess(options: {
  dataDir?: string;
  databaseUrl?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<HttpProcess> {
  const server = await startHttpServer(options);
  return {
    ...server,
    async connect(token) {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
      });
      const client = new Client({ name: "hms-mcp-test", version: "0" });
      await client.connect(transport);
      return ready(client);
    },
  };
}

/** Anything that serves MCP over a transport it is given, such as the SDK's `Server`. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
}

/**
 * A client linked in memory (the SDK's `InMemoryTransport`) to `server`, which runs in this
 * process: no process and no serialization between them, so a test sees the server's source
 * as it is now. Closing the client closes the link.
 */
export async function connectInMemory(server: ConnectableServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "hms-mcp-test", version: "0" });
  await client.connect(clientSide);
  return ready(client);
}

/** A connected client over either transport, and how to shut it all down. */
export interface Connection {
  readonly client: Client;
  close(): Promise<void>;
}

/** Starts a server over `kind` and connects one client to it. */
export async function connect(
  kind: TransportKind,
  options: { dataDir: string; args?: string[]; env?: Record<string, string> },
): Promise<Connection> {
  if (kind === "stdio") {
    const started = await startStdio(options);
    return { client: started.client, close: started.close };
  }
  const server = await startHttpProcess(options);
  const client = await server.connect();
  return {
    client,
    async close() {
      await client.close();
      await server.stop();
    },
  };
}

/**
 * Starts a server over `kind` on a new temporary data directory and connects one client;
 * `close` also removes the directory. Return `close` from a `beforeAll` to serve a block of
 * tests from one fresh store.
 */
export async function connectFresh(
  kind: TransportKind,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<Connection> {
  const data = tempDir();
  try {
    const connection = await connect(kind, { ...options, dataDir: data.dir });
    return {
      client: connection.client,
      async close() {
        await connection.close();
        data.remove();
      },
    };
  } catch (error) {
    data.remove();
    throw error;
  }
}

/** Calls a tool and returns its result (success or tool error). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that must succeed and returns its structured content. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) {
    const text = result.content.map((part) => ("text" in part ? part.text : "")).join("");
    throw new Error(`${name} failed: ${text}`);
  }
  return result.structuredContent as T;
}

/** Calls a tool that must fail and returns its error code, message and `_meta` details. */
export async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; text: string; meta: Record<string, unknown>; result: CallToolResult }> {
  const result = await call(client, name, args);
  if (!result.isError) throw new Error(`${name} succeeded but was expected to fail`);
  const text = result.content.map((part) => ("text" in part ? part.text : "")).join("");
  const code = /^([A-Z_]+): /.exec(text)?.[1] ?? "";
  const meta = (result._meta?.[ERROR_META_KEY] ?? {}) as Record<string, unknown>;
  return { code, text, meta, result };
}

/** Every memory of `namespace` as the server's export tool pages them (in key order). */
export async function exportAll(
  client: Client,
  namespace: string,
): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok<{ memories: Record<string, unknown>[]; next_cursor: string | null }>(
      client,
      "export",
      { namespace, limit: 200, ...(cursor === undefined ? {} : { cursor }) },
    );
    all.push(...page.memories);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

/** One change of a memory file, as the history tool answers it. */
export interface HistoryChange {
  seq: number;
  key: string;
  op: string;
  version: number;
  at: string;
  actor: string | null;
  command: string | null;
}

/** Every change of the memory files of `namespace`, newest first, as the history tool pages them. */
export async function historyAll(client: Client, namespace: string): Promise<HistoryChange[]> {
  const all: HistoryChange[] = [];
  let before: number | undefined;
  do {
    const page = await ok<{ changes: HistoryChange[]; next_before: number | null }>(
      client,
      "history",
      { namespace, prefix: "/memories/", limit: 1000, ...(before === undefined ? {} : { before }) },
    );
    all.push(...page.changes);
    before = page.next_before ?? undefined;
  } while (before !== undefined);
  return all;
}

/** A memory file a write load wrote, once the server acknowledged it, and how long that took. */
export interface AckedWrite {
  namespace: string;
  key: string;
  text: string;
  ms: number;
}

/**
 * A write load: each client writes new memory files, `/memories/load/w<client>/n<i>.md`, in
 * the namespaces in turn, one call at a time, pushing each onto `acked` once the server
 * acknowledged it, until `stopped()` or `max` writes each.
 */
export async function writeLoad(
  clients: readonly Client[],
  namespaces: readonly string[],
  acked: AckedWrite[],
  stopped: () => boolean,
  max = 5000,
): Promise<void> {
  await Promise.all(
    clients.map(async (client, w) => {
      for (let i = 0; i < max && !stopped(); i++) {
        const write = {
          namespace: namespaces[i % namespaces.length] as string,
          key: `/memories/load/w${w}/n${i}.md`,
          text: `writer ${w}, note ${i}\n`,
        };
        const started = performance.now();
        await ok(client, "remember", write);
        acked.push({ ...write, ms: performance.now() - started });
      }
    }),
  );
}

/** Resolves once `count()` reaches `n`, looking again every few milliseconds. */
export async function until(count: () => number, n: number): Promise<void> {
  while (count() < n) await new Promise((resolve) => setTimeout(resolve, 5));
}
