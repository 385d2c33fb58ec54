// After the build: onnxruntime-web's WebAssembly files, which its bundled code (in dist/) loads
// from beside itself at run time. Only the plain SIMD + threads build: the others (JSEP,
// JSPI, asyncify) are for WebGPU and WebNN in browsers.
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const require = createRequire(import.meta.url);
for (const name of ["ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"]) {
  copyFileSync(require.resolve(`onnxruntime-web/${name}`), join(dist, name));
}
console.error("copy-ort-wasm: ort-wasm-simd-threaded.mjs and .wasm in dist/");
