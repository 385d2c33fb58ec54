import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { HttpEndpoint } from "./http.js";
import { createLogger } from "./log.js";
import { createMcpServer } from "./mcp-server.js";
import { closeRuntime, openRuntime } from "./runtime.js";

/** A started server. */
export interface RunningServer {
  /** The HTTP endpoint's URL, when serving HTTP. */
  readonly url: string | undefined;
  /** Refuses new calls, lets calls in flight finish, closes connections and stores. */
  close(): Promise<void>;
}

/**
 * Starts hms-mcp with `config`: loads the embedding model when there is one (hybrid recall),
 * opens the default namespace's store (so a broken data directory fails at start, not at the
 * first call) and serves stdio or HTTP. Throws ConfigError when the model cannot be loaded or
 * the store's vectors come from another model.
 */
export async function startServer(
  config: Config,
  log: Logger = createLogger(config.logLevel),
): Promise<RunningServer> {
  const runtime = await openRuntime(config, log);

  let endpoint: HttpEndpoint | undefined;
  let closeStdio: (() => Promise<void>) | undefined;
  if (config.transport === "http") {
    // The HTTP stack (node:http, the SDK's streamable HTTP transport and what it brings) is
    // loaded only here: a server on stdio, the common case, starts without it.
    const { startHttp } = await import("./http.js");
    endpoint = await startHttp(runtime, {
      host: config.host,
      port: config.port,
      path: config.path,
      token: config.token,
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
      ui: config.ui === true,
      // JSON may escape each character of the text as \uXXXX (6 bytes), plus the envelope.
      maxBodyBytes: config.maxTextBytes * 6 + 1024 * 1024,
    });
  } else {
    const server = createMcpServer(runtime);
    await server.connect(new StdioServerTransport());
    closeStdio = () => server.close();
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await runtime.calls.stop();
      await endpoint?.close();
      await closeStdio?.();
      await closeRuntime(runtime);
    })();
    return closing;
  };
  return { url: endpoint?.url, close };
}
