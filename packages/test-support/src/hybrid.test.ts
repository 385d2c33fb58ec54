import { describe, expect, it } from "vitest";
import { startHybridWithParaphrases } from "./hybrid.js";

// Starting a hybrid server needs the real model; hms-mcp's hybrid e2e suites (SQLite and
// PostgreSQL) start one through this helper. Here: the refusal before any process starts.
describe("startHybridWithParaphrases", () => {
  it("refuses to start without the model's directory, saying what it needs", async () => {
    await expect(
      startHybridWithParaphrases({ dataDir: "/nonexistent", modelDir: "" }),
    ).rejects.toThrow("startHybridWithParaphrases needs the model's directory (modelDir)");
  });
});
