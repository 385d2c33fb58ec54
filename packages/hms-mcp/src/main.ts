import { EmbeddingModelMismatchError, Namespaces } from "@hms/store";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "pino";
import { type Config, ConfigError, DEFAULT_RECALL_WAIT_MS } from "./config.js";
import { type HttpEndpoint, startHttp } from "./http.js";
import { createLogger } from "./log.js";
import { Semantic } from "./semantic/semantic.js";
import { ModelUnavailableError } from "./semantic/worker-client.js";
import { CallTracker, createMcpServer, modelMismatchMessage, type Runtime } from "./server.js";
import { SERVER_INFO } from "./version.js";

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
  let semantic: Semantic | undefined;
  if (config.modelDir !== undefined) {
    try {
      semantic = await Semantic.start({
        modelDir: config.modelDir,
        threads: config.embedThreads,
        reembed: config.reembed ?? false,
        recallWaitMs: config.recallWaitMs ?? DEFAULT_RECALL_WAIT_MS,
        log,
      });
    } catch (error) {
      if (error instanceof ModelUnavailableError) {
        throw new ConfigError(`--model-dir ${config.modelDir}: ${error.message}`);
      }
      throw error;
    }
    log.info({ model: semantic.modelId, modelDir: config.modelDir }, "hybrid recall: model loaded");
  }
  const namespaces = new Namespaces({
    dataDir: config.dataDir,
    maxTextBytes: config.maxTextBytes,
    maxOpen: config.maxOpenNamespaces,
    busyTimeoutMs: config.busyTimeoutMs,
    synchronous: config.synchronous,
    embeddings: semantic?.storeOptions,
    onOpen: (name, store) => semantic?.watch(name, store),
  });
  const runtime: Runtime = {
    namespaces,
    namespace: config.namespace,
    namespaceArg: config.namespaceArg,
    server: SERVER_INFO,
    log,
    calls: new CallTracker(),
    semantic,
  };
  try {
    namespaces.get(config.namespace);
  } catch (error) {
    await semantic?.close();
    if (error instanceof EmbeddingModelMismatchError) {
      throw new ConfigError(modelMismatchMessage(config.namespace, error));
    }
    throw error;
  }

  let endpoint: HttpEndpoint | undefined;
  let closeStdio: (() => Promise<void>) | undefined;
  if (config.transport === "http") {
    endpoint = await startHttp(runtime, {
      host: config.host,
      port: config.port,
      path: config.path,
      token: config.token,
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
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
      await semantic?.close();
      namespaces.close();
    })();
    return closing;
  };
  return { url: endpoint?.url, close };
}
