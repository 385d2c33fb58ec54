/**
 * The server's tools, typed by the contract (@hms/protocol's types only: nothing of it is
 * bundled), for one namespace: the namespace argument is sent only when the server lets calls
 * choose one and the chosen one is not its default.
 */
import type { ToolArguments, ToolName, ToolResult } from "@hms/protocol";
import type { McpClient } from "./mcp.js";

export type Namespaces = ToolResult<"namespaces">;
export type MemoryRecord = ToolResult<"get">;
export type Stats = ToolResult<"stats">;
export type HistoryChange = ToolResult<"history">["changes"][number];
export type RecallHit = ToolResult<"recall">["hits"][number];

export class MemoryApi {
  readonly client: McpClient;
  readonly namespaces: Namespaces;
  /** The namespace every call uses. */
  readonly namespace: string;

  constructor(client: McpClient, namespaces: Namespaces, namespace: string) {
    this.client = client;
    this.namespaces = namespaces;
    this.namespace = namespace;
  }

  /** Whether this token may write here. */
  get canWrite(): boolean {
    return this.namespaces.access === "read-write";
  }

  /** Calls `tool` in this namespace; `command` names the change in the history. */
  async call<T extends ToolName>(
    tool: T,
    args: ToolArguments<T>,
    command?: string,
  ): Promise<ToolResult<T>> {
    const named =
      this.namespaces.namespace_arg && this.namespace !== this.namespaces.default
        ? { ...args, namespace: this.namespace }
        : args;
    return (await this.client.call(
      tool,
      named as Record<string, unknown>,
      command,
    )) as ToolResult<T>;
  }

  /** Every memory file, following the pages. */
  async allFiles(): Promise<ToolResult<"list">["items"]> {
    const files: ToolResult<"list">["items"] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call("list", {
        prefix: "/memories/",
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      files.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return files;
  }
}
