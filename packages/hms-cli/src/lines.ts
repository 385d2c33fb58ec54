/**
 * A file's lines, read as a stream with a bound on each: a line longer than the bound is
 * reported as too long and skipped without being held (a `.jsonl` of one endless line is
 * refused at once instead of filling memory).
 */
import { createReadStream } from "node:fs";

/** One line (its bytes, without the LF), or the news that it was longer than the bound. */
export type Line =
  | { number: number; bytes: Buffer; tooLong?: undefined }
  | { number: number; tooLong: true };

/** The lines of the file `path`, numbered from 1; each at most `maxLineBytes` bytes. */
export async function* boundedLines(path: string, maxLineBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let length = 0;
  let tooLong = false;
  let number = 0;
  const take = (piece: Buffer) => {
    if (tooLong) return;
    if (length + piece.length > maxLineBytes) {
      tooLong = true;
      parts = [];
      length = 0;
    } else if (piece.length > 0) {
      parts.push(piece);
      length += piece.length;
    }
  };
  const line = (): Line => {
    number += 1;
    const done: Line = tooLong
      ? { number, tooLong }
      : { number, bytes: Buffer.concat(parts, length) };
    parts = [];
    length = 0;
    tooLong = false;
    return done;
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      take(chunk.subarray(start, end));
      yield line();
      start = end + 1;
    }
    take(chunk.subarray(start));
  }
  if (length > 0 || tooLong) yield line();
}
