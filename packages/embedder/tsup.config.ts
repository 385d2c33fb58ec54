import { defineConfig } from "tsup";

export default defineConfig({
  // index: the library; fetch-model-cli: the command behind `pnpm fetch-model`.
  entry: ["src/index.ts", "src/fetch-model-cli.ts"],
  format: ["esm", "cjs"],
  dts: { entry: "src/index.ts" },
  target: "node22",
  clean: true,
  // Self-contained: the tokenizer and ONNX Runtime's WebAssembly build (whose .wasm files
  // scripts/copy-ort-wasm.mjs puts beside the bundle) are bundled, so installing this package
  // installs nothing else and runs no script. Only the optional native runtime stays outside.
  noExternal: ["@huggingface/tokenizers", "onnxruntime-web", "onnxruntime-common"],
  external: ["onnxruntime-node"],
  // import.meta.url in the CommonJS build: onnxruntime-web finds its .wasm files by it.
  shims: true,
  // What went into the bundle, for the root scripts/bundled-licenses.mjs (which then removes it).
  metafile: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
});
