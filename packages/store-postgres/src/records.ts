/**
 * Records and compare-and-set on PostgreSQL: writes with their preconditions, reads, the paged
 * listing and export, the delete of one key, and whole-record loads. The same checks, in the
 * same order and with the same refusals, as @hms/store's records.ts and load.ts.
 */
import {
  DEFAULT_PAGE,
  decodeCursor,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  encodeCursor,
  isMemoryFile,
  type ListPage,
  MAX_PAGE,
  type MemoryRecord,
  type PageOptions,
  type RememberInput,
  type RememberResult,
  StoreError,
  utf8Bytes,
} from "@hms/store";
import {
  checkExpected,
  checkInteger,
  checkKey,
  checkMemoryFile,
  checkMetadata,
  checkRememberInput,
  checkRememberOver,
  checkTags,
  checkText,
  checkTime,
  hashOf,
  notFound,
  now,
  pathConflict,
  selectionOf,
  versionConflict,
} from "@hms/store/internal";
import { type Client, head, nextVersions, type PgContext, whereOf } from "./context.js";
import { readText, storedText } from "./text.js";
import { treeConflict } from "./tree.js";

/** A memory as its statements read it: the metadata still JSON. */
interface Row {
  key: string;
  text: string;
  text_json: boolean;
  tags: string[];
  metadata: string;
  version: number;
  hash: string;
  bytes: number;
  created_at: string;
  updated_at: string;
}

const ROW_COLUMNS =
  "m.key, m.text, m.text_json, m.tags, m.metadata, m.version, m.hash, m.bytes, m.created_at, m.updated_at";

function toRecord({ text_json, ...row }: Row): MemoryRecord {
  return {
    ...row,
    text: readText(row.text, text_json),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

const INSERT = `
  INSERT INTO hms_memories
    (ns, key, text, text_json, index_text, tags, metadata, version, hash, bytes, created_at,
     updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

/** `remember`: one write, in its own transaction. */
export async function remember(ctx: PgContext, input: RememberInput): Promise<RememberResult> {
  const write = prepareRemember(ctx, input);
  return await ctx.write((client, ns) => write(client, ns));
}

/** `rememberMany`: all the writes in one transaction, or none. */
export async function rememberMany(
  ctx: PgContext,
  inputs: readonly RememberInput[],
): Promise<RememberResult[]> {
  const writes = inputs.map((input) => prepareRemember(ctx, input));
  return await ctx.write(async (client, ns) => {
    const results: RememberResult[] = [];
    for (const write of writes) results.push(await write(client, ns));
    return results;
  });
}

type Write = (client: Client, ns: number) => Promise<RememberResult>;

/** One write inside a transaction already open (a restore's). */
export async function rememberIn(
  ctx: PgContext,
  client: Client,
  ns: number,
  input: RememberInput,
): Promise<RememberResult> {
  return await prepareRemember(ctx, input)(client, ns);
}

/** Validates a write and returns the function that applies it inside a transaction. */
function prepareRemember(ctx: PgContext, input: RememberInput): Write {
  const write = checkRememberInput(input, ctx.limits);
  const { key, text, bytes, metadata, hash } = write;
  return async (client, ns) => {
    const found = await head(client, ns, key);
    const at = now();
    const finalTags = checkRememberOver(
      write,
      found && { version: found.version, tags: () => found.tags },
    );
    if (found === undefined) {
      if (isMemoryFile(key, finalTags)) {
        const conflict = await treeConflict(client, ns, key);
        if (conflict !== undefined) throw pathConflict(`cannot create ${key}`, conflict);
      }
      const version = await nextVersions(client, ns, 1);
      await client.query(INSERT, [
        ns,
        key,
        ...storedText(text),
        finalTags,
        metadata ?? "{}",
        version,
        hash,
        bytes,
        at,
        at,
      ]);
      return { key, version, bytes, hash, created: true, updated_at: at };
    }
    const version = await nextVersions(client, ns, 1);
    await client.query(
      `UPDATE hms_memories SET text = $2, text_json = $3, index_text = $4, tags = $5,
         metadata = $6, version = $7, hash = $8, bytes = $9, updated_at = $10
       WHERE id = $1`,
      [
        found.id,
        ...storedText(text),
        finalTags,
        metadata ?? found.metadata,
        version,
        hash,
        bytes,
        at,
      ],
    );
    return { key, version, bytes, hash, created: false, updated_at: at };
  };
}

/** `get`: the memory at `key`, or `undefined`. */
export async function get(ctx: PgContext, key: string): Promise<MemoryRecord | undefined> {
  const checked = checkKey(key, ctx.limits);
  return await ctx.read(undefined, async (client, ns) => {
    const { rows } = await client.query<Row>(
      `SELECT ${ROW_COLUMNS} FROM hms_memories m WHERE m.ns = $1 AND m.key = $2`,
      [ns, checked],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  });
}

/** The SQL, parameters and checked limit of one page of a listing or an export. */
function pageQuery(ctx: PgContext, columns: string, options: PageOptions) {
  const { prefix, tag } = selectionOf(ctx as never, options);
  const limit = checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  return (ns: number) => {
    const params: unknown[] = [ns];
    const where = whereOf(params, { prefix, tag, after });
    params.push(limit + 1);
    const sql = `SELECT ${columns} FROM hms_memories m WHERE ${where} ORDER BY m.key LIMIT $${params.length}`;
    return { sql, params, limit };
  };
}

/** `list`: a page of keys with sizes, versions and tags. */
export async function list(ctx: PgContext, options: PageOptions): Promise<ListPage> {
  const page = pageQuery(ctx, "m.key, m.bytes, m.version, m.tags, m.updated_at", options);
  return await ctx.read({ items: [], next_cursor: null }, async (client, ns) => {
    const { sql, params, limit } = page(ns);
    const { rows } = await client.query<ListPage["items"][number]>(sql, params);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const last = rows[rows.length - 1];
    return { items: rows, next_cursor: more && last ? encodeCursor(last.key) : null };
  });
}

/** `export`: a page of whole records, bounded in count and bytes. */
export async function exportPage(ctx: PgContext, options: PageOptions): Promise<ExportPage> {
  const page = pageQuery(ctx, ROW_COLUMNS, options);
  return await ctx.read({ memories: [], next_cursor: null }, async (client, ns) => {
    const { sql, params, limit } = page(ns);
    const { rows } = await client.query<Row>(sql, params);
    const memories: MemoryRecord[] = [];
    let bytes = 0;
    let more = false;
    for (const row of rows) {
      // In UTF-8 bytes, as the budget is.
      const size = row.bytes + utf8Bytes(row.metadata);
      if (memories.length === limit || (memories.length > 0 && bytes + size > EXPORT_PAGE_BYTES)) {
        more = true;
        break;
      }
      memories.push(toRecord(row));
      bytes += size;
    }
    const last = memories[memories.length - 1];
    return { memories, next_cursor: more && last ? encodeCursor(last.key) : null };
  });
}

/** `forget`: deletes one memory, with an optional expected version. */
export async function forget(
  ctx: PgContext,
  key: string,
  options: { expectedVersion?: number | undefined },
): Promise<{ deleted: number }> {
  const checked = checkKey(key, ctx.limits);
  const expected = checkExpected(options.expectedVersion);
  if ((await ctx.id()) === undefined) throw notFound(checked);
  return await ctx.write((client, ns) => forgetIn(client, ns, checked, expected));
}

/** Deletes one memory inside a write transaction. */
export async function forgetIn(
  client: Client,
  ns: number,
  key: string,
  expected: number | undefined,
): Promise<{ deleted: number }> {
  const found = await head(client, ns, key);
  if (found === undefined) throw notFound(key);
  if (expected !== undefined && found.version !== expected) {
    throw versionConflict(key, found.version, expected);
  }
  await client.query("DELETE FROM hms_memories WHERE id = $1", [found.id]);
  return { deleted: 1 };
}

/**
 * `load`: every record checked first (a write's rules, plus its version and times), then all
 * inserted in one transaction, and the namespace's clock moved past the largest version.
 */
export async function load(
  ctx: PgContext,
  records: readonly MemoryRecord[],
): Promise<{ loaded: number }> {
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
      tags,
      metadata: checkMetadata(record.metadata, ctx.limits),
      version: checkInteger(record.version, "version", 1, Number.MAX_SAFE_INTEGER),
      bytes,
      created_at: checkTime(record.created_at, "created_at"),
      updated_at: checkTime(record.updated_at, "updated_at"),
    };
  });
  return await ctx.write(async (client, ns) => {
    let largest = 0;
    for (const row of rows) {
      const found = await head(client, ns, row.key);
      if (found !== undefined) {
        throw new StoreError(
          "EXISTS",
          `${row.key} already exists (at version ${found.version}); load copies into keys that are free`,
          { key: row.key, current_version: found.version },
        );
      }
      if (isMemoryFile(row.key, row.tags)) {
        const conflict = await treeConflict(client, ns, row.key);
        if (conflict !== undefined) throw pathConflict(`cannot load ${row.key}`, conflict);
      }
      await client.query(INSERT, [
        ns,
        row.key,
        ...storedText(row.text),
        row.tags,
        row.metadata,
        row.version,
        hashOf(row.text),
        row.bytes,
        row.created_at,
        row.updated_at,
      ]);
      largest = Math.max(largest, row.version);
    }
    await client.query("UPDATE hms_namespaces SET clock = greatest(clock, $2) WHERE id = $1", [
      ns,
      largest,
    ]);
    return { loaded: rows.length };
  });
}
