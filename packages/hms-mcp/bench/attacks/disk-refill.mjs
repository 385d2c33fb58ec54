// Disk refill: does deleting free a full disk? The data directory is a real tmpfs of `--mib`
// (12) MiB. The memory tool (the real TypeScript HolographicMemoryTool, over HTTP to one
// hms-mcp) creates files of `--kb` (30) KB under /memories/ until the server answers
// STORAGE_FULL, deletes every one of them (they lie in 8 directories: the files of 7 are deleted
// one command each, the eighth directory with one delete of the directory), then creates files
// again until the disk is full. Prints how many fit, how many fit again, and the server's warnings about the disk
// and the history. `--keys plain` does the same with plain keys (remember/forget calls outside
// /memories/, which keep no history) for comparison. SQLite only: a PostgreSQL server's disk is
// the database server's.
//
//   pnpm bench attack disk-refill [--mib 12] [--kb 30] [--keys memory|plain]
//
// HMS_MCP_BIN picks the server build (the "before" figure: today's build at
// /work/main/packages/hms-mcp/dist/cli.js). Needs root, to mount the tmpfs.
import { mountTmpfs, startHttpServer } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN } from "../support.mjs";
import { loadMemoryTool, seeded, textOf } from "./memory-churn.mjs";

function flag(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

/** Creates through the memory tool (or plain remember calls) until the disk is full. */
async function fill(write, label) {
  for (let n = 0; ; n++) {
    try {
      await write(n);
    } catch (error) {
      const message = String(error?.message ?? error);
      if (!/STORAGE_FULL|disk holding the store is full/i.test(message)) {
        throw new Error(`${label}: write ${n} failed otherwise: ${message}`);
      }
      return n;
    }
  }
}

/** What `pnpm bench attack disk-refill` takes; attack.mjs refuses anything else. */
export const options = ["mib", "kb", "keys"];

export default async function diskRefill(args) {
  const mib = Number(flag(args, "mib", 12));
  const kb = Number(flag(args, "kb", 30));
  const keys = flag(args, "keys", "memory");
  if (keys !== "memory" && keys !== "plain") {
    console.error("--keys must be memory or plain");
    process.exit(2);
  }
  const disk = mountTmpfs(mib);
  const server = await startHttpServer({ dataDir: disk.dir, args: ["--log-level", "info"] });
  const random = seeded(4);
  const texts = new Map();
  const text = (n) => {
    if (!texts.has(n)) texts.set(n, textOf(random, kb * 1000, `f${n}`));
    return texts.get(n);
  };
  let tool;
  let client;
  try {
    let write;
    let removeAll;
    if (keys === "memory") {
      const HolographicMemoryTool = await loadMemoryTool();
      tool = await HolographicMemoryTool.connect({ connection: { url: server.url } });
      const path = (n, round) => `/memories/r${round}/g${n % 8}/f${n}.md`;
      write = (n, round) =>
        tool.execute({ command: "create", path: path(n, round), file_text: text(n) });
      removeAll = async (count, round) => {
        for (let n = 0; n < count; n++) {
          if (n % 8 !== 7) await tool.execute({ command: "delete", path: path(n, round) });
        }
        if (count > 7) await tool.execute({ command: "delete", path: `/memories/r${round}/g7` });
      };
    } else {
      client = new Client({ name: "disk-refill", version: "0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const call = async (name, argsOf) => {
        const result = await client.callTool({ name, arguments: argsOf });
        if (result.isError) throw new Error(result.content?.[0]?.text);
        return result.structuredContent;
      };
      write = (n, round) => call("remember", { key: `plain:r${round}:f${n}`, text: text(n) });
      removeAll = async (count, round) => {
        for (let n = 0; n < count; n++) await call("forget", { key: `plain:r${round}:f${n}` });
      };
    }
    const fit = await fill((n) => write(n, 0), "first fill");
    await removeAll(fit, 0);
    const fitAgain = await fill((n) => write(n, 1), "second fill");
    const warnings = server
      .stderr()
      .split("\n")
      .filter((line) => /"level":(40|50)/.test(line))
      .map((line) => {
        try {
          const { msg, ...rest } = JSON.parse(line);
          return { msg, dropped: rest.changes ?? rest.dropped, bytes: rest.bytes };
        } catch {
          return line;
        }
      });
    console.log(
      JSON.stringify(
        {
          attack: "disk-refill",
          server: BIN,
          disk_mib: mib,
          file_kb: kb,
          keys,
          fit,
          fit_again: fitAgain,
          ratio: fit === 0 ? null : Math.round((fitAgain / fit) * 1000) / 1000,
          at_least_80_percent: fitAgain >= 0.8 * fit,
          warnings_logged: warnings.length,
          first_warnings: warnings.slice(0, 3),
        },
        null,
        2,
      ),
    );
  } finally {
    await tool?.close();
    await client?.close();
    await server.stop();
    disk.remove();
  }
}
