/**
 * docs/cli/README.md's "First five minutes", run as a stranger runs it: the commands are read
 * from the README itself (so the guide and this test cannot drift apart) and run in a shell,
 * in an empty folder, with `hms` on PATH as `npm install -g hms-cli` puts it there.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnv, hmsCliBin, tempDir } from "@hms/test-support";
import { afterEach, describe, expect, it } from "vitest";

const README = fileURLToPath(new URL("../../../../docs/cli/README.md", import.meta.url));
const INSTALL = "npm install -g hms-cli";

/** The shell blocks of the README's "First five minutes" section, in order. */
function firstFiveMinutes(): string[][] {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("\n## First five minutes\n");
  expect(start, "docs/cli/README.md has a First five minutes section").toBeGreaterThan(0);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    (match[1] as string).split("\n").filter((line) => line.trim() !== ""),
  );
}

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function scratch(): string {
  const { dir, remove } = tempDir("hms-first-");
  cleanups.push(remove);
  return dir;
}

describe("docs/cli/README.md, First five minutes", () => {
  it("names the Node.js versions that engines states, the ones tested", () => {
    const manifest = fileURLToPath(new URL("../../package.json", import.meta.url));
    const { engines } = JSON.parse(readFileSync(manifest, "utf8")) as { engines: { node: string } };
    // "^22.23.5 || ^24.22.3" as the store's message says it too (the newest line first).
    const floors = engines.node
      .split("||")
      .map((part) => part.trim().replace(/^\^/, ""))
      .sort((a, b) => Number.parseInt(b, 10) - Number.parseInt(a, 10));
    const words = floors.map((floor) => `${floor} or a later ${floor.split(".")[0]}`).join(", or ");
    expect(readFileSync(README, "utf8")).toContain(`Install it (Node.js ${words};`);
  });

  it("works as written, from install to export", () => {
    const [install, trial, ...more] = firstFiveMinutes();
    expect(more).toEqual([]);
    // The install line is the one thing not run: the workspace build stands for the package
    // from npm, as a `hms` command on PATH.
    expect(install).toEqual([INSTALL]);
    const bin = scratch();
    writeFileSync(
      join(bin, "hms"),
      `#!/bin/sh\nexec "${process.execPath}" "${hmsCliBin()}" "$@"\n`,
    );
    chmodSync(join(bin, "hms"), 0o755);
    // $EDITOR: a person adding a line, then saving and quitting.
    const editor = join(bin, "editor");
    writeFileSync(editor, "#!/bin/sh\nprintf 'Renewal due in March.\\n' >> \"$1\"\n");
    chmodSync(editor, 0o755);

    const folder = scratch();
    const lines = trial as string[];
    const run = spawnSync("/bin/sh", ["-e", "-c", lines.join("\n")], {
      cwd: folder,
      env: cleanEnv({ PATH: `${bin}:${process.env.PATH ?? ""}`, EDITOR: editor }),
      encoding: "utf8",
      timeout: 170_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = run.stdout;
    expect(out).toContain("imported 1 memory from memory");
    expect(out).toMatch(/ \/memories\/customers\/acme\.md\n/);
    expect(out).toContain("# Acme Corp\nPrefers email follow-ups.\n");
    expect(out).toContain("+Contact: Dana");
    expect(out).toMatch(/hms_edit\n[\s\S]*hms_write\n[\s\S]*hms_import\n/);
    expect(out).toMatch(/\ndefault +1 /);
    // The last line prints what `hms export` wrote: every change, byte for byte.
    const final = "# Acme Corp\nPrefers email follow-ups.\nContact: Dana\nRenewal due in March.\n";
    expect(out.endsWith(`exported 1 memory file to backup\n${final}`)).toBe(true);
    expect(
      readFileSync(join(folder, "hms-try", "backup", "memories", "customers", "acme.md"), "utf8"),
    ).toBe(final);
  });
});
