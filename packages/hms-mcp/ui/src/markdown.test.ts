import { describe, expect, it } from "vitest";
import { type Block, type Inline, parseInline, parseMarkdown, safeHref } from "./markdown.js";

/** Every link target and every text in a tree of nodes. */
function walk(
  nodes: readonly (Block | Inline)[],
  seen = { hrefs: [] as string[], texts: [] as string[] },
) {
  for (const node of nodes) {
    if (node.type === "link") seen.hrefs.push(node.href);
    if (node.type === "text" || node.type === "code") seen.texts.push(node.text);
    if ("children" in node) walk(node.children as (Block | Inline)[], seen);
    if (node.type === "list") for (const item of node.items) walk(item.children, seen);
    if (node.type === "table")
      for (const cell of [...node.head, ...node.rows.flat()]) walk(cell, seen);
  }
  return seen;
}

describe("blocks", () => {
  it("reads headings, paragraphs, rules, quotes and fenced code", () => {
    const blocks = parseMarkdown(
      "# Acme Corp\r\n\r\nPrefers *email*.\nSecond line.\n\n---\n\n> quoted\n> more\n\n```js\nconst a = '<b>';\n```\n",
    );
    expect(blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "rule", "quote", "code"]);
    expect(blocks[0]).toEqual({
      type: "heading",
      level: 1,
      children: [{ type: "text", text: "Acme Corp" }],
    });
    expect(blocks[4]).toEqual({ type: "code", lang: "js", text: "const a = '<b>';" });
  });

  it("reads nested, ordered and task lists", () => {
    const [list] = parseMarkdown("- one\n  - nested\n- [x] done\n- [ ] to do\n");
    expect(list).toMatchObject({ type: "list", ordered: false });
    if (list?.type !== "list") throw new Error("not a list");
    expect(list.items.map((item) => item.checked)).toEqual([null, true, false]);
    expect(list.items[0]?.children.map((b) => b.type)).toEqual(["paragraph", "list"]);
    const [ordered] = parseMarkdown("3. three\n4. four\n");
    expect(ordered).toMatchObject({ type: "list", ordered: true, start: 3 });
  });

  it("reads a heading without its closing hashes", () => {
    const heading = (line: string) => {
      const [block] = parseMarkdown(line);
      return block?.type === "heading"
        ? [block.level, walk(block.children).texts.join("")]
        : block?.type;
    };
    expect(heading("## Notes ##")).toEqual([2, "Notes"]);
    expect(heading("#   Spaced   ")).toEqual([1, "Spaced"]);
    expect(heading("# C# and F#")).toEqual([1, "C# and F#"]);
    expect(heading("#hashtag")).toBe("paragraph");
    expect(heading("####### seven")).toBe("paragraph");
  });

  it("reads a fence's language, and no fence with a backtick after it", () => {
    expect(parseMarkdown("~~~ python extra\nx = 1\n~~~")[0]).toEqual({
      type: "code",
      lang: "python",
      text: "x = 1",
    });
    expect(parseMarkdown("```a`b")[0]?.type).toBe("paragraph");
  });

  it("reads a table with its alignment", () => {
    const [table] = parseMarkdown("| name | n |\n|:-----|--:|\n| a \\| b | 1 |\n");
    expect(table).toMatchObject({ type: "table", align: ["left", "right"] });
    if (table?.type !== "table") throw new Error("not a table");
    expect(walk(table.rows[0]?.[0] ?? []).texts).toEqual(["a | b"]);
  });

  it("keeps a short row short, and needs a delimiter row as wide as the head", () => {
    const [table] = parseMarkdown("| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 |\n");
    if (table?.type !== "table") throw new Error("not a table");
    expect(table.rows.map((row) => row.length)).toEqual([1, 3]);
    expect(parseMarkdown("| a | b |\n|---|\n")[0]?.type).toBe("paragraph");
  });
});

describe("inline", () => {
  it("reads emphasis, code, links and breaks", () => {
    expect(parseInline("**bold** and _em_ and ~~gone~~ and `a*b*c`")).toEqual([
      { type: "strong", children: [{ type: "text", text: "bold" }] },
      { type: "text", text: " and " },
      { type: "em", children: [{ type: "text", text: "em" }] },
      { type: "text", text: " and " },
      { type: "del", children: [{ type: "text", text: "gone" }] },
      { type: "text", text: " and " },
      { type: "code", text: "a*b*c" },
    ]);
    expect(parseInline('see [docs](https://example.com/a "title") or <mailto:a@b.c>')).toEqual([
      { type: "text", text: "see " },
      { type: "link", href: "https://example.com/a", children: [{ type: "text", text: "docs" }] },
      { type: "text", text: " or " },
      { type: "link", href: "mailto:a@b.c", children: [{ type: "text", text: "mailto:a@b.c" }] },
    ]);
    expect(parseInline("line one  \nline two").map((n) => n.type)).toEqual([
      "text",
      "break",
      "text",
    ]);
  });

  it("leaves snake_case and lone stars alone", () => {
    expect(parseInline("snake_case_name and 2 * 3 * 4")).toEqual([
      { type: "text", text: "snake_case_name and 2 * 3 * 4" },
    ]);
  });
});

describe("a hostile file", () => {
  const HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '<svg onload="alert(3)"><circle r="1"/></svg>',
    "[click](javascript:alert(4))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==)",
    "[spaced]( JaVaScRiPt:alert(6) )",
    "![pic](https://example.com/x.png)",
    "<javascript:alert(7)>",
    '<a href="javascript:alert(8)">x</a>',
  ].join("\n\n");

  it("keeps raw HTML as text and links only to the web and mail", () => {
    const seen = walk(parseMarkdown(HOSTILE));
    expect(seen.hrefs).toEqual([]);
    expect(seen.texts.join("\n")).toContain("<script>alert(1)</script>");
    expect(seen.texts.join("\n")).toContain("<img src=x onerror=alert(2)>");
    const image = parseMarkdown("![pic](https://example.com/x.png)")[0];
    expect(image).toEqual({
      type: "paragraph",
      children: [{ type: "image", alt: "pic", src: "https://example.com/x.png" }],
    });
  });

  it("refuses every target but http, https and mailto", () => {
    expect(safeHref("https://example.com")).toBe("https://example.com");
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c");
    for (const bad of [
      "javascript:alert(1)",
      " javascript:x",
      "data:text/html,x",
      "vbscript:x",
      "//evil.example",
      "/ui",
      "https://a b",
    ]) {
      expect(safeHref(bad)).toBeUndefined();
    }
  });
});
