import { afterEach, describe, expect, it } from "vitest";
import { SERVER_INFO } from "../version.js";
import { ConfigError, parseConfig } from "./config.js";
import { inProcessConfig } from "./in-process.js";

/** The command's configuration from `argv` alone: no HMS_MCP_* variable of this process. */
function commandConfig(argv: string[]) {
  const saved = Object.entries(process.env).filter(([name]) => name.startsWith("HMS_MCP_"));
  for (const [name] of saved) delete process.env[name];
  try {
    return parseConfig(argv, {}, SERVER_INFO.version);
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}

function refusal(options: unknown): string {
  try {
    inProcessConfig(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(options)} was accepted`);
}

const saved = process.env.HMS_MCP_SYNCHRONOUS;
afterEach(() => {
  if (saved === undefined) delete process.env.HMS_MCP_SYNCHRONOUS;
  else process.env.HMS_MCP_SYNCHRONOUS = saved;
});

describe("an in-process server's options", () => {
  it("default to what the command starts with: the same limits, durability and history", () => {
    expect(inProcessConfig({ dataDir: "/tmp/data" })).toEqual({
      ...commandConfig(["--data-dir", "/tmp/data"]),
      transport: "in-process",
    });
  });

  it("are the command's flags, one for one", () => {
    const options = {
      dataDir: "relative/data",
      namespace: "agent-1",
      namespaceArg: true,
      maxTextBytes: 1000,
      maxOpenNamespaces: 3,
      maxNamespaces: 7,
      busyTimeoutMs: 250,
      synchronous: "normal",
      keepVersions: 5,
      keepDays: 2,
      logLevel: "silent",
    } as const;
    const argv = [
      ["--data-dir", "relative/data"],
      ["--namespace", "agent-1"],
      ["--namespace-arg"],
      ["--max-text-bytes", "1000"],
      ["--max-open-namespaces", "3"],
      ["--max-namespaces", "7"],
      ["--busy-timeout", "250"],
      ["--synchronous", "normal"],
      ["--keep-versions", "5"],
      ["--keep-days", "2"],
      ["--log-level", "silent"],
    ].flat();
    expect(inProcessConfig(options)).toEqual({ ...commandConfig(argv), transport: "in-process" });
    expect(
      inProcessConfig({
        databaseUrl: "postgres://u:p@localhost:5432/db",
        pgPoolSize: 4,
        migrate: false,
      }),
    ).toEqual({
      ...commandConfig([
        "--database-url",
        "postgres://u:p@localhost:5432/db",
        "--pg-pool-size",
        "4",
        "--no-migrate",
      ]),
      transport: "in-process",
    });
  });

  it("ignore this process's HMS_MCP_* variables", () => {
    process.env.HMS_MCP_SYNCHRONOUS = "normal";
    expect(inProcessConfig({ dataDir: "/tmp/data" }).synchronous).toBe("full");
  });

  it("are refused, naming the option and the flag, as the flag would be", () => {
    expect(refusal({ dataDir: "/d", maxTextBytes: 2_000_000 })).toBe(
      'in-process option maxTextBytes (the --max-text-bytes flag) is "2000000": expected an ' +
        "integer from 1 to 1572864 (1.5 MiB): JSON may write each byte of a memory as 6 (a " +
        "control character is \\u00XX), and a larger memory would make answers over the 10 MiB " +
        "the MCP TypeScript SDK's stdio client reads",
    );
    expect(refusal({ dataDir: "/d", busyTimeoutMs: 1.5 })).toBe(
      'in-process option busyTimeoutMs (the --busy-timeout flag) is "1.5": expected an integer ' +
        "from 0 to 600000",
    );
    expect(refusal({ dataDir: "/d", keepVersions: -1 })).toMatch(
      /^in-process option keepVersions \(the --keep-versions flag\) is "-1": expected an integer/,
    );
    expect(refusal({ dataDir: "/d", synchronous: "off" })).toBe(
      'in-process option synchronous (the --synchronous flag) is "off"; choose one of full, normal',
    );
    expect(refusal({ dataDir: "/d", namespace: "../x" })).toMatch(
      /^in-process option namespace \(the --namespace flag\) is "\.\.\/x": /,
    );
  });

  it("are refused when unknown, of the wrong type, empty, missing or at odds", () => {
    expect(refusal({ dataDir: "/d", port: 8080 })).toBe(
      'unknown in-process option "port"; known: dataDir, databaseUrl, pgPoolSize, migrate, ' +
        "namespace, namespaceArg, maxTextBytes, maxOpenNamespaces, maxNamespaces, " +
        "busyTimeoutMs, synchronous, keepVersions, keepDays, modelDir, reembed, embedWorkers, " +
        "embedThreads, recallWaitMs, logLevel, metricsPort",
    );
    expect(refusal({ dataDir: "/d", maxTextBytes: "1000" })).toBe(
      'in-process option maxTextBytes (the --max-text-bytes flag) must be a number, got "1000"',
    );
    expect(refusal({ dataDir: 42 })).toBe(
      "in-process option dataDir (the --data-dir flag) must be a string, got number 42",
    );
    expect(refusal({ dataDir: "/d", namespaceArg: "yes" })).toBe(
      'in-process option namespaceArg (the --namespace-arg flag) must be a boolean, got "yes"',
    );
    expect(refusal({ dataDir: " " })).toBe(
      "in-process option dataDir (the --data-dir flag) is empty; give a value or leave it out",
    );
    expect(refusal({})).toBe(
      "an in-process server needs dataDir (the directory of its SQLite stores) or databaseUrl " +
        "(a PostgreSQL database)",
    );
    expect(refusal(null)).toBe(
      "the in-process server's options must be an object, such as { dataDir: '/path/to/data' }",
    );
    expect(refusal({ dataDir: "/d", databaseUrl: "postgres://u:p@localhost/db" })).toMatch(
      /^--data-dir \(HMS_MCP_DATA_DIR\) and --database-url \(HMS_MCP_DATABASE_URL\) both say/,
    );
    expect(refusal({ dataDir: "/d", reembed: true })).toMatch(/no --model-dir was given$/);
  });
});
