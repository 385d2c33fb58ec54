/**
 * An MCP server that relays to a real hms-mcp but hides some of what it offers, so a client's
 * fallbacks can be tested against a real server that lacks them (hms-mcp itself has no flag
 * for that). It speaks MCP over its stdio and starts the real server as its child:
 *
 *   node hiding-proxy.js --hide move --hide forget.prefix -- node cli.js --data-dir DIR
 *
 * `--hide TOOL` removes a tool from tools/list and refuses calls to it as an unknown tool;
 * `--hide TOOL.ARG` removes one argument from the tool's input schema and refuses calls that
 * pass it with INVALID_ARGUMENT, as a server that never had the argument would.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

function parseArgs(argv: string[]): { hidden: string[]; command: string; args: string[] } {
  const hidden: string[] = [];
  let i = 0;
  for (; i < argv.length && argv[i] !== "--"; i++) {
    if (argv[i] === "--hide" && argv[i + 1] !== undefined) hidden.push(argv[++i] as string);
    else throw new Error(`hiding-proxy: unexpected argument ${argv[i]}`);
  }
  const [command, ...args] = argv.slice(i + 1);
  if (command === undefined) throw new Error("hiding-proxy: give the server command after --");
  return { hidden, command, args };
}

async function main(): Promise<void> {
  const { hidden, command, args } = parseArgs(process.argv.slice(2));
  const hiddenTools = new Set(hidden.filter((h) => !h.includes(".")));
  const hiddenArgs = new Map<string, Set<string>>();
  for (const h of hidden.filter((h) => h.includes("."))) {
    const [tool, arg] = h.split(".") as [string, string];
    hiddenArgs.set(tool, (hiddenArgs.get(tool) ?? new Set()).add(arg));
  }

  const upstream = new Client({ name: "hiding-proxy", version: "0" });
  await upstream.connect(
    new StdioClientTransport({ command, args, env: process.env as Record<string, string> }),
  );

  const server = new Server(
    { name: "hms-mcp-behind-a-hiding-proxy", version: "0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { tools } = await upstream.listTools();
    return {
      tools: tools
        .filter((tool) => !hiddenTools.has(tool.name))
        .map((tool): Tool => {
          const gone = hiddenArgs.get(tool.name);
          if (!gone) return tool;
          const properties = { ...(tool.inputSchema.properties ?? {}) };
          for (const name of gone) delete properties[name];
          const required = tool.inputSchema.required?.filter((name) => !gone.has(name));
          return { ...tool, inputSchema: { ...tool.inputSchema, properties, required } };
        }),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: input = {} } = request.params;
    if (hiddenTools.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const refused = [...(hiddenArgs.get(name) ?? [])].filter((arg) => arg in input);
    if (refused.length > 0) {
      return {
        isError: true,
        content: [{ type: "text", text: `INVALID_ARGUMENT: unknown argument ${refused[0]}` }],
      };
    }
    return upstream.request({ method: "tools/call", params: request.params }, CallToolResultSchema);
  });
  // Like hms-mcp, stop when the client closes our stdin.
  const stop = () => void upstream.close().then(() => process.exit(0));
  server.onclose = stop;
  process.stdin.once("end", stop);
  await server.connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
  process.stderr.write(`hiding-proxy: ${String(error)}\n`);
  process.exit(1);
});
