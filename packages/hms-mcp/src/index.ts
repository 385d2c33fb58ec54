/**
 * hms-mcp as a library: `startServer(config)` runs the server in-process, with a `Config` from
 * `parseConfig` (the command's own flags and HMS_MCP_* variables), serving stdio or HTTP;
 * `connectInProcess(options)` runs it for one client in this same process, over the MCP SDK's
 * in-memory transport (what `HolographicMemoryTool.connect({ connection: { inProcess } })`
 * uses). Everything else is internal; the contract clients rely on is `@hms/protocol`. Most
 * users run the `hms-mcp` command instead (see README.md).
 */
export { type Config, ConfigError, parseConfig } from "./config/config.js";
export type { InProcessOptions } from "./config/in-process.js";
export { connectInProcess, type InProcessServer, type InProcessTransport } from "./in-process.js";
export { type RunningServer, startServer } from "./main.js";
