/**
 * Markdown to a tree of typed nodes (markdown-nodes.ts), for the preview of a memory file. The
 * preview renders this tree with the page's own elements, text always as text: no HTML string
 * is ever made from a file, so raw HTML in a file (`<script>`, `onerror=`, `<svg>`) is shown as
 * the characters it is. Links keep only http, https and mailto targets; images are never
 * loaded (the page loads nothing from elsewhere), they are shown as their description and
 * address.
 *
 * It covers what memory files hold: headings, paragraphs, emphasis, code spans and fenced code,
 * lists (nested, ordered, task lists), quotes, rules, tables and links. A hostile file cannot
 * stall the page: each line is looked at a bounded number of times at each of at most
 * {@link MAX_DEPTH} levels of nesting, every regular expression here is tried once per line and
 * cannot backtrack more than the line's length, and the inline part (markdown-inline.ts) looks
 * its closers up rather than searching forward for them. markdown.test.ts counts the work on
 * the inputs that once took seconds to minutes.
 */

import { parseInline } from "./markdown-inline.js";
import { type Align, type Block, type Inline, type ListItem, MAX_DEPTH } from "./markdown-nodes.js";

export { parseInline } from "./markdown-inline.js";
export type { Align, Block, Inline, ListItem } from "./markdown-nodes.js";
export { MAX_DEPTH, safeHref } from "./markdown-nodes.js";

// ---- what a line starts

const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const BULLET = /^( {0,12})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const FENCE_MARKER = /^ {0,3}(`{3,}|~{3,})/;
const HEADING_MARKER = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const TABLE_RULE_CELL = /^:?-+:?$/;

const isBlank = (line: string) => line.trim() === "";
const isSpaceOrTab = (c: string | undefined) => c === " " || c === "\t";

/** A code fence: three or more backticks or tildes, then an info string without backticks. */
function fenceOf(line: string): { marker: string; lang: string } | undefined {
  const match = FENCE_MARKER.exec(line);
  if (match === null) return undefined;
  const info = line.slice(match[0].length);
  if (info.includes("`")) return undefined;
  return { marker: match[1] as string, lang: info.trim().split(/\s/, 1)[0] ?? "" };
}

/** An ATX heading: its level and its text, without a closing run of `#`. */
function headingOf(line: string): { level: 1 | 2 | 3 | 4 | 5 | 6; text: string } | undefined {
  const match = HEADING_MARKER.exec(line);
  if (match === null) return undefined;
  const rest = line.slice(match[0].length);
  let end = rest.length;
  while (isSpaceOrTab(rest[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && rest[hashes - 1] === "#") hashes--;
  if (hashes < end && isSpaceOrTab(rest[hashes - 1])) {
    end = hashes;
    while (isSpaceOrTab(rest[end - 1])) end--;
  }
  let start = 0;
  while (start < end && isSpaceOrTab(rest[start])) start++;
  const level = (match[1] as string).length as 1 | 2 | 3 | 4 | 5 | 6;
  return { level, text: rest.slice(start, end) };
}

/** A table's delimiter row (`|:--|--:|`), as many cells as its head. */
function isTableRule(line: string, cells: number): boolean {
  const parts = splitRow(line);
  return parts.length === cells && parts.every((cell) => TABLE_RULE_CELL.test(cell));
}

function startsBlock(line: string): boolean {
  return (
    fenceOf(line) !== undefined ||
    headingOf(line) !== undefined ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    BULLET.test(line)
  );
}

// ---- blocks

/** The blocks of `text`. */
export function parseMarkdown(text: string): Block[] {
  return parseBlocks(text.replace(/\r\n?/g, "\n").split("\n"), 0);
}

function parseBlocks(lines: readonly string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = fenceOf(line);
    if (fence !== undefined) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trim().startsWith(fence.marker)) {
        body.push(lines[i] as string);
        i++;
      }
      i++; // the closing fence (or the end of the text)
      blocks.push({ type: "code", lang: fence.lang, text: body.join("\n") });
      continue;
    }
    const heading = headingOf(line);
    if (heading !== undefined) {
      blocks.push({
        type: "heading",
        level: heading.level,
        children: parseInline(heading.text, depth),
      });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ type: "rule" });
      i++;
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const inner: string[] = [];
      while (i < lines.length && !isBlank(lines[i] as string)) {
        const quoted = QUOTE.exec(lines[i] as string);
        inner.push(quoted ? (quoted[1] as string) : (lines[i] as string));
        i++;
      }
      blocks.push({ type: "quote", children: parseBlocks(inner, depth + 1) });
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet !== null && depth < MAX_DEPTH) {
      i = parseList(lines, i, depth, blocks);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length) {
      const head = splitRow(line);
      if (isTableRule(lines[i + 1] as string, head.length)) {
        i = parseTable(lines, i, head, depth, blocks);
        continue;
      }
    }
    // A paragraph: up to a blank line or the start of another block.
    const paragraph: string[] = [];
    while (i < lines.length) {
      const next = lines[i] as string;
      if (isBlank(next)) break;
      if (paragraph.length > 0 && startsBlock(next)) break;
      paragraph.push(next);
      i++;
    }
    blocks.push({ type: "paragraph", children: parseInline(paragraph.join("\n"), depth) });
  }
  return blocks;
}

/** Parses the list starting at `start` into `blocks`; returns the index after it. */
function parseList(
  lines: readonly string[],
  start: number,
  depth: number,
  blocks: Block[],
): number {
  const first = BULLET.exec(lines[start] as string) as RegExpExecArray;
  const indent = (first[1] as string).length;
  const ordered = /\d/.test(first[2] as string);
  const items: ListItem[] = [];
  let i = start;
  while (i < lines.length) {
    const bullet = BULLET.exec(lines[i] as string);
    if (bullet === null || (bullet[1] as string).length !== indent) break;
    if (/\d/.test(bullet[2] as string) !== ordered) break;
    // The item: its first line, then every line indented past the bullet (or blank between).
    const contentIndent = indent + (bullet[2] as string).length + 1;
    const body = [bullet[3] ?? ""];
    i++;
    while (i < lines.length) {
      const next = lines[i] as string;
      const nextIndent = next.length - next.trimStart().length;
      if (isBlank(next)) {
        const following = lines[i + 1];
        if (following === undefined || isBlank(following)) break;
        if (following.length - following.trimStart().length < contentIndent) break;
        body.push("");
        i++;
        continue;
      }
      const nested = BULLET.exec(next);
      if (nested !== null && (nested[1] as string).length <= indent) break;
      if (nested === null && nextIndent < Math.min(contentIndent, indent + 2)) {
        // A lazy continuation of the item's paragraph.
        if (startsBlock(next)) break;
        body.push(next.trim());
        i++;
        continue;
      }
      body.push(next.slice(Math.min(nextIndent, contentIndent)));
      i++;
    }
    const task = /^\[([ xX])\][ \t]+/.exec(body[0] as string);
    if (task !== null) body[0] = (body[0] as string).slice(task[0].length);
    items.push({
      checked: task === null ? null : task[1] !== " ",
      children: parseBlocks(body, depth + 1),
    });
    // A blank line between items keeps the list going.
    if (i < lines.length && isBlank(lines[i] as string)) {
      const after = lines[i + 1];
      const again = after === undefined ? null : BULLET.exec(after);
      if (again !== null && (again[1] as string).length === indent) i++;
    }
  }
  const start1 = ordered ? Number.parseInt(first[2] as string, 10) : 1;
  blocks.push({ type: "list", ordered, start: start1, items });
  return i;
}

function splitRow(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function parseTable(
  lines: readonly string[],
  start: number,
  head: readonly string[],
  depth: number,
  blocks: Block[],
): number {
  const align = splitRow(lines[start + 1] as string).map((cell): Align => {
    const left = cell.startsWith(":");
    const right = cell.endsWith(":");
    return left && right ? "center" : right ? "right" : left ? "left" : null;
  });
  const rows: Inline[][][] = [];
  let i = start + 2;
  while (i < lines.length && !isBlank(lines[i] as string) && (lines[i] as string).includes("|")) {
    // A row's own cells only: padding short rows to a wide head would make the work (and the
    // page) rows × columns, more than the text holds.
    const cells = splitRow(lines[i] as string).slice(0, head.length);
    rows.push(cells.map((cell) => parseInline(cell, depth)));
    i++;
  }
  blocks.push({ type: "table", align, head: head.map((cell) => parseInline(cell, depth)), rows });
  return i;
}
