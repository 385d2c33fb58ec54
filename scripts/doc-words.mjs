#!/usr/bin/env node
// How long a doc is to read: its words outside fenced code blocks (a fence may be indented, as
// in a list), split on white space as `wc -w` splits them. The README's budget (1,300) is held
// by scripts/docs.test.mjs.
//
//   node scripts/doc-words.mjs FILE...     prints each file's words outside and inside code
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const FENCED = /^ *```.*?^ *```/gms;

/** The words of `markdown` outside its fenced code blocks. */
export function wordsOutsideCode(markdown) {
  return markdown.replace(FENCED, "").split(/\s+/).filter(Boolean).length;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of process.argv.slice(2)) {
    const text = readFileSync(file, "utf8");
    const all = text.split(/\s+/).filter(Boolean).length;
    const outside = wordsOutsideCode(text);
    console.log(`${file}: ${outside} words outside code blocks, ${all} in all`);
  }
}
