/**
 * The request's `context_management` (context editing), checked as the Messages API takes it,
 * so that a test against this stand-in fails where the API would refuse the request: the beta
 * it needs is named in the `anthropic-beta` header, `edits` is a list of known strategies, and
 * each strategy has only the fields it takes, each of its shape. The shapes are the Anthropic
 * SDKs' beta types (`BetaContextManagementConfig`, `BetaClearToolUses20250919Edit`, ...).
 *
 * One rule is stricter than the API, on purpose: every name in `exclude_tools` must be one of
 * the request's tools. A misspelt name (`memory_20250818` for `memory`) is accepted by the API
 * and then protects nothing: the memory tool's results would be cleared without a word.
 */

/** The beta that context editing needs in the `anthropic-beta` header. */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

type Fields = Record<string, unknown>;

/** Checks one edit's fields: each returns a problem, or undefined. */
const EDITS: Record<
  string,
  (edit: Fields, where: string, tools: Set<string>) => string | undefined
> = {
  clear_tool_uses_20250919: (edit, where, tools) =>
    onlyFields(edit, where, [
      "type",
      "trigger",
      "keep",
      "clear_at_least",
      "exclude_tools",
      "clear_tool_inputs",
    ]) ??
    optional(edit.trigger, (v) => counted(v, `${where}.trigger`, ["input_tokens", "tool_uses"])) ??
    optional(edit.keep, (v) => counted(v, `${where}.keep`, ["tool_uses"])) ??
    nullable(edit.clear_at_least, (v) => counted(v, `${where}.clear_at_least`, ["input_tokens"])) ??
    nullable(edit.exclude_tools, (v) => toolNames(v, `${where}.exclude_tools`, tools)) ??
    nullable(edit.clear_tool_inputs, (v) =>
      typeof v === "boolean" ? undefined : toolNames(v, `${where}.clear_tool_inputs`, tools),
    ),
  clear_thinking_20251015: (edit, where) =>
    onlyFields(edit, where, ["type", "keep"]) ??
    optional(edit.keep, (v) =>
      v === "all" ? undefined : counted(v, `${where}.keep`, ["thinking_turns"]),
    ),
  compact_20260112: (edit, where) => (isObject(edit) ? undefined : `${where} must be an object`),
};

/**
 * What is wrong with the request's `context_management`, or undefined when it has none or it
 * is as the API takes it. `beta` is the request's `anthropic-beta` header; `requestTools` the
 * tools the conversation has (the request's own, or, for a request that continues a thread and
 * sends none, the thread's).
 */
export function checkContextManagement(
  body: Fields,
  beta: string | string[] | undefined,
  requestTools: unknown = body.tools,
): string | undefined {
  const config = body.context_management;
  if (config === undefined || config === null) return undefined;
  const betas = (Array.isArray(beta) ? beta.join(",") : (beta ?? "")).split(",");
  if (!betas.map((name) => name.trim()).includes(CONTEXT_MANAGEMENT_BETA)) {
    return `context_management needs the beta ${CONTEXT_MANAGEMENT_BETA} in the anthropic-beta header (betas: ["${CONTEXT_MANAGEMENT_BETA}"])`;
  }
  if (!isObject(config)) return "context_management must be an object";
  const unknown = onlyFields(config, "context_management", ["edits"]);
  if (unknown) return unknown;
  if (config.edits === undefined) return undefined;
  if (!Array.isArray(config.edits)) return "context_management.edits must be a list";
  const tools = new Set(
    (Array.isArray(requestTools) ? requestTools : [])
      .map((tool) => (isObject(tool) ? tool.name : undefined))
      .filter((name): name is string => typeof name === "string"),
  );
  for (const [i, edit] of config.edits.entries()) {
    const where = `context_management.edits[${i}]`;
    if (!isObject(edit)) return `${where} must be an object`;
    const check = typeof edit.type === "string" ? EDITS[edit.type] : undefined;
    if (check === undefined) {
      return `${where}.type must be one of ${Object.keys(EDITS).join(", ")}, not ${JSON.stringify(edit.type)}`;
    }
    const problem = check(edit, where, tools);
    if (problem) return problem;
  }
  return undefined;
}

function onlyFields(value: Fields, where: string, allowed: string[]): string | undefined {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  return extra === undefined ? undefined : `${where}.${extra} is not a field the API takes here`;
}

function optional(value: unknown, check: (value: unknown) => string | undefined) {
  return value === undefined ? undefined : check(value);
}

function nullable(value: unknown, check: (value: unknown) => string | undefined) {
  return value === undefined || value === null ? undefined : check(value);
}

/** `{ type, value }` with one of `types` and a whole number of at least 0. */
function counted(value: unknown, where: string, types: string[]): string | undefined {
  if (!isObject(value)) return `${where} must be {"type": ..., "value": ...}`;
  const extra = onlyFields(value, where, ["type", "value"]);
  if (extra) return extra;
  if (typeof value.type !== "string" || !types.includes(value.type)) {
    return `${where}.type must be ${types.map((t) => JSON.stringify(t)).join(" or ")}`;
  }
  if (!Number.isSafeInteger(value.value) || (value.value as number) < 0) {
    return `${where}.value must be a whole number of at least 0`;
  }
  return undefined;
}

/** A list of names of the request's tools. */
function toolNames(value: unknown, where: string, tools: Set<string>): string | undefined {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    return `${where} must be a list of tool names`;
  }
  const stranger = value.find((name) => !tools.has(name));
  if (stranger !== undefined) {
    return `${where} names ${JSON.stringify(stranger)}, which is not one of the request's tools (${[...tools].join(", ")}): its uses would be cleared all the same`;
  }
  return undefined;
}

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
