/**
 * Records and compare-and-set: writes (create, replace, with their preconditions), reads, the
 * paged listing and export, and the delete of one key. Every write takes the clock's next
 * version inside its transaction, so preconditions are checked and applied atomically.
 */
import {
  checkExpected,
  nextVersions,
  notFound,
  now,
  type StoreContext,
  selectionOf,
  versionConflict,
} from "./context.js";
import { decodeCursor, encodeCursor } from "./keys.js";
import { checkInteger, checkKey, utf8Bytes } from "./limits.js";
import { isMemoryFile } from "./memory-file.js";
import { indexText } from "./recall/cjk.js";
import { checkRememberInput, checkRememberOver } from "./rules/remember.js";
import {
  bindSelection,
  type Head,
  type ListRow,
  type Row,
  type ShapedStatements,
} from "./sqlite/statements.js";
import { pathConflict, treeConflict } from "./tree.js";
import {
  DEFAULT_PAGE,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type ListPage,
  MAX_PAGE,
  type MemoryRecord,
  type PageOptions,
  type RememberInput,
  type RememberResult,
} from "./types.js";

function toRecord(ctx: StoreContext, row: Row): MemoryRecord {
  return {
    key: row.key,
    text: ctx.sql.readText(row.text),
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    version: row.version,
    hash: row.hash,
    bytes: row.bytes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** `MemoryStore.remember`: one write, in its own transaction. */
export function remember(ctx: StoreContext, input: RememberInput): RememberResult {
  const write = prepareRemember(ctx, input);
  return ctx.write(() => write());
}

/** `MemoryStore.rememberMany`: all the writes in one transaction, or none. */
export function rememberMany(
  ctx: StoreContext,
  inputs: readonly RememberInput[],
): RememberResult[] {
  const writes = inputs.map((input) => prepareRemember(ctx, input));
  return ctx.write(() => writes.map((write) => write()));
}

/** Validates a write and returns the function that applies it inside a transaction. */
function prepareRemember(ctx: StoreContext, input: RememberInput): () => RememberResult {
  const write = checkRememberInput(input, ctx.limits);
  const { key, text, bytes, metadata, hash } = write;
  return () => {
    const head = ctx.sql.head.get(key) as Head | undefined;
    const at = now();
    const finalTags = checkRememberOver(
      write,
      head && { version: head.version, tags: () => JSON.parse(head.tags) as string[] },
    );
    if (head === undefined) {
      if (isMemoryFile(key, finalTags)) {
        const found = treeConflict(ctx, key);
        if (found !== undefined) throw pathConflict(`cannot create ${key}`, found);
      }
      const version = nextVersions(ctx, 1);
      const id = Number(
        ctx.sql.insert.run({
          key,
          text,
          index_text: indexText(text),
          tags: JSON.stringify(finalTags),
          metadata: metadata ?? "{}",
          version,
          hash,
          bytes,
          created_at: at,
          updated_at: at,
        }).lastInsertRowid,
      );
      for (const tag of finalTags) ctx.sql.addTag.run(tag, id);
      return { key, version, bytes, hash, created: true, updated_at: at };
    }
    const version = nextVersions(ctx, 1);
    const tags = JSON.stringify(finalTags);
    ctx.sql.update.run({
      id: head.id,
      text,
      index_text: indexText(text),
      tags,
      metadata: metadata ?? head.metadata,
      version,
      hash,
      bytes,
      updated_at: at,
    });
    // Tags named again unchanged (a client of the remember tool that sends them on every
    // write) are left as they are: two pages fewer to write.
    if (write.tags !== undefined && tags !== head.tags) {
      ctx.sql.clearTags.run(head.id);
      for (const tag of finalTags) ctx.sql.addTag.run(tag, head.id);
    }
    return { key, version, bytes, hash, created: false, updated_at: at };
  };
}

/** `MemoryStore.get`: the memory at `key`, or `undefined`. */
export function get(ctx: StoreContext, key: string): MemoryRecord | undefined {
  const row = ctx.sql.get.get(checkKey(key, ctx.limits)) as Row | undefined;
  return row === undefined ? undefined : toRecord(ctx, row);
}

/** `MemoryStore.list`: a page of keys with sizes, versions and tags. */
export function list(ctx: StoreContext, options: PageOptions): ListPage {
  const { statement, params, limit } = pageQuery(ctx, ctx.sql.listPage, options);
  // Rows as arrays (the statement returns arrays) and all at once: a listing is on the path of
  // every directory view, and both cost less than objects read one by one.
  const rows = statement.all({ ...params, limit: limit + 1 }) as ListRow[];
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const items = rows.map(([key, bytes, version, tags, updated_at]) => ({
    key,
    bytes,
    version,
    tags: JSON.parse(tags) as string[],
    updated_at,
  }));
  const last = items[items.length - 1];
  return { items, next_cursor: more && last ? encodeCursor(last.key) : null };
}

/** `MemoryStore.export`: a page of whole records, bounded in count and bytes. */
export function exportPage(ctx: StoreContext, options: PageOptions): ExportPage {
  const { statement, params, limit } = pageQuery(ctx, ctx.sql.exportPage, options);
  // Read one row at a time, so a page stops at its size bound without reading further.
  const memories: MemoryRecord[] = [];
  let bytes = 0;
  let more = false;
  const found = statement.iterate({ ...params, limit: limit + 1 }) as IterableIterator<Row>;
  for (const row of found) {
    // In UTF-8 bytes, as the budget is: .length counts UTF-16 units, too few for non-ASCII.
    const size = row.bytes + utf8Bytes(row.metadata);
    if (memories.length === limit || (memories.length > 0 && bytes + size > EXPORT_PAGE_BYTES)) {
      more = true;
      found.return?.();
      break;
    }
    memories.push(toRecord(ctx, row));
    bytes += size;
  }
  const last = memories[memories.length - 1];
  return { memories, next_cursor: more && last ? encodeCursor(last.key) : null };
}

/** `MemoryStore.forget`: deletes one memory, with an optional expected version. */
export function forget(
  ctx: StoreContext,
  key: string,
  options: { expectedVersion?: number | undefined },
): { deleted: number } {
  const checked = checkKey(key, ctx.limits);
  const expected = checkExpected(options.expectedVersion);
  return ctx.free(() => {
    const head = ctx.sql.head.get(checked) as Head | undefined;
    if (head === undefined) throw notFound(checked);
    if (expected !== undefined && head.version !== expected) {
      throw versionConflict(checked, head.version, expected);
    }
    ctx.sql.deleteId.run(head.id);
    return { deleted: 1 };
  });
}

/** The statement, parameters and checked limit of one page of a listing or an export. */
function pageQuery(ctx: StoreContext, statements: ShapedStatements, options: PageOptions) {
  const { prefix, tag } = selectionOf(ctx, options);
  const limit = checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  const { params, shape } = bindSelection(prefix, tag, after);
  return { statement: statements.for(shape), params, limit };
}
