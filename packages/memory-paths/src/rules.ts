/**
 * The rule data of a memory path, read from `rules.json` at the package root: the limits,
 * the character tables, the rules in the order they are checked and every message template.
 * The Python port reads a copy of the same file (a test keeps the copy identical), so the two
 * refuse exactly the same paths with exactly the same words. This module only turns the file
 * into typed values; the rules themselves are applied in `validate.ts`.
 */
import data from "../rules.json" with { type: "json" };

/** An inclusive range of code points. */
export type CodePointRange = readonly [number, number];

/** The code point written `U+XXXX` (upper-case hex, at least four digits) in `rules.json`. */
export function parseCodePoint(label: string): number {
  if (!/^U\+[0-9A-F]{4,6}$/.test(label)) {
    throw new Error(`rules.json: ${JSON.stringify(label)} is not a code point written U+XXXX`);
  }
  return Number.parseInt(label.slice(2), 16);
}

function ranges(entries: ReadonlyArray<{ from: string; to: string }>): CodePointRange[] {
  return entries.map(({ from, to }) => [parseCodePoint(from), parseCodePoint(to)] as const);
}

/** The raw contents of `rules.json`, for tests and for tools that want the data itself. */
export const RULES_DATA = data;

export const ROOT: string = data.root;
export const NAME_BYTES: number = data.max_name_bytes;
export const PATH_BYTES: number = data.max_path_bytes;
export const DEPTH: number = data.max_depth;
export const DISPLAY_CODE_POINTS: number = data.max_display_code_points;

/** The character tables, as inclusive code point ranges (the look-alikes as a map). */
export const CONTROL_RANGES: readonly CodePointRange[] = ranges(data.characters.control);
export const SURROGATE_RANGES: readonly CodePointRange[] = ranges(data.characters.surrogate);
export const NONCHARACTER_RANGES: readonly CodePointRange[] = ranges(data.characters.noncharacter);
export const INVISIBLE_TABLE: readonly CodePointRange[] = ranges(data.characters.invisible);
export const SPACE_TABLE: readonly CodePointRange[] = ranges(data.characters.space);
export const COMPATIBILITY_KEPT_TABLE: readonly CodePointRange[] = ranges(
  data.characters.compatibility_kept,
);
export const LOOKALIKE_TABLE: ReadonlyMap<number, string> = new Map(
  data.characters.lookalike.map(({ code_point, looks_like }) => [
    parseCodePoint(code_point),
    looks_like,
  ]),
);

/**
 * The rules that apply only to a name being created: a path that breaks only these still
 * names a file an older version let in, which stays readable, editable and deletable.
 */
export const NEW_NAMES_ONLY: readonly string[] = data.new_names_only;

/** Whether `cp` lies in one of `table`'s ranges. */
export function inRanges(table: readonly CodePointRange[], cp: number): boolean {
  for (const [low, high] of table) {
    if (cp >= low && cp <= high) return true;
  }
  return false;
}

/** The name of a reason a path is refused for (several reasons can name one rule). */
export type ReasonName = keyof typeof data.reasons;

/** The rule a reason names and the template of its message. */
export const REASONS: Readonly<Record<ReasonName, { rule: string; text: string }>> = data.reasons;

/** The two whole-message templates: a value that is not a string, and a refused path. */
export const MESSAGES: Readonly<typeof data.messages> = data.messages;

/**
 * `template` with every `{name}` replaced by `values[name]`. The values are inserted as they
 * are (a brace in a value is never read as a placeholder); a placeholder without a value is a
 * bug in the caller and throws. Each template is split into its parts once, then reused.
 */
export function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  let parts = compiled.get(template);
  if (parts === undefined) {
    parts = template.split(/\{([a-z_]+)\}/); // odd indexes are placeholder names
    compiled.set(template, parts);
  }
  let out = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] as string;
    const value = values[name];
    if (value === undefined) throw new Error(`rules.json: no value for {${name}} in ${template}`);
    out += String(value) + (parts[i + 1] as string);
  }
  return out;
}

const compiled = new Map<string, string[]>();

/**
 * A lookup of `inRanges` over the Basic Multilingual Plane, built once: one byte per code
 * point, so the per-character checks of a path cost an array read instead of a table scan.
 * Code points above U+FFFF fall back to the scan.
 */
export function bmpLookup(table: readonly CodePointRange[]): (cp: number) => boolean {
  const bmp = new Uint8Array(0x10000);
  for (const [low, high] of table) {
    for (let cp = low; cp <= Math.min(high, 0xffff); cp++) bmp[cp] = 1;
  }
  return (cp) => (cp <= 0xffff ? bmp[cp] === 1 : inRanges(table, cp));
}
