import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/hiding-proxy.ts"],
  format: ["esm", "cjs"],
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  target: "node20",
  shims: true,
});
