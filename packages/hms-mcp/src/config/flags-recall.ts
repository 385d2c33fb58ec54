/** The flags of hybrid recall (`--model-dir` and the embedding workers). */
import { type Command, Option } from "commander";
import { integer } from "./parse.js";

/** Default of `recallWaitMs` (`--recall-wait`). */
export const DEFAULT_RECALL_WAIT_MS = 2000;

/** Adds the hybrid recall flags to `command`. */
export function addRecallFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--model-dir <dir>",
        "hybrid recall: the embedding model's directory, as `hms-mcp fetch-model` prints it " +
          "(default: none, lexical recall)",
      ).env("HMS_MCP_MODEL_DIR"),
    )
    .addOption(
      new Option(
        "--model <id>",
        "hybrid recall: the embedding model --model-dir must hold, as `hms-mcp fetch-model " +
          "--model <id>` fetched it (default: whichever model the directory holds)",
      ).env("HMS_MCP_MODEL"),
    )
    .addOption(
      new Option(
        "--reembed",
        "hybrid recall: replace the vectors of a store made by another embedding model, " +
          "re-embedding every memory, instead of refusing the store (env: HMS_MCP_REEMBED=1)",
      ),
    )
    .addOption(
      new Option(
        "--embed-workers <n>",
        "hybrid recall: embedding threads run side by side, each with its own copy of the " +
          "model; 2 embed about a fifth faster than 1 on 2 cores for about 220 MiB more " +
          "memory (default: 1)",
      )
        .env("HMS_MCP_EMBED_WORKERS")
        .argParser(integer(1, 16)),
    )
    .addOption(
      new Option(
        "--embed-threads <n>",
        "hybrid recall: CPU threads each embedding worker's model uses (default: the " +
          "available cores, at most 4, shared out between the workers)",
      )
        .env("HMS_MCP_EMBED_THREADS")
        .argParser(integer(1, 64)),
    )
    .addOption(
      new Option(
        "--embed-runtime <runtime>",
        "hybrid recall: the ONNX Runtime the model runs on: wasm (bundled with @hms/embedder), " +
          "native (onnxruntime-node, about 4x faster, if installed next to it), or auto: " +
          "native when installed, else wasm",
      )
        .env("HMS_MCP_EMBED_RUNTIME")
        .choices(["auto", "native", "wasm"])
        .default("auto"),
    )
    .addOption(
      new Option(
        "--recall-wait <ms>",
        "hybrid recall: longest a recall waits for the memories its own connection (stdio " +
          "pipe or HTTP session) wrote just before it to be embedded, never for others' " +
          "writes or a backlog; memories still waiting are ranked lexically",
      )
        .env("HMS_MCP_RECALL_WAIT")
        .default(DEFAULT_RECALL_WAIT_MS)
        .argParser(integer(0, 60000)),
    );
}
