/**
 * The web inspector (`hms-mcp --ui`) in a real headless browser (Debian's chromium, driven by
 * playwright-core): the token typed once, the tree with sizes, a file with line numbers, a
 * recall that jumps to its lines, an edit saved with compare-and-set, a conflicting change by
 * another client shown rather than overwritten, and a version restored from the history.
 * Screenshots of each step go to test-results/inspector/ for a person to look at.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HttpProcess, ok, startHttpProcess, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = process.env.HMS_CHROMIUM ?? "/usr/bin/chromium";
const TOKEN = "inspector-test-token-0123456789abcdef";
const SHOTS = fileURLToPath(new URL("../../test-results/inspector/", import.meta.url));
const FILE = ["memory-file"];

const data = tempDir();
let server: HttpProcess;
let claude: Client;
let browser: Browser;
let page: Page;

/** The inspector's address: the MCP endpoint's origin, path /ui. */
const uiUrl = () => new URL("/ui", server.url).href;
const shot = (name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startHttpProcess({
    dataDir: data.dir,
    args: ["--ui", "--log-level", "info"],
    env: { HMS_MCP_TOKEN: TOKEN },
  });
  // "Claude": another client of the same server, writing as the memory tool would.
  claude = await server.connect(TOKEN);
  await ok(claude, "remember", {
    key: "/memories/customers/acme-corp.md",
    text: "# Acme Corp\n- Prefers email follow-ups (not phone calls).\n- Contact: Dana Reyes\n",
    tags: FILE,
  });
  await ok(claude, "remember", {
    key: "/memories/projects/roadmap.md",
    text: "# Roadmap\n1. Ship the CLI\n2. Ship the inspector\n",
    tags: FILE,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await claude?.close();
  await server?.stop();
  data.remove();
});

describe("the inspector", () => {
  it("asks for the token once, never in the URL, and refuses a wrong one", async () => {
    await page.goto(uiUrl());
    await page.getByLabel("Token", { exact: true }).fill("wrong-token");
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("That token was refused.");
    await page.getByLabel("Token", { exact: true }).fill(TOKEN);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.getByRole("button", { name: "acme-corp.md", exact: true }).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    // A reload of the tab keeps the session's token: no second prompt.
    await page.reload();
    await page.getByRole("button", { name: "acme-corp.md", exact: true }).waitFor();
    expect(await page.locator("#login").isHidden()).toBe(true);
  });

  it("shows the tree with sizes, and a file with line numbers", async () => {
    const tree = page.getByRole("navigation", { name: "Memory files" });
    await expect.poll(() => tree.textContent()).toContain("customers/");
    expect(await tree.textContent()).toMatch(/acme-corp\.md\s*\d+ B/);
    await page.getByRole("button", { name: "roadmap.md", exact: true }).click();
    await page.locator("#L3").waitFor();
    expect(await page.locator("#L3").textContent()).toBe("32. Ship the inspector");
    await shot("1-file");
  });

  it("recalls and jumps to the lines that answer", async () => {
    await page.getByLabel("Recall", { exact: true }).fill("how should I contact Acme");
    await page.keyboard.press("Enter");
    const hit = page.getByRole("button", {
      name: /^\/memories\/customers\/acme-corp\.md:\d+-\d+$/,
    });
    await hit.waitFor();
    const [, start, end] = /:(\d+)-(\d+)$/.exec((await hit.textContent()) ?? "") ?? [];
    await hit.click();
    await expect.poll(() => page.locator("tr.hit").count()).toBe(Number(end) - Number(start) + 1);
    expect(await page.locator(`#L${start}`).getAttribute("class")).toBe("hit");
    await shot("2-recall");
  });

  it("saves an edit with compare-and-set, and shows a conflicting change instead of overwriting it", async () => {
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const editor = page.getByLabel("Text", { exact: true });
    await editor.fill(
      "# Acme Corp\n- Prefers email follow-ups, before noon.\n- Contact: Dana Reyes\n",
    );
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect
      .poll(() => page.locator("#L2").textContent())
      .toBe("2- Prefers email follow-ups, before noon.");

    // Claude changes the file while the person edits it.
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    await editor.fill("# Acme Corp\n- Prefers email.\n");
    const before = await ok<{ version: number }>(claude, "get", {
      key: "/memories/customers/acme-corp.md",
    });
    await ok(claude, "remember", {
      key: "/memories/customers/acme-corp.md",
      text: "# Acme Corp\n- Prefers email follow-ups, before noon.\n- Contact: Sam Lee (Dana left)\n",
      expected_version: before.version,
    });
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const conflict = page.getByRole("region", {
      name: "Changed meanwhile: not saved",
      exact: true,
    });
    await conflict.waitFor();
    expect(await page.locator("#conflict-diff").textContent()).toContain(
      "+- Contact: Sam Lee (Dana left)",
    );
    await shot("3-conflict");
    // Claude's change is still there, untouched.
    const stored = await ok<{ text: string }>(claude, "get", {
      key: "/memories/customers/acme-corp.md",
    });
    expect(stored.text).toContain("Sam Lee");
    // The person's text is still in the editor.
    expect(await editor.inputValue()).toBe("# Acme Corp\n- Prefers email.\n");
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
  });

  it("shows the history with diffs and restores a version", async () => {
    await page.getByRole("button", { name: "History", exact: true }).click();
    const versions = page
      .getByRole("region", { name: "History", exact: true })
      .getByRole("listitem");
    await expect.poll(() => versions.count()).toBe(3);
    // The oldest version: the file as Claude first wrote it.
    await versions.last().getByRole("button").click();
    await expect.poll(() => page.locator("#restore").isEnabled()).toBe(true);
    // The middle one: the person's edit, shown as a diff against the version before it.
    await versions.nth(1).getByRole("button").click();
    await expect
      .poll(() => page.locator("#version-diff").textContent())
      .toContain("+- Prefers email follow-ups, before noon.");
    await shot("4-history");
    await versions.last().getByRole("button").click();
    await page.getByRole("button", { name: "Restore this version", exact: true }).click();
    await expect
      .poll(() => page.locator("#status").textContent())
      .toMatch(/^Restored version \d+ as version \d+\.$/);
    const stored = await ok<{ text: string }>(claude, "get", {
      key: "/memories/customers/acme-corp.md",
    });
    expect(stored.text).toBe(
      "# Acme Corp\n- Prefers email follow-ups (not phone calls).\n- Contact: Dana Reyes\n",
    );
    await expect.poll(() => versions.count()).toBe(4);
    await shot("5-restored");
  });

  it("is usable from the keyboard: / focuses recall, and every control has a label", async () => {
    await page.locator("body").press("/");
    // Run in the page (as strings: this test's TypeScript has no DOM types).
    expect(await page.evaluate("document.activeElement?.id")).toBe("query");
    const unlabelled = await page.evaluate(
      "[...document.querySelectorAll('input, textarea')].filter((f) => !f.labels?.length).map((f) => f.id)",
    );
    expect(unlabelled).toEqual([]);
  });
});
