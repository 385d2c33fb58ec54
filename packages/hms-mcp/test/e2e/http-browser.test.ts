/**
 * A real browser (Debian's chromium, headless, driven by playwright-core) calls hms-mcp from
 * a web page: from an origin in --allowed-origins the page initializes, reads Mcp-Session-Id
 * and calls tools; from another origin the browser's CORS check stops every call.
 * `scripts/setup.sh` installs chromium; HMS_CHROMIUM names another executable.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpProcess, startHttpProcess, tempDir } from "@hms/test-support";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = process.env.HMS_CHROMIUM ?? "/usr/bin/chromium";

/** Serves an empty page on a free loopback port; the page's origin is the returned URL. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, server };
}

/** What the page does: MCP over fetch, as a browser client would. */
async function mcpFromPage(url: string): Promise<Record<string, unknown>> {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });
  try {
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "browser", version: "0" },
      },
    });
    const session = init.headers.get("mcp-session-id");
    if (session === null) return { error: "no Mcp-Session-Id visible to the page" };
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    const call = async (id: number, name: string, args: unknown) =>
      (await (
        await post(
          { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
          headers,
        )
      ).json()) as {
        result: { structuredContent: unknown; isError?: boolean };
      };
    const remembered = await call(2, "remember", { key: "from/browser", text: "hello" });
    const got = await call(3, "get", { key: "from/browser" });
    return {
      session,
      remembered: remembered.result.isError ?? false,
      got: got.result.structuredContent,
    };
  } catch (error) {
    return { error: String(error) };
  }
}

describe("a browser page calling hms-mcp", () => {
  const data = tempDir();
  let allowed: { origin: string; server: Server };
  let other: { origin: string; server: Server };
  let server: HttpProcess;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} not found: run scripts/setup.sh (it installs Debian's chromium) or set HMS_CHROMIUM`,
      );
    }
    [allowed, other] = await Promise.all([pageServer(), pageServer()]);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--allowed-origins", allowed.origin],
    });
    // As root chromium needs --no-sandbox; the pages it loads are the test's own.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    allowed?.server.close();
    other?.server.close();
    data.remove();
  });

  it("makes MCP calls from an allowed origin", async () => {
    const page = await browser.newPage();
    await page.goto(allowed.origin);
    const outcome = await page.evaluate(mcpFromPage, server.url);
    expect(outcome).toEqual({
      session: expect.stringMatching(/^[0-9a-f-]{36}$/),
      remembered: false,
      got: expect.objectContaining({ key: "from/browser", text: "hello" }),
    });
    await page.close();
  });

  it("is stopped by CORS from another origin", async () => {
    const page = await browser.newPage();
    await page.goto(other.origin);
    const outcome = await page.evaluate(mcpFromPage, server.url);
    expect(outcome).toEqual({ error: expect.stringContaining("Failed to fetch") });
    await page.close();
  });
});
