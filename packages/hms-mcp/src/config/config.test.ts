import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "./config.js";

const saved = process.env.HMS_MCP_SYNCHRONOUS;
afterEach(() => {
  if (saved === undefined) delete process.env.HMS_MCP_SYNCHRONOUS;
  else process.env.HMS_MCP_SYNCHRONOUS = saved;
});

describe("--synchronous", () => {
  it("is full unless the flag or HMS_MCP_SYNCHRONOUS says normal; the flag wins", () => {
    delete process.env.HMS_MCP_SYNCHRONOUS;
    expect(parseConfig([], process.env, "0").synchronous).toBe("full");
    expect(parseConfig(["--synchronous", "normal"], process.env, "0").synchronous).toBe("normal");
    process.env.HMS_MCP_SYNCHRONOUS = "normal";
    expect(parseConfig([], process.env, "0").synchronous).toBe("normal");
    expect(parseConfig(["--synchronous", "full"], process.env, "0").synchronous).toBe("full");
  });
});
