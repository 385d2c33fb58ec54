import { copyFile, mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadEmbedder } from "./embedder.js";
import { DEFAULT_MODEL, PARAPHRASE_MINILM_L3_V2 } from "./manifest.js";
import {
  defaultModelDir,
  defaultModelsDir,
  identifyModel,
  ModelNotReadyError,
  verifyModelDir,
} from "./model-dir.js";

let scratch: string;

/** A copy of the real model directory that a test may damage. */
async function copyOfModel(name: string, skip: string[] = []): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  for (const file of await readdir(inject("modelDir"))) {
    if (!skip.includes(file)) await copyFile(join(inject("modelDir"), file), join(dir, file));
  }
  return dir;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "hms-embedder-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("verifyModelDir", () => {
  it("accepts the fetched model and returns its absolute path", async () => {
    expect(await verifyModelDir(inject("modelDir"))).toBe(inject("modelDir"));
  });

  it("refuses a directory that does not exist and says how to get the model", async () => {
    const missing = join(scratch, "nowhere");
    const error = await verifyModelDir(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotReadyError);
    expect(error).toMatchObject({ code: "MODEL_MISSING", modelDir: missing });
    expect((error as Error).message).toContain("pnpm fetch-model");
    expect((error as Error).message).toContain(missing);
  });

  it("refuses a directory with a file missing, naming it", async () => {
    const dir = await copyOfModel("incomplete", ["tokenizer.json"]);
    const error = await verifyModelDir(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "MODEL_INCOMPLETE",
      problems: ["tokenizer.json is missing"],
    });
    expect((error as Error).message).toMatch(
      /incomplete: tokenizer.json missing.*pnpm fetch-model/,
    );
  });

  it("refuses a file altered in place (same size, other bytes), naming the file and hashes", async () => {
    const dir = await copyOfModel("altered");
    const config = await readFile(join(dir, "config.json"), "utf8");
    await writeFile(join(dir, "config.json"), config.replace('"gelu"', '"relu"'));
    const error = await verifyModelDir(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_HASH_MISMATCH" });
    const config_pin = DEFAULT_MODEL.files.find((f) => f.name === "config.json")?.sha256;
    expect((error as Error).message).toContain(
      `config.json: expected 612 bytes with sha256 ${config_pin}`,
    );
    expect((error as Error).message).toMatch(/found sha256 [0-9a-f]{64}/);
  });

  it("refuses a truncated model file by its size", async () => {
    const dir = await copyOfModel("truncated", ["model.onnx"]);
    await writeFile(join(dir, "model.onnx"), "not a model");
    const error = await verifyModelDir(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_HASH_MISMATCH" });
    expect((error as Error).message).toContain("model.onnx: expected 22928619 bytes");
    expect((error as Error).message).toContain("found 11 bytes");
  });

  it("refuses an empty path", async () => {
    await expect(verifyModelDir("  ")).rejects.toThrow(/non-empty string/);
  });
});

describe("loadEmbedder refuses a model directory that is not ready", () => {
  it("with the same error, ending in the caller's own hint", async () => {
    const dir = await copyOfModel("no-onnx", ["model.onnx"]);
    const error = await loadEmbedder(dir, { fetchHint: "Run `hms-mcp fetch-model`." }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelNotReadyError);
    expect((error as Error).message).toMatch(/model.onnx missing\. Run `hms-mcp fetch-model`\.$/);
  });
});

describe("defaultModelsDir", () => {
  it("prefers HMS_MCP_MODELS_DIR, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(defaultModelsDir({ HMS_MCP_MODELS_DIR: "/srv/models", XDG_CACHE_HOME: "/x" })).toBe(
      "/srv/models",
    );
    expect(defaultModelsDir({ XDG_CACHE_HOME: "/x/cache" })).toBe("/x/cache/hms-mcp/models");
    expect(defaultModelsDir({})).toBe(join(homedir(), ".cache", "hms-mcp", "models"));
  });

  it("puts each model in a directory named by its id", () => {
    expect(defaultModelDir(DEFAULT_MODEL, { XDG_CACHE_HOME: "/c" })).toBe(
      "/c/hms-mcp/models/all-MiniLM-L6-v2-int8",
    );
  });
});

describe("identifyModel", () => {
  /** A directory whose files have `model`'s names and pinned sizes (their bytes are zeros). */
  async function lookalike(name: string, model: typeof DEFAULT_MODEL): Promise<string> {
    const dir = join(scratch, name);
    await mkdir(dir);
    for (const file of model.files) {
      await (await open(join(dir, file.name), "w")).truncate(file.bytes);
    }
    return dir;
  }

  it("tells the models apart by their files' sizes, and names none for another directory", async () => {
    expect((await identifyModel(inject("modelDir")))?.id).toBe(DEFAULT_MODEL.id);
    const l3 = await lookalike("l3", PARAPHRASE_MINILM_L3_V2);
    expect((await identifyModel(l3))?.id).toBe("paraphrase-MiniLM-L3-v2");
    await writeFile(join(l3, "model.onnx"), "not the graph");
    expect(await identifyModel(l3)).toBeUndefined();
    expect(await identifyModel(join(scratch, "absent"))).toBeUndefined();
  });

  it("leaves the hashes to loading: a look-alike of a model is refused with that model's pins", async () => {
    const dir = await lookalike("zeros", PARAPHRASE_MINILM_L3_V2);
    const error = await loadEmbedder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotReadyError);
    expect((error as ModelNotReadyError).code).toBe("MODEL_HASH_MISMATCH");
    expect((error as Error).message).toContain("the pinned paraphrase-MiniLM-L3-v2");
  });
});
