/**
 * Who may use which namespaces over HTTP. Each bearer token maps to a grant: the namespaces it
 * may use and whether it may write. `HMS_MCP_TOKEN` is one all-access token; a tokens file
 * (`--tokens-file`, JSON Lines) holds named tokens by their sha256, never the tokens themselves.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";

/** What one token may do. */
export interface Grant {
  /** The token's name in the tokens file (for logs), or "HMS_MCP_TOKEN". */
  readonly name: string;
  /** Whether writes are refused (FORBIDDEN). */
  readonly readOnly: boolean;
  /** Whether calls may use `namespace`. */
  allows(namespace: string): boolean;
  /** Whether it may read the server's metrics (`/metrics`). */
  readonly metrics?: boolean;
}

/** The grant of `HMS_MCP_TOKEN`, and of a server without tokens (stdio, loopback HTTP). */
export const ALL_ACCESS: Grant = {
  name: "HMS_MCP_TOKEN",
  readOnly: false,
  allows: () => true,
  metrics: true,
};

/** A namespace (`alice`), a prefix pattern (`user-*`: every name starting with `user-`) or `*`. */
const NAMESPACE_GRANT = /^(?:[a-z0-9][a-z0-9_-]{0,63}|[a-z0-9][a-z0-9_-]{0,62}\*|\*)$/;

/** One line of the tokens file. */
const TokenEntry = z.strictObject({
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/,
      "expected 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-'",
    ),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected the token's sha256 as 64 lower-case hex digits"),
  // Empty only for a metrics-only token (checked in parseTokensFile).
  namespaces: z.array(
    z
      .string()
      .regex(NAMESPACE_GRANT, "expected a namespace name, a prefix pattern such as user-*, or *"),
  ),
  access: z.enum(["read-only", "read-write"]),
  /** May read /metrics (absent: false). */
  metrics: z.boolean().optional(),
});
export type TokenEntry = z.infer<typeof TokenEntry>;

const ENTRY_SHAPE =
  'expected an object {"name", "sha256", "namespaces", "access"} (and optionally "metrics")';

/** A tokens file that cannot be used; the message names the file, line and field. */
export class TokensFileError extends Error {
  override readonly name = "TokensFileError";
}

/** The sha256 of a token, hex: what the tokens file holds. */
export function tokenSha256(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new random token (32 random bytes, base64url: 43 characters). */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

function grantOf(entry: TokenEntry): Grant {
  const exact = new Set(entry.namespaces.filter((p) => !p.endsWith("*")));
  const prefixes = entry.namespaces.filter((p) => p.endsWith("*")).map((p) => p.slice(0, -1));
  return {
    name: entry.name,
    readOnly: entry.access === "read-only",
    allows: (namespace) => exact.has(namespace) || prefixes.some((p) => namespace.startsWith(p)),
    metrics: entry.metrics === true,
  };
}

/** A token's hash and its grant. */
interface Entry {
  readonly hash: Buffer;
  readonly grant: Grant;
}

/**
 * Parses a tokens file: one JSON object per non-blank line, `{"name", "sha256", "namespaces",
 * "access"}`. Throws TokensFileError naming the line, the entry and the field at fault.
 */
export function parseTokensFile(text: string, file: string): Entry[] {
  const entries: Entry[] = [];
  const names = new Set<string>();
  const hashes = new Set<string>();
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TokensFileError(`${where}: not a JSON object (one entry per line)`);
    }
    const parsed = TokenEntry.safeParse(value);
    if (!parsed.success) {
      const named = (value as { name?: unknown } | null)?.name;
      const who = typeof named === "string" ? ` (${JSON.stringify(named.slice(0, 64))})` : "";
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      throw new TokensFileError(`${where}${who}: ${describeIssue(issue, value)}`);
    }
    const entry = parsed.data;
    if (entry.namespaces.length === 0 && entry.metrics !== true) {
      throw new TokensFileError(
        `${where} (${JSON.stringify(entry.name)}): namespaces: expected at least one namespace or pattern (none only with "metrics": true)`,
      );
    }
    if (names.has(entry.name)) {
      throw new TokensFileError(`${where}: name ${entry.name} is used by an earlier line`);
    }
    if (hashes.has(entry.sha256)) {
      throw new TokensFileError(
        `${where} (${entry.name}): sha256 is the same as an earlier line's`,
      );
    }
    names.add(entry.name);
    hashes.add(entry.sha256);
    entries.push({ hash: Buffer.from(entry.sha256, "hex"), grant: grantOf(entry) });
  }
  return entries;
}

/** One entry's first problem: `field: what is wrong`, or the entry's shape. */
function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown field ${issue.keys.join(", ")}; ${ENTRY_SHAPE}`;
  }
  if (issue.path.length === 0) return ENTRY_SHAPE;
  const field = issue.path.join(".");
  const missing =
    issue.code === "invalid_type" &&
    issue.path.length === 1 &&
    !(String(issue.path[0]) in (value as object));
  return `${field}: ${missing ? "missing" : issue.message}`;
}

/** Reads and parses a tokens file; TokensFileError when it cannot be read or is not valid. */
export function loadTokensFile(file: string): Entry[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new TokensFileError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseTokensFile(text, file);
}

/**
 * The tokens a server accepts: `HMS_MCP_TOKEN` (all access) and the entries of the tokens file,
 * which {@link reload} replaces. Whoever holds a grant (an HTTP session, its subscriptions)
 * learns of a reload through {@link onReload} and asks {@link current} what the grant's token
 * may do now.
 */
export class Tokens {
  readonly #allAccess: Buffer | undefined;
  readonly #file: string | undefined;
  #entries: Entry[];
  /** The hash (hex) of the token each grant of the file was given to, across reloads. */
  readonly #hashOf = new WeakMap<Grant, string>();
  readonly #listeners = new Set<() => void>();

  /** Loads the tokens file now; throws TokensFileError when it is not valid. */
  constructor(options: { token?: string | undefined; tokensFile?: string | undefined }) {
    this.#allAccess = options.token === undefined ? undefined : sha256(options.token);
    this.#file = options.tokensFile;
    this.#entries = this.#file === undefined ? [] : this.#remember(loadTokensFile(this.#file));
  }

  /** Whether requests must carry a token. */
  get required(): boolean {
    return this.#allAccess !== undefined || this.#file !== undefined;
  }

  /** How many entries the tokens file has. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Reads the tokens file again, then tells every {@link onReload} listener. A file that is not
   * valid, or that holds no token at all, leaves the previous tokens in force and throws
   * TokensFileError saying why: an empty file is what a rewrite in place shows between its
   * truncation and its write, however late the writer runs, so it never locks everyone out.
   */
  reload(): void {
    if (this.#file === undefined) return;
    const entries = loadTokensFile(this.#file);
    if (entries.length === 0) {
      throw new TokensFileError(
        `${this.#file} holds no token (empty, or blank lines only): a file being rewritten ` +
          "looks like this; to revoke every token, stop the server or leave one token nobody holds",
      );
    }
    this.#entries = this.#remember(entries);
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` after each reload that put new tokens in force; returns its remover. */
  onReload(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * What the token that was given `grant` may do now: its grant in the file as it is now
   * (its name, namespaces and access may have changed), or undefined once the token is gone.
   * `HMS_MCP_TOKEN`'s grant never changes.
   */
  current(grant: Grant): Grant | undefined {
    if (grant === ALL_ACCESS) return grant;
    const hash = this.#hashOf.get(grant);
    return this.#entries.find((entry) => this.#hashOf.get(entry.grant) === hash)?.grant;
  }

  /** Keeps each entry's token hash beside its grant (for {@link current}); returns them. */
  #remember(entries: Entry[]): Entry[] {
    for (const entry of entries) this.#hashOf.set(entry.grant, entry.hash.toString("hex"));
    return entries;
  }

  /**
   * The grant of `Authorization: Bearer <token>`, or undefined for a missing or unknown token.
   * Compares the token's sha256 with every known one in constant time, so neither the time
   * taken nor an early exit says how close a guess was.
   */
  authenticate(authorization: string | undefined): Grant | undefined {
    const match = /^Bearer ([^\s].*)$/i.exec(authorization ?? "");
    const presented = sha256(match?.[1] ?? "");
    let found: Grant | undefined;
    if (this.#allAccess !== undefined && timingSafeEqual(presented, this.#allAccess)) {
      found = ALL_ACCESS;
    }
    for (const entry of this.#entries) {
      if (timingSafeEqual(presented, entry.hash)) found ??= entry.grant;
    }
    return match === null ? undefined : found;
  }
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
