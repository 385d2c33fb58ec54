export { parseScript } from "./script";
export {
  type MessagesRequest,
  type RecordedRequest,
  type ScriptedBlock,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTextBlock,
  type ScriptedToolUseBlock,
  type ScriptedTurn,
  type ScriptStep,
  startScriptedModel,
} from "./server";
