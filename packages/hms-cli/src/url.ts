/**
 * `--url`: what hms takes (http:// or https://, no user name or password) and how a URL is
 * shown in a message (never with a password).
 */
import { CliError, EXIT } from "./errors.js";

/** The user-information part of any URL in a text (`//user:pass@`), to hide. */
const USER_INFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/** `text` with the user name and password of every URL in it replaced by `***`. */
export function redactUrls(text: string): string {
  return text.replace(USER_INFO, "$1***@");
}

/**
 * `url` as a URL, or a usage error saying what is wrong with it. A user name or password in
 * it is refused: hms-mcp reads a Bearer token (HMS_MCP_TOKEN) from the Authorization header,
 * the header that basic authentication would need, and a password on a command line is
 * readable by every user of the machine (`ps`).
 */
export function checkUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url ${JSON.stringify(redactUrls(url))} is not a URL`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`--url must be http:// or https://, not ${parsed.protocol}`, EXIT.usage);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new CliError(
      `--url ${redactUrls(parsed.href)} carries a user name or password, which hms does not ` +
        "send: hms-mcp takes a token, set it in HMS_MCP_TOKEN (a password on the command " +
        "line is also visible to every user of this machine); give the URL without them",
      EXIT.usage,
    );
  }
  return parsed;
}
