/**
 * The store's conformance suite (src/conformance/) on the SQLite engine, in temp directories:
 * as it is (answering at once), and behind a wrapper that answers every call with a promise,
 * as the PostgreSQL engine does. Then the suite itself: it fails engines that break the
 * contract.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runStoreConformance, type StoreConformanceOptions } from "./conformance/index.js";
import type { StoreApi, StoreEngine } from "./engine.js";
import { StoreError } from "./errors.js";
import type { Attribution } from "./history.js";
import { Namespaces } from "./namespaces.js";

const MAX_NAMESPACES = 3;
const dirs = new Map<StoreEngine, string>();

/** Options that open each test's engine in a new temp directory, and remove it after. */
function sqlite(
  name: string,
  wrap: (engine: Namespaces) => StoreEngine = (engine) => engine,
  maxTextBytes?: number,
): StoreConformanceOptions {
  return {
    name,
    open: async (engineOptions) => {
      const dir = mkdtempSync(join(tmpdir(), "hms-conformance-"));
      const engine = wrap(
        new Namespaces({
          dataDir: dir,
          maxNamespaces: MAX_NAMESPACES,
          maxTextBytes,
          historyBytes: engineOptions?.historyBytes,
        }),
      );
      dirs.set(engine, dir);
      return engine;
    },
    close: async (engine) => {
      await engine.close();
      rmSync(dirs.get(engine) ?? "", { recursive: true, force: true });
      dirs.delete(engine);
    },
    maxNamespaces: MAX_NAMESPACES,
    maxTextBytes,
  };
}

/** `target` with every method answering with a promise, except those named in `keep`. */
function later<T extends object>(target: T, keep: readonly string[] = []): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      if (keep.includes(String(property))) return value.bind(object);
      // Runs the call at once (as a PostgreSQL engine starts its query), answers later.
      return async (...args: unknown[]) => value.apply(object, args);
    },
  });
}

/** The engine's stores answering every call with a promise, as PostgreSQL's do. */
function promising(
  engine: StoreEngine,
  change: (store: StoreApi) => Partial<StoreApi> = () => ({}),
): StoreEngine {
  const wrapStore = (store: StoreApi): StoreApi => {
    const wrapped = later(store);
    const changed = change(wrapped);
    return new Proxy(wrapped, {
      get(object, property) {
        if (Object.hasOwn(changed, property)) return changed[property as keyof StoreApi];
        if (property === "history") return later(store.history, ["attributed"]);
        if (property === "access") return later(store.access, ["noteRead"]);
        return Reflect.get(object, property, object);
      },
    });
  };
  return {
    kind: engine.kind,
    get: async (namespace) => wrapStore(await engine.get(namespace)),
    read: async (namespace) => wrapStore(await engine.read(namespace)),
    names: async () => engine.names(),
    summaries: async () => engine.summaries(),
    close: () => engine.close(),
  };
}

runStoreConformance(sqlite("sqlite"), { describe, it });
// With a text limit of its own, so the suite's limits follow the options.
runStoreConformance(
  sqlite("sqlite answering with promises, 4 KiB texts", (engine) => promising(engine), 4096),
  { describe, it },
);

describe("the conformance suite itself", () => {
  it("refuses limits it cannot test under", () => {
    const none = { describe: () => {}, it: () => {} };
    expect(() => runStoreConformance({ ...sqlite("small"), maxNamespaces: 2 }, none)).toThrow(
      "maxNamespaces must be an integer of at least 3 (the suite uses 3 namespaces), got 2",
    );
    expect(() => runStoreConformance({ ...sqlite("small"), maxTextBytes: 1000 }, none)).toThrow(
      "maxTextBytes must be an integer of at least 1024 (the suite stores texts of up to 1,024 bytes), got 1000",
    );
  });

  /** Runs the named tests of the suite on a broken engine, and answers those that failed. */
  async function failures(
    wrap: (engine: Namespaces) => StoreEngine,
    names: readonly string[],
  ): Promise<string[]> {
    const tests = new Map<string, () => Promise<void>>();
    runStoreConformance(sqlite("broken", wrap), {
      describe: (_name, body) => body(),
      it: (name, body) => void tests.set(name, body),
    });
    const failed: string[] = [];
    for (const name of names) {
      const body = tests.get(name);
      if (body === undefined) throw new Error(`the suite has no test named ${name}`);
      await body().catch(() => failed.push(name));
    }
    return failed;
  }

  it("fails an engine whose remember ignores the expected version", async () => {
    const names = [
      "expectedVersion writes at that version and refuses any other",
      "refuses a stale version after the key is deleted and created again",
    ];
    const broken = (engine: Namespaces) =>
      promising(engine, (store) => ({
        remember: (input) => store.remember({ ...input, expectedVersion: undefined }),
      }));
    expect(await failures(broken, names)).toEqual(names);
  });

  it("fails an engine whose compare-and-set reads and writes in two steps", async () => {
    const names = ["of writers at the same expected version, exactly one wins"];
    const broken = (engine: Namespaces) =>
      promising(engine, (store) => ({
        remember: async (input) => {
          // The race a pooled engine has without a transaction: check, yield, then write.
          const head = await store.get(input.key);
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (input.expectedVersion !== undefined && head?.version !== input.expectedVersion) {
            throw new StoreError("VERSION_CONFLICT", `${input.key} moved on`);
          }
          return store.remember({ ...input, expectedVersion: undefined });
        },
      }));
    expect(await failures(broken, names)).toEqual(names);
  });

  it("fails an engine whose moveTree checks the destination before the source", async () => {
    const names = ["1. NOT_FOUND when neither from nor anything under from/ exists"];
    const broken = (engine: Namespaces) =>
      promising(engine, (store) => ({
        moveTree: async (from, to) => {
          if ((await store.get(to)) !== undefined) {
            throw new StoreError("EXISTS", `cannot move ${from} to ${to}: ${to} exists`, {
              key: to,
            });
          }
          return store.moveTree(from, to);
        },
      }));
    expect(await failures(broken, names)).toEqual(names);
  });

  it("fails an engine whose read creates the namespace", async () => {
    const names = ["read of a namespace that does not exist answers empty and creates nothing"];
    const broken = (engine: Namespaces): StoreEngine => ({
      kind: engine.kind,
      get: async (namespace) => engine.get(namespace),
      read: async (namespace) => engine.get(namespace),
      names: async () => engine.names(),
      summaries: async () => engine.summaries(),
      close: () => engine.close(),
    });
    expect(await failures(broken, names)).toEqual(names);
  });

  it("fails an engine whose recall filters by time after taking the best k", async () => {
    const names = [
      "filters before taking the best k: the best matches outside the range give way",
      "finds k in the range when the query's matches are too many to score them all",
    ];
    const broken = (engine: Namespaces) =>
      promising(engine, (store) => ({
        recall: async (query, options = {}) => {
          const { modifiedAfter, modifiedBefore, ...rest } = options;
          const ranked = await store.recall(query, rest);
          const after = modifiedAfter === undefined ? "" : new Date(modifiedAfter).toISOString();
          const before =
            modifiedBefore === undefined ? "~" : new Date(modifiedBefore).toISOString();
          const hits = ranked.hits.filter(
            (hit) => hit.updated_at >= after && hit.updated_at < before,
          );
          return { ...ranked, hits };
        },
      }));
    expect(await failures(broken, names)).toEqual(names);
  });

  it("fails an engine whose recall ignores the prefix, and whose history drops the actor", async () => {
    const names = [
      "filters by tag and by prefix",
      "who and what made a change, when the caller says so (history.attributed)",
    ];
    const broken = (engine: Namespaces) =>
      promising(engine, (store) => ({
        recall: (query, options) => store.recall(query, { ...options, prefix: undefined }),
        history: new Proxy(later(store.history), {
          get: (history, property) =>
            property === "attributed"
              ? <T>(_who: Attribution, body: () => T): T => body()
              : Reflect.get(history, property),
        }),
      }));
    expect(await failures(broken, names)).toEqual(names);
  });
});
