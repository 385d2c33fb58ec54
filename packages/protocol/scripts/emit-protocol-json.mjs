// Writes protocol.json from the built package (`pnpm --filter @hms/protocol emit` builds first),
// and copies it into the Python package, which ships it in its wheel.
import { writeFileSync } from "node:fs";
import { protocolJsonText } from "../dist/index.js";

const text = protocolJsonText();
for (const target of ["../protocol.json", "../../../python/src/hms_memory_tool/protocol.json"]) {
  const url = new URL(target, import.meta.url);
  writeFileSync(url, text);
  console.error(`wrote ${url.pathname}`);
}
