import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store.js";

// Node 22's node:sqlite reads a text cut at its first NUL (Node 24 reads it whole). Every read
// of a memory's text goes through driver.ts's textReads; this pins each of them on the Node
// the suite runs on (scripts/test.sh runs it on 22 and 24).

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-text-reads-"));
  store = MemoryStore.open(join(dir, "store.sqlite"), {
    embeddings: { model: { id: "test-model-2d", dimensions: 2 } },
  });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const TEXT = "first line\nbefore\u0000after the nul lighthouse\nlast line \u0000";

describe("a memory's text holding NUL", () => {
  it("reads whole through get, export, history, search, recall and the embedding queue", () => {
    store.remember({ key: "/memories/a.md", text: "placeholder", tags: ["memory-file"] });
    const { version } = store.remember({ key: "/memories/a.md", text: TEXT });
    expect(store.get("/memories/a.md")?.text).toBe(TEXT);
    expect(store.export().memories[0]?.text).toBe(TEXT);
    expect(store.history.version("/memories/a.md", version)?.text).toBe(TEXT);
    expect(store.search("the nul").hits).toEqual([
      { key: "/memories/a.md", line: 2, snippet: "before\u0000after the nul lighthouse" },
    ]);
    const [hit] = store.recall("lighthouse").hits;
    expect(hit?.excerpt).toContain("before\u0000after the nul");
    expect(store.embeddings?.pending(10).map((memory) => memory.text)).toEqual([TEXT]);
  });

  it("reads whole from the history, where older versions are kept as splices of newer ones", () => {
    const texts = [TEXT, `${TEXT}\nan added line`, `\u0000 at the start\n${TEXT}\nan added line`];
    for (const text of texts)
      store.remember({ key: "/memories/b.md", text, tags: ["memory-file"] });
    const versions = store.history
      .ofFile("/memories/b.md")
      .entries.map((entry) => store.history.version("/memories/b.md", entry.version)?.text);
    expect(versions.reverse()).toEqual(texts);
  });

  it("keeps a byte order mark at the start of a text, which a decoder drops by default", () => {
    const text = "\uFEFF# notes\nwith a BOM\u0000 and a NUL\n";
    const first = store.remember({ key: "/memories/bom.md", text, tags: ["memory-file"] });
    store.remember({ key: "/memories/bom.md", text: `${text}one more line\n` });
    expect(store.get("/memories/bom.md")?.text).toBe(`${text}one more line\n`);
    expect(store.history.version("/memories/bom.md", first.version)?.text).toBe(text);
  });
});
