/**
 * Bringing an existing store file up to date at open, and telling `StoreOptions.onUpgrade`
 * about it: the one-time compaction to incremental auto-vacuum (growth.ts) and the schema
 * migrations (schema.ts). On a big store these take long (a full VACUUM, a rebuilt full-text
 * index), and the process answers nothing meanwhile, so whoever opens the store can say so.
 * A new file (schema 0: created, not upgraded) and a current one report nothing.
 */
import { StoreError } from "../errors.js";
import type { StoreOptions, UpgradeEvent } from "../types.js";
import type { SqliteDatabase as Database } from "./driver.js";
import { COMPACTION_TASK, compact, needsCompaction } from "./growth.js";
import {
  MIGRATIONS,
  type MigrationReport,
  memoryCount,
  migrate,
  SCHEMA_VERSION,
  SILENT,
  schemaVersion,
} from "./schema.js";

/** What every event says of the store, the rest of it per type. */
type Body<E> = E extends UpgradeEvent ? Omit<E, "file" | "namespace"> : never;

/** Compacts and migrates `db` (the file `file`), reporting to `options.onUpgrade`. */
export function upgrade(db: Database, file: string, options: StoreOptions): void {
  const onUpgrade = options.onUpgrade;
  if (onUpgrade !== undefined && typeof onUpgrade !== "function") {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `onUpgrade must be a function (it is told what an upgrade of the store does), got ${typeof onUpgrade}`,
    );
  }
  const fromVersion = schemaVersion(db);
  // Schema 0: a file being created (WAL mode has already written its first page). A newer
  // schema is refused by migrate, with the reason.
  const existing = fromVersion > 0 && fromVersion <= SCHEMA_VERSION;
  const compaction = existing && needsCompaction(db);
  const migrations = existing ? MIGRATIONS.filter((m) => m.version > fromVersion) : [];
  if (onUpgrade === undefined || (!compaction && migrations.length === 0)) {
    compact(db);
    migrate(db);
    return;
  }
  const emit = (event: Body<UpgradeEvent>): void =>
    onUpgrade({ ...event, file, namespace: options.namespace } as UpgradeEvent);
  const work = [
    ...(compaction ? ["compact the file"] : []),
    ...migrations.flatMap((migration) => (migration.slow === undefined ? [] : [migration.slow])),
  ];
  const started = performance.now();
  emit({
    type: "start",
    fromVersion,
    toVersion: SCHEMA_VERSION,
    memories: memoryCount(db),
    work,
  });
  if (compaction) emit({ type: "step", task: COMPACTION_TASK });
  compact(db);
  const report: MigrationReport = {
    step: (task) => emit({ type: "step", task }),
    progress: (task, done, total) => emit({ type: "progress", task, done, total }),
  };
  migrate(db, SCHEMA_VERSION, migrations.length > 0 ? report : SILENT);
  emit({
    type: "end",
    fromVersion,
    toVersion: SCHEMA_VERSION,
    ms: Math.round(performance.now() - started),
  });
}
