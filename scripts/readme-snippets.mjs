// The README's code, as a user copies it, for pack-install-test.mjs and pip-install.mjs: the
// TypeScript and Python snippets that connect the memory tool, read from README.md itself (so
// the README and the checks cannot drift apart), and the scripted stand-in for the Messages API
// they run against (the installed @hms/scripted-model; never the real API).
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "./publishable.mjs";

/** What the fence of each language's snippet says. */
const FENCES = { typescript: "ts", python: "python" };
/** What the snippet of each language uses: the first block of its language that holds it. */
const CONNECTS = { typescript: "HolographicMemoryTool.connect(", python: ".connect(" };

/** The README's snippet in `language` ("typescript" or "python"), exactly as written. */
export function readmeSnippet(language) {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const fence = FENCES[language];
  for (const match of readme.matchAll(new RegExp(`\`\`\`${fence}\\n([\\s\\S]*?)\`\`\``, "g"))) {
    if (match[1].includes(CONNECTS[language])) return match[1];
  }
  throw new Error(`README.md: no \`\`\`${fence} block that calls ${CONNECTS[language]}`);
}

/**
 * Claude's side of the snippets' conversation ("Remember that Acme Corp prefers email
 * follow-ups."): it creates the file, then says so. `SNIPPET_FILE` is what the store then holds.
 */
export const SNIPPET_FILE = {
  path: "/memories/acme.md",
  text: "Acme Corp prefers email follow-ups.\n",
};
const SCRIPT = {
  turns: [
    {
      content: [
        {
          type: "tool_use",
          name: "memory",
          input: { command: "create", path: SNIPPET_FILE.path, file_text: SNIPPET_FILE.text },
        },
      ],
    },
    { content: [{ type: "text", text: "Saved." }] },
  ],
};

/**
 * Runs `use(url)` while the stand-in (`scriptedModel`: the installed @hms/scripted-model's
 * folder) answers at `url`, on this script's own Node.js; `work` is a folder for its script.
 */
export async function withScriptedModel(scriptedModel, work, use) {
  const script = join(work, "readme-snippet-script.json");
  writeFileSync(script, JSON.stringify(SCRIPT));
  const model = spawn(process.execPath, [join(scriptedModel, "dist/cli.js"), "--script", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const { value: line } = await createInterface({ input: model.stdout })
      [Symbol.asyncIterator]()
      .next();
    if (line === undefined) throw new Error("the scripted model stopped before it listened");
    return await use(JSON.parse(line).url);
  } finally {
    model.kill();
  }
}
