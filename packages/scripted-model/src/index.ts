export { CONTEXT_MANAGEMENT_BETA, checkContextManagement } from "./context-management";
export { parseScript } from "./script";
export {
  type MessagesRequest,
  type RecordedRequest,
  type ScriptedBlock,
  type ScriptedContextManagement,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTextBlock,
  type ScriptedToolUseBlock,
  type ScriptedTurn,
  type ScriptStep,
  startScriptedModel,
} from "./server";
