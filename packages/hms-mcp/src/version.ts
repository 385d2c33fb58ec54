import packageJson from "../package.json" with { type: "json" };

/** This server's name and version, as reported to MCP clients and by --version. */
export const SERVER_INFO = Object.freeze({
  name: packageJson.name,
  version: packageJson.version,
});
