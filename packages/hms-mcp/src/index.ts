/**
 * hms-mcp as a library: `startServer(config)` runs the server in-process, with a `Config` from
 * `parseConfig` (the command's own flags and HMS_MCP_* variables). Everything else is internal;
 * the contract clients rely on is `@hms/protocol`. Most users run the `hms-mcp` command instead
 * (see README.md).
 */
export { type Config, ConfigError, parseConfig } from "./config/config.js";
export { type RunningServer, startServer } from "./main.js";
