import { describe, expect, it } from "vitest";
import * as hmsMcp from "./index.js";

describe("the package's exports", () => {
  it("are startServer and what it needs, nothing internal", () => {
    // Types (Config, RunningServer) leave no trace at run time.
    expect(Object.keys(hmsMcp).sort()).toEqual(["ConfigError", "parseConfig", "startServer"]);
  });
});
