/**
 * The prompts primitive: one prompt, `recall`, which puts recalled memories in context, each
 * with its last change, optionally only those changed in a time range.
 */
import type { RecallHit } from "@hms/store";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { grantOf, openStore, type Runtime } from "../runtime/runtime.js";
import { recallMemories } from "../tools/recall.js";
import { requestNamespace } from "./namespace.js";
import { HEAVY_WEIGHT, inTurn } from "./turns.js";

/** Answers prompts/list and prompts/get on `server`. */
export function registerPrompts(server: Server, runtime: Runtime): void {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: "recall",
        title: "Recall memories",
        description:
          "Recall the memories most relevant to a query and put them in context, each with " +
          "when it last changed; modified_after and modified_before keep only the memories " +
          "changed in that time range (what changed this week, say).",
        arguments: [
          { name: "query", description: "What to recall.", required: true },
          { name: "k", description: "How many memories (1 to 50, default 5).", required: false },
          {
            name: "modified_after",
            description:
              "Only memories last changed at or after this time: ISO 8601 with a timezone, " +
              "such as 2026-07-01T00:00:00Z.",
            required: false,
          },
          {
            name: "modified_before",
            description: "Only memories last changed before this time (ISO 8601 with a timezone).",
            required: false,
          },
          // As every tool takes it, on a server started with --namespace-arg.
          ...(runtime.namespaceArg
            ? [
                {
                  name: "namespace",
                  description: `The namespace (store) to recall from; default: ${runtime.namespace}.`,
                  required: false,
                },
              ]
            : []),
        ],
      },
    ],
  }));

  // A recall, and weighs as one in the fair order.
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    inTurn(runtime, extra, HEAVY_WEIGHT, async () => {
      if (request.params.name !== "recall") {
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      }
      const args = request.params.arguments ?? {};
      const query = args.query;
      const kText = args.k;
      const k = kText === undefined || kText === "" ? undefined : Number(kText);
      // An empty argument is one a client's form left blank: no bound.
      const bound = (value: string | undefined) => (value === "" ? undefined : value);
      if (typeof query !== "string") {
        throw new McpError(ErrorCode.InvalidParams, "The recall prompt needs a query argument");
      }
      const namespace = requestNamespace(runtime, request.params.arguments?.namespace);
      let hits: readonly RecallHit[];
      try {
        const store = await openStore(runtime, namespace, {
          grant: grantOf(extra),
          write: false,
        });
        hits = (
          await recallMemories({ store, semantic: runtime.semantic, caller: server }, query, {
            k,
            modifiedAfter: bound(args.modified_after),
            modifiedBefore: bound(args.modified_before),
          })
        ).hits;
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
      }
      const body =
        hits.length === 0
          ? args.modified_after || args.modified_before
            ? "No memory changed in that time range matches this query."
            : "No stored memory matches this query."
          : hits
              .map(
                (hit) =>
                  `<memory key=${JSON.stringify(hit.key)} lines="${hit.line_start}-${hit.line_end}" modified="${hit.updated_at}">\n${hit.excerpt}\n</memory>`,
              )
              .join("\n");
      return {
        description: `Memories relevant to: ${query}`,
        messages: [
          {
            role: "user" as const,
            content: {
              type: "text" as const,
              text: `Memories relevant to "${query}" (best first):\n\n${body}`,
            },
          },
        ],
      };
    }),
  );
}
