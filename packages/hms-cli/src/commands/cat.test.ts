import { InMemoryBackend, MemoryEngine } from "@hms/memory-core";
import { describe, expect, it } from "vitest";
import { viewLines } from "./cat.js";

describe("hms cat -n", () => {
  it("numbers the lines exactly as the memory tool's view does", async () => {
    const texts = [
      "# Acme\nPrefers email.\n", // a last newline starts no empty line
      "no last newline",
      "a\n\n", // an empty line before the last newline is a line
      "crlf\r\nline two\r\n", // a CR stays in its line
      "\n",
      "x\n".repeat(1234), // the column's width is fixed, whatever the count
      "tab\tinside\n  indented\n",
    ];
    const engine = new MemoryEngine(new InMemoryBackend());
    for (const [index, text] of texts.entries()) {
      const path = `/memories/f${index}.md`;
      await engine.execute({ command: "create", path, file_text: text });
      const view = await engine.execute({ command: "view", path });
      // The view's first line is its header; the rest are the numbered lines.
      expect(viewLines(text).join("\n"), JSON.stringify(text)).toBe(
        view.split("\n").slice(1).join("\n"),
      );
    }
  });
});
