/**
 * What the flag modules share: the parsers of flag values (each refusal is commander's one
 * line), boolean variables, loopback addresses, and the error a configuration that must not
 * run throws.
 */
import { isIP } from "node:net";
import { MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import { checkNamespace } from "@hms/store";
import { InvalidArgumentError } from "commander";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration the server refuses to start with; the message says why and what to do. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** A parser of an integer flag from `min` to `max`. */
export function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return n;
  };
}

/**
 * --max-text-bytes: at most MAX_TEXT_BYTES_CAP, so that the answer carrying the largest memory
 * stays readable by every official MCP client (see @hms/protocol's limits).
 */
export function maxTextBytes(value: string): number {
  const n = integer(1, Number.MAX_SAFE_INTEGER)(value);
  if (n > MAX_TEXT_BYTES_CAP) {
    throw new InvalidArgumentError(
      `expected an integer from 1 to ${MAX_TEXT_BYTES_CAP} (1.5 MiB): JSON may write each byte ` +
        "of a memory as 6 (a control character is \\u00XX), and a larger memory would make " +
        "answers over the 10 MiB the MCP TypeScript SDK's stdio client reads",
    );
  }
  return n;
}

export function namespaceName(value: string): string {
  try {
    return checkNamespace(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function urlPath(value: string): string {
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(value)) {
    throw new InvalidArgumentError("expected a URL path starting with '/'");
  }
  return value;
}

export function commaList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off", ""]);

/** A boolean flag that can also be turned on by an environment variable. */
export function flagOrEnv(
  flag: boolean | undefined,
  env: NodeJS.ProcessEnv,
  name: string,
): boolean {
  if (flag) return true;
  const value = env[name];
  if (value === undefined) return false;
  const normal = value.trim().toLowerCase();
  if (TRUE.has(normal)) return true;
  if (FALSE.has(normal)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not a boolean; use 1 or 0`);
}

/** True for addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
  return false;
}

/** Writes commander's error as one line: `prefix: what is wrong (hint)`. */
export function oneLineError(prefix: string, hint: string) {
  return (message: string, write: (text: string) => void): void => {
    const what = message
      .replace(/^error: /, "")
      .replace(/\s*\n\s*/g, " ")
      .trim();
    write(`${prefix}: ${what} (${hint})\n`);
  };
}

/** A repeatable `--namespace`: each value checked as a namespace name, all kept in order. */
export function namespaceList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), namespaceName(value)];
}
