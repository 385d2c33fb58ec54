import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backupNamespace, restoreNamespace, storeFilePath } from "./backup.js";
import { Namespaces } from "./namespaces.js";
import { openSqlite, pragma } from "./sqlite/driver.js";

let live: string;
let backup: string;
beforeEach(() => {
  live = mkdtempSync(join(tmpdir(), "hms-live-"));
  backup = mkdtempSync(join(tmpdir(), "hms-backup-"));
});
afterEach(() => {
  rmSync(live, { recursive: true, force: true });
  rmSync(backup, { recursive: true, force: true });
});

function write(dataDir: string, name: string, body: (n: Namespaces) => void): void {
  const namespaces = new Namespaces({ dataDir });
  try {
    namespaces
      .get(name)
      .history.attributed({ actor: "alice", command: "create" }, () => body(namespaces));
  } finally {
    namespaces.close();
  }
}

describe("backupNamespace and restoreNamespace", () => {
  it("copy a namespace whole: versions, history with times and attribution, a sound file", async () => {
    write(live, "team", (n) => {
      const store = n.get("team");
      store.remember({ key: "/memories/plan.md", text: "one" });
      store.remember({ key: "/memories/plan.md", text: "two" });
      store.remember({ key: "plain", text: "not a memory file" });
    });
    const copy = await backupNamespace(live, "team", backup);
    expect(copy).toMatchObject({ name: "team", memories: 2, changes: 2 });
    expect(readdirSync(join(backup, "namespaces"))).toEqual([copy.file]);
    const db = openSqlite(storeFilePath(backup, "team"));
    expect(pragma(db, "integrity_check")).toBe("ok");
    db.close();
    const both = [live, backup].map((dir) => {
      const namespaces = new Namespaces({ dataDir: dir });
      const store = namespaces.read("team");
      const seen = {
        memories: store.export().memories,
        history: store.history.ofFile("/memories/plan.md").entries,
      };
      namespaces.close();
      return seen;
    });
    expect(both[1]).toEqual(both[0]);
    expect(both[1]?.history.map((entry) => [entry.version, entry.actor])).toEqual([
      [2, "alice"],
      [1, "alice"],
    ]);
  });

  it("copies the state committed when it starts, while another connection keeps writing", async () => {
    const namespaces = new Namespaces({ dataDir: live });
    try {
      const store = namespaces.get("default");
      store.rememberMany(
        Array.from({ length: 2000 }, (_, i) => ({ key: `k${i}`, text: `text ${i}` })),
      );
      const copying = backupNamespace(live, "default", backup);
      // The copy runs off the main thread: these writes commit while it reads.
      let after = 0;
      while (after < 50) {
        store.remember({ key: `later${after}`, text: "after the start" });
        after++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const copy = await copying;
      expect(copy.memories).toBeGreaterThanOrEqual(2000);
      const restored = new Namespaces({ dataDir: backup });
      const keys = restored
        .read("default")
        .list({ limit: 1000, prefix: "k" })
        .items.map((item) => item.key);
      restored.close();
      expect(keys.length).toBe(1000);
    } finally {
      namespaces.close();
    }
  });

  it("restores one namespace alone, leaving the others as they are", async () => {
    write(live, "team", (n) => n.get("team").remember({ key: "k", text: "backed up" }));
    write(live, "solo", (n) => n.get("solo").remember({ key: "k", text: "solo" }));
    await backupNamespace(live, "team", backup);
    write(live, "team", (n) => n.get("team").remember({ key: "k", text: "a mistake" }));
    write(live, "solo", (n) => n.get("solo").remember({ key: "k", text: "solo, later" }));
    await restoreNamespace(backup, "team", live);
    const namespaces = new Namespaces({ dataDir: live });
    try {
      expect(namespaces.read("team").get("k")?.text).toBe("backed up");
      expect(namespaces.read("solo").get("k")?.text).toBe("solo, later");
    } finally {
      namespaces.close();
    }
    expect(existsSync(`${storeFilePath(live, "team")}.partial`)).toBe(false);
  });

  it("refuses to restore over a store another connection holds open, changing nothing", async () => {
    write(live, "team", (n) => n.get("team").remember({ key: "k", text: "backed up" }));
    await backupNamespace(live, "team", backup);
    const server = new Namespaces({ dataDir: live });
    try {
      server.get("team").remember({ key: "k", text: "served" });
      await expect(restoreNamespace(backup, "team", live)).rejects.toThrow(
        /namespace team is open in another process .*stop it before restoring/,
      );
      expect(server.get("team").get("k")?.text).toBe("served");
    } finally {
      server.close();
    }
    expect(readdirSync(join(live, "namespaces")).filter((f) => f.includes("partial"))).toEqual([]);
  });

  it("says which namespace is missing", async () => {
    await expect(backupNamespace(live, "nobody", backup)).rejects.toThrow(/ENOENT/);
    await expect(backupNamespace(live, "../x", backup)).rejects.toThrow(/is not valid/);
  });
});
