/** The argument and answer fields several tools share. */
import { z } from "zod";
import { DEFAULT_PAGE, MAX_PAGE } from "./limits.js";
import type { ToolAnnotations } from "./tool-schema.js";

export const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
};

export const key = z
  .string()
  .describe("The memory's key: 1 to 512 UTF-8 bytes, no control characters.");
export const prefix = (what: string) =>
  z.string().describe(`Only ${what} whose key starts with this string.`);
export const tag = (what: string) => z.string().describe(`Only ${what} that carry this tag.`);
export const expectedVersion = z
  .number()
  .int()
  .min(1)
  .describe("Compare-and-set: act only if the memory is at exactly this version.");
export const cursor = z.string().describe("The next_cursor of the previous page.");
export const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE)
  .describe(`Page size, 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE}).`);
export const timestamp = z.string().describe("ISO 8601 UTC with milliseconds.");
export const nextCursor = z
  .string()
  .nullable()
  .describe("Pass back as cursor for the next page; null on the last page.");
