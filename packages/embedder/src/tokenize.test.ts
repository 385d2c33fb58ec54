import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createTextEncoder } from "./tokenize.js";

describe("createTextEncoder (the model's own tokenizer files)", () => {
  let json: object;
  let config: object;
  let reference: Tokenizer;
  let cls: number;
  let sep: number;

  beforeAll(async () => {
    const dir = inject("modelDir");
    json = JSON.parse(await readFile(join(dir, "tokenizer.json"), "utf8"));
    config = JSON.parse(await readFile(join(dir, "tokenizer_config.json"), "utf8"));
    reference = new Tokenizer(json, config);
    cls = reference.token_to_id("[CLS]") as number;
    sep = reference.token_to_id("[SEP]") as number;
  });

  it("encodes a short text exactly as the tokenizer does, [CLS] and [SEP] included", () => {
    const encoder = createTextEncoder(json, config, 256);
    const ids = encoder.encode("Acme Corp prefers email follow-ups.");
    expect(ids).toEqual(reference.encode("Acme Corp prefers email follow-ups.").ids);
    expect(ids[0]).toBe(cls);
    expect(ids.at(-1)).toBe(sep);
  });

  it("lower-cases and strips accents as the model was trained (uncased WordPiece)", () => {
    const encoder = createTextEncoder(json, config, 256);
    expect(encoder.encode("Héllo WORLD")).toEqual(encoder.encode("hello world"));
  });

  it("cuts a long text to the maximum, keeping [CLS] first and [SEP] last", () => {
    const encoder = createTextEncoder(json, config, 16);
    const text =
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen";
    const ids = encoder.encode(text);
    const bare = reference.encode(text, { add_special_tokens: false }).ids;
    expect(ids).toHaveLength(16);
    expect(ids).toEqual([cls, ...bare.slice(0, 14), sep]);
  });

  it("encodes an empty text as the special tokens alone", () => {
    expect(createTextEncoder(json, config, 256).encode("")).toEqual([cls, sep]);
  });

  it("refuses a maximum that leaves no room for text", () => {
    expect(() => createTextEncoder(json, config, 2)).toThrow(/no room for text/);
  });
});
