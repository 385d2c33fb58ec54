/**
 * `hms-mcp namespaces`: the namespaces of a store by name, with memories, bytes and last
 * change, read without creating anything (the suite runs again on PostgreSQL).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  cleanEnv,
  hmsMcpBin,
  ok,
  startStdio,
  storeArgs,
  storeNamespaces,
  tempDir,
} from "@hms/test-support";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function namespaces(args: string[]) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), "namespaces", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 60000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("hms-mcp namespaces", () => {
  it("lists each namespace by name with its memories, bytes and last change", async () => {
    const data = tempDir();
    cleanups.push(data.remove);
    const started = await startStdio({ dataDir: data.dir, args: ["--namespace-arg"] });
    cleanups.push(started.close);
    await ok(started.client, "remember", { key: "/memories/a.md", text: "héllo\n" });
    const last = await ok<{ updated_at: string }>(started.client, "remember", {
      namespace: "team",
      key: "/memories/b.md",
      text: "b\n",
    });

    const run = namespaces([...storeArgs(data.dir), "--json"]);
    expect(run).toMatchObject({ status: 0, stderr: "" });
    const listing = JSON.parse(run.stdout);
    expect(
      listing.namespaces.map(({ disk_bytes: _, ...summary }: { disk_bytes?: number }) => summary),
    ).toEqual([
      { name: "default", memories: 1, bytes: 7, updated_at: expect.any(String) },
      { name: "team", memories: 1, bytes: 2, updated_at: last.updated_at },
    ]);
    const text = namespaces(storeArgs(data.dir));
    expect(text.stdout).toMatch(
      /^NAMESPACE +MEMORIES +BYTES +ON DISK +LAST CHANGE\ndefault +1 +7 /,
    );
    expect(storeNamespaces(data.dir)).toHaveLength(2);
  });

  it("says there is no store at a data directory that does not exist, and makes none", () => {
    const parent = tempDir();
    cleanups.push(parent.remove);
    const missing = join(parent.dir, "typo");
    const run = namespaces(["--data-dir", missing]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `hms-mcp namespaces: there is no data directory at ${missing}: nothing was ever stored there (check --data-dir)\n`,
    );
    expect(storeNamespaces(missing)).toEqual([]);
  });
});
