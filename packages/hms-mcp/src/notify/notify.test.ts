/**
 * Change notifications in one process: a client subscribed to a memory file or a directory
 * hears of its own writes, each naming the file and the change; what it may subscribe to, and
 * how many, is bounded. (Other processes and replicas: test/e2e/notify*.test.ts.)
 */
import { type HeardChange, hear, memoryUri, ok } from "@hms/test-support";
import { describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";

/** Each URI told of, with the last change told of it (without its seq). */
function lastChanges(updates: readonly HeardChange[]): Record<string, unknown> {
  const last: Record<string, unknown> = {};
  for (const { uri, change } of updates) {
    const { seq: _seq, ...rest } = change ?? {};
    last[uri] = rest;
  }
  return last;
}

describe("resources/subscribe in one process", () => {
  it("declares subscribe and listChanged", async () => {
    const { client, close } = await connectInProcess();
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({
        subscribe: true,
        listChanged: true,
      });
    } finally {
      await close();
    }
  });

  it("tells a directory's subscriber of every change under it, naming the file", async () => {
    const { client, close } = await connectInProcess();
    try {
      const heard = hear(client);
      await client.subscribeResource({ uri: memoryUri("default", "/memories/notes") });
      await ok(client, "remember", { key: "/memories/notes/a.md", text: "one" });
      await ok(client, "remember", { key: "/memories/other.md", text: "not under notes" });
      await ok(client, "move", { from: "/memories/notes/a.md", to: "/memories/notes/b.md" });
      await ok(client, "forget", { key: "/memories/notes/b.md" });
      await heard.until((h) => h.change?.op === "delete");
      // Notifications wait coalesced per file: each changed file is told of at least once
      // after its last change, with that change; other files are not.
      expect(lastChanges(heard.updates)).toEqual({
        [memoryUri("default", "/memories/notes/a.md")]: {
          op: "move",
          key: "/memories/notes/b.md",
          from_key: "/memories/notes/a.md",
        },
        [memoryUri("default", "/memories/notes/b.md")]: {
          op: "delete",
          key: "/memories/notes/b.md",
          from_key: null,
        },
      });
      await heard.untilListChanged();
      expect(heard.listChanged()).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it("a file's subscriber hears of that file only, until it unsubscribes", async () => {
    const { client, close } = await connectInProcess();
    try {
      const heard = hear(client);
      const uri = memoryUri("default", "/memories/a.md");
      await client.subscribeResource({ uri });
      await ok(client, "remember", { key: "/memories/ab.md", text: "a sibling" });
      await ok(client, "remember", { key: "/memories/a.md", text: "one" });
      await heard.until((h) => h.uri === uri);
      await client.unsubscribeResource({ uri });
      await ok(client, "remember", { key: "/memories/a.md", text: "two" });
      // Heard after the unsubscribed write, so the write had its chance to be told.
      await client.subscribeResource({ uri: memoryUri("default", "/memories/z.md") });
      await ok(client, "remember", { key: "/memories/z.md", text: "z" });
      await heard.until((h) => h.uri.endsWith("z.md"));
      expect(Object.keys(lastChanges(heard.updates))).toEqual([
        uri,
        memoryUri("default", "/memories/z.md"),
      ]);
      // The write after unsubscribing was not told: the last change told of a.md is its first.
      expect(lastChanges(heard.updates)[uri]).toMatchObject({ op: "create" });
    } finally {
      await close();
    }
  });

  it("refuses what is not a memory file or directory, and other namespaces", async () => {
    const { client, close } = await connectInProcess();
    try {
      await expect(client.subscribeResource({ uri: "hms-mcp://default/notes" })).rejects.toThrow(
        /Only memory files send change notifications: subscribe to a key under \/memories\//,
      );
      await expect(
        client.subscribeResource({ uri: memoryUri("other", "/memories/a.md") }),
      ).rejects.toThrow(/serves only namespace default; start it with --namespace-arg/);
      await expect(client.subscribeResource({ uri: "file:///etc/passwd" })).rejects.toThrow(
        /Not a memory resource/,
      );
      await expect(
        client.subscribeResource({ uri: memoryUri("Not A Name", "/memories") }),
      ).rejects.toThrow(/MCP error -32602: .*namespace/);
    } finally {
      await close();
    }
  });

  it("caps a connection's subscriptions (--max-subscriptions)", async () => {
    const { client, close } = await connectInProcess({ args: ["--max-subscriptions", "2"] });
    try {
      await client.subscribeResource({ uri: memoryUri("default", "/memories/a") });
      await client.subscribeResource({ uri: memoryUri("default", "/memories/b") });
      // The same URI again is the same subscription.
      await client.subscribeResource({ uri: memoryUri("default", "/memories/b") });
      await expect(
        client.subscribeResource({ uri: memoryUri("default", "/memories/c") }),
      ).rejects.toThrow(
        "LIMIT_REACHED: this session already holds 2 subscriptions, the most it may " +
          "(--max-subscriptions 2); unsubscribe from one first, or subscribe to a directory " +
          "(e.g. /memories) to hear of every file under it",
      );
      await client.unsubscribeResource({ uri: memoryUri("default", "/memories/a") });
      await client.subscribeResource({ uri: memoryUri("default", "/memories/c") });
    } finally {
      await close();
    }
  });
});
