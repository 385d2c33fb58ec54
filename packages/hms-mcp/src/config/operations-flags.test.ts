import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config.js";

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseConfig(argv, env, "0");

describe("the metrics flags", () => {
  it("turn metrics on over HTTP by default, and on stdio only with --metrics-port", () => {
    expect(parse(["--transport", "http"]).metrics).toEqual({
      enabled: true,
      port: undefined,
      host: "127.0.0.1",
      perNamespace: false,
      totalsRefreshMs: 300_000,
    });
    expect(parse([]).metrics?.enabled).toBe(false);
    expect(parse(["--metrics-port", "0"]).metrics).toMatchObject({ enabled: true, port: 0 });
    expect(parse(["--transport", "http", "--no-metrics"]).metrics?.enabled).toBe(false);
    expect(parse(["--transport", "http"], { HMS_MCP_NO_METRICS: "1" }).metrics?.enabled).toBe(
      false,
    );
    expect(
      parse(["--metrics-port", "9464", "--metrics-per-namespace", "--metrics-totals-refresh", "60"])
        .metrics,
    ).toMatchObject({ enabled: true, port: 9464, perNamespace: true, totalsRefreshMs: 60_000 });
    // Commander reads a flag's variable from process.env; the boolean ones come from `env`.
    process.env.HMS_MCP_METRICS_PORT = "9464";
    try {
      expect(parse([], { HMS_MCP_METRICS_PER_NAMESPACE: "1" }).metrics).toMatchObject({
        enabled: true,
        port: 9464,
        perNamespace: true,
      });
    } finally {
      delete process.env.HMS_MCP_METRICS_PORT;
    }
  });

  it("refuse what contradicts itself or would serve metrics beyond loopback unasked", () => {
    const refusals: [string[], RegExp][] = [
      [["--transport", "http", "--no-metrics", "--metrics-port", "1"], /--no-metrics/],
      [["--transport", "http", "--no-metrics", "--metrics-per-namespace"], /--no-metrics/],
      [["--transport", "http", "--metrics-host", "127.0.0.1"], /add --metrics-port/],
      [["--metrics-per-namespace"], /stdio server serves only on --metrics-port/],
      [
        ["--metrics-port", "1", "--metrics-host", "0.0.0.0"],
        /not a loopback address.*--allow-remote/,
      ],
      [["--metrics-port", "1", "--metrics-host", " "], /must not be empty/],
    ];
    for (const [argv, reason] of refusals) {
      expect(() => parse(argv)).toThrow(ConfigError);
      expect(() => parse(argv)).toThrow(reason);
    }
    expect(
      parse(["--metrics-port", "1", "--metrics-host", "0.0.0.0", "--allow-remote"]).metrics?.host,
    ).toBe("0.0.0.0");
    expect(() => parse(["--metrics-totals-refresh", "0"])).toThrow(/from 1 to 86400/);
  });
});
