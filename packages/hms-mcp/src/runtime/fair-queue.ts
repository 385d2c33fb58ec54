/**
 * Serves the tool calls of many clients fairly. On SQLite a call runs to completion on the
 * event loop, so calls served in the order they arrive let one client's burst of recalls
 * delay everyone else's calls behind all of it. Here each client's calls (its flow: a token
 * of the tokens file, else an HTTP session or the stdio connection) wait in a queue of their
 * own, and the next call to run is chosen across the queues by start-time fair queuing: each
 * call is stamped, when it arrives, with the flow's share of work used so far (its cost, the
 * weight of its tool), and the smallest stamp runs first. A flow that was idle starts at the
 * work being served now, so one call of a quiet client runs next, whatever the backlog of a
 * busy one, and two busy flows share the time by the weight of their calls; within a flow
 * calls run in the order they came.
 *
 * Calls are started one at a time, each in its own turn of the event loop (setImmediate), so
 * requests that arrived meanwhile are read and queued before the next call is chosen. Node
 * accepts one new connection per turn (libuv since 1.45), so while connections keep coming
 * ({@link FairQueue.arrived}) the loop is given more turns first, for as long as the last
 * call took (at least 1 ms, at most 20): a request on a new connection is queued before a
 * backlog's next call too, and a flood of connections takes at most half the time. A call
 * that returns a promise (PostgreSQL, hybrid recall) holds its place among the calls running
 * until it settles: at most `concurrency` run at once and at most `perFlowConcurrency` of one
 * flow, so one client cannot hold every connection of a shared pool.
 */

export interface FairQueueOptions {
  /** Most calls running at once (a call returning a promise runs until it settles). */
  readonly concurrency: number;
  /** Most calls of one flow running at once. */
  readonly perFlowConcurrency: number;
  /** Most calls of one flow waiting to run; the next is refused with {@link QueueFull}. */
  readonly maxQueuedPerFlow: number;
  /** Told how long each call waited for its turn, in ms, as it starts (the metrics). */
  readonly onWait?: ((ms: number) => void) | undefined;
}

/** A call refused because its flow already has {@link FairQueueOptions.maxQueuedPerFlow} waiting. */
export class QueueFull extends Error {
  override readonly name = "QueueFull";

  constructor(readonly waiting: number) {
    super(
      `this client already has ${waiting} calls waiting to run, the most a client may have; wait for their answers before sending more`,
    );
  }
}

/** Shortest and longest run of extra turns given to arriving connections before a call, in ms. */
const MIN_ARRIVAL_TURNS_MS = 1;
const MAX_ARRIVAL_TURNS_MS = 20;

interface Job {
  /** Virtual start: the work served before this call may run, in cost units. */
  readonly start: number;
  /** Arrival order, to break ties between equal stamps. */
  readonly seq: number;
  readonly run: () => void;
}

interface Flow {
  readonly waiting: Job[];
  running: number;
  /** Virtual finish of the flow's last call queued. */
  finish: number;
}

export class FairQueue {
  readonly #flows = new Map<string, Flow>();
  #running = 0;
  /** Virtual time: the start stamp of the call started last. */
  #now = 0;
  #seq = 0;
  #pumping = false;
  /** Connections that arrived since the last turn. */
  #arrivals = 0;
  /** When the current run of extra turns for arrivals began. */
  #turnsSince: number | undefined;
  /** How long the last call held the event loop, in ms. */
  #lastCallMs = 0;

  constructor(private readonly options: FairQueueOptions) {}

  /** Calls waiting to run, in all. */
  get waiting(): number {
    let count = 0;
    for (const flow of this.#flows.values()) count += flow.waiting.length;
    return count;
  }

  /**
   * Runs `job` once the fair order reaches it, as a call of `flow` weighing `cost`; resolves
   * or rejects as the job does. Rejects at once with {@link QueueFull} when the flow already
   * has the most calls waiting.
   */
  run<T>(flow: string, cost: number, job: () => T | Promise<T>): Promise<T> {
    const state = this.#flows.get(flow) ?? { waiting: [], running: 0, finish: 0 };
    if (state.waiting.length >= this.options.maxQueuedPerFlow) {
      return Promise.reject(new QueueFull(state.waiting.length));
    }
    this.#flows.set(flow, state);
    const start = Math.max(this.#now, state.finish);
    state.finish = start + cost;
    const { onWait } = this.options;
    const queuedAt = onWait === undefined ? 0 : performance.now();
    return new Promise<T>((resolve, reject) => {
      state.waiting.push({
        start,
        seq: this.#seq++,
        run: () => {
          onWait?.(performance.now() - queuedAt);
          state.running++;
          this.#running++;
          const done = () => {
            state.running--;
            this.#running--;
            this.#pump();
          };
          let result: T | Promise<T>;
          const started = performance.now();
          try {
            result = job();
          } catch (error) {
            this.#lastCallMs = performance.now() - started;
            done();
            reject(error);
            return;
          }
          this.#lastCallMs = performance.now() - started;
          if (result instanceof Promise) {
            result.then(resolve, reject).finally(done);
          } else {
            done();
            resolve(result);
          }
        },
      });
      this.#pump();
    });
  }

  /**
   * Says a connection arrived (it may bring a call): the event loop gets another turn before
   * the next call runs, so the connections waiting behind it are accepted and read too.
   */
  arrived(): void {
    this.#arrivals++;
  }

  /** Starts the next call in a later turn of the event loop, once. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    setImmediate(() => {
      this.#pumping = false;
      if (this.#arrivals > 0) {
        this.#arrivals = 0;
        this.#turnsSince ??= performance.now();
        const budget = Math.min(
          MAX_ARRIVAL_TURNS_MS,
          Math.max(MIN_ARRIVAL_TURNS_MS, this.#lastCallMs),
        );
        if (performance.now() - this.#turnsSince < budget) {
          this.#pump();
          return;
        }
      }
      this.#turnsSince = undefined;
      const next = this.#next();
      if (next === undefined) return;
      next.run();
      // Another turn for the call after it: requests that arrive meanwhile get queued first.
      this.#pump();
    });
  }

  /** Takes the waiting call with the smallest stamp among the flows that may run one more. */
  #next(): Job | undefined {
    if (this.#running >= this.options.concurrency) return undefined;
    let chosen: Flow | undefined;
    for (const [name, flow] of this.#flows) {
      const head = flow.waiting[0];
      if (head === undefined) {
        // A flow with nothing waiting or running and no work ahead of now is the same as none.
        if (flow.running === 0 && flow.finish <= this.#now) this.#flows.delete(name);
        continue;
      }
      if (flow.running >= this.options.perFlowConcurrency) continue;
      const best = chosen?.waiting[0];
      if (
        best === undefined ||
        head.start < best.start ||
        (head.start === best.start && head.seq < best.seq)
      ) {
        chosen = flow;
      }
    }
    const job = chosen?.waiting.shift();
    if (job !== undefined) this.#now = Math.max(this.#now, job.start);
    return job;
  }
}
