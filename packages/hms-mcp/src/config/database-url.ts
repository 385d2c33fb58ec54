/**
 * The PostgreSQL URL of `--database-url`: checked at the boundary, and shown only without its
 * password (a URL names the secret in plain text, and logs and messages are often shared).
 */

/** Why `value` is not a usable database URL, or undefined when it is. */
export function databaseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "it is not a URL; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE";
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    // Only the scheme is repeated: the rest may hold a password.
    return `its scheme is ${url.protocol.slice(0, 32)} and hms-mcp stores memories only in PostgreSQL (postgres:// or postgresql://); for SQLite give --data-dir instead`;
  }
  if (url.hostname === "" && !url.searchParams.has("host")) {
    return "it names no host; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE";
  }
  return undefined;
}

/** `url` with its password replaced by `***`, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const name of ["password", "sslpassword"]) {
      if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***");
    }
    return parsed.toString();
  } catch {
    return "(a database URL that does not parse)";
  }
}

/** `text` with every occurrence of `url`'s password replaced by `***`. */
export function withoutPassword(text: string, url: string): string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password === "" ? text : text.split(password).join("***");
}
