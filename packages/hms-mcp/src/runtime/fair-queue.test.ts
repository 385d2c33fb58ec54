import { connect, createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { FairQueue, QueueFull } from "./fair-queue.js";

const roomy = { concurrency: 100, perFlowConcurrency: 100, maxQueuedPerFlow: 1000 };

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Lets `n` turns of the event loop pass (each runs the setImmediate callbacks queued before). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((done) => setImmediate(done));
}

describe("FairQueue", () => {
  it("runs a quiet flow's call next, ahead of a busy flow's backlog", async () => {
    const queue = new FairQueue(roomy);
    const order: string[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      calls.push(
        queue.run("a", 4, () => {
          order.push(`a${i}`);
          // b's call arrives while a's first call runs, as a request read in the meantime.
          if (i === 0) setImmediate(() => calls.push(queue.run("b", 1, () => order.push("b"))));
        }),
      );
    }
    await Promise.all(calls);
    await Promise.all(calls);
    expect(order).toEqual(["a0", "b", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"]);
  });

  it("keeps each flow's calls in the order they came", async () => {
    const queue = new FairQueue(roomy);
    const order: string[] = [];
    const calls = ["a", "b", "a", "b", "a"].map((flow, i) =>
      queue.run(flow, 1, () => order.push(`${flow}${i}`)),
    );
    await Promise.all(calls);
    expect(order.filter((name) => name.startsWith("a"))).toEqual(["a0", "a2", "a4"]);
    expect(order.filter((name) => name.startsWith("b"))).toEqual(["b1", "b3"]);
  });

  it("shares the time of two busy flows by the weight of their calls", async () => {
    const queue = new FairQueue(roomy);
    const order: string[] = [];
    const calls = [
      ...Array.from({ length: 5 }, () => queue.run("heavy", 4, () => order.push("H"))),
      ...Array.from({ length: 20 }, () => queue.run("light", 1, () => order.push("l"))),
    ];
    await Promise.all(calls);
    // One call of weight 4 for every four of weight 1.
    expect(order.join("")).toBe("HllllHllllHllllHllllHllll");
  });

  it("gives no credit for the time a flow was idle", async () => {
    const queue = new FairQueue(roomy);
    const order: string[] = [];
    // b ran long ago; a is busy now: b's new calls take turns with a's from now on, rather
    // than all running first on the share b left unused.
    await queue.run("b", 1, () => order.push("b"));
    const calls = Array.from({ length: 40 }, () => queue.run("a", 1, () => order.push("a")));
    await calls[19];
    order.length = 0;
    calls.push(...Array.from({ length: 4 }, () => queue.run("b", 1, () => order.push("b"))));
    await Promise.all(calls);
    expect(order.slice(0, 8).join("")).toBe("babababa");
  });

  it("refuses a flow's call once it has the most calls waiting, and serves the others", async () => {
    const queue = new FairQueue({ ...roomy, maxQueuedPerFlow: 3 });
    const calls = Array.from({ length: 3 }, (_, i) => queue.run("a", 1, () => i));
    const refused = queue.run("a", 1, () => 3);
    await expect(refused).rejects.toBeInstanceOf(QueueFull);
    await expect(refused).rejects.toThrow(
      "this client already has 3 calls waiting to run, the most a client may have",
    );
    expect(await queue.run("b", 1, () => "b")).toBe("b");
    expect(await Promise.all(calls)).toEqual([0, 1, 2]);
    expect(await queue.run("a", 1, () => "again")).toBe("again");
  });

  it("bounds the calls running at once, per flow and in all, while they wait", async () => {
    const queue = new FairQueue({ concurrency: 2, perFlowConcurrency: 1, maxQueuedPerFlow: 10 });
    const release = [deferred(), deferred(), deferred()];
    const running = new Set<string>();
    const seen: string[] = [];
    const job = (name: string, gate: Promise<void>) => async () => {
      running.add(name);
      seen.push([...running].sort().join(","));
      await gate;
      running.delete(name);
    };
    const a0 = queue.run("a", 1, job("a0", release[0]?.promise as Promise<void>));
    const a1 = queue.run("a", 1, job("a1", release[1]?.promise as Promise<void>));
    const b0 = queue.run("b", 1, job("b0", release[2]?.promise as Promise<void>));
    const c0 = queue.run("c", 1, job("c0", Promise.resolve()));
    // The queue starts a call a turn of the event loop (setImmediate). Counted in turns, not
    // waited for in ms: a 20 ms timer could fire first on a loaded machine, after one turn.
    await turns(2);
    // a0 and b0 run; a1 waits for a's slot, c0 for one of the two, however many turns pass.
    expect([...running].sort()).toEqual(["a0", "b0"]);
    await turns(20);
    expect([...running].sort()).toEqual(["a0", "b0"]);
    release[0]?.resolve();
    await a0;
    await c0;
    release[2]?.resolve();
    release[1]?.resolve();
    await Promise.all([a1, b0]);
    expect(seen.every((names) => names.split(",").length <= 2)).toBe(true);
    expect(seen.some((names) => names === "a0,a1")).toBe(false);
  });

  it("passes a call's error to its caller and goes on with the next", async () => {
    const queue = new FairQueue(roomy);
    const failed = queue.run("a", 1, () => {
      throw new Error("boom");
    });
    const rejected = queue.run("a", 1, () => Promise.reject(new Error("later")));
    const next = queue.run("a", 1, () => "next");
    await expect(failed).rejects.toThrow("boom");
    await expect(rejected).rejects.toThrow("later");
    expect(await next).toBe("next");
    expect(queue.waiting).toBe(0);
  });

  it("gives the event loop turns to accept arriving connections before the next call", async () => {
    // Node accepts one connection per turn of the event loop. Thirty connections of a busy
    // client each bring a call that takes 15 ms, then one of another client: its call runs
    // among the first, not after the thirty calls whose connections were accepted before.
    const queue = new FairQueue(roomy);
    const order: string[] = [];
    const server = createServer((socket: Socket) => {
      socket.once("data", (flow: Buffer) => {
        void queue.run(flow.toString(), 1, () => {
          const until = Date.now() + 15;
          while (Date.now() < until);
          order.push(flow.toString());
        });
      });
    });
    server.on("connection", () => queue.arrived());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const clients = [...Array(30).fill("a"), "b"].map((flow: string) =>
      connect(port, "127.0.0.1", function (this: Socket) {
        this.write(flow);
      }),
    );
    while (order.length < 31) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const client of clients) client.destroy();
    await new Promise((resolve) => server.close(resolve));
    // (b's position is 30 when each call gets one turn: one accept.)
    expect(order.indexOf("b")).toBeLessThanOrEqual(5);
  });
});
