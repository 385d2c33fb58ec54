/**
 * The inline part of the markdown preview: emphasis, code spans, links, images, autolinks and
 * line breaks in a paragraph's (or heading's, or table cell's) text. Every search for a closer
 * is a lookup in positions found once (markdown-scan.ts), every regular expression is anchored
 * at the current position and cannot backtrack further than what it consumes, and text is
 * gathered in pieces rather than re-read: the work is linear in the text at each of at most
 * {@link MAX_DEPTH} levels of nesting.
 */
import { type Inline, MAX_DEPTH, safeHref } from "./markdown-nodes.js";
import { BacktickRuns, Delimiters, Occurrences } from "./markdown-scan.js";

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|~<>"']/;
const EMPHASIS: readonly [string, "strong" | "em" | "del"][] = [
  ["**", "strong"],
  ["__", "strong"],
  ["~~", "del"],
  ["*", "em"],
  ["_", "em"],
];
/** Sticky: each is tried at one position only. A match never holds a quote, so safeHref takes it. */
const AUTOLINK = /<((?:https?:\/\/|mailto:)[^\s<>"]+)>/iy;
const BARE_URL = /https?:\/\/[^\s<>"]*[^\s<>.,;:!?'")\]]/iy;
/** A run of characters that start nothing: taken whole. */
const ORDINARY = /[^\\\n`<hH[!*_~]+/y;

/** Text gathered a piece at a time, joined once (never re-read as it grows). */
class Plain {
  #pieces: string[] = [];

  add(piece: string): void {
    this.#pieces.push(piece);
  }

  /** Drops the whitespace at the end. */
  trimEnd(): void {
    const pieces = this.#pieces;
    while (pieces.length > 0) {
      const trimmed = (pieces[pieces.length - 1] as string).trimEnd();
      if (trimmed !== "") {
        pieces[pieces.length - 1] = trimmed;
        return;
      }
      pieces.pop();
    }
  }

  /** The text gathered since the last take, as a node (none if empty). */
  take(): Inline | undefined {
    const text = this.#pieces.join("");
    this.#pieces = [];
    return text === "" ? undefined : { type: "text", text };
  }
}

/** What a text's parse looks things up in, made once per text. */
interface Scan {
  readonly text: string;
  readonly depth: number;
  readonly occurrences: Occurrences;
  readonly delimiters: Delimiters;
  ticks?: BacktickRuns;
}

/** The inline nodes of a paragraph's (or heading's, or cell's) text. */
export function parseInline(text: string, depth = 0): Inline[] {
  const scan: Scan = {
    text,
    depth,
    occurrences: new Occurrences(text),
    delimiters: new Delimiters(text),
  };
  const out: Inline[] = [];
  const plain = new Plain();
  const flush = () => {
    const node = plain.take();
    if (node !== undefined) out.push(node);
  };
  let i = 0;
  while (i < text.length) {
    ORDINARY.lastIndex = i;
    const run = ORDINARY.exec(text);
    if (run !== null) {
      plain.add(run[0]);
      i += run[0].length;
      continue;
    }
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
        plain.add(next);
        i += 2;
        continue;
      }
    }
    if (c === "\n") {
      // Two spaces before a line end are a hard break; otherwise the line end is a space.
      // (Spaces just before it are always plain text: every construct ends in something else.)
      const hard = text[i - 1] === " " && text[i - 2] === " ";
      plain.trimEnd();
      if (hard) {
        flush();
        out.push({ type: "break" });
      } else {
        plain.add("\n");
      }
      i++;
      continue;
    }
    const node = c === "`" ? codeAt(scan, i) : c === "<" ? autolinkAt(text, i) : undefined;
    const found = node ?? bareUrlAt(text, i) ?? linkOrImageAt(scan, i) ?? emphasisAt(scan, i);
    if (found !== undefined) {
      if (found.node === undefined) {
        // An unclosed backtick run: text, whole.
        plain.add(text.slice(i, found.end));
      } else {
        flush();
        out.push(...(Array.isArray(found.node) ? found.node : [found.node]));
      }
      i = found.end;
      continue;
    }
    plain.add(c);
    i++;
  }
  flush();
  return out;
}

/** What was found at a position: its node(s) (none: plain text) and where it ends. */
interface Found {
  readonly node: Inline | Inline[] | undefined;
  readonly end: number;
}

function codeAt(scan: Scan, i: number): Found {
  const { text } = scan;
  let run = 1;
  while (text[i + run] === "`") run++;
  scan.ticks ??= new BacktickRuns(text);
  const close = scan.ticks.closer(run, i);
  if (close === -1) return { node: undefined, end: i + run };
  let code = text.slice(i + run, close).replaceAll("\n", " ");
  if (code.length >= 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
  return { node: { type: "code", text: code }, end: close + run };
}

function autolinkAt(text: string, i: number): Found | undefined {
  AUTOLINK.lastIndex = i;
  const auto = AUTOLINK.exec(text);
  const href = auto === null ? undefined : safeHref(auto[1] as string);
  if (auto === null || href === undefined) return undefined;
  return {
    node: { type: "link", href, children: [{ type: "text", text: auto[1] as string }] },
    end: i + auto[0].length,
  };
}

function bareUrlAt(text: string, i: number): Found | undefined {
  const c = text[i];
  if (c !== "h" && c !== "H") return undefined;
  if (i > 0 && !/[\s(]/.test(text[i - 1] as string)) return undefined;
  BARE_URL.lastIndex = i;
  const bare = BARE_URL.exec(text);
  const href = bare === null ? undefined : safeHref(bare[0]);
  if (bare === null || href === undefined) return undefined;
  return {
    node: { type: "link", href, children: [{ type: "text", text: bare[0] }] },
    end: i + bare[0].length,
  };
}

function linkOrImageAt(scan: Scan, i: number): Found | undefined {
  const { text, depth } = scan;
  const image = text[i] === "!" && text[i + 1] === "[";
  if (!image && text[i] !== "[") return undefined;
  const link = linkAt(scan, image ? i + 1 : i);
  if (link === undefined) return undefined;
  if (image) return { node: { type: "image", alt: link.label, src: link.url }, end: link.end };
  const href = safeHref(link.url);
  const children = depth < MAX_DEPTH ? parseInline(link.label, depth + 1) : [];
  return {
    node:
      href !== undefined
        ? { type: "link", href, children }
        : [...children, { type: "text", text: ` (${link.url})` }],
    end: link.end,
  };
}

/**
 * The link `[label](url "title")` whose `[` is at `open`, if there is one. Every closer is
 * looked up, and the label and target are cut out only once they are known to form a link.
 */
function linkAt(
  { text, occurrences, delimiters }: Scan,
  open: number,
): { label: string; url: string; end: number } | undefined {
  const middle = delimiters.next("](", open + 1);
  if (middle === -1) return undefined;
  // The label holds no paragraph break and no earlier `](` (one after a space).
  const before = (needle: string, from: number, limit: number) => {
    const at = occurrences.next(needle, from);
    return at !== -1 && at < limit;
  };
  if (before("](", open + 1, middle) || before("\n\n", open + 1, middle)) return undefined;
  const close = occurrences.next(")", middle + 2);
  if (close === -1 || before("\n", middle + 2, close)) return undefined;
  const url = withoutTitle(text.slice(middle + 2, close).trim()).replace(/^<(.*)>$/, "$1");
  return { label: text.slice(open + 1, middle), url, end: close + 1 };
}

/** A link target without its title (`url "title"`), by position: a regular expression that
 * looks for the title's spaces from every space backtracks quadratically on a long run of them. */
function withoutTitle(target: string): string {
  if (!target.endsWith('"')) return target;
  const quote = target.lastIndexOf('"', target.length - 2);
  if (quote <= 0 || !/\s/.test(target[quote - 1] as string)) return target;
  return target.slice(0, quote).trimEnd();
}

/** The emphasis (`*a*`, `**a**`, `_a_`, `~~a~~`) opening at `i`, if it closes. */
function emphasisAt({ text, depth, delimiters }: Scan, i: number): Found | undefined {
  if (depth >= MAX_DEPTH) return undefined;
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
    return {
      node: { type, children: parseInline(text.slice(from, close), depth + 1) },
      end,
    };
  }
  return undefined;
}
