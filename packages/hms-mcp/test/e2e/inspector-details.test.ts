/**
 * The web inspector where people look closely (issue 35, items 4 to 6), in Debian's chromium:
 * which store the page shows (the server's own token is told the data directory, a token of
 * a tokens file only its name), a file's lines numbered as Claude's view numbers them, the
 * tree's rows and counts, the deleted files a tab away, the quick open of a file by name, the
 * editor's cursor where the person was reading, its header following a change made meanwhile,
 * and a conflict's three ways on: keep mine, copy my text, edit on top of theirs.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { type HttpProcess, ok, startHttpProcess, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accessibilityProblems,
  focused,
  launch,
  newPage,
  shot,
  signIn,
  treeItem,
} from "./inspector-browser.js";

const OPERATOR = "inspector-operator-token-0123456789abcdef";
const TENANT = "inspector-tenant-token-0123456789abcdef";
const FILE = ["memory-file"];
const NOTES = "/memories/notes/acme.md";
const NOTES_TEXT = "# Acme\n- Prefers email.\n- Contact: Dana\n";
const LONG = "/memories/logs/long.md";
const LONG_TEXT = Array.from({ length: 300 }, (_, n) => `entry ${n + 1}`).join("\n");

const data = tempDir("hms-inspector-store-");
let server: HttpProcess;
let claude: Client;
let browser: Browser;

const uiUrl = (route = "") => `${new URL("/ui", server.url).href}${route}`;

beforeAll(async () => {
  const tokensFile = join(data.dir, "tokens.jsonl");
  const sha256 = createHash("sha256").update(TENANT, "utf8").digest("hex");
  writeFileSync(
    tokensFile,
    `${JSON.stringify({ name: "tenant", sha256, namespaces: ["team"], access: "read-write" })}\n`,
  );
  server = await startHttpProcess({
    dataDir: join(data.dir, "store"),
    args: ["--ui", "--namespace-arg", "--tokens-file", tokensFile, "--log-level", "info"],
    env: { HMS_MCP_TOKEN: OPERATOR },
  });
  claude = await server.connect(OPERATOR);
  for (const [key, text] of [
    [NOTES, NOTES_TEXT],
    ["/memories/notes/beta.md", "# Beta\n"],
    ["/memories/projects/roadmap.md", "# Roadmap\n1. Ship\n"],
    [LONG, LONG_TEXT],
  ] as const) {
    await ok(claude, "remember", { key, text, tags: FILE });
  }
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await claude?.close();
  await server?.stop();
  data.remove();
});

/** Opens `key` (through the tree, as a person does) and waits for its path in the header. */
async function openFile(page: Page, key: string): Promise<void> {
  await treeItem(page, key.slice(key.lastIndexOf("/") + 1)).click();
  await expect.poll(() => page.locator("#file-path").textContent()).toBe(key);
}

const caret = (page: Page) =>
  page.evaluate("document.getElementById('editor-text').selectionStart") as Promise<number>;

describe("which store the page shows", () => {
  it("names the data directory to the server's own token, in the header", async () => {
    const { page, context, problems } = await newPage(browser);
    await signIn(page, uiUrl(), OPERATOR);
    const place = page.locator(".topbar [data-testid=store-place]");
    await expect.poll(() => place.locator("code").textContent()).toBe(resolve(data.dir, "store"));
    expect(await place.textContent()).toContain("data directory");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("names only the store to a token of the tokens file, there and in an empty namespace", async () => {
    // The tenant's namespace exists (its last file is gone).
    await ok(claude, "remember", { namespace: "team", key: "/memories/tmp.md", text: "x" });
    await ok(claude, "forget", { namespace: "team", key: "/memories/tmp.md" });
    // The server tells the tenant's token no more (not only the page).
    const tenant = await server.connect(TENANT);
    try {
      const stats = await ok<{ store: unknown }>(tenant, "stats", { namespace: "team" });
      expect(stats.store).toEqual({ engine: "sqlite", name: "store" });
    } finally {
      await tenant.close();
    }
    const { page, context, problems } = await newPage(browser);
    await signIn(page, uiUrl(), TENANT);
    const empty = page.locator(".empty-state");
    await empty.waitFor();
    expect(await empty.textContent()).toContain(
      "This server keeps its memories in the data directory store.",
    );
    expect(await page.locator(".placeholder").textContent()).toContain("data directory store");
    expect(await page.content()).not.toContain(basename(data.dir));
    await expect
      .poll(() => page.getByRole("tab", { name: /^Deleted/ }).textContent())
      .toBe("Deleted (1)");
    await shot(page, "16-empty-store");
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("the file list", () => {
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    ({ page, problems } = await newPage(browser));
    await signIn(page, uiUrl(), OPERATOR);
  });
  afterAll(() => expect(problems).toEqual([]));

  it("says what folders count, and leaves when a file changed to the hover", async () => {
    const folder = treeItem(page, "notes/");
    await expect.poll(() => folder.locator(".meta").textContent()).toMatch(/^2 files · \d+ B$/);
    expect(await treeItem(page, "projects/").locator(".meta").textContent()).toMatch(/^1 file · /);
    const row = treeItem(page, "acme.md");
    // Seen: the size; "changed just now" is for the hover and for screen readers.
    expect(await row.locator(".meta .visually-hidden").textContent()).toBe(", changed just now");
    expect(await row.getAttribute("title")).toMatch(/^notes\/acme\.md, changed just now \(.*\d{4}/);
    expect(await row.locator(".meta").textContent()).toBe(
      `${NOTES_TEXT.length} B, changed just now`,
    );
  });

  it("opens a file by name: o, part of its path, Enter", async () => {
    await page.keyboard.press("o");
    await focused(page, "filter");
    await page.keyboard.type("ROAD");
    await expect.poll(() => page.getByRole("treeitem").count()).toBe(2);
    expect(await page.getByRole("treeitem").allTextContents()).toEqual([
      expect.stringContaining("projects/"),
      expect.stringContaining("roadmap.md"),
    ]);
    await shot(page, "17-quick-open");
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator("#file-path").textContent())
      .toBe("/memories/projects/roadmap.md");
    await page.locator("#filter").fill("");
  });

  it("keeps the deleted files a tab away at the top, and shows them there", async () => {
    const tab = page.getByRole("tab", { name: /^Deleted/ });
    await expect.poll(() => tab.textContent()).toBe("Deleted (0)");
    await ok(claude, "remember", { key: "/memories/old.md", text: "gone soon", tags: FILE });
    await ok(claude, "forget", { key: "/memories/old.md" });
    await expect.poll(() => tab.textContent()).toBe("Deleted (1)");
    await tab.click();
    const list = page.getByRole("tabpanel", { name: /^Deleted/ });
    await expect.poll(() => list.locator("li .label").allTextContents()).toEqual(["old.md"]);
    // Above the tree's place: reachable without scrolling the sidebar.
    const box = await list.boundingBox();
    expect(box !== null && box.y < 400).toBe(true);
    await page.getByRole("tab", { name: /^Files/ }).click();
  });

  it("numbers the lines as Claude's view does: no empty line after the last line end", async () => {
    await openFile(page, NOTES);
    const lines = page.locator(".lines");
    await expect.poll(() => lines.getAttribute("data-lines")).toBe("3");
    expect(await page.locator("#L4").count()).toBe(0);
    expect(await page.locator("#L3").textContent()).toBe("3- Contact: Dana");
  });
});

describe("the editor", () => {
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    ({ page, problems } = await newPage(browser, {
      permissions: ["clipboard-read", "clipboard-write"],
    }));
    await signIn(page, uiUrl(), OPERATOR);
  });
  afterAll(() => expect(problems).toEqual([]));

  it("puts the cursor at the end of the text, or where the person was reading", async () => {
    await openFile(page, NOTES);
    await page.keyboard.press("e");
    await focused(page, "editor-text");
    expect(await caret(page)).toBe(NOTES_TEXT.length);
    await page.keyboard.press("Escape");
    await page.locator("#L1").waitFor();

    // A line gone to (or a recall hit's lines): the end of that line.
    await page.goto(uiUrl(`#file=${NOTES}&line=2`));
    await page.locator("#L2.mark").waitFor();
    await page.keyboard.press("e");
    await focused(page, "editor-text");
    expect(await caret(page)).toBe("# Acme\n- Prefers email.".length);
    await page.keyboard.press("Escape");

    // Scrolled down a long file: the end of the first line in view.
    await page.goto(uiUrl(`#file=${LONG}`));
    await page.locator("#L1").waitFor();
    await page.locator("#L120").evaluate((e) => e.scrollIntoView({ block: "start" }));
    const first = (await page.evaluate(`(() => {
      const top = document.querySelector(".file-head").getBoundingClientRect().bottom - 1;
      return [...document.querySelectorAll(".line")].find((l) => l.getBoundingClientRect().top >= top).id;
    })()`)) as string;
    const line = Number(first.slice(1));
    expect(line).toBeGreaterThan(100);
    await page.keyboard.press("e");
    await focused(page, "editor-text");
    expect(await caret(page)).toBe(LONG_TEXT.indexOf(`entry ${line}\n`) + `entry ${line}`.length);
    await page.keyboard.press("Escape");
  });

  it("shows the version and size of a change made meanwhile, keeping the text being edited", async () => {
    await openFile(page, NOTES);
    await page.keyboard.press("e");
    await focused(page, "editor-text");
    await page.keyboard.type("- Mine\n");
    const before = await ok<{ version: number }>(claude, "get", { key: NOTES });
    const theirs = "# Acme\n- Prefers email.\n- Contact: Sam (Dana left)\n";
    const after = await ok<{ version: number }>(claude, "remember", {
      key: NOTES,
      text: theirs,
      expected_version: before.version,
    });
    const facts = page.locator(".facts");
    await expect.poll(() => facts.textContent()).toContain(`version ${after.version}`);
    expect(await facts.textContent()).toContain(`${theirs.length} B`);
    expect(await page.getByLabel("Text", { exact: true }).inputValue()).toBe(
      `${NOTES_TEXT}- Mine\n`,
    );
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
  });

  /** Opens the editor on NOTES, types `mine`, lets Claude write `theirs`, and saves. */
  async function conflict(mine: string, theirs: string): Promise<number> {
    await openFile(page, NOTES);
    await page.keyboard.press("e");
    await focused(page, "editor-text");
    await page.getByLabel("Text", { exact: true }).fill(mine);
    const now = await ok<{ version: number }>(claude, "get", { key: NOTES });
    const written = await ok<{ version: number }>(claude, "remember", {
      key: NOTES,
      text: theirs,
      expected_version: now.version,
    });
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("region", { name: "Changed meanwhile: not saved" }).waitFor();
    return written.version;
  }

  it("keeps mine on a conflict: a new compare-and-set on top of theirs", async () => {
    await conflict("# Acme\n- mine, kept\n", "# Acme\n- theirs, replaced\n");
    await page.getByRole("button", { name: "Keep mine", exact: true }).click();
    await expect.poll(() => page.locator("#file-notice").textContent()).toBe("Saved.");
    expect((await ok<{ text: string }>(claude, "get", { key: NOTES })).text).toBe(
      "# Acme\n- mine, kept\n",
    );
  });

  it("copies my text on a conflict", async () => {
    await conflict("# Acme\n- mine, copied\n", "# Acme\n- theirs, stays\n");
    await page.getByRole("button", { name: "Copy my text", exact: true }).click();
    await expect
      .poll(() => page.locator("#conflict-notice").textContent())
      .toBe("Your text is on the clipboard.");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe("# Acme\n- mine, copied\n");
    expect((await ok<{ text: string }>(claude, "get", { key: NOTES })).text).toBe(
      "# Acme\n- theirs, stays\n",
    );
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
  });

  it("edits on top of theirs on a conflict, with mine kept beside", async () => {
    const theirs = "# Acme\n- theirs, built on\n";
    await conflict("# Acme\n- mine, set aside\n", theirs);
    await page.getByRole("button", { name: "Edit on top of theirs", exact: true }).click();
    const editor = page.getByLabel("Text", { exact: true });
    await expect.poll(() => editor.inputValue()).toBe(theirs);
    expect(await page.locator(".mine pre").textContent()).toBe("# Acme\n- mine, set aside\n");
    await shot(page, "18-edit-on-top");
    expect(await accessibilityProblems(page)).toEqual([]);
    await editor.press("Control+End");
    await page.keyboard.type("- and mine\n");
    await page.keyboard.press("Control+s");
    await expect.poll(() => page.locator("#file-notice").textContent()).toBe("Saved.");
    expect((await ok<{ text: string }>(claude, "get", { key: NOTES })).text).toBe(
      `${theirs}- and mine\n`,
    );
  });
});
