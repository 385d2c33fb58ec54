/**
 * `load`, which copies whole records between engines (`hms-mcp copy`): versions and times kept,
 * the version clock moved past them, every write's checks applied, all or nothing.
 */
import assert from "node:assert/strict";
import {
  everything,
  FILE,
  freshTest,
  keys,
  refusal,
  refused,
  type StoreConformanceOptions,
  type TestApi,
  writtenAt,
} from "./support.js";

export function loadTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("load", () => {
    test("copies records with their versions and times; later writes take newer versions", async ({
      engine,
      store,
    }) => {
      await store.remember({ key: "/memories/a.md", text: "alpha\n", tags: FILE });
      await store.remember({ key: "note", text: "n", tags: ["x"], metadata: { by: "me" } });
      await store.remember({ key: "note", text: "n2" });
      const records = await everything(store);
      const copy = await engine.get("copy");
      assert.deepEqual(await copy.load(records), { loaded: 2 });
      assert.deepEqual(await everything(copy), records);
      assert.deepEqual(
        (await copy.list({ tag: "x" })).items.map((item) => item.key),
        ["note"],
      );
      assert.equal((await copy.recall("alpha")).hits[0]?.key, "/memories/a.md");
      const largest = Math.max(...records.map((record) => record.version));
      assert.ok((await copy.remember({ key: "other", text: "o" })).version > largest);
      const note = records.find((record) => record.key === "note");
      // A client's compare-and-set version from the first engine holds on the copy.
      const cas = await copy.remember({ key: "note", text: "n3", expectedVersion: note?.version });
      assert.ok(cas.version > largest);
    });

    test("keeps the times it is given, and records the memory files as created", async ({
      store,
    }) => {
      const at = "2025-03-04T05:06:07.089Z";
      await store.load([
        {
          ...writtenAt("/memories/old.md", "2025-01-01T00:00:00.000Z"),
          updated_at: at,
          version: 7,
        },
      ]);
      const record = await store.get("/memories/old.md");
      assert.deepEqual(
        [record?.version, record?.created_at, record?.updated_at],
        [7, "2025-01-01T00:00:00.000Z", at],
      );
      // The hash and size are the text's, whatever the record said.
      assert.deepEqual([record?.bytes, record?.hash.startsWith("sha256:")], [24, true]);
      const [created] = (await store.history.ofFile("/memories/old.md")).entries;
      assert.deepEqual([created?.op, created?.version], ["create", 7]);
    });

    test("refuses a key that is present with EXISTS, and loads nothing", async ({ store }) => {
      const { version } = await store.remember({ key: "b", text: "already" });
      const at = "2026-01-01T00:00:00.000Z";
      assert.deepEqual(
        await refused(() =>
          store.load([
            { ...writtenAt("a", at, []), version: 5 },
            { ...writtenAt("b", at, []), version: 6 },
          ]),
        ),
        {
          code: "EXISTS",
          message: `b already exists (at version ${version}); load copies into keys that are free`,
          key: "b",
          current_version: version,
        },
      );
      assert.deepEqual(await keys(store), ["b"]);
    });

    test("checks every record as a write is checked, before storing any", async ({ store }) => {
      const at = "2026-01-01T00:00:00.000Z";
      const record = { ...writtenAt("k", at, []), version: 3 };
      const badTime = await refusal(() =>
        store.load([record, { ...record, key: "late", created_at: "not a time" }]),
      );
      assert.deepEqual(
        [badTime.code, badTime.message],
        [
          "INVALID_ARGUMENT",
          'created_at must be an ISO 8601 time such as 2026-12-01T09:30:00Z, got "not a time"',
        ],
      );
      const badVersion = await refusal(() => store.load([{ ...record, version: 0 }]));
      assert.deepEqual(
        [badVersion.code, badVersion.message],
        ["INVALID_ARGUMENT", `version must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`],
      );
      const hidden = await refusal(() =>
        store.load([{ ...record, key: "/memories/.hidden", tags: FILE }, record]),
      );
      assert.equal(hidden.code, "INVALID_ARGUMENT");
      assert.match(hidden.message, /Invalid memory path/);
      const conflict = await refusal(() =>
        store.load([
          { ...record, key: "/memories/f", tags: FILE },
          { ...record, key: "/memories/f/g.md", tags: FILE, version: 4 },
        ]),
      );
      assert.deepEqual(
        [conflict.code, conflict.details],
        ["PATH_CONFLICT", { conflict: "file", path: "/memories/f" }],
      );
      assert.deepEqual(await keys(store), []);
    });
  });
}
