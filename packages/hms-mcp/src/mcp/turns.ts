/**
 * The fair order between clients (runtime.scheduler) for every request that reads the store:
 * tool calls, resource reads and lists, and the recall prompt. Each waits its turn with its
 * client's other requests, so one client's burst of any of them does not hold up another's.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { QueueFull } from "../runtime/fair-queue.js";
import { flowOf } from "../runtime/flows.js";
import { grantOf, type Runtime } from "../runtime/runtime.js";

/**
 * What a request that reads or writes many memories (ranking, pages of texts, versions) weighs
 * in the fair order, against 1 for one that reads or writes one.
 */
export const HEAVY_WEIGHT = 4;

/** What a request carries that says whose it is (the MCP SDK's handler `extra`). */
interface RequestOf {
  readonly authInfo?: AuthInfo | undefined;
  readonly sessionId?: string | undefined;
}

/**
 * Runs `job`, a request other than a tool call, in its client's turn, weighing `weight`. A
 * client that already has the most requests waiting is refused with an MCP error saying so
 * (tool calls answer that as an UNAVAILABLE tool error instead).
 */
export function inTurn<T>(
  runtime: Runtime,
  extra: RequestOf,
  weight: number,
  job: () => Promise<T>,
): Promise<T> {
  const flow = flowOf(grantOf(extra), extra.sessionId);
  return runtime.calls.run(() =>
    runtime.scheduler.run(flow, weight, job).catch((error: unknown) => {
      if (error instanceof QueueFull) {
        throw new McpError(ErrorCode.InternalError, `UNAVAILABLE: ${error.message}`, {
          code: "UNAVAILABLE",
        });
      }
      throw error;
    }),
  );
}
