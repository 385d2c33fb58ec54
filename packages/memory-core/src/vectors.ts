import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { MemoryBackend } from "./backend.js";
import type { BackendFactory, TestApi } from "./conformance.js";
import { MemoryEngine, type MemoryEngineOptions } from "./engine.js";
import { MemoryToolError, type MemoryToolErrorCode } from "./errors.js";

/** One case of `vectors/commands.json`; see the package README for the format. */
export interface CommandVector {
  /** Unique, `command/what-it-shows`. */
  name: string;
  /** Why the case exists, for people. */
  note?: string;
  /** Engine options for this case (snake_case, as in the Python port). */
  options?: { max_view_chars?: number; max_file_bytes?: number };
  /** The files before the command, path to text. */
  files: Record<string, string>;
  /** The command exactly as Claude sends it (the SDK's command JSON; malformed on purpose in some cases). */
  command: unknown;
  /** The exact result string, for a case that succeeds. */
  output?: string;
  /** The exact error message, for a case that fails. */
  error?: string;
  /** The error's code, for a case that fails. */
  error_code?: MemoryToolErrorCode;
  /** The files after the command; absent means unchanged (always the case for errors). */
  files_after?: Record<string, string>;
}

/** The whole vectors file. */
export interface CommandVectors {
  format: 1;
  description: string;
  cases: CommandVector[];
}

/** Reads `vectors/commands.json` shipped with this package. */
export function readCommandVectors(): CommandVectors {
  const url = new URL("../vectors/commands.json", import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), "utf8")) as CommandVectors;
}

/** The engine options a case asks for. */
export function vectorEngineOptions(vector: CommandVector): MemoryEngineOptions {
  const options: MemoryEngineOptions = {};
  if (vector.options?.max_view_chars !== undefined) {
    options.maxViewChars = vector.options.max_view_chars;
  }
  if (vector.options?.max_file_bytes !== undefined) {
    options.maxFileBytes = vector.options.max_file_bytes;
  }
  return options;
}

/** The outcome of running one case. */
export interface VectorOutcome {
  output?: string;
  error?: string;
  errorCode?: string;
  filesAfter: Record<string, string>;
}

/**
 * Writes a case's starting files (path to text) into an empty backend. The default,
 * {@link createFiles}, creates them one by one in the order given.
 */
export type SeedFiles = (backend: MemoryBackend, files: Record<string, string>) => Promise<void>;

/**
 * Creates `files` one by one, in the order given. A backend that keeps the tree well formed
 * ({@link MemoryBackend.tree}) refuses the starting files of a case holding a file and
 * a directory of one name (a state the engine never makes, but another program can leave);
 * such a backend's factory gives its own `seedFiles`.
 */
export const createFiles: SeedFiles = async (backend, files) => {
  for (const [path, text] of Object.entries(files)) await backend.create(path, text);
};

/**
 * Runs one case against `backend` (which must be empty): writes the starting files with
 * `seedFiles` (default {@link createFiles}), runs the command through a {@link MemoryEngine},
 * and reads back every file.
 */
export async function runCommandVector(
  vector: CommandVector,
  backend: MemoryBackend,
  engineOptions: MemoryEngineOptions = {},
  seedFiles: SeedFiles = createFiles,
): Promise<VectorOutcome> {
  await seedFiles(backend, vector.files);
  const engine = new MemoryEngine(backend, { ...engineOptions, ...vectorEngineOptions(vector) });
  const outcome: Partial<VectorOutcome> = {};
  try {
    outcome.output = await engine.execute(vector.command as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    outcome.error = error.message;
    outcome.errorCode = MemoryToolError.isInstance(error) ? error.code : undefined;
  }
  const filesAfter: Record<string, string> = {};
  for (const entry of await backend.list("/memories/")) {
    const file = await backend.read(entry.path);
    if (file) filesAfter[entry.path] = file.content;
  }
  return { ...outcome, filesAfter };
}

/**
 * Registers one test per case of the shared vectors, run against fresh backends from
 * `factory`. Each test checks the exact output or error message and code, and the files
 * after the command.
 */
export function runCommandVectors(
  factory: Omit<BackendFactory, "tree"> & {
    vectors?: CommandVectors;
    engineOptions?: MemoryEngineOptions;
    seedFiles?: SeedFiles;
  },
  t: TestApi,
): void {
  const vectors = factory.vectors ?? readCommandVectors();
  t.describe(`memory command vectors${factory.name ? `: ${factory.name}` : ""}`, () => {
    for (const vector of vectors.cases) {
      t.it(vector.name, async () => {
        const backend = await factory.makeBackend();
        try {
          const outcome = await runCommandVector(
            vector,
            backend,
            factory.engineOptions,
            factory.seedFiles,
          );
          const problems = compareOutcome(vector, outcome);
          if (problems.length > 0) {
            throw new Error(`vector ${vector.name}:\n${problems.join("\n")}`);
          }
        } finally {
          await factory.disposeBackend?.(backend);
        }
      });
    }
  });
}

/** The differences between a case's expectations and an outcome (empty when it passes). */
export function compareOutcome(vector: CommandVector, outcome: VectorOutcome): string[] {
  const problems: string[] = [];
  const show = (value: unknown) => JSON.stringify(value);
  if (vector.error !== undefined) {
    if (outcome.error !== vector.error) {
      problems.push(`error: expected ${show(vector.error)}, got ${show(outcome.error)}`);
    }
    if (vector.error_code !== undefined && outcome.errorCode !== vector.error_code) {
      problems.push(`error_code: expected ${vector.error_code}, got ${show(outcome.errorCode)}`);
    }
    if (outcome.output !== undefined) problems.push(`unexpected output ${show(outcome.output)}`);
  } else {
    if (outcome.output !== vector.output) {
      problems.push(`output: expected ${show(vector.output)}, got ${show(outcome.output)}`);
    }
    if (outcome.error !== undefined) problems.push(`unexpected error ${show(outcome.error)}`);
  }
  const expectedFiles = vector.files_after ?? vector.files;
  if (show(sortKeys(outcome.filesAfter)) !== show(sortKeys(expectedFiles))) {
    problems.push(
      `files after: expected ${show(sortKeys(expectedFiles))}, got ${show(sortKeys(outcome.filesAfter))}`,
    );
  }
  return problems;
}

function sortKeys(files: Record<string, string>): Array<[string, string]> {
  return Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
