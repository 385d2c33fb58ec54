/**
 * The namespace a resources/list or prompts/get request names, taken as a tool call's
 * `namespace` argument is: none means the server's `--namespace`; naming one needs
 * `--namespace-arg`; the name is checked here and the caller's grant by `openStore`.
 */
import { checkNamespace } from "@hms/store";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Runtime } from "../runtime/runtime.js";

/** Why a call may not name a namespace on a server without `--namespace-arg`. */
export const NAMESPACE_DISABLED_MESSAGE =
  "this server serves only its own namespace; start it with --namespace-arg to let calls choose a namespace";

/**
 * The namespace `named` (undefined: the server's own), or an MCP `InvalidParams` error saying
 * why it cannot be used.
 */
export function requestNamespace(runtime: Runtime, named: unknown): string {
  if (named === undefined) return runtime.namespace;
  if (!runtime.namespaceArg) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `NAMESPACE_DISABLED: ${NAMESPACE_DISABLED_MESSAGE}`,
    );
  }
  try {
    return checkNamespace(named);
  } catch (error) {
    throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
  }
}
