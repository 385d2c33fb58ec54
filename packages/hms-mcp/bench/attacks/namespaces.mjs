// `pnpm bench attack namespaces [--calls N]`: a caller on a server started with
// --namespace-arg names a new namespace in each of N read-only `get` calls (default 200), and
// the files and bytes left in the data directory are counted. Reads should create nothing.
// HMS_MCP_BIN picks the server build (e.g. the build before the fix, for the "before" figure).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BIN, spawnServer, tempDir } from "../support.mjs";

/** Files under `dir` (recursively) and their total size in bytes. */
function usage(dir) {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = usage(path);
      files += inner.files;
      bytes += inner.bytes;
    } else {
      files += 1;
      bytes += statSync(path).size;
    }
  }
  return { files, bytes };
}

/** What `pnpm bench attack namespaces` takes; attack.mjs refuses anything else. */
export const options = ["calls"];

export default async function namespaces(args) {
  const at = args.indexOf("--calls");
  const calls = at === -1 ? 200 : Number(args[at + 1]);
  if (!Number.isSafeInteger(calls) || calls < 1) {
    console.error("usage: pnpm bench attack namespaces [--calls N] (N a positive integer)");
    process.exit(2);
  }
  const data = tempDir("namespaces");
  try {
    const server = await spawnServer(data.dir, ["--namespace-arg"]);
    const before = usage(data.dir);
    let refused = 0;
    for (let i = 0; i < calls; i++) {
      const result = await server.client.callTool({
        name: "get",
        arguments: { namespace: `attack-${i}`, key: "nothing.md" },
      });
      if (result.isError) refused++;
    }
    // Counted while the server still runs: what a live server holds on disk.
    const during = usage(data.dir);
    await server.close();
    const after = usage(data.dir);
    console.log(
      JSON.stringify(
        {
          attack: "namespaces",
          server: BIN,
          get_calls: calls,
          answered_with_an_error: refused,
          files_before: before.files,
          bytes_before: before.bytes,
          files_created_while_running: during.files - before.files,
          bytes_created_while_running: during.bytes - before.bytes,
          // The default store's WAL and SHM files go at a clean stop.
          files_after_stop: after.files,
          bytes_after_stop: after.bytes,
        },
        null,
        2,
      ),
    );
  } finally {
    data.remove();
  }
}
