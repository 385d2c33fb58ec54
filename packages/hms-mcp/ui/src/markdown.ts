/**
 * Markdown to a tree of typed nodes, for the preview of a memory file. The preview renders
 * this tree with the page's own elements, text always as text: no HTML string is ever made
 * from a file, so raw HTML in a file (`<script>`, `onerror=`, `<svg>`) is shown as the
 * characters it is. Links keep only http, https and mailto targets; images are never loaded
 * (the page loads nothing from elsewhere), they are shown as their description and address.
 *
 * It covers what memory files hold: headings, paragraphs, emphasis, code spans and fenced code,
 * lists (nested, ordered, task lists), quotes, rules, tables and links. Every step is linear
 * in the text (or bounded by {@link MAX_DEPTH}), so a hostile file cannot stall the page.
 */

export type Inline =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "code"; readonly text: string }
  | { readonly type: "strong" | "em" | "del"; readonly children: Inline[] }
  | { readonly type: "link"; readonly href: string; readonly children: Inline[] }
  | { readonly type: "image"; readonly alt: string; readonly src: string }
  | { readonly type: "break" };

export type Align = "left" | "center" | "right" | null;

export interface ListItem {
  /** A task list item's box: true (done), false (to do); null for a plain item. */
  readonly checked: boolean | null;
  readonly children: Block[];
}

export type Block =
  | { readonly type: "heading"; readonly level: 1 | 2 | 3 | 4 | 5 | 6; readonly children: Inline[] }
  | { readonly type: "paragraph"; readonly children: Inline[] }
  | { readonly type: "code"; readonly lang: string; readonly text: string }
  | { readonly type: "quote"; readonly children: Block[] }
  | {
      readonly type: "list";
      readonly ordered: boolean;
      readonly start: number;
      readonly items: ListItem[];
    }
  | { readonly type: "rule" }
  | {
      readonly type: "table";
      readonly align: Align[];
      readonly head: Inline[][];
      readonly rows: Inline[][][];
    };

/** Deepest nesting of quotes, lists and emphasis; deeper text is kept as plain text. */
export const MAX_DEPTH = 16;

/** Targets a link may have: the web and mail. Anything else (javascript:, data:) is text. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) && !/[\s<>"]/.test(trimmed) ? trimmed : undefined;
}

// ---- blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const BULLET = /^( {0,12})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TABLE_RULE = /^ {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

const isBlank = (line: string) => line.trim() === "";

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
    const fence = FENCE.exec(line);
    if (fence !== null) {
      const marker = fence[1] as string;
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trim().startsWith(marker)) {
        body.push(lines[i] as string);
        i++;
      }
      i++; // the closing fence (or the end of the text)
      blocks.push({ type: "code", lang: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const level = (heading[1] as string).length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ type: "heading", level, children: parseInline(heading[2] ?? "", depth) });
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
    if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1] as string)) {
      i = parseTable(lines, i, depth, blocks);
      continue;
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

function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    BULLET.test(line)
  );
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
  depth: number,
  blocks: Block[],
): number {
  const head = splitRow(lines[start] as string);
  const align = splitRow(lines[start + 1] as string).map((cell): Align => {
    const left = cell.startsWith(":");
    const right = cell.endsWith(":");
    return left && right ? "center" : right ? "right" : left ? "left" : null;
  });
  const rows: Inline[][][] = [];
  let i = start + 2;
  while (i < lines.length && !isBlank(lines[i] as string) && (lines[i] as string).includes("|")) {
    const cells = splitRow(lines[i] as string);
    rows.push(head.map((_, column) => parseInline(cells[column] ?? "", depth)));
    i++;
  }
  blocks.push({
    type: "table",
    align: head.map((_, column) => align[column] ?? null),
    head: head.map((cell) => parseInline(cell, depth)),
    rows,
  });
  return i;
}

// ---- inline

/** Sorted positions of each delimiter in a text, to find a closer without rescanning. */
class Delimiters {
  readonly #text: string;
  readonly #positions = new Map<string, number[]>();

  constructor(text: string) {
    this.#text = text;
  }

  /** The first position at or after `from` where `closer` can close (after a non-space). */
  next(closer: string, from: number): number {
    let positions = this.#positions.get(closer);
    if (positions === undefined) {
      positions = [];
      const text = this.#text;
      let at = text.indexOf(closer, 1);
      while (at !== -1) {
        const single = closer.length === 1;
        const partOfDouble = single && (text[at + 1] === closer || text[at - 1] === closer);
        if (!/\s/.test(text[at - 1] as string) && !partOfDouble) positions.push(at);
        at = text.indexOf(closer, at + closer.length);
      }
      this.#positions.set(closer, positions);
    }
    let low = 0;
    let high = positions.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((positions[mid] as number) < from) low = mid + 1;
      else high = mid;
    }
    return positions[low] ?? -1;
  }
}

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|~<>"']/;
const EMPHASIS: readonly [string, "strong" | "em" | "del"][] = [
  ["**", "strong"],
  ["__", "strong"],
  ["~~", "del"],
  ["*", "em"],
  ["_", "em"],
];
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i;
const BARE_URL = /^https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]/i;

/** The inline nodes of a paragraph's (or heading's, or cell's) text. */
export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = () => {
    if (plain !== "") out.push({ type: "text", text: plain });
    plain = "";
  };
  const delimiters = new Delimiters(text);
  /** Backtick run lengths with no closer at or after a position (code spans stay linear). */
  const noCloser = new Map<number, number>();
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[i + 1] as string;
      if (next === "\n") {
        flush();
        out.push({ type: "break" });
        i += 2;
        continue;
      }
      if (ESCAPABLE.test(next)) {
        plain += next;
        i += 2;
        continue;
      }
    }
    if (c === "\n") {
      // Two spaces before a line end are a hard break; otherwise the line end is a space.
      if (plain.endsWith("  ")) {
        plain = plain.trimEnd();
        flush();
        out.push({ type: "break" });
      } else {
        plain = `${plain.trimEnd()}\n`;
      }
      i++;
      continue;
    }
    if (c === "`") {
      let run = 1;
      while (text[i + run] === "`") run++;
      const fence = "`".repeat(run);
      const known = noCloser.get(run);
      let close = known !== undefined && known <= i ? -1 : text.indexOf(fence, i + run);
      while (close !== -1 && text[close + run] === "`") {
        let skip = close;
        while (text[skip] === "`") skip++;
        close = text.indexOf(fence, skip);
      }
      if (close === -1) {
        noCloser.set(run, i);
        plain += fence;
        i += run;
        continue;
      }
      flush();
      let code = text.slice(i + run, close).replaceAll("\n", " ");
      if (/^ .* $/.test(code)) code = code.slice(1, -1);
      out.push({ type: "code", text: code });
      i = close + run;
      continue;
    }
    if (c === "<") {
      const auto = AUTOLINK.exec(text.slice(i, i + 2048));
      const href = auto === null ? undefined : safeHref(auto[1] as string);
      if (auto !== null && href !== undefined) {
        flush();
        out.push({ type: "link", href, children: [{ type: "text", text: auto[1] as string }] });
        i += auto[0].length;
        continue;
      }
    }
    if ((c === "h" || c === "H") && (i === 0 || /[\s(]/.test(text[i - 1] as string))) {
      const bare = BARE_URL.exec(text.slice(i, i + 2048));
      const href = bare === null ? undefined : safeHref(bare[0]);
      if (bare !== null && href !== undefined) {
        flush();
        out.push({ type: "link", href, children: [{ type: "text", text: bare[0] }] });
        i += bare[0].length;
        continue;
      }
    }
    if (c === "[" || (c === "!" && text[i + 1] === "[")) {
      const image = c === "!";
      const open = image ? i + 1 : i;
      const link = linkAt(text, open, delimiters);
      if (link !== undefined) {
        flush();
        if (image) {
          out.push({ type: "image", alt: link.label, src: link.url });
        } else {
          const href = safeHref(link.url);
          const children = depth < MAX_DEPTH ? parseInline(link.label, depth + 1) : [];
          if (href !== undefined) out.push({ type: "link", href, children });
          else out.push(...children, { type: "text", text: ` (${link.url})` });
        }
        i = link.end;
        continue;
      }
    }
    const emphasis = depth < MAX_DEPTH ? emphasisAt(text, i, delimiters) : undefined;
    if (emphasis !== undefined) {
      flush();
      out.push({
        type: emphasis.type,
        children: parseInline(text.slice(emphasis.from, emphasis.to), depth + 1),
      });
      i = emphasis.end;
      continue;
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** The link `[label](url "title")` whose `[` is at `open`, if there is one. */
function linkAt(
  text: string,
  open: number,
  delimiters: Delimiters,
): { label: string; url: string; end: number } | undefined {
  const middle = delimiters.next("](", open + 1);
  if (middle === -1) return undefined;
  const label = text.slice(open + 1, middle);
  if (label.includes("\n\n") || label.includes("](")) return undefined;
  const close = text.indexOf(")", middle + 2);
  if (close === -1) return undefined;
  const target = text.slice(middle + 2, close).trim();
  if (target.includes("\n")) return undefined;
  const url = target.replace(/\s+"[^"]*"$/, "").replace(/^<(.*)>$/, "$1");
  return { label, url, end: close + 1 };
}

/** The emphasis (`*a*`, `**a**`, `_a_`, `~~a~~`) opening at `i`, if it closes. */
function emphasisAt(
  text: string,
  i: number,
  delimiters: Delimiters,
): { type: "strong" | "em" | "del"; from: number; to: number; end: number } | undefined {
  for (const [marker, type] of EMPHASIS) {
    if (!text.startsWith(marker, i)) continue;
    const from = i + marker.length;
    // An opener is followed by a non-space; a single one is not half of a double.
    if (from >= text.length || /\s/.test(text[from] as string)) continue;
    if (marker.length === 1 && text[from] === marker) continue;
    // `_` inside a word (snake_case) is not emphasis.
    if (marker[0] === "_" && i > 0 && /\w/.test(text[i - 1] as string)) continue;
    const close = delimiters.next(marker, from + 1);
    if (close === -1) continue;
    const end = close + marker.length;
    if (marker[0] === "_" && end < text.length && /\w/.test(text[end] as string)) continue;
    return { type, from, to: close, end };
  }
  return undefined;
}
