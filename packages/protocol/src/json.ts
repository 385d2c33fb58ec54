/**
 * The contract as plain JSON, for clients in other languages (the Python package ships a copy
 * of `protocol.json`). `pnpm --filter @hms/protocol emit` writes it; a test fails when the
 * committed file differs from what this module produces.
 */
import { ERROR_CODES, ERROR_META_KEY } from "./errors.js";
import {
  DEFAULT_MAX_TEXT_BYTES,
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  MAX_ANSWER_BYTES,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  MAX_TEXT_BYTES_CAP,
} from "./limits.js";
import { MEMORY_FILE_TAG, MEMORY_ROOT } from "./memory-files.js";
import { CHANGE_META_KEY } from "./notifications.js";
import { TOOL_SCHEMAS, toolJsonSchemas } from "./tools.js";
import { CAPABILITY_KEY, PROTOCOL_VERSION } from "./version.js";

/** The contract as a JSON-ready object (snake_case keys, as Python reads them). */
export function protocolJson(): Record<string, unknown> {
  return {
    protocol_version: PROTOCOL_VERSION,
    capability: CAPABILITY_KEY,
    memory_file_tag: MEMORY_FILE_TAG,
    memory_root: MEMORY_ROOT,
    error_meta_key: ERROR_META_KEY,
    change_meta_key: CHANGE_META_KEY,
    error_codes: [...ERROR_CODES],
    limits: {
      default_recall_k: DEFAULT_RECALL_K,
      max_recall_k: MAX_RECALL_K,
      max_query_bytes: MAX_QUERY_BYTES,
      default_page: DEFAULT_PAGE,
      max_page: MAX_PAGE,
      default_max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
      max_text_bytes_cap: MAX_TEXT_BYTES_CAP,
      max_answer_bytes: MAX_ANSWER_BYTES,
    },
    tools: Object.fromEntries(
      TOOL_SCHEMAS.map((tool) => {
        const { input, output } = toolJsonSchemas(tool);
        return [tool.name, { input_schema: input, output_schema: output }];
      }),
    ),
  };
}

/** `protocol.json`'s text: {@link protocolJson} with two-space indents and a final newline. */
export function protocolJsonText(): string {
  return `${JSON.stringify(protocolJson(), null, 2)}\n`;
}
