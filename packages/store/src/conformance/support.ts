/**
 * What every topic of the conformance suite shares: the options an engine runs it with, the two
 * functions of a test framework it needs, a fresh store per test, and the helpers that read a
 * refusal. Only the engine-neutral interfaces (engine.ts) are used, and every call is awaited,
 * so an engine that answers with promises runs the same tests as one that answers at once.
 */
import assert from "node:assert/strict";
import type { StoreApi, StoreEngine } from "../engine.js";
import { isStoreError, type StoreError } from "../errors.js";
import type { MemoryRecord } from "../types.js";

/**
 * The two functions of a test framework the suite needs. vitest, jest, mocha and node:test all
 * provide them: `runStoreConformance(options, { describe, it })`. Assertions are node:assert's,
 * so the suite needs no framework of its own.
 */
export interface TestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
}

/** How {@link runStoreConformance} gets engines, and what it may assume of them. */
export interface StoreConformanceOptions {
  /** Shown in the suite's name, e.g. `"sqlite"`. */
  readonly name: string;
  /**
   * A fresh engine holding no namespace at all; called once per test. Tests of the history's
   * byte budget pass `historyBytes`, which the engine must apply to every namespace it opens
   * (`StoreOptions.historyBytes`; PostgreSQL's `PgEngineOptions.historyBytes`).
   */
  readonly open: (engineOptions?: EngineOptions) => Promise<StoreEngine>;
  /** Called after each test with the engine `open` gave (default: `engine.close()`). */
  readonly close?: ((engine: StoreEngine) => Promise<void>) | undefined;
  /** The largest text the engine's stores accept, in UTF-8 bytes (default 32768, at least 1024). */
  readonly maxTextBytes?: number | undefined;
  /**
   * The most namespaces the engines `open` gives may hold, when they are opened with a limit:
   * the suite then checks LIMIT_REACHED one past it. At least 3 (other tests use up to 3
   * namespaces).
   */
  readonly maxNamespaces?: number | undefined;
}

/** What a test asks of the engine `open` gives, beyond the engine's defaults. */
export interface EngineOptions {
  /** The history's byte budget (see `StoreOptions.historyBytes`). */
  readonly historyBytes?: number;
}

/** What a test body gets: its engine, and the store of one namespace, created by a write. */
export interface Fresh {
  readonly engine: StoreEngine;
  readonly store: StoreApi;
  readonly options: StoreConformanceOptions;
}

/** The namespace a test's `store` belongs to. */
export const NAMESPACE = "conformance";

/** The memory-file tag, spelled out (the suite checks the engine, not the constant). */
export const FILE = ["memory-file"];

/** Registers one test that runs `body` on a fresh engine, closed afterwards whatever happens. */
export function freshTest(
  t: TestApi,
  options: StoreConformanceOptions,
  name: string,
  body: (fresh: Fresh) => Promise<void>,
  engineOptions?: EngineOptions,
): void {
  t.it(name, async () => {
    const engine = await (engineOptions === undefined
      ? options.open()
      : options.open(engineOptions));
    try {
      const store = await engine.get(NAMESPACE);
      await body({ engine, store, options });
    } finally {
      await (options.close ?? ((opened) => Promise.resolve(opened.close())))(engine);
    }
  });
}

/**
 * Runs `action` and returns the StoreError it throws or rejects with, failing the test if it
 * succeeds or fails otherwise. Recognised by brand, so an engine's own copy of this package
 * counts.
 */
export async function refusal(action: () => unknown): Promise<StoreError> {
  let result: unknown;
  try {
    result = await action();
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
  assert.fail(`expected a StoreError, got the answer ${JSON.stringify(result)}`);
}

/** A refusal as hms-mcp puts it in `_meta`: its code, message and details side by side. */
export async function refused(action: () => unknown): Promise<Record<string, unknown>> {
  const error = await refusal(action);
  return { code: error.code, message: error.message, ...error.details };
}

/** Every record of the store, in key order. */
export async function everything(store: StoreApi): Promise<MemoryRecord[]> {
  const all: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.export({ limit: 1000, cursor });
    all.push(...page.memories);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

/** Every key of the store, in key order. */
export async function keys(store: StoreApi): Promise<string[]> {
  return (await everything(store)).map((memory) => memory.key);
}

/** Writes memory files (tagged `memory-file`), each with the text `text of <key>`. */
export async function files(store: StoreApi, ...paths: string[]): Promise<void> {
  for (const key of paths) await store.remember({ key, text: `text of ${key}`, tags: FILE });
}

/** Runs a refused `action` and checks it changed nothing; returns the refusal as `refused`. */
export async function unchanged(
  store: StoreApi,
  action: () => unknown,
): Promise<Record<string, unknown>> {
  const before = await everything(store);
  const result = await refused(action);
  assert.deepEqual(await everything(store), before, "a refused call changed the store");
  return result;
}

/** Waits until the clock has moved on, so that two changes have different times. */
export async function tick(): Promise<string> {
  const before = new Date().toISOString();
  // Generous: times have millisecond resolution, and an engine's clock may be a server's.
  await new Promise((resolve) => setTimeout(resolve, 25));
  return before;
}

/** A record as last written at `at`, for `load` (which keeps its times). */
export function writtenAt(key: string, at: string, tags: string[] = FILE): MemoryRecord {
  return {
    key,
    text: `text of ${key}`,
    tags,
    metadata: {},
    version: 1,
    hash: "",
    bytes: 0,
    created_at: at,
    updated_at: at,
  };
}
