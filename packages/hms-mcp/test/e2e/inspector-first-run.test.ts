/**
 * docs/inspector/README.md's "The first five minutes", done as a stranger does it: the shell
 * block is read from the README itself and run as it is, in an empty folder, with `hms-mcp`
 * on PATH (HMS_MCP_PORT=0, which the README offers when 8765 is taken, so that the test never
 * meets a port in use); then each step in Debian's chromium, with the keys the README names.
 * The UI text the README quotes is checked on the page word for word.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { cleanEnv, exited, hmsMcpOnPath, tempDir } from "@hms/test-support";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";

const CHROMIUM = process.env.HMS_CHROMIUM ?? "/usr/bin/chromium";
const README = fileURLToPath(new URL("../../../../docs/inspector/README.md", import.meta.url));

/** The README's "The first five minutes" section. */
function section(): string {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("\n## The first five minutes\n");
  expect(start, "docs/inspector/README.md has a First five minutes section").toBeGreaterThan(0);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The section's prose as one line per paragraph, for quotes that wrap in the file. */
const prose = (text: string) => text.replace(/\s*\n\s*/g, " ");

/** UI text the README quotes, as the page shows it. */
const QUOTED = {
  empty: "No memory files in default yet.",
  how:
    "Claude writes them here with its memory tool. You can also copy a folder in with " +
    "hms import --from ./my-memories, or make one here with New file (n).",
  saved: "Saved.",
  store: "This server keeps its memories in the data directory",
};

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("docs/inspector/README.md, The first five minutes", () => {
  it("works as written: the server, sign-in, a first file, preview, history, recall, keys", async () => {
    const text = section();
    const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
      (m[1] as string)
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean),
    );
    expect(blocks).toHaveLength(1);
    const lines = blocks[0] as string[];
    expect(lines.at(-1)).toBe("hms-mcp --transport http --ui --data-dir ./store");
    const words = prose(text);
    expect(words).toContain("export HMS_MCP_PORT=8766");
    // Quoted with its markup (code, emphasis) as the page shows it.
    const plain = words.replace(/[`_]/g, "");
    expect(plain).toContain(`"${QUOTED.empty} ${QUOTED.how}"`);
    expect(words).toContain(`("${QUOTED.saved}")`);
    expect(plain).toContain(`"${QUOTED.store} /…/store."`);

    // 1. The block, run by a shell in an empty folder.
    const bin = hmsMcpOnPath();
    cleanups.push(bin.remove);
    const folder = tempDir("hms-inspector-first-");
    cleanups.push(folder.remove);
    const shell: ChildProcess = spawn("/bin/sh", ["-e", "-c", lines.join("\n")], {
      cwd: folder.dir,
      env: cleanEnv({ PATH: bin.path, HMS_MCP_PORT: "0" }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    cleanups.push(async () => {
      if (shell.exitCode === null && shell.signalCode === null) {
        process.kill(-(shell.pid as number), "SIGTERM");
        await exited(shell);
      }
    });
    let stdout = "";
    shell.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    let stderr = "";
    const printed = await new Promise<string>((resolve, reject) => {
      const log = createInterface({ input: shell.stderr as NodeJS.ReadableStream });
      log.on("line", (line) => {
        stderr += `${line}\n`;
        if (line.startsWith("inspector: ")) resolve(line);
      });
      shell.once("exit", (code) => reject(new Error(`the block ended (${code}):\n${stderr}`)));
    });
    const token = /^token: ([0-9a-f]{64})$/m.exec(stdout)?.[1] as string;
    expect(token).toBeDefined();
    // The line the README quotes, but for the port.
    const quotedLine = /`(inspector: http:\/\/127\.0\.0\.1:8765\/ui \([^`]*\))`/.exec(words)?.[1];
    const port = /^inspector: http:\/\/127\.0\.0\.1:(\d+)\/ui /.exec(printed)?.[1] as string;
    expect(printed).toBe(quotedLine?.replace(":8765/", `:${port}/`));
    expect(existsSync(join(folder.dir, "store"))).toBe(true);

    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-background-networking"],
    });
    cleanups.push(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
    });
    const keys = page.keyboard;

    // 2. `/` leads to /ui; the token goes into Token, then Open.
    await page.goto(`http://127.0.0.1:${port}/`);
    expect(new URL(page.url()).pathname).toBe("/ui");
    await page.getByLabel("Token", { exact: true }).fill(token);
    await page.getByRole("button", { name: "Open", exact: true }).click();

    // 3. The empty namespace says how files get there; n, a path, Enter, text, Ctrl+S.
    const empty = page.locator(".empty-state");
    await empty.waitFor();
    const paragraphs = await empty.locator("p").allTextContents();
    expect(prose(paragraphs.slice(0, 2).join(" "))).toBe(`${QUOTED.empty} ${QUOTED.how}`);
    // And which data directory the page shows: the one the block made.
    expect(paragraphs[2]).toBe(`${QUOTED.store} ${join(folder.dir, "store")}.`);
    await keys.press("n");
    await page.getByLabel("Path", { exact: true }).waitFor();
    await keys.type("notes/today.md");
    await keys.press("Enter");
    await expect.poll(() => page.evaluate("document.activeElement?.id")).toBe("editor-text");
    await keys.type("# Today\n\nCall Dana about the quote for Acme, in EUR.\n");
    await keys.press("Control+s");
    await expect.poll(() => page.locator("#file-notice").textContent()).toBe(QUOTED.saved);

    // 4. Click the file; p previews it; h shows its history, with Restore this version.
    await page.goto(`http://127.0.0.1:${port}/ui`);
    const row = page
      .getByRole("treeitem")
      .filter({ has: page.getByText("today.md", { exact: true }) });
    await row.click();
    await page.locator("#L3").waitFor();
    expect(await page.locator("#L3").textContent()).toBe(
      "3Call Dana about the quote for Acme, in EUR.",
    );
    await keys.press("p");
    await expect.poll(() => page.getByTestId("preview").locator("h1").textContent()).toBe("Today");
    await keys.press("h");
    const versions = page.getByRole("list", { name: "Versions, newest first" }).getByRole("button");
    await expect.poll(() => versions.count()).toBe(2);
    await versions.last().click();
    await page.getByRole("button", { name: "Restore this version", exact: true }).waitFor();

    // 5. `/` recalls; the hit opens the file at the lines that answer. `?` lists the keys.
    await page.goto(`http://127.0.0.1:${port}/ui`);
    await page.getByRole("tree").waitFor();
    await keys.press("/");
    await keys.type("when should I call Dana?");
    await keys.press("Enter");
    const hit = page.locator(".hit").filter({ hasText: "notes/today.md" });
    await hit.click();
    await expect
      .poll(() => page.locator("#file-path").textContent())
      .toBe("/memories/notes/today.md");
    await expect.poll(() => page.locator(".line.mark").count()).toBeGreaterThan(0);
    await page.locator("#L1").focus();
    await keys.press("?");
    await page.getByRole("dialog", { name: "Keyboard" }).waitFor();
    expect(problems).toEqual([]);
  });
});
