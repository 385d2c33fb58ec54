// What the built package ships beside the bundled command: the licences of the third-party
// code inside dist/cli.js, and no sourcemaps or build metadata.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dist = new URL("../../dist/", import.meta.url);

describe("the built package", () => {
  it("carries the licence of every bundled third-party package", () => {
    const notices = readFileSync(new URL("THIRD-PARTY-LICENSES.txt", dist), "utf8");
    for (const name of ["@modelcontextprotocol/sdk", "zod", "commander", "pino", "ajv"]) {
      expect(notices).toMatch(
        new RegExp(`^${name.replace("/", "\\/")}@\\d+\\.\\d+\\.\\d+ \\(`, "m"),
      );
    }
    expect(notices).toContain("Permission is hereby granted, free of charge");
  });

  it("ships no sourcemaps and no esbuild metafile", () => {
    const files = readdirSync(dist);
    expect(files.filter((file) => file.endsWith(".map") || file.startsWith("metafile-"))).toEqual(
      [],
    );
  });
});
