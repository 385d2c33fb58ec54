/**
 * tools/list as hms-mcp must answer it (built from @hms/protocol, as the contract defines it)
 * and as a server did answer it, so a test can pin the answer byte for byte.
 */
import { TOOL_SCHEMAS, toolJsonSchemas } from "@hms/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";

/** One tools/list entry, as far as the pinning tests read it. */
export interface ListedTool {
  readonly name: string;
  readonly inputSchema: unknown;
  readonly outputSchema: unknown;
}

/**
 * The tools/list entries of the contract, in its order and with its key order: each tool's
 * name, title, description, JSON Schemas (with the `namespace` argument when `namespaceArg`)
 * and annotations (with the title, as MCP has it).
 */
export function protocolToolList(namespaceArg: boolean): ListedTool[] {
  return TOOL_SCHEMAS.map((tool) => {
    const { input, output } = toolJsonSchemas(tool, namespaceArg);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: input,
      outputSchema: output,
      annotations: { title: tool.title, ...tool.annotations },
    };
  });
}

/**
 * The server's tools/list answer as it came: `client.listTools()` parses it, which can reorder
 * keys and drop ones the SDK does not know.
 */
export async function toolListAsSent(client: Client): Promise<ListedTool[]> {
  const result = (await client.request({ method: "tools/list" }, z.unknown())) as {
    tools: ListedTool[];
  };
  return result.tools;
}
