import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store.js";
import { CACHE_SIZE } from "./database.js";
import {
  isBusy,
  isDiskFull,
  openSqlite,
  pragma,
  type SqliteDatabase,
  sqliteCodeOf,
  textReads,
  transaction,
} from "./driver.js";

let dir: string;
let db: SqliteDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-driver-"));
  db = openSqlite(join(dir, "db.sqlite"));
  db.exec("CREATE TABLE t (n INTEGER)");
});
afterEach(() => {
  if (db.isOpen) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () =>
  (db.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((r) => r.n);

describe("transaction", () => {
  it("commits what the body wrote and returns its value", () => {
    expect(transaction(db, () => db.prepare("INSERT INTO t VALUES (1)").run().changes)).toBe(1);
    expect(db.isTransaction).toBe(false);
    expect(rows()).toEqual([1]);
  });

  it("rolls everything back when the body throws, and rethrows", () => {
    expect(() =>
      transaction(db, () => {
        db.exec("INSERT INTO t VALUES (1)");
        throw new Error("no");
      }),
    ).toThrow("no");
    expect(db.isTransaction).toBe(false);
    expect(rows()).toEqual([]);
  });

  it("nests as a savepoint: an inner failure undoes the inner writes only", () => {
    transaction(db, () => {
      db.exec("INSERT INTO t VALUES (1)");
      expect(() =>
        transaction(db, () => {
          db.exec("INSERT INTO t VALUES (2)");
          throw new Error("inner");
        }),
      ).toThrow("inner");
      transaction(db, () => db.exec("INSERT INTO t VALUES (3)"));
      expect(db.isTransaction).toBe(true);
    });
    expect(rows()).toEqual([1, 3]);
  });

  it("refuses a body that returns a promise, writing nothing", () => {
    expect(() =>
      transaction(db, async () => {
        db.exec("INSERT INTO t VALUES (1)");
      }),
    ).toThrow(/must be synchronous/);
    expect(rows()).toEqual([]);
  });

  it("takes the write lock at BEGIN when immediate: a second writer is refused as busy", () => {
    const other = openSqlite(join(dir, "db.sqlite"));
    try {
      other.exec("PRAGMA busy_timeout = 0");
      transaction(db, () => {
        let refused: unknown;
        try {
          transaction(other, () => other.exec("INSERT INTO t VALUES (2)"));
        } catch (error) {
          refused = error;
        }
        expect(isBusy(refused)).toBe(true);
        expect(sqliteCodeOf(refused)).toBe(5);
        expect(isDiskFull(refused)).toBe(false);
        expect(other.isTransaction).toBe(false);
      });
    } finally {
      other.close();
    }
  });
});

describe("pragma", () => {
  it("reads a pragma's value, and the value a setting answers with", () => {
    expect(pragma(db, "journal_mode = WAL")).toBe("wal");
    db.exec("PRAGMA user_version = 7");
    expect(pragma(db, "user_version")).toBe(7);
  });
});

describe("textReads", () => {
  // Node 22's node:sqlite reads a text cut at its first NUL (it writes it whole); the store
  // reads such texts through textReads, whole on every Node.
  it("reads a text holding NUL whole, in a row and as a function's argument", () => {
    const reads = textReads(db);
    db.exec("CREATE TABLE texts (text TEXT)");
    const text = "\u0000 starts, a\u0000b in the middle, ends \u0000";
    db.prepare("INSERT INTO texts VALUES (?)").run(text);
    const row = db.prepare(`SELECT ${reads.column("text")} AS text FROM texts`).get() as {
      text: unknown;
    };
    expect(reads.text(row.text)).toBe(text);
    expect(textReads(db)).toBe(reads);
    const seen: string[] = [];
    db.function("seen", {}, (value) => {
      seen.push(reads.text(value));
      return null;
    });
    db.prepare(`SELECT seen(${reads.column("text")}) FROM texts`).get();
    expect(seen).toEqual([text]);
  });
});

describe("a store's connection", () => {
  // better-sqlite3 was built with a 16 MiB page cache; node:sqlite's SQLite keeps SQLite's
  // 2 MiB, which made recall at 100,000 memories read its pages again.
  it("has the 16 MiB page cache better-sqlite3 gave it, whichever driver opens it", () => {
    let opened: SqliteDatabase | undefined;
    const store = MemoryStore.open(join(dir, "store.sqlite"), {
      openFile: (file) => {
        opened = openSqlite(file);
        return opened;
      },
    });
    try {
      expect(opened && pragma(opened, "cache_size")).toBe(CACHE_SIZE);
    } finally {
      store.close();
    }
  });
});

describe("errors", () => {
  it("reads SQLite's primary code from node:sqlite's errors, and nothing from others", () => {
    let error: unknown;
    try {
      db.exec("SELECT * FROM missing");
    } catch (caught) {
      error = caught;
    }
    expect(sqliteCodeOf(error)).toBe(1);
    expect(isBusy(error)).toBe(false);
    expect(sqliteCodeOf(new Error("x"))).toBeUndefined();
    expect(sqliteCodeOf(undefined)).toBeUndefined();
    expect(isDiskFull(Object.assign(new Error("x"), { code: "ENOSPC" }))).toBe(true);
  });
});

describe("loading node:sqlite", () => {
  // Node 22 prints an ExperimentalWarning when node:sqlite loads (Node 24 does not). The
  // driver drops that one warning and no other: a child process loads this module (its types
  // stripped by Node) and opens a database, then warns on its own and loads node:sqlite again.
  it("prints no warning of its own, and lets every other warning through", () => {
    const script = `
      const { openSqlite } = await import(${JSON.stringify(join(import.meta.dirname, "driver.ts"))});
      openSqlite(":memory:").close();
      process.emitWarning("a warning of the program's own", "ExperimentalWarning");`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).toContain("a warning of the program's own");
    expect(child.stderr).not.toContain("SQLite is an experimental feature");
  });
});
