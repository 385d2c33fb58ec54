/**
 * Text to token ids with the model's own tokenizer (`tokenizer.json`, run by
 * @huggingface/tokenizers), cut to the model's maximum sequence length the way
 * sentence-transformers cuts it: the text's tokens are truncated and the special tokens
 * around them ([CLS] ... [SEP] for BERT) are kept.
 */
import { Tokenizer } from "@huggingface/tokenizers";

export interface TextEncoder {
  /** The most tokens one encoded text has, special tokens included. */
  readonly maxTokens: number;
  /** Token ids of `text`, special tokens included, at most {@link maxTokens} of them. */
  encode(text: string): number[];
  /** How many tokens `text` has, without special tokens and without the cut. */
  count(text: string): number;
}

/**
 * Builds an encoder from the parsed `tokenizer.json` and `tokenizer_config.json`.
 * The special tokens the tokenizer adds around a single text are learnt from the tokenizer
 * itself, so truncation keeps them whatever they are.
 */
export function createTextEncoder(
  tokenizerJson: object,
  tokenizerConfig: object,
  maxTokens: number,
): TextEncoder {
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const probe = "probe";
  const withSpecials = tokenizer.encode(probe).ids;
  const bare = tokenizer.encode(probe, { add_special_tokens: false }).ids;
  const at = indexOfRun(withSpecials, bare);
  if (bare.length === 0 || at < 0) {
    throw new Error("the tokenizer's template for a single text could not be understood");
  }
  const prefix = withSpecials.slice(0, at);
  const suffix = withSpecials.slice(at + bare.length);
  const room = maxTokens - prefix.length - suffix.length;
  if (room < 1) {
    throw new Error(`a maximum of ${maxTokens} tokens leaves no room for text`);
  }
  return {
    maxTokens,
    encode(text: string): number[] {
      const ids = tokenizer.encode(text, { add_special_tokens: false }).ids;
      return [...prefix, ...(ids.length > room ? ids.slice(0, room) : ids), ...suffix];
    },
    count(text: string): number {
      return tokenizer.encode(text, { add_special_tokens: false }).ids.length;
    },
  };
}

function indexOfRun(haystack: readonly number[], needle: readonly number[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
