import { spawn } from "node:child_process";
import { CliError, EXIT } from "../errors.js";
import { onInterrupt, terminate } from "../interrupt.js";
import { humanBytes, type Output } from "../output.js";
import { hmsMcpBin } from "../target.js";

/** One namespace as `hms namespaces` lists it (hms-mcp namespaces' summary). */
export interface NamespaceEntry {
  name: string;
  memories: number;
  bytes: number;
  updated_at: string | null;
  disk_bytes?: number;
}

/**
 * `hms namespaces`: the namespaces of the local data directory by name, with how many
 * memories each holds, their size and the last change. hms-mcp reads them (`hms-mcp
 * namespaces`) without opening, creating or upgrading any store.
 */
export async function namespaces(
  options: { dataDir?: string; url?: string },
  out: Output,
): Promise<void> {
  if (options.url !== undefined) {
    throw new CliError(
      "hms namespaces lists a local data directory's namespaces; a server's operator runs `hms-mcp namespaces` where it keeps its store",
      EXIT.usage,
    );
  }
  const args = [hmsMcpBin(), "namespaces", "--json"];
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
  const { status, stdout, stderr } = await run(args);
  if (status !== 0) {
    const said =
      stderr
        .trim()
        .split("\n")
        .at(-1)
        ?.replace(/^hms-mcp namespaces: /, "") ?? "";
    if (/^there is no data directory at /.test(said)) {
      throw new CliError(
        `no store at ${options.dataDir ?? "hms-mcp's default data directory"}; \`hms import\` ` +
          "creates one, or check --data-dir",
      );
    }
    throw new CliError(`could not list the namespaces: ${said || `hms-mcp exited ${status}`}`);
  }
  const listing = JSON.parse(stdout) as { store: string; namespaces: NamespaceEntry[] };
  out.result(listing.namespaces, () => {
    if (listing.namespaces.length === 0) return `no namespace in ${listing.store}`;
    const rows = listing.namespaces.map((ns) => [
      ns.name,
      ns.memories,
      humanBytes(ns.bytes),
      ns.disk_bytes === undefined ? "" : humanBytes(ns.disk_bytes),
      ns.updated_at?.replace("T", " ").replace(/\.\d+Z$/, "Z") ?? "never",
    ]);
    return out.table(["NAMESPACE", "MEMORIES", "SIZE", "ON DISK", "LAST CHANGE"], rows, [
      "left",
      "right",
      "right",
      "right",
      "left",
    ]);
  });
}

/** Runs `node hms-mcp ...` to its end, stopping it if hms is interrupted. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.HMS_MCP_TOKEN;
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const stop = onInterrupt(() => terminate(child.pid));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", (error) => {
      stop();
      reject(error);
    });
    child.once("close", (status) => {
      stop();
      resolve({ status, stdout, stderr });
    });
  });
}
