import { describe, expect, it } from "vitest";
import { experimentalCapabilities, PROTOCOL_VERSION, statedProtocolVersion } from "./version.js";

describe("protocol version", () => {
  it("is read back from the capabilities a server sends", () => {
    expect(statedProtocolVersion(experimentalCapabilities())).toBe(PROTOCOL_VERSION);
  });

  it("is undefined when a server states none or something else", () => {
    expect(statedProtocolVersion(undefined)).toBeUndefined();
    expect(statedProtocolVersion({})).toBeUndefined();
    expect(statedProtocolVersion({ "hms-mcp": { protocolVersion: "1" } })).toBeUndefined();
    expect(statedProtocolVersion({ "hms-mcp": null })).toBeUndefined();
  });
});
