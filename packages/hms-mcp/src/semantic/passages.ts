/**
 * Cutting a memory into passages for embedding. The model reads at most a few hundred tokens
 * and silently drops the rest, so a long memory is embedded as several passages, each a run of
 * whole lines (a line too long on its own is cut at sentence ends, then between words), and
 * recall scores the memory by its best passage. Each passage keeps its line range, which is the
 * excerpt a semantic-only hit shows.
 */

/** How memories are cut. */
export interface PassageOptions {
  /** Most tokens in one passage (special tokens excluded). */
  readonly maxTokens: number;
  /** Counts the tokens of a text, as the model's tokenizer does. */
  readonly countTokens: (text: string) => number;
  /**
   * Prefix every passage after the first with the memory's first line (a title or heading)
   * when that line has at most this many tokens; 0 turns it off.
   */
  readonly contextTokens: number;
  /** Most passages per memory; text beyond them is left to lexical recall. */
  readonly maxPassages: number;
}

/** A passage: the text to embed and the 1-based inclusive line range it comes from. */
export interface Passage {
  readonly text: string;
  readonly lineStart: number;
  readonly lineEnd: number;
}

interface Unit {
  readonly text: string;
  readonly line: number;
  readonly tokens: number;
  /** True when the unit starts its line (joined to the previous unit with a line break). */
  readonly lineStart: boolean;
}

const SENTENCE_END = /(?<=[.!?;:])\s+/;

/** Cuts `text` into passages of at most `maxTokens` tokens each. */
export function splitPassages(text: string, options: PassageOptions): Passage[] {
  const { maxTokens, countTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < 8) {
    throw new RangeError(`maxTokens must be an integer of at least 8, got ${maxTokens}`);
  }
  const lines = text.split("\n");
  const units: Unit[] = [];
  // Enough text for maxPassages full passages; the rest would be cut anyway.
  const enough = maxTokens * (options.maxPassages + 1);
  let total = 0;
  for (let i = 0; i < lines.length && total <= enough; i++) {
    const line = (lines[i] as string).trim();
    if (line === "") continue;
    for (const [k, piece] of pieces(line, maxTokens, countTokens).entries()) {
      units.push({ text: piece.text, line: i + 1, tokens: piece.tokens, lineStart: k === 0 });
      total += piece.tokens;
    }
  }
  if (units.length === 0) return [{ text: "", lineStart: 1, lineEnd: 1 }];

  const first = units[0] as Unit;
  const second = units[1];
  const context =
    options.contextTokens > 0 &&
    first.tokens <= options.contextTokens &&
    (second === undefined || second.line !== first.line)
      ? first
      : undefined;

  const passages: Passage[] = [];
  let current: Unit[] = [];
  let tokens = 0;
  const flush = () => {
    if (current.length === 0) return;
    const start = current[0] as Unit;
    let body = start.text;
    for (const unit of current.slice(1)) body += (unit.lineStart ? "\n" : " ") + unit.text;
    const withContext =
      context !== undefined && passages.length > 0 ? `${context.text}\n${body}` : body;
    passages.push({
      text: withContext,
      lineStart: start.line,
      lineEnd: (current[current.length - 1] as Unit).line,
    });
    current = [];
    tokens = 0;
  };
  for (const unit of units) {
    if (passages.length >= options.maxPassages) break;
    const budget =
      context !== undefined && passages.length > 0 ? maxTokens - context.tokens : maxTokens;
    if (current.length > 0 && tokens + unit.tokens > budget) flush();
    if (passages.length >= options.maxPassages) break;
    current.push(unit);
    tokens += unit.tokens;
  }
  if (passages.length < options.maxPassages) flush();
  return passages;
}

/**
 * A line as pieces of at most `max` tokens: the whole line, else its sentences, else runs of
 * words. (BERT-style tokenizers split on spaces first, so counts of pieces add up.)
 */
function pieces(
  line: string,
  max: number,
  count: (text: string) => number,
): { text: string; tokens: number }[] {
  const whole = count(line);
  if (whole <= max) return [{ text: line, tokens: whole }];
  const out: { text: string; tokens: number }[] = [];
  for (const sentence of line.split(SENTENCE_END)) {
    if (sentence === "") continue;
    const tokens = count(sentence);
    if (tokens <= max) {
      out.push({ text: sentence, tokens });
      continue;
    }
    let run = "";
    let runTokens = 0;
    for (const word of sentence.split(/\s+/)) {
      if (word === "") continue;
      // A single word longer than the budget is cut by the model; it stays whole here.
      const n = count(word);
      if (run !== "" && runTokens + n > max) {
        out.push({ text: run, tokens: runTokens });
        run = "";
        runTokens = 0;
      }
      run = run === "" ? word : `${run} ${word}`;
      runTokens += n;
    }
    if (run !== "") out.push({ text: run, tokens: runTokens });
  }
  return out;
}
