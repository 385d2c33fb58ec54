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

/** A text of about `bytes` bytes in lines, the same for the same `seed`. */
function linesOf(seed: number, bytes: number): string {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    const line = `${seed}.${n}: ${"abcdefghij".repeat(3).slice(n % 10, 20 + (n % 10))}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Creates `key` (about `bytes` bytes) and deletes it, `count` times with new keys; returns the keys. */
async function churn(store: StoreApi, prefix: string, count: number, bytes: number) {
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = `${prefix}${i}.md`;
    await store.remember({ key, text: linesOf(i, bytes), tags: FILE });
    await store.forget(key);
    made.push(key);
  }
  return made;
}

/** The version a file's newest change deleted, or undefined when its history holds none. */
async function deletedVersion(store: StoreApi, key: string): Promise<number | undefined> {
  const [newest] = (await store.history.ofFile(key)).entries;
  return newest?.op === "delete" ? newest.version : undefined;
}

export function historyTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);
  const budgeted = (name: string, historyBytes: number, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body, { historyBytes });

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

    test("records a restore as the command the client named (the inspector's, hms's)", async ({
      store,
    }) => {
      const first = await store.remember({ key: "/memories/a.md", text: "good", tags: FILE });
      await store.remember({ key: "/memories/a.md", text: "bad", tags: FILE });
      await store.remember({ key: "/memories/d/b.md", text: "b", tags: FILE });
      // The time to restore to: after b, before its edit (times are to the millisecond).
      const settled = new Date().toISOString();
      let before = settled;
      while (before === settled) before = new Date().toISOString();
      while (new Date().toISOString() === before);
      await store.remember({ key: "/memories/d/b.md", text: "b2", tags: FILE });
      await store.history.attributed({ command: "inspector_restore" }, () =>
        store.history.restoreFile("/memories/a.md", { version: first.version }, { actor: "bob" }),
      );
      await store.history.attributed({ command: "hms_restore" }, () =>
        store.history.restoreTree("/memories/d", before),
      );
      const [file] = (await store.history.ofFile("/memories/a.md")).entries;
      assert.deepEqual([file?.command, file?.actor], ["inspector_restore", "bob"]);
      const [tree] = (await store.history.ofFile("/memories/d/b.md")).entries;
      assert.deepEqual(
        [tree?.command, (await store.get("/memories/d/b.md"))?.text],
        ["hms_restore", "b"],
      );
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

  t.describe("history: every version stays readable", () => {
    test("through edits of one line, whole rewrites, moves, deletes and restores", async ({
      store,
    }) => {
      const lines = Array.from({ length: 60 }, (_, n) => `line ${n}: naïve café 😀 ${n}`);
      const texts = new Map<number, string>();
      const write = async (key: string, text: string, first = false) => {
        const done = await store.remember({ key, text, ...(first ? { tags: FILE } : {}) });
        texts.set(done.version, text);
      };
      await write("/memories/a.md", lines.join("\n"), true);
      // More edits than one run of splices holds, so some versions are kept whole.
      for (let i = 0; i < 150; i++) {
        lines[(i * 7) % 60] = i % 3 === 0 ? `edited ${i} ✓` : `line ${i}: 東京 ${i}`;
        await write("/memories/a.md", lines.join("\n"));
      }
      await write("/memories/a.md", "a whole new text");
      await write("/memories/a.md", "");
      await write("/memories/a.md", lines.join("\n"));
      await store.move("/memories/a.md", "/memories/b.md");
      const moved = (await store.get("/memories/b.md"))?.version ?? 0;
      texts.set(moved, lines.join("\n"));
      const [, second] = [...texts.keys()];
      const restored = await store.history.restoreFile("/memories/b.md", {
        version: moved,
      });
      texts.set(restored.version ?? 0, lines.join("\n"));
      await store.forget("/memories/b.md");
      for (const [version, text] of texts) {
        const key = version >= moved ? "/memories/b.md" : "/memories/a.md";
        const found = await store.history.version(key, version);
        assert.ok(found?.text === text, `version ${version} of ${key} reads back as written`);
      }
      await store.history.restoreFile("/memories/a.md", { version: second ?? 0 });
      assert.equal((await store.get("/memories/a.md"))?.text, texts.get(second ?? 0));
    });

    test("a version dropped takes the older versions kept as its splices, never a newer one", async ({
      store,
    }) => {
      await store.remember({ key: "/memories/a.md", text: "one\ntwo", tags: FILE });
      await store.remember({ key: "/memories/a.md", text: "one\nthree" });
      await store.move("/memories/a.md", "/memories/b.md");
      await store.remember({ key: "/memories/b.md", text: "one\nfour" });
      const last = await store.remember({ key: "/memories/b.md", text: "one\nfive" });
      // Keeping one version of each file drops b's older ones, and a's with them (they were
      // kept as splices of b's move).
      await store.history.prune({ keepVersions: 1 });
      assert.deepEqual(await ops(store, "/memories/a.md"), []);
      assert.deepEqual(await ops(store, "/memories/b.md"), [["update", "/memories/b.md", null]]);
      assert.equal(
        (await store.history.version("/memories/b.md", last.version))?.text,
        "one\nfive",
      );
    });
  });

  t.describe("history: its byte budget", () => {
    budgeted(
      "stays within it by dropping the oldest changes first, and says so",
      6000,
      async ({ store }) => {
        const keys = await churn(store, "/memories/churn/c", 20, 1000);
        const kept = [];
        for (const key of keys) kept.push((await deletedVersion(store, key)) !== undefined);
        // Each deleted file keeps its whole text (about 1.2 KB with its key and the rest): the
        // newest few fit, the oldest went first, and none in between is missing.
        assert.deepEqual(kept.slice(-2), [true, true], "the newest deletes can be restored");
        assert.deepEqual(kept.slice(0, 12), new Array(12).fill(false), "the oldest were dropped");
        assert.equal(kept.indexOf(true), kept.length - kept.filter(Boolean).length);
        const last = keys[keys.length - 1] as string;
        const version = (await deletedVersion(store, last)) as number;
        await store.history.restoreFile(last, { version });
        assert.equal((await store.get(last))?.text, linesOf(19, 1000));
        const { dropped } = await store.history.ofFile(last);
        assert.deepEqual(
          dropped.map((drop) => drop.reason),
          ["bytes"],
        );
        const [drop] = dropped;
        assert.ok(
          (drop?.changes ?? 0) >= 24,
          `most of the 40 changes were dropped: ${drop?.changes}`,
        );
        assert.ok(
          drop !== undefined && drop.through <= drop.at && drop.at <= new Date().toISOString(),
        );
      },
    );

    budgeted("grows to the size of the live text when that is more", 2000, async ({ store }) => {
      for (let i = 0; i < 8; i++) {
        await store.remember({
          key: `/memories/live/l${i}.md`,
          text: linesOf(100 + i, 1000),
          tags: FILE,
        });
      }
      const keys = await churn(store, "/memories/churn/c", 12, 1000);
      const kept = [];
      for (const key of keys) kept.push((await deletedVersion(store, key)) !== undefined);
      // 8 KB of live text: about six deleted files fit, where a 2 KB budget alone holds one.
      assert.ok(kept.filter(Boolean).length >= 4, `kept ${kept.filter(Boolean).length}`);
      assert.equal(kept[0], false);
    });

    budgeted(
      "holds many more one-line edits of a file than whole copies of it",
      6000,
      async ({ store }) => {
        const lines = Array.from({ length: 40 }, (_, n) => `line ${n} of a long file`);
        const versions = [
          (await store.remember({ key: "/memories/big.md", text: lines.join("\n"), tags: FILE }))
            .version,
        ];
        for (let i = 0; i < 100; i++) {
          lines[i % 40] = `edit ${i}`;
          versions.push(
            (await store.remember({ key: "/memories/big.md", text: lines.join("\n") })).version,
          );
        }
        let readable = 0;
        for (const version of versions) {
          if ((await store.history.version("/memories/big.md", version)) !== undefined) readable++;
        }
        // The file is about 1 KB: 6 KB holds five whole copies, and about 25 edits of one line.
        assert.ok(readable >= 20, `${readable} versions readable`);
        assert.equal(
          await store.history.version("/memories/big.md", versions[0] as number),
          undefined,
        );
        const previous = versions[versions.length - 2] as number;
        const back = await store.history.restoreFile("/memories/big.md", { version: previous });
        assert.ok((back.version ?? 0) > (versions[versions.length - 1] as number));
        assert.deepEqual(
          (await store.history.ofFile("/memories/big.md")).dropped.map((drop) => drop.reason),
          ["bytes"],
        );
      },
    );

    test("prune brings a history over a smaller budget down, oldest first", async ({ store }) => {
      const keys = await churn(store, "/memories/churn/c", 10, 1000);
      assert.deepEqual((await store.history.ofFile(keys[0] as string)).dropped, []);
      let deleted = 0;
      for (let step = 0; step < 20; step++) {
        const now = await store.history.prune({ maxBytes: 3000, limit: 4 });
        assert.ok(now <= 4, "at most limit rows per call");
        deleted += now;
        if (now === 0) break;
      }
      assert.ok(deleted >= 14, `deleted ${deleted}`);
      assert.equal(await deletedVersion(store, keys[0] as string), undefined);
      assert.notEqual(await deletedVersion(store, keys[9] as string), undefined);
      const [drop] = (await store.history.under("/memories/")).dropped;
      assert.deepEqual([drop?.reason, drop?.changes], ["bytes", deleted]);
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
      const { entries, dropped } = await store.history.ofFile("/memories/a.md");
      assert.equal(entries[0]?.version, (await store.get("/memories/a.md"))?.version);
      assert.deepEqual(
        dropped.map((drop) => [drop.reason, drop.changes]),
        [["versions", 7]],
      );
    });

    test("drops rows older than the days kept", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
      await tick();
      assert.equal(await store.history.prune({ keepDays: 1 }), 0);
      assert.equal(await store.history.prune({ keepDays: 0 }), 1);
      assert.deepEqual(await ops(store, "/memories/a.md"), []);
      assert.equal((await store.get("/memories/a.md"))?.text, "0");
      const [drop] = (await store.history.ofFile("/memories/a.md")).dropped;
      assert.deepEqual([drop?.reason, drop?.changes], ["days", 1]);
    });
  });
}
