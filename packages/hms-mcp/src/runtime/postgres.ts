/**
 * hms-mcp on PostgreSQL (`--database-url`): opening the engine at start (migrations under the
 * engine's advisory lock, or a check that they ran), readiness for `/readyz`, and `hms-mcp
 * migrate`. Loaded by a dynamic import only when a database URL is given, so a SQLite server
 * never loads node-postgres.
 */
import { EmbeddingModelMismatchError, type EmbeddingOptions, isStoreError } from "@hms/store";
import {
  announce,
  ChangeChannel,
  PgEngine,
  type PgUpgradeEvent,
  migrate as runMigrations,
} from "@hms/store-postgres";
import type { Logger } from "pino";
import { ConfigError, type DatabaseConfig } from "../config/config.js";
import { redactUrl, withoutPassword } from "../config/database-url.js";
import type { Announcements } from "../notify/hub.js";
import type { Readiness } from "./readiness.js";

/** Logs a migration's steps (the server answers nothing while they run). */
function migrationLogger(log: Logger): (event: PgUpgradeEvent) => void {
  return (event) => {
    if (event.type === "start") {
      const { fromVersion, toVersion } = event;
      log.info(
        { fromVersion, toVersion },
        `database schema: migrating from ${fromVersion} to ${toVersion}`,
      );
    } else if (event.type === "step") {
      // Not the step's SQL: a page of it per line says nothing an operator needs.
      const { version, description } = event;
      log.info({ version }, `database schema: ${version}. ${description}`);
    } else {
      const { toVersion, ms } = event;
      log.info({ toVersion, ms }, `database schema: at ${toVersion}, migrated in ${ms} ms`);
    }
  };
}

/** Why the database at `url` cannot be used, in one line without its password. */
export function databaseMessage(url: string, error: unknown): string {
  // The engine's UNAVAILABLE says what a caller should do about a call; here the reason is all.
  const reason = isStoreError(error, "UNAVAILABLE") ? error.details.reason : undefined;
  const message = reason ?? (error as { message?: unknown })?.message ?? error;
  const text = String(message).split("\n")[0];
  return `cannot use the PostgreSQL database ${redactUrl(url)} (${withoutPassword(text ?? "", url)})`;
}

/** Why a schema at `current` does not serve code that needs `required`, and what to do. */
function schemaMessage(current: number, required: number): string {
  return current > required
    ? `the database's schema is at version ${current}, newer than this hms-mcp's ${required}: upgrade hms-mcp`
    : `the database's schema is at version ${current} and this hms-mcp needs ${required}: run ` +
        "`hms-mcp migrate --database-url URL` (or start without --no-migrate)";
}

/**
 * Opens the engine of `database` and the default namespace (created as on SQLite, so a server
 * that cannot create it fails at start; with --no-create only if it exists). Throws ConfigError, one line naming no password, when
 * the database cannot be reached or used, or its schema is not current under --no-migrate.
 */
export async function openPostgres(
  database: DatabaseConfig,
  options: {
    maxTextBytes: number;
    maxNamespaces: number | undefined;
    /** The byte budget of each namespace's history (--keep-mib). */
    historyBytes: number;
    namespace: string;
    /** False (--no-create): open the default namespace only if it exists. */
    create: boolean;
    /** Hybrid recall's model (--model-dir), checked against the default namespace's. */
    embeddings?: EmbeddingOptions | undefined;
  },
  log: Logger,
): Promise<PgEngine> {
  let engine: PgEngine;
  try {
    engine = await PgEngine.open({
      url: database.url,
      poolSize: database.poolSize,
      maxTextBytes: options.maxTextBytes,
      maxNamespaces: options.maxNamespaces,
      historyBytes: options.historyBytes,
      migrate: database.migrate,
      onUpgrade: migrationLogger(log),
      embeddings: options.embeddings,
    });
  } catch (error) {
    throw new ConfigError(`${databaseMessage(database.url, error)}; check --database-url`);
  }
  try {
    const { current, required } = await engine.schemaStatus();
    if (current !== required) throw new ConfigError(schemaMessage(current, required));
    if (options.create || (await engine.names()).includes(options.namespace)) {
      await engine.get(options.namespace);
    }
    return engine;
  } catch (error) {
    await engine.close().catch(() => {});
    if (error instanceof ConfigError) throw error;
    // The runtime says what to do about another model's vectors, as on SQLite.
    if (error instanceof EmbeddingModelMismatchError) throw error;
    if (isStoreError(error, "LIMIT_REACHED")) throw new ConfigError(error.message);
    throw new ConfigError(`${databaseMessage(database.url, error)}; check --database-url`);
  }
}

/** `/readyz` on PostgreSQL: a round trip, and the schema this code needs. */
export async function postgresReadiness(engine: PgEngine): Promise<Readiness> {
  try {
    await engine.ping();
    const { current, required } = await engine.schemaStatus();
    if (current !== required) return { ready: false, reason: schemaMessage(current, required) };
    return { ready: true };
  } catch {
    // The engine's message may quote the server; a load balancer needs only the fact.
    return { ready: false, reason: "the database is unreachable" };
  }
}

/** `hms-mcp migrate`: brings the schema of `url` up to date. Throws ConfigError when it cannot. */
export async function migrateDatabase(
  url: string,
  log: Logger,
): Promise<{ fromVersion: number; toVersion: number }> {
  try {
    return await runMigrations(url, { onUpgrade: migrationLogger(log) });
  } catch (error) {
    throw new ConfigError(databaseMessage(url, error));
  }
}

/**
 * The engine of `hms-mcp copy` at `url`: a destination is migrated, a source must already be
 * at this code's schema (a copy only reads it). Throws ConfigError naming no password.
 */
export async function openCopyEngine(
  url: string,
  options: { maxTextBytes: number; migrate: boolean },
): Promise<PgEngine> {
  let engine: PgEngine;
  try {
    engine = await PgEngine.open({
      url,
      maxTextBytes: options.maxTextBytes,
      migrate: options.migrate,
    });
  } catch (error) {
    throw new ConfigError(databaseMessage(url, error));
  }
  try {
    const { current, required } = await engine.schemaStatus();
    if (current !== required) throw new ConfigError(schemaMessage(current, required));
    return engine;
  } catch (error) {
    await engine.close().catch(() => {});
    throw error instanceof ConfigError ? error : new ConfigError(databaseMessage(url, error));
  }
}

/**
 * How the replicas of `engine`'s database tell each other of changes: NOTIFY on the pool,
 * LISTEN on a connection of its own to `url`.
 */
export function postgresAnnouncements(engine: PgEngine, url: string): Announcements {
  return {
    announce: (namespace) => announce(engine.pool, namespace),
    listen: (onChange, onError) => ChangeChannel.open(url, onChange, onError),
  };
}
