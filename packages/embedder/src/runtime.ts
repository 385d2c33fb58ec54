/**
 * Which ONNX Runtime runs the model.
 *
 * - `onnxruntime-web`'s WebAssembly build (SIMD, threads) is bundled into this package's
 *   dist/ together with its `.wasm` file, so the embedder needs no install script and no
 *   download: it runs wherever Node.js runs.
 * - `onnxruntime-node` (native, about 4× faster on the model here; see the README) is an
 *   optional peer dependency: used when the installing project has it. Its own install script
 *   downloads a CUDA provider on Linux x64, which is why it is not a dependency.
 */
import type * as OrtWeb from "onnxruntime-web";

/** The ONNX Runtime API both runtimes share (`InferenceSession`, `Tensor`). */
export type Ort = Pick<typeof OrtWeb, "InferenceSession" | "Tensor">;

/** Which runtime to use: `native` (onnxruntime-node), `wasm`, or `auto` (native if installed). */
export type RuntimeChoice = "auto" | "native" | "wasm";

/** The runtime an embedder runs on. */
export type RuntimeName = "onnxruntime-node" | "onnxruntime-web";

/** The runtime choices, for validating input. */
export const RUNTIME_CHOICES: readonly RuntimeChoice[] = ["auto", "native", "wasm"];

export interface LoadedRuntime {
  readonly name: RuntimeName;
  readonly ort: Ort;
  /** Session options for this runtime with `threads` intra-op threads. */
  sessionOptions(threads: number, spin: boolean): OrtWeb.InferenceSession.SessionOptions;
}

/**
 * Loads the runtime `choice` asks for. `native` without onnxruntime-node installed is refused
 * with an error that says how to install it; `auto` then falls back to WebAssembly.
 */
export async function loadRuntime(choice: RuntimeChoice, threads: number): Promise<LoadedRuntime> {
  if (choice !== "wasm") {
    const native = await importNative(choice === "native");
    if (native !== undefined) return native;
  }
  return loadWasm(threads);
}

async function importNative(required: boolean): Promise<LoadedRuntime | undefined> {
  let ort: Ort;
  try {
    ort = (await import("onnxruntime-node")) as unknown as Ort;
  } catch (error) {
    const missing = (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND";
    if (!required && missing) return undefined;
    throw new Error(
      missing
        ? "the native ONNX Runtime (onnxruntime-node) is not installed. Install it next to " +
            "@hms/embedder with `npm install --ignore-scripts onnxruntime-node@1.30.0` (its " +
            "install script only downloads a CUDA provider the embedder never uses), or use " +
            "the bundled WebAssembly runtime (runtime: wasm)."
        : `the native ONNX Runtime (onnxruntime-node) failed to load: ${String(error)}. ` +
            "Reinstall it, or use the bundled WebAssembly runtime (runtime: wasm).",
      { cause: error },
    );
  }
  return {
    name: "onnxruntime-node",
    ort,
    sessionOptions: (threads, spin) => ({
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
      logSeverityLevel: 3,
      extra: { session: { intra_op: { allow_spinning: spin ? "1" : "0" } } },
    }),
  };
}

let wasmThreads: number | undefined;

async function loadWasm(threads: number): Promise<LoadedRuntime> {
  // It finds its WebAssembly files (ort-wasm-simd-threaded.mjs and .wasm) beside the module
  // that holds its code: in a checkout, onnxruntime-web's dist/; in this package's build, the
  // bundle in dist/, where the build copies them (scripts/copy-ort-wasm.mjs).
  const ort = await import("onnxruntime-web");
  // The WebAssembly module is instantiated once per thread (of Node), with one thread count:
  // later embedders in the same thread share it.
  if (wasmThreads === undefined) {
    wasmThreads = threads;
    ort.env.wasm.numThreads = threads;
    ort.env.logLevel = "error";
  }
  return {
    name: "onnxruntime-web",
    ort,
    sessionOptions: () => ({
      executionProviders: ["wasm"],
      graphOptimizationLevel: "all",
      logSeverityLevel: 3,
    }),
  };
}
