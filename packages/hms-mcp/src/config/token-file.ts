/**
 * The all-access token from the environment: HMS_MCP_TOKEN, or the file HMS_MCP_TOKEN_FILE
 * names, as container secrets (/run/secrets/NAME) and systemd credentials
 * ($CREDENTIALS_DIRECTORY/NAME) hand a secret to a program, so that it shows in neither the
 * unit, the image nor the process's environment.
 */
import { readFileSync } from "node:fs";

/**
 * The token HMS_MCP_TOKEN or HMS_MCP_TOKEN_FILE gives (undefined when neither is set), or why
 * it cannot be had (config.ts refuses to start with it).
 */
export function tokenFromEnv(
  env: NodeJS.ProcessEnv,
): { token: string | undefined } | { problem: string } {
  const file = env.HMS_MCP_TOKEN_FILE;
  if (file === undefined) return { token: env.HMS_MCP_TOKEN };
  if (env.HMS_MCP_TOKEN !== undefined) {
    return problem("HMS_MCP_TOKEN and HMS_MCP_TOKEN_FILE both give the token: set one");
  }
  if (file.trim() === "") {
    return problem("HMS_MCP_TOKEN_FILE is set but empty; name the token's file or unset it");
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    return problem(
      `HMS_MCP_TOKEN_FILE ${file} cannot be read (${code}): check the path and that this user may read it`,
    );
  }
  // One line ending, as `echo` or an editor leaves it, is not part of the token.
  const token = text.replace(/\r?\n$/, "");
  if (token.trim() === "") return problem(`HMS_MCP_TOKEN_FILE ${file} is empty`);
  if (/[\r\n]/.test(token)) {
    return problem(
      `HMS_MCP_TOKEN_FILE ${file} holds more than one line: put the token alone in it`,
    );
  }
  return { token };
}

function problem(text: string): { problem: string } {
  return { problem: text };
}
