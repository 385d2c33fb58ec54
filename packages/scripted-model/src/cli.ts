#!/usr/bin/env node
// scripted-model --script FILE [--host H] [--port P]
// Serves the script's replies as the Anthropic Messages API. Prints one JSON line,
// {"url": "..."}, on stdout once listening, so a parent process in any language can read it;
// logs go to stderr. Stops on SIGTERM or SIGINT.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseScript } from "./script";
import { startScriptedModel } from "./server";

const usage = "usage: scripted-model --script FILE [--host 127.0.0.1] [--port 0]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      script: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "0" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (!values.script) throw new Error(`--script is required\n${usage}`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got ${values.port}`);
  }
  const turns = parseScript(JSON.parse(readFileSync(values.script, "utf8")));
  const model = await startScriptedModel({ turns, host: values.host, port });
  process.stdout.write(`${JSON.stringify({ url: model.url })}\n`);
  process.stderr.write(`scripted-model: ${turns.length} replies at ${model.url}\n`);

  const stop = () => {
    model.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `scripted-model: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(2);
});
