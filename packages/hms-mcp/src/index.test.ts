import { describe, expect, it } from "vitest";
import * as hmsMcp from "./index.js";

describe("the package's exports", () => {
  it("are startServer, connectInProcess and what they need, nothing internal", () => {
    // Types (Config, RunningServer) leave no trace at run time.
    expect(Object.keys(hmsMcp).sort()).toEqual([
      "ConfigError",
      "connectInProcess",
      "parseConfig",
      "startServer",
    ]);
  });
});
