import type { ScriptedBlock, ScriptedContextManagement, ScriptedTurn } from "./server";

const STOP_REASONS = new Set(["end_turn", "tool_use", "max_tokens", "stop_sequence"]);

/**
 * Checks a script read from JSON (`{ "turns": [...] }`) and returns its turns, or throws an
 * error that names the first thing wrong with it.
 */
export function parseScript(value: unknown): ScriptedTurn[] {
  if (!isObject(value) || !Array.isArray(value.turns)) {
    throw new Error('a script is a JSON object with a "turns" array');
  }
  return value.turns.map((turn, i) => parseTurn(turn, `turns[${i}]`));
}

function parseTurn(value: unknown, where: string): ScriptedTurn {
  if (!isObject(value) || !Array.isArray(value.content) || value.content.length === 0) {
    throw new Error(`${where} must be an object with a non-empty "content" array`);
  }
  const content = value.content.map((block, j) => parseBlock(block, `${where}.content[${j}]`));
  const turn: ScriptedTurn = { content };
  if (value.stop_reason !== undefined) {
    if (typeof value.stop_reason !== "string" || !STOP_REASONS.has(value.stop_reason)) {
      throw new Error(`${where}.stop_reason must be one of ${[...STOP_REASONS].join(", ")}`);
    }
    turn.stop_reason = value.stop_reason as ScriptedTurn["stop_reason"];
  }
  if (value.context_management !== undefined) {
    turn.context_management = parseApplied(value.context_management, `${where}.context_management`);
  }
  return turn;
}

/** `{"applied_edits": [{"type": ..., ...}]}`: what the reply says the API cleared. */
function parseApplied(value: unknown, where: string): ScriptedContextManagement {
  if (
    !isObject(value) ||
    !Array.isArray(value.applied_edits) ||
    !value.applied_edits.every((edit) => isObject(edit) && typeof edit.type === "string")
  ) {
    throw new Error(`${where} must be {"applied_edits": [{"type": ..., ...}, ...]}`);
  }
  return { applied_edits: value.applied_edits as ScriptedContextManagement["applied_edits"] };
}

function parseBlock(value: unknown, where: string): ScriptedBlock {
  if (isObject(value) && value.type === "text" && typeof value.text === "string") {
    return { type: "text", text: value.text };
  }
  if (
    isObject(value) &&
    value.type === "tool_use" &&
    typeof value.name === "string" &&
    isObject(value.input) &&
    (value.id === undefined || typeof value.id === "string")
  ) {
    const block: ScriptedBlock = { type: "tool_use", name: value.name, input: value.input };
    if (typeof value.id === "string") block.id = value.id;
    return block;
  }
  throw new Error(
    `${where} must be {"type":"text","text":...} or {"type":"tool_use","name":...,"input":{...}}`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
