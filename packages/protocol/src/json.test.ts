// protocol.json is what the Python package reads: it must be exactly what this package says.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { protocolJson, protocolJsonText } from "./json.js";
import { TOOL_NAMES } from "./tools.js";
import { PROTOCOL_VERSION } from "./version.js";

const committed = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

describe("protocol.json", () => {
  it("is current: run `pnpm --filter @hms/protocol emit` after changing the contract", () => {
    expect(committed("../protocol.json")).toBe(protocolJsonText());
  });

  it("is the copy the Python package ships", () => {
    expect(committed("../../../python/src/hms_memory_tool/protocol.json")).toBe(protocolJsonText());
  });

  it("carries the version, the codes, the limits and every tool's schemas", () => {
    const json = protocolJson() as {
      protocol_version: number;
      error_codes: string[];
      limits: Record<string, number>;
      tools: Record<string, { input_schema: { properties: object }; output_schema: object }>;
    };
    expect(json.protocol_version).toBe(PROTOCOL_VERSION);
    expect(json.error_codes).toContain("VERSION_CONFLICT");
    expect(json.limits.max_recall_k).toBe(50);
    // Every tool, in tools/list order (tools.test.ts pins the names themselves).
    expect(Object.keys(json.tools)).toEqual(TOOL_NAMES);
    expect(Object.keys(json.tools.move?.input_schema.properties ?? {})).toContain("tree");
  });
});
