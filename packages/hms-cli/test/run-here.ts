/**
 * `hms` run as a function in the test process (main.ts, with streams of its own), and one
 * hms-mcp over HTTP that a test file shares, each test in a namespace of its own. For the
 * behaviours that do not rest on `hms` being a process of its own: what a command prints,
 * writes and refuses, and the exit code main() gives. What does rest on it (signals, a pipe's
 * reader going away, bytes of the command line, the exit status itself, the hms-mcp that
 * `hms` starts) is tested with runHms, the built program as a process.
 */
import { Readable } from "node:stream";
import {
  cleanEnv,
  type HmsRun,
  type HttpServer,
  startHttpServer,
  tempDir,
} from "@hms/test-support";
import { main } from "../src/main.js";

/** Runs `hms ...args` here; `env` is added to a clean environment, `input` is its stdin. */
export async function hms(
  args: string[],
  env: Record<string, string> = {},
  options: { input?: string | Uint8Array } = {},
): Promise<HmsRun> {
  let stdout = "";
  let stderr = "";
  const input = options.input === undefined ? [] : [Buffer.from(options.input)];
  const code = await main(args, {
    stdin: Readable.from(input),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: cleanEnv(env),
  });
  return { code, stdout, stderr };
}

/** A server for a test file: `--url` and a fresh `--namespace` for each test. */
export interface SharedServer {
  readonly url: string;
  /** Its data directory (namespace NAME is NAME.sqlite there). */
  readonly dataDir: string;
  /** `--url URL --namespace NAME` of a namespace no other test uses. */
  namespace(): { args: string[]; name: string };
  stop(): Promise<void>;
}

/** Starts `hms-mcp --transport http --namespace-arg` on a temporary data directory. */
export async function startSharedServer(): Promise<SharedServer> {
  const data = tempDir("hms-cli-shared-");
  let server: HttpServer;
  try {
    server = await startHttpServer({ dataDir: data.dir, args: ["--namespace-arg"] });
  } catch (error) {
    data.remove();
    throw error;
  }
  let count = 0;
  return {
    url: server.url,
    dataDir: data.dir,
    namespace() {
      count += 1;
      const name = `t${count}`;
      return { name, args: ["--url", server.url, "--namespace", name] };
    },
    async stop() {
      await server.stop();
      data.remove();
    },
  };
}
