/**
 * Loading whole records, as `hms-mcp copy` moves a store from one engine to the other: each
 * record keeps its version and times, so a client's compare-and-set versions stay valid.
 */

import { createHash } from "node:crypto";
import type { StoreContext } from "./context.js";
import { StoreError } from "./errors.js";
import {
  checkInteger,
  checkKey,
  checkMetadata,
  checkTags,
  checkText,
  checkTime,
} from "./limits.js";
import { isMemoryFile } from "./memory-file.js";
import { indexText } from "./recall/cjk.js";
import { checkMemoryFile, pathConflict, treeConflict } from "./tree.js";
import type { MemoryRecord } from "./types.js";

/**
 * `MemoryStore.load`: every record checked first (the same rules as a write, plus its version
 * and times), then all inserted in one transaction, and the clock moved past the largest
 * version, so later writes never reuse one. EXISTS if a key is already present.
 */
export function load(ctx: StoreContext, records: readonly MemoryRecord[]): { loaded: number } {
  const rows = records.map((record) => {
    const key = checkKey(record.key, ctx.limits);
    const { text, bytes } = checkText(record.text, ctx.limits);
    const tags = checkTags(record.tags, ctx.limits);
    // A record copied as it was written: a name an older version let in (a look-alike of
    // another name) is kept, as a write over it would keep it; every other rule holds.
    checkMemoryFile(key, tags, true);
    return {
      key,
      text,
      index_text: indexText(text),
      tags,
      metadata: checkMetadata(record.metadata, ctx.limits),
      version: checkInteger(record.version, "version", 1, Number.MAX_SAFE_INTEGER),
      hash: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`,
      bytes,
      created_at: checkTime(record.created_at, "created_at"),
      updated_at: checkTime(record.updated_at, "updated_at"),
    };
  });
  return ctx.write(() => {
    let largest = 0;
    for (const row of rows) {
      const head = ctx.sql.head.get(row.key) as { version: number } | undefined;
      if (head !== undefined) {
        throw new StoreError(
          "EXISTS",
          `${row.key} already exists (at version ${head.version}); load copies into keys that are free`,
          { key: row.key, current_version: head.version },
        );
      }
      if (isMemoryFile(row.key, row.tags)) {
        const found = treeConflict(ctx, row.key);
        if (found !== undefined) throw pathConflict(`cannot load ${row.key}`, found);
      }
      const id = Number(
        ctx.sql.insert.run({ ...row, tags: JSON.stringify(row.tags) }).lastInsertRowid,
      );
      for (const tag of row.tags) ctx.sql.addTag.run(tag, id);
      largest = Math.max(largest, row.version);
    }
    ctx.sql.raiseClock.run(largest);
    return { loaded: rows.length };
  });
}
