/**
 * hms-mcp as a library: start the server in-process, or reuse its configuration parser.
 * Most users run the `hms-mcp` command instead (see README.md).
 */
export { type Config, ConfigError, isLoopback, parseConfig, resolveConfig } from "./config.js";
export { ERROR_META_KEY, type ErrorCode, ToolError } from "./errors.js";
export { type RunningServer, startServer } from "./main.js";
export { parseResourceUri, RESOURCE_TEMPLATE, resourceUri } from "./server.js";
export { TOOLS } from "./tools.js";
export { SERVER_INFO } from "./version.js";
