// The largest file a server allows, in the text JSON escapes worst (control characters, 6
// bytes each), through the tool against a real hms-mcp over stdio and HTTP, and in this process:
// stored, viewed and exported with the connection alive afterwards (issue 11: such answers used
// to pass the MCP TypeScript SDK's 10 MiB read limit and close the connection for good), and
// the same limit in force whichever way the server is reached.
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { type HttpServer, hmsMcpCommand, startHttpServer, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

/** The highest --max-text-bytes hms-mcp accepts (MAX_TEXT_BYTES_CAP of @hms/protocol). */
const MAX_TEXT_BYTES_CAP = 1_572_864;

/** `bytes` bytes of control characters and newlines: 6 bytes each as JSON. */
function worstCaseText(bytes: number): string {
  return "\u0001\u0002\u001f\n".repeat(Math.ceil(bytes / 4)).slice(0, bytes);
}

const cap = ["--max-text-bytes", String(MAX_TEXT_BYTES_CAP), "--log-level", "info"];

describe.each(["stdio", "http", "in-process"] as const)("the largest file, %s", (kind) => {
  const data = tempDir();
  let server: HttpServer | undefined;
  let memory: HolographicMemoryTool;

  beforeAll(async () => {
    if (kind === "http") {
      server = await startHttpServer({ dataDir: data.dir, args: cap });
      memory = await HolographicMemoryTool.connect({ connection: { url: server.url } });
    } else if (kind === "in-process") {
      memory = await HolographicMemoryTool.connect({
        connection: {
          inProcess: { dataDir: data.dir, maxTextBytes: MAX_TEXT_BYTES_CAP, logLevel: "warn" },
        },
      });
    } else {
      memory = await HolographicMemoryTool.connect({
        connection: { ...hmsMcpCommand(["--data-dir", data.dir, ...cap]), stderr: "ignore" },
      });
    }
  });
  afterAll(async () => {
    await memory?.close();
    await server?.stop();
    data.remove();
  });

  it("is stored, viewed and exported whole, and the connection stays open", async () => {
    expect((memory.backend as HmsMemoryBackend).serverMaxFileBytes).toBe(MAX_TEXT_BYTES_CAP);
    const text = worstCaseText(MAX_TEXT_BYTES_CAP);
    const path = "/memories/largest.txt";
    expect(await memory.execute({ command: "create", path, file_text: text })).toBe(
      `File created successfully at: ${path}`,
    );
    const view = await memory.execute({ command: "view", path });
    expect(view.startsWith(`Here's the content of ${path} with line numbers:\n`)).toBe(true);

    const backend = memory.backend as HmsMemoryBackend;
    const page = await backend.call("export", { prefix: "/memories/" });
    expect(page.memories.map((m) => [m.key, m.bytes, m.text === text])).toEqual([
      [path, MAX_TEXT_BYTES_CAP, true],
    ]);
    expect((await backend.read(path))?.content).toBe(text);

    // One byte more is refused by the server's limit, and the tool goes on working.
    const over = await memory
      .execute({ command: "create", path: "/memories/over.txt", file_text: `${text}x` })
      .catch((error: unknown) => error);
    expect(over).toBeInstanceOf(HolographicMemoryError);
    expect((over as Error).message).toContain(`over the ${MAX_TEXT_BYTES_CAP}-byte limit`);
    expect(backend.closed).toBe(false);
  });

  it("echoes a few hundred characters of a huge old_str, not all of it", async () => {
    const oldStr = worstCaseText(MAX_TEXT_BYTES_CAP - 1).replaceAll("\n", "");
    const path = "/memories/largest.txt";
    const error = await memory
      .execute({ command: "str_replace", path, old_str: `${oldStr}!`, new_str: "" })
      .catch((thrown: unknown) => thrown as Error);
    expect(error).toBeInstanceOf(HolographicMemoryError);
    expect((error as Error).message.length).toBeLessThan(1000);
    expect((error as Error).message).toMatch(/more characters\)` did not appear verbatim/);
  });
});
