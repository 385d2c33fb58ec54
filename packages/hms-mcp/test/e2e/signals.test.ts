/**
 * SIGTERM right after hms-mcp says it is serving stops it cleanly (exit 0, "stopped"), over
 * both transports: the signal used to be handled only a moment after that line, and a
 * supervisor that stopped the server at once killed it instead.
 */
import { spawn } from "node:child_process";
import { cleanEnv, exited, hmsMcpCommand, storeArgs, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

describe("SIGTERM as soon as the server says it serves", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  // Four starts each: the window the signal used to fall in was a few milliseconds wide.
  for (const [transport, round] of ["stdio", "http"].flatMap((t) =>
    [1, 2, 3, 4].map((n) => [t, n] as const),
  )) {
    it(`stops cleanly (${transport}, start ${round})`, async () => {
      const extra = transport === "http" ? ["--transport", "http", "--port", "0"] : [];
      const { command, args } = hmsMcpCommand([...storeArgs(data.dir), ...extra]);
      const child = spawn(command, [...args, "--log-level", "info"], {
        env: cleanEnv(),
        stdio: ["pipe", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (chunk: string) => {
        // The signal goes out in the same turn as the line that says it serves arrives.
        if (!stderr.includes("hms-mcp ") && /hms-mcp (listening on|serving on stdio)/.test(chunk)) {
          child.kill("SIGTERM");
        }
        stderr += chunk;
      });
      const code = await exited(child);
      expect({ code, signal: child.signalCode }, stderr).toEqual({ code: 0, signal: null });
      expect(stderr).toContain('"reason":"SIGTERM"');
      expect(stderr).toContain('"msg":"stopped"');
    });
  }
});
