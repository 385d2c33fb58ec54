/**
 * Reading input that must fit in one memory file: stdin, a `--file`, a file to import, what
 * an editor left. Reading stops once the input passes the limit (counted in bytes), so `yes |
 * hms write x` or `--file /dev/zero` is refused at once instead of filling memory.
 */
import { open } from "node:fs/promises";

/** What was read: all of it, or the news that there is more than the limit. */
export type Bounded = { bytes: Buffer; over?: undefined } | { over: true; size?: number };

/**
 * At most `max` bytes of `stream`; `{ over: true }` as soon as it carries more (the rest is
 * not read: the stream is destroyed, so a writer at its other end gets EPIPE).
 */
export async function readStreamAtMost(
  stream: AsyncIterable<Buffer | string>,
  max: number,
): Promise<Bounded> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > max) return { over: true };
    chunks.push(bytes);
  }
  return { bytes: Buffer.concat(chunks, total) };
}

/**
 * At most `max` bytes of the file `path`; `{ over: true, size }` when it holds more: a
 * regular file by its size, without reading it, anything else (`/dev/zero`, a pipe) after
 * `max + 1` bytes. Rejects with the system's error (ENOENT, EISDIR, EACCES...).
 */
export async function readFileAtMost(path: string, max: number): Promise<Bounded> {
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    if (stats.isFile() && stats.size > max) return { over: true, size: stats.size };
    // One byte more than the limit tells "over" from "exactly the limit".
    const buffer = Buffer.alloc(max + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > max) return { over: true };
    }
    return { bytes: buffer.subarray(0, total) };
  } finally {
    await handle.close();
  }
}
