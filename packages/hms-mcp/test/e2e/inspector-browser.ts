/**
 * What the inspector's browser tests share: Debian's chromium started as this closed network
 * needs it, pages that collect CSP violations and script errors, screenshots (for a person to
 * look at, and for docs/inspector with HMS_INSPECTOR_DOCS=1), axe-core's verdict, signing in.
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

const CHROMIUM = process.env.HMS_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = fileURLToPath(new URL("../../test-results/inspector/", import.meta.url));
const DOCS = fileURLToPath(new URL("../../../../docs/inspector/screens/", import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Chromium as this closed network needs it: headless, no sandbox, no calls home. */
export async function launch(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  if (process.env.HMS_INSPECTOR_DOCS === "1") mkdirSync(DOCS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-domain-reliability",
    ],
  });
}

/** A page whose CSP violations and script errors are collected (each test expects none). */
export async function newPage(
  browser: Browser,
  options: { width?: number; dark?: boolean; permissions?: string[] } = {},
): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 800 },
    colorScheme: options.dark ? "dark" : "light",
    permissions: options.permissions ?? [],
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("dialog", (dialog) => {
    problems.push(`a dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, context, problems };
}

/** A screenshot of the screen as it is, for a person to look at (and for the docs). */
export async function shot(page: Page, name: string): Promise<void> {
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path });
  if (process.env.HMS_INSPECTOR_DOCS === "1") copyFileSync(path, join(DOCS, `${name}.png`));
}

/** axe-core's serious and critical violations on the screen as it is. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))",
  )) as { id: string; impact: string; nodes: string[] }[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(", ")}`);
}

/** Signs in at `url` (the inspector's address) with `token`, and waits for the tree. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel("Token", { exact: true }).fill(token);
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await page.getByRole("tree", { name: "Memory files" }).or(page.locator(".empty-state")).waitFor();
}

/** Waits until the element with `id` has the focus (a view focuses after it renders). */
export const focused = (page: Page, id: string) =>
  expect.poll(() => page.evaluate("document.activeElement?.id")).toBe(id);

/** A computed style of the first element `selector` matches. */
export const styleOf = (page: Page, selector: string, property: string) =>
  page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`,
  ) as Promise<string>;

/** The tree's row of the file or folder `name`. */
export const treeItem = (page: Page, name: string) =>
  page.getByRole("treeitem").filter({ has: page.getByText(name, { exact: true }) });
