/**
 * The history of memory files: what is recorded (every create, edit, move and delete, newest
 * first, with who made it), reading a version or the state at a time, restoring a file (by
 * version or time, with compare-and-set) or a directory, and pruning.
 */
import assert from "node:assert/strict";
import type { StoreApi } from "../engine.js";
import {
  FILE,
  freshTest,
  refusal,
  refused,
  type StoreConformanceOptions,
  type TestApi,
  tick,
} from "./support.js";

/** A file's history as [op, key, from_key], newest first. */
async function ops(store: StoreApi, key: string): Promise<unknown[][]> {
  const page = await store.history.ofFile(key);
  return page.entries.map((entry) => [entry.op, entry.key, entry.from_key]);
}

export function historyTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("history: what is recorded", () => {
    test("every create, edit, move and delete of a memory file, newest first", async ({
      store,
    }) => {
      const created = await store.remember({ key: "/memories/a.md", text: "one", tags: FILE });
      const edited = await store.remember({ key: "/memories/a.md", text: "two" });
      await store.move("/memories/a.md", "/memories/b.md");
      const moved = (await store.get("/memories/b.md"))?.version;
      await store.forget("/memories/b.md");
      assert.deepEqual(await ops(store, "/memories/b.md"), [
        ["delete", "/memories/b.md", null],
        ["move", "/memories/b.md", "/memories/a.md"],
      ]);
      // The source's history shows the move away, then its own life before it.
      assert.deepEqual(await ops(store, "/memories/a.md"), [
        ["move", "/memories/b.md", "/memories/a.md"],
        ["update", "/memories/a.md", null],
        ["create", "/memories/a.md", null],
      ]);
      const [deleted, move] = (await store.history.ofFile("/memories/b.md")).entries;
      assert.deepEqual([deleted?.version, move?.version], [moved, moved]);
      const one = await store.history.version("/memories/a.md", created.version);
      assert.deepEqual(
        [one?.text, one?.tags, one?.op, one?.hash, one?.bytes],
        ["one", FILE, "create", created.hash, 3],
      );
      assert.equal((await store.history.version("/memories/a.md", edited.version))?.text, "two");
      assert.equal(await store.history.version("/memories/a.md", 999_999), undefined);
    });

    test("tree deletes and moves file by file, and nothing for keys outside /memories", async ({
      store,
    }) => {
      await store.remember({ key: "/memories/d/x.md", text: "x", tags: FILE });
      await store.remember({ key: "/memories/d/y.md", text: "y", tags: FILE });
      await store.remember({ key: "notes:1", text: "not a memory file" });
      await store.moveTree("/memories/d", "/memories/e");
      await store.forgetTree("/memories/e");
      const page = await store.history.under("/memories/");
      assert.deepEqual(
        page.entries.map((entry) => `${entry.op} ${entry.key}`),
        [
          "delete /memories/e/y.md",
          "delete /memories/e/x.md",
          "move /memories/e/y.md",
          "move /memories/e/x.md",
          "create /memories/d/y.md",
          "create /memories/d/x.md",
        ],
      );
      assert.deepEqual((await store.history.ofFile("notes:1")).entries, []);
      const later = await store.history.under("/memories/", { since: "2999-01-01T00:00:00Z" });
      assert.deepEqual(later.entries, []);
      const since = await tick();
      await store.remember({ key: "/memories/d/z.md", text: "z", tags: FILE });
      const recent = await store.history.under("/memories/d/", { since });
      assert.deepEqual(
        recent.entries.map((entry) => `${entry.op} ${entry.key}`),
        ["create /memories/d/z.md"],
      );
    });

    test("who and what made a change, when the caller says so (history.attributed)", async ({
      store,
    }) => {
      await store.history.attributed({ actor: "support-bot", command: "str_replace" }, () =>
        store.remember({ key: "/memories/a.md", text: "x", tags: FILE }),
      );
      await store.remember({ key: "/memories/a.md", text: "y" });
      const [plain, attributed] = (await store.history.ofFile("/memories/a.md")).entries;
      assert.deepEqual([attributed?.actor, attributed?.command], ["support-bot", "str_replace"]);
      assert.deepEqual([plain?.actor, plain?.command], [null, null]);
    });

    test("a nested attribution keeps what it does not set", async ({ store }) => {
      await store.history.attributed({ actor: "alice" }, () =>
        store.history.attributed({ command: "create" }, () =>
          store.remember({ key: "/memories/a.md", text: "x", tags: FILE }),
        ),
      );
      const [entry] = (await store.history.ofFile("/memories/a.md")).entries;
      assert.deepEqual([entry?.actor, entry?.command], ["alice", "create"]);
    });

    test("nothing of a write that failed", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "x", tags: FILE });
      await refusal(() =>
        store.remember({ key: "/memories/a.md", text: "y", expectedVersion: 999_999 }),
      );
      await refusal(() =>
        store.rememberMany([
          { key: "/memories/b.md", text: "b" },
          { key: "/memories/a.md", text: "z", ifAbsent: true },
        ]),
      );
      assert.equal((await ops(store, "/memories/a.md")).length, 1);
      assert.deepEqual(await ops(store, "/memories/b.md"), []);
    });

    test("pages through a long history, newest first", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
      for (let i = 1; i < 25; i++) await store.remember({ key: "/memories/a.md", text: `${i}` });
      const seqs: number[] = [];
      let before: number | undefined;
      let pages = 0;
      do {
        const page = await store.history.ofFile("/memories/a.md", {
          limit: 10,
          ...(before === undefined ? {} : { before }),
        });
        seqs.push(...page.entries.map((entry) => entry.seq));
        before = page.next_before ?? undefined;
        pages++;
      } while (before !== undefined);
      assert.equal(pages, 3);
      assert.equal(seqs.length, 25);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => b - a),
      );
      assert.equal(new Set(seqs).size, 25);
    });
  });

  t.describe("history: restore", () => {
    test("brings a version back as a new version, with compare-and-set", async ({ store }) => {
      const first = await store.remember({ key: "/memories/a.md", text: "good", tags: FILE });
      const second = await store.remember({ key: "/memories/a.md", text: "bad" });
      assert.deepEqual(
        await refused(() =>
          store.history.restoreFile(
            "/memories/a.md",
            { version: first.version },
            { expectedVersion: first.version },
          ),
        ),
        {
          code: "VERSION_CONFLICT",
          message: `/memories/a.md is at version ${second.version}, not the expected version ${first.version}`,
          key: "/memories/a.md",
          current_version: second.version,
          expected_version: first.version,
        },
      );
      assert.equal((await store.get("/memories/a.md"))?.text, "bad");
      const restored = await store.history.restoreFile(
        "/memories/a.md",
        { version: first.version },
        { expectedVersion: second.version, actor: "alice" },
      );
      assert.equal(restored.key, "/memories/a.md");
      assert.equal(restored.deleted, false);
      assert.ok((restored.version ?? 0) > second.version, "a restore is a new version");
      const now = await store.get("/memories/a.md");
      assert.deepEqual([now?.text, now?.tags, now?.version], ["good", FILE, restored.version]);
      const [entry] = (await store.history.ofFile("/memories/a.md")).entries;
      assert.deepEqual([entry?.op, entry?.command, entry?.actor], ["update", "restore", "alice"]);
    });

    test("brings a deleted file back, and refuses a version the history lacks", async ({
      store,
    }) => {
      const made = await store.remember({ key: "/memories/a.md", text: "keep me", tags: FILE });
      await store.forget("/memories/a.md");
      await store.history.restoreFile("/memories/a.md", { version: made.version });
      assert.equal((await store.get("/memories/a.md"))?.text, "keep me");
      assert.deepEqual(
        await refused(() => store.history.restoreFile("/memories/a.md", { version: 999_999 })),
        {
          code: "NOT_FOUND",
          message:
            "the history of /memories/a.md has no version 999999 (see its history for the versions kept)",
          key: "/memories/a.md",
          version: 999_999,
        },
      );
    });

    test("knows a file's state at a time, and brings it back to it", async ({ store }) => {
      const beforeAll = await tick();
      await store.remember({ key: "/memories/a.md", text: "v1", tags: FILE });
      const afterFirst = await tick();
      await store.remember({ key: "/memories/a.md", text: "v2" });
      const then = await store.history.stateAt("/memories/a.md", afterFirst);
      assert.equal(then !== null && then !== "unknown" ? then.text : then, "v1");
      assert.equal(await store.history.stateAt("/memories/a.md", beforeAll), null);

      // By time with compare-and-set: refused at a stale version, done at the current one.
      const current = (await store.get("/memories/a.md"))?.version ?? 0;
      assert.deepEqual(
        await refused(() =>
          store.history.restoreFile(
            "/memories/a.md",
            { at: afterFirst },
            { expectedVersion: current - 1 },
          ),
        ),
        {
          code: "VERSION_CONFLICT",
          message: `/memories/a.md is at version ${current}, not the expected version ${current - 1}`,
          key: "/memories/a.md",
          current_version: current,
          expected_version: current - 1,
        },
      );
      assert.equal((await store.get("/memories/a.md"))?.text, "v2");
      const back = await store.history.restoreFile(
        "/memories/a.md",
        { at: afterFirst },
        { expectedVersion: current },
      );
      assert.ok((back.version ?? 0) > current, "a restore by time is a new version");
      assert.equal((await store.get("/memories/a.md"))?.text, "v1");
      // It did not exist then: a restore to that time deletes it.
      const gone = await store.history.restoreFile("/memories/a.md", { at: beforeAll });
      assert.deepEqual(gone, { key: "/memories/a.md", version: null, deleted: true });
      assert.equal(await store.get("/memories/a.md"), undefined);
    });

    test("brings a directory back to a moment in one call", async ({ store }) => {
      await store.remember({ key: "/memories/d/keep.md", text: "original", tags: FILE });
      await store.remember({ key: "/memories/d/gone.md", text: "deleted later", tags: FILE });
      const moment = await tick();
      await store.remember({ key: "/memories/d/keep.md", text: "vandalized" });
      await store.forget("/memories/d/gone.md");
      await store.remember({ key: "/memories/d/new.md", text: "made later", tags: FILE });

      const result = await store.history.restoreTree("/memories/d", moment);
      assert.deepEqual(
        result.restored.map((file) => file.key),
        ["/memories/d/gone.md", "/memories/d/keep.md"],
      );
      for (const file of result.restored) {
        assert.equal((await store.get(file.key))?.version, file.version);
      }
      assert.deepEqual([result.deleted, result.unknown], [["/memories/d/new.md"], []]);
      assert.equal((await store.get("/memories/d/keep.md"))?.text, "original");
      assert.equal((await store.get("/memories/d/gone.md"))?.text, "deleted later");
      assert.equal(await store.get("/memories/d/new.md"), undefined);
    });

    test("leaves files unchanged since the time alone: no new version, no history", async ({
      store,
    }) => {
      const same = await store.remember({
        key: "/memories/d/same.md",
        text: "as it was",
        tags: FILE,
      });
      await store.remember({ key: "/memories/d/edited.md", text: "before", tags: FILE });
      const moment = await tick();
      await store.remember({ key: "/memories/d/edited.md", text: "after" });

      const tree = await store.history.restoreTree("/memories/d", moment);
      assert.deepEqual(
        [tree.restored.map((file) => file.key), tree.deleted, tree.unknown],
        [["/memories/d/edited.md"], [], []],
      );
      assert.equal((await store.get("/memories/d/same.md"))?.version, same.version);
      assert.deepEqual(await ops(store, "/memories/d/same.md"), [
        ["create", "/memories/d/same.md", null],
      ]);
      // Again: nothing changed since the first restore, so nothing is written.
      assert.deepEqual(await store.history.restoreTree("/memories/d", moment), {
        restored: [],
        deleted: [],
        unknown: [],
      });
      // A file by time or by its own version: the version it is at, and nothing written.
      const at = await store.history.restoreFile("/memories/d/same.md", { at: moment });
      const byVersion = await store.history.restoreFile(
        "/memories/d/same.md",
        { version: same.version },
        { expectedVersion: same.version },
      );
      for (const answer of [at, byVersion]) {
        assert.deepEqual(answer, {
          key: "/memories/d/same.md",
          version: same.version,
          deleted: false,
        });
      }
      assert.equal((await store.history.ofFile("/memories/d/same.md")).entries.length, 1);
    });

    test("says when the history does not reach back to a time", async ({ store }) => {
      const beforeAll = await tick();
      await store.remember({ key: "/memories/a.md", text: "v1", tags: FILE });
      await tick();
      assert.equal(await store.history.prune({ keepDays: 0 }), 1);
      // The file exists, and no row tells what it was before: unknown, not "did not exist".
      assert.equal(await store.history.stateAt("/memories/a.md", beforeAll), "unknown");
      assert.deepEqual(
        await refused(() => store.history.restoreFile("/memories/a.md", { at: beforeAll })),
        {
          code: "NOT_FOUND",
          message: `the history of /memories/a.md does not reach back to ${beforeAll}`,
          key: "/memories/a.md",
          at: beforeAll,
        },
      );
      const tree = await store.history.restoreTree("/memories", beforeAll);
      assert.deepEqual(tree, { restored: [], deleted: [], unknown: ["/memories/a.md"] });
      assert.equal((await store.get("/memories/a.md"))?.text, "v1");
    });

    test("refuses a time that is not a time", async ({ store }) => {
      const error = await refusal(() =>
        store.history.restoreFile("/memories/a.md", { at: "yesterday" }),
      );
      assert.deepEqual(
        [error.code, error.message],
        [
          "INVALID_ARGUMENT",
          'at must be an ISO 8601 time such as 2026-12-01T09:30:00Z, got "yesterday"',
        ],
      );
      assert.equal(
        (await refusal(() => store.history.stateAt("/memories/a.md", "soon"))).code,
        "INVALID_ARGUMENT",
      );
    });
  });

  t.describe("history: retention", () => {
    test("keeps the newest N versions of each file, in bounded steps", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
      await store.remember({ key: "/memories/b.md", text: "0", tags: FILE });
      for (let i = 1; i < 10; i++) await store.remember({ key: "/memories/a.md", text: `${i}` });
      assert.equal(await store.history.prune({ keepVersions: 3, limit: 4 }), 4);
      assert.equal(await store.history.prune({ keepVersions: 3, limit: 4 }), 3);
      assert.equal(await store.history.prune({ keepVersions: 3, limit: 4 }), 0);
      assert.equal((await ops(store, "/memories/a.md")).length, 3);
      assert.equal((await ops(store, "/memories/b.md")).length, 1);
      const [newest] = (await store.history.ofFile("/memories/a.md")).entries;
      assert.equal(newest?.version, (await store.get("/memories/a.md"))?.version);
    });

    test("drops rows older than the days kept", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
      await tick();
      assert.equal(await store.history.prune({ keepDays: 1 }), 0);
      assert.equal(await store.history.prune({ keepDays: 0 }), 1);
      assert.deepEqual(await ops(store, "/memories/a.md"), []);
      assert.equal((await store.get("/memories/a.md"))?.text, "0");
    });
  });
}
