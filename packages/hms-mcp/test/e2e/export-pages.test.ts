/**
 * Export pages are small as sent: a page ends before its memories pass EXPORT_PAGE_BYTES, as
 * UTF-8 in the store and as JSON on the wire, so a server answering many export calls at once
 * (slow HTTP readers) holds about 256 KiB per answer. A page still holds at least one memory:
 * the largest memory is exported whole, alone.
 */
import { MAX_ANSWER_BYTES, MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import { EXPORT_PAGE_BYTES } from "@hms/store";
import { call, connectFresh, type TransportKind } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";

interface Memory {
  key: string;
  text: string;
}
interface ExportPage {
  memories: Memory[];
  next_cursor: string | null;
}

/** `bytes` bytes of text that JSON escapes at its worst: control characters, 6 bytes each. */
function controlText(bytes: number): string {
  return "\u0001\u001f\u0007\u0000".repeat(Math.ceil(bytes / 4)).slice(0, bytes);
}

/** Every page of an export of `prefix`, with the bytes of each page's memories as JSON. */
async function exportAll(client: Client, prefix: string) {
  const pages: { keys: string[]; memoriesBytes: number; answerBytes: number; page: ExportPage }[] =
    [];
  let cursor: string | null = null;
  do {
    const result = await call(client, "export", {
      prefix,
      limit: 1000,
      ...(cursor === null ? {} : { cursor }),
    });
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as unknown as ExportPage;
    pages.push({
      keys: page.memories.map((memory) => memory.key),
      memoriesBytes: Buffer.byteLength(JSON.stringify(page.memories)),
      answerBytes: Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 1, result })),
      page,
    });
    cursor = page.next_cursor;
  } while (cursor !== null);
  return pages;
}

describe.each<TransportKind>(["stdio", "http"])("export pages over %s", (kind) => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectFresh(kind, {
      args: ["--max-text-bytes", String(MAX_TEXT_BYTES_CAP)],
    });
    client = connection.client;
    return connection.close;
  }, 60_000);

  it("end before their memories pass EXPORT_PAGE_BYTES of text", async () => {
    expect(EXPORT_PAGE_BYTES).toBe(256 * 1024);
    // 100 KiB of plain words each: two fit a page, a third would pass 256 KiB.
    const text = "word ".repeat((100 * 1024) / 5);
    for (const key of ["plain/0", "plain/1", "plain/2", "plain/3", "plain/4"]) {
      expect((await call(client, "remember", { key, text })).isError).toBeFalsy();
    }
    const pages = await exportAll(client, "plain/");
    expect(pages.map((page) => page.keys)).toEqual([
      ["plain/0", "plain/1"],
      ["plain/2", "plain/3"],
      ["plain/4"],
    ]);
    for (const { memoriesBytes } of pages)
      expect(memoriesBytes).toBeLessThanOrEqual(EXPORT_PAGE_BYTES);
    expect(pages.flatMap(({ page }) => page.memories).every((m) => m.text === text)).toBe(true);
  });

  it("end before their memories pass EXPORT_PAGE_BYTES as JSON, escapes counted", async () => {
    // 25 KiB of control characters each: 150 KiB as JSON, so one to a page, though the
    // three together are only 75 KiB of text.
    const text = controlText(25 * 1024);
    for (const key of ["esc/0", "esc/1", "esc/2"]) {
      expect((await call(client, "remember", { key, text })).isError).toBeFalsy();
    }
    const pages = await exportAll(client, "esc/");
    expect(pages.map((page) => page.keys)).toEqual([["esc/0"], ["esc/1"], ["esc/2"]]);
    for (const { memoriesBytes } of pages)
      expect(memoriesBytes).toBeLessThanOrEqual(EXPORT_PAGE_BYTES);
    expect(pages.flatMap(({ page }) => page.memories).every((m) => m.text === text)).toBe(true);
  });

  it("still carry the largest memory whole, alone on its page", async () => {
    const text = controlText(MAX_TEXT_BYTES_CAP);
    for (const key of ["huge/0", "huge/1"]) {
      expect((await call(client, "remember", { key, text })).isError).toBeFalsy();
    }
    const pages = await exportAll(client, "huge/");
    expect(pages.map((page) => page.keys)).toEqual([["huge/0"], ["huge/1"]]);
    for (const { memoriesBytes, answerBytes, page } of pages) {
      expect(memoriesBytes).toBeGreaterThan(EXPORT_PAGE_BYTES);
      expect(answerBytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
      expect(page.memories[0]?.text).toBe(text);
    }
  });
});
