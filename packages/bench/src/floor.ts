/**
 * The floor of a cold connect: the smallest MCP server on the SDK hms-mcp runs (one file, one
 * tool, stdio), spawned with `node`, initialized and called once by the SDK's own client, the
 * `Client` and `StdioClientTransport` the hms-mcp backend connects with. No MCP server on this
 * SDK can start and answer faster, so hms-mcp's cold connect is reported as a ratio to it.
 *
 * The SDK is not a dependency of this package: the floor's server and client load the very
 * copy hms-mcp and its client package resolve (so it is the same SDK by construction), found
 * from those packages' own locations.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const SDK = "@modelcontextprotocol/sdk";

/** The SDK's package directory as the package at `packageJsonPath` resolves it. */
export function sdkFrom(packageJsonPath: string): { dir: string; version: string } {
  // The SDK exports no ./package.json: resolve a module, then walk up to its package.json.
  let dir = dirname(createRequire(packageJsonPath).resolve(`${SDK}/server/index.js`));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8"));
      if (name === SDK) return { dir, version };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${SDK} from ${packageJsonPath}`);
    dir = parent;
  }
}

/** The ESM file of an SDK module (its `./*` export), as a file URL. */
function sdkModule(sdkDir: string, module: string): string {
  const file = join(sdkDir, "dist", "esm", module);
  if (!existsSync(file)) throw new Error(`${SDK} has no ${module} at ${file}`);
  return pathToFileURL(file).href;
}

/**
 * Writes the floor server to `dir` and returns its path: the SDK's low-level `Server` (the
 * class hms-mcp serves with) over stdio, with one tool that answers at once.
 */
export function writeFloorServer(dir: string, sdkDir: string): string {
  const source = `// The smallest MCP server on ${SDK}: one tool, stdio.
import { Server } from ${JSON.stringify(sdkModule(sdkDir, "server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdkModule(sdkDir, "server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdkModule(sdkDir, "types.js"))};

const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: "ping", inputSchema: { type: "object" } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
`;
  const file = join(dir, "floor-server.mjs");
  writeFileSync(file, source);
  return file;
}

/** The parts of the SDK's client the floor uses. */
interface SdkClient {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}
interface ClientModules {
  Client: new (info: { name: string; version: string }) => SdkClient;
  StdioClientTransport: new (params: {
    command: string;
    args: string[];
    stderr: "pipe";
  }) => unknown;
}

/** The SDK client's classes, from the SDK at `sdkDir`. */
export async function loadClient(sdkDir: string): Promise<ClientModules> {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import(sdkModule(sdkDir, "client/index.js")),
    import(sdkModule(sdkDir, "client/stdio.js")),
  ]);
  return { Client, StdioClientTransport };
}

/**
 * One cold connect to the floor server at `file`: spawn, initialize, one tool call, as the
 * hms-mcp backend does it (stderr piped). Resolves to the milliseconds it took; the server is
 * stopped afterwards, outside the measured time.
 */
export async function floorConnect(sdk: ClientModules, file: string): Promise<number> {
  const t0 = performance.now();
  const client = new sdk.Client({ name: "bench-floor", version: "1.0.0" });
  await client.connect(
    new sdk.StdioClientTransport({ command: process.execPath, args: [file], stderr: "pipe" }),
  );
  await client.callTool({ name: "ping", arguments: {} });
  const elapsed = performance.now() - t0;
  await client.close();
  return elapsed;
}
