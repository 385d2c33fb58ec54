/**
 * hms-mcp in its host's own process: the server a client would start over stdio (the same
 * tools, limits, history and store files, which other processes go on sharing), reached over
 * the MCP SDK's in-memory transport instead of a pipe. Client and server still meet only over
 * MCP; what is saved is the process, the pipe and the JSON in between.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { type InProcessOptions, inProcessConfig } from "./config/in-process.js";
import { createAccessLogger, createLogger } from "./log.js";
import { connectServer } from "./mcp/connect.js";
import { createMcpServer } from "./mcp/server.js";
import { closeRuntime, openRuntime } from "./runtime/runtime.js";

/**
 * The client's end of the in-memory link: an MCP SDK `Transport`, declared here by its members
 * because the SDK's own declaration file needs the DOM library's types, which a Node.js
 * program type-checked without them lacks.
 */
export interface InProcessTransport {
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?:
    | (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void)
    | undefined;
  sessionId?: string | undefined;
}

/** A server running in this process, with the one client end of its link. */
export interface InProcessServer {
  /** The client's end of the link: give it to an MCP `Client`'s `connect` (once). */
  readonly transport: InProcessTransport;
  /** Where the Prometheus metrics are served (`metricsPort`), else undefined. */
  readonly metricsUrl: string | undefined;
  /**
   * Refuses new calls, lets the calls in flight finish, closes the link and the stores: once it
   * resolves, every commit is on disk as `synchronous` promised and the store files are free
   * to be opened, copied or removed. Calling it again waits for the same close.
   */
  close(): Promise<void>;
}

/**
 * Starts hms-mcp in this process with `options` (each one of the command's flags, checked as
 * the flag is) and links one MCP client end to it in memory. Like `startServer`, it opens the
 * default namespace's store first, so a data directory that cannot be used fails here. Throws
 * ConfigError, whose message says what to do, for options the command would refuse, a data
 * directory or database that cannot be used, or an embedding model that cannot be loaded.
 * The log goes to this process's stderr at `logLevel`, unless `log` is given.
 */
export async function connectInProcess(
  options: InProcessOptions,
  log?: Logger,
): Promise<InProcessServer> {
  const config = inProcessConfig(options);
  // A host's own logger takes the access lines too; else they go to stderr in batches.
  const runtime = await openRuntime(
    config,
    log ?? createLogger(config.logLevel),
    log ?? createAccessLogger(config.logLevel),
  );
  const server = createMcpServer(runtime);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  try {
    await connectServer(server, serverEnd);
  } catch (error) {
    await closeRuntime(runtime);
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await runtime.calls.stop();
      await server.close();
      await closeRuntime(runtime);
    })();
    return closing;
  };
  const { metricsUrl } = runtime.observe;
  if (metricsUrl !== undefined) runtime.log.info({ metrics: metricsUrl }, "metrics served");
  return { transport: clientEnd, metricsUrl, close };
}
