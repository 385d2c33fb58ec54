// The MemoryBackend contract and every shared command vector, through a real hms-mcp process
// over stdio. One server serves the whole file; each test starts from an empty store (what a
// test wrote is deleted after it), so tests are isolated without a process each.
import { runBackendConformance, runCommandVectors } from "@hms/memory-core/testing";
import { hmsMcpCommand, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { HmsMemoryBackend } from "./backend.js";
import { connectHmsBackend } from "./connect.js";

let data: ReturnType<typeof tempDir>;
let server: HmsMemoryBackend;

beforeAll(async () => {
  data = tempDir();
  server = await connectHmsBackend({
    connection: {
      ...hmsMcpCommand(["--data-dir", data.dir, "--log-level", "warn"]),
      stderr: "inherit",
    },
  });
});

afterAll(async () => {
  await server?.close();
  data?.remove();
});

const factory = {
  name: "hms-mcp over stdio",
  makeBackend: () => server,
  disposeBackend: async () => {
    await server.deletePrefix?.("/memories/");
  },
};

runBackendConformance(factory, { describe, it });
runCommandVectors(factory, { describe, it });
