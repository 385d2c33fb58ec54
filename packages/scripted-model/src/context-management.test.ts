// The stand-in refuses a request whose context editing the API would refuse, or that would
// protect nothing, and hands the SDK the reply's report of what was cleared.
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { afterEach, describe, expect, it } from "vitest";
import { CONTEXT_MANAGEMENT_BETA, checkContextManagement } from "./context-management";
import { parseScript, type ScriptedModel, startScriptedModel } from "./index";

const tools = [{ name: "memory", type: "memory_20250818" }, { name: "fetch_page" }];
const clear = (fields: Record<string, unknown> = {}) => ({
  tools,
  context_management: { edits: [{ type: "clear_tool_uses_20250919", ...fields }] },
});

describe("checkContextManagement", () => {
  it("takes a request without context editing, and each strategy as the SDK types it", () => {
    expect(checkContextManagement({ tools }, undefined)).toBeUndefined();
    const full = clear({
      trigger: { type: "input_tokens", value: 30000 },
      keep: { type: "tool_uses", value: 3 },
      clear_at_least: { type: "input_tokens", value: 5000 },
      exclude_tools: ["memory"],
      clear_tool_inputs: false,
    });
    expect(checkContextManagement(full, CONTEXT_MANAGEMENT_BETA)).toBeUndefined();
    // The SDKs send the header as one comma-separated value.
    expect(checkContextManagement(full, `other-2025-01-01,${CONTEXT_MANAGEMENT_BETA}`)).toBe(
      undefined,
    );
    const thinking = {
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    };
    expect(checkContextManagement(thinking, CONTEXT_MANAGEMENT_BETA)).toBeUndefined();
  });

  it("refuses what the API refuses, naming it", () => {
    const cases: [Record<string, unknown>, string | undefined, string][] = [
      [clear(), undefined, `context_management needs the beta ${CONTEXT_MANAGEMENT_BETA}`],
      [{ context_management: [] }, CONTEXT_MANAGEMENT_BETA, "context_management must be an object"],
      [
        { context_management: { edits: {} } },
        CONTEXT_MANAGEMENT_BETA,
        "context_management.edits must be a list",
      ],
      [
        { context_management: { edits: [{ type: "clear_tool_uses" }] } },
        CONTEXT_MANAGEMENT_BETA,
        'context_management.edits[0].type must be one of clear_tool_uses_20250919, clear_thinking_20251015, compact_20260112, not "clear_tool_uses"',
      ],
      [
        clear({ trigger: { type: "tool_uses", value: -1 } }),
        CONTEXT_MANAGEMENT_BETA,
        "context_management.edits[0].trigger.value must be a whole number of at least 0",
      ],
      [
        clear({ keep: { type: "input_tokens", value: 3 } }),
        CONTEXT_MANAGEMENT_BETA,
        'context_management.edits[0].keep.type must be "tool_uses"',
      ],
      [
        clear({ exclude: ["memory"] }),
        CONTEXT_MANAGEMENT_BETA,
        "context_management.edits[0].exclude is not a field the API takes here",
      ],
      [
        clear({ exclude_tools: "memory" }),
        CONTEXT_MANAGEMENT_BETA,
        "context_management.edits[0].exclude_tools must be a list of tool names",
      ],
    ];
    for (const [body, beta, problem] of cases) {
      expect(checkContextManagement(body, beta)).toContain(problem);
    }
  });

  it("refuses an excluded tool the request does not have: it would protect nothing", () => {
    expect(
      checkContextManagement(
        clear({ exclude_tools: ["memory_20250818"] }),
        CONTEXT_MANAGEMENT_BETA,
      ),
    ).toBe(
      'context_management.edits[0].exclude_tools names "memory_20250818", which is not one of the request\'s tools (memory, fetch_page): its uses would be cleared all the same',
    );
  });
});

const open: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

const noop = betaTool({
  name: "fetch_page",
  description: "Fetches a page.",
  inputSchema: { type: "object", properties: {} },
  run: () => "a long page",
});
const applied = {
  applied_edits: [
    { type: "clear_tool_uses_20250919", cleared_tool_uses: 2, cleared_input_tokens: 9000 },
  ],
};

describe("context editing through the SDK's tool runner", () => {
  for (const stream of [false, true]) {
    it(`sends the configuration and receives what was cleared (${stream ? "streamed" : "JSON"})`, async () => {
      // The second request continues the SDK's thread and sends no tools of its own: the
      // excluded tool is the thread's.
      const model = await startScriptedModel({
        turns: [
          { content: [{ type: "tool_use", name: "fetch_page", input: {} }] },
          { content: [{ type: "text", text: "done" }], context_management: applied },
        ],
      });
      open.push(model);
      const client = new Anthropic({ apiKey: "unused", baseURL: model.url, maxRetries: 0 });
      const final = await client.beta.messages.toolRunner({
        model: "claude-test",
        max_tokens: 100,
        stream,
        betas: [CONTEXT_MANAGEMENT_BETA],
        context_management: {
          edits: [{ type: "clear_tool_uses_20250919", exclude_tools: ["fetch_page"] }],
        },
        messages: [{ role: "user", content: "go" }],
        tools: [noop],
      });
      expect(final.context_management).toEqual(applied);
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1]?.body.tools).toBeUndefined();
      for (const request of model.requests) {
        expect(request.headers["anthropic-beta"]).toContain(CONTEXT_MANAGEMENT_BETA);
      }
    });
  }

  it("answers a request without the beta with a 400 the SDK raises", async () => {
    const model = await startScriptedModel({ turns: [{ content: [{ type: "text", text: "x" }] }] });
    open.push(model);
    const client = new Anthropic({ apiKey: "unused", baseURL: model.url, maxRetries: 0 });
    const run = client.beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 100,
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
      messages: [{ role: "user", content: "go" }],
      tools: [noop],
    });
    await expect(run).rejects.toThrow(/context_management needs the beta/);
    expect(model.remaining()).toBe(1);
  });
});

describe("a script's report of what was cleared", () => {
  it("is read from the script file, and refused when it is not a list of edits", () => {
    const turn = { content: [{ type: "text", text: "x" }] };
    expect(parseScript({ turns: [{ ...turn, context_management: applied }] })).toEqual([
      { ...turn, context_management: applied },
    ]);
    expect(() =>
      parseScript({ turns: [{ ...turn, context_management: { applied_edits: [1] } }] }),
    ).toThrow('turns[0].context_management must be {"applied_edits": [{"type": ..., ...}, ...]}');
  });
});
