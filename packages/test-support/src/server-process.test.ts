import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hmsMcpCommand, hmsMcpOnPath, startHttpServer, tempDir } from "./server-process.js";

// The workspace's hms-mcp, as hmsMcpBin finds it (this package does not depend on hms-mcp).
const version = (
  JSON.parse(readFileSync(new URL("../../hms-mcp/package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

describe("finding and starting hms-mcp", () => {
  it("hmsMcpCommand runs the server under test", () => {
    const { command, args } = hmsMcpCommand(["--version"]);
    const result = spawnSync(command, args, { encoding: "utf8" });
    expect(result.stdout.trim()).toBe(process.env.HMS_MCP_BIN ? expect.any(String) : version);
  });

  it("hmsMcpOnPath puts an executable hms-mcp first on PATH", () => {
    const onPath = hmsMcpOnPath();
    try {
      const result = spawnSync("hms-mcp", ["--version"], {
        encoding: "utf8",
        env: { ...process.env, PATH: onPath.path },
      });
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      onPath.remove();
    }
  });

  it("startHttpServer resolves with the URL the server listens on", async () => {
    const data = tempDir();
    const server = await startHttpServer({ dataDir: data.dir });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    } finally {
      await server.stop();
      data.remove();
    }
    expect(server.child.exitCode !== null || server.child.signalCode !== null).toBe(true);
  });

  it("startHttpServer refuses a --log-level that would hide the line it waits for", async () => {
    await expect(
      startHttpServer({ dataDir: "/nowhere", args: ["--log-level", "warn"] }),
    ).rejects.toThrow(
      "startHttpServer reads the info-level 'listening on' line: use --log-level info, debug or trace",
    );
  });
});
