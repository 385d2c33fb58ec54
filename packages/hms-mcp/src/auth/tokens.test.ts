import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_ACCESS, parseTokensFile, Tokens, tokenSha256 } from "./tokens.js";

function line(entry: Record<string, unknown>): string {
  return JSON.stringify({ access: "read-write", namespaces: ["a"], ...entry });
}

describe("the tokens file", () => {
  it("grants exact names, prefix patterns and *, nothing more", () => {
    const [entry] = parseTokensFile(
      line({ name: "t", sha256: tokenSha256("x"), namespaces: ["alice", "team-*"] }),
      "f",
    );
    const grant = entry?.grant;
    for (const name of ["alice", "team-", "team-red"]) expect(grant?.allows(name)).toBe(true);
    for (const name of ["alice2", "alic", "team", "bob", "teamred"]) {
      expect(grant?.allows(name)).toBe(false);
    }
    const [all] = parseTokensFile(
      line({ name: "all", sha256: tokenSha256("y"), namespaces: ["*"] }),
      "f",
    );
    expect(all?.grant.allows("anything")).toBe(true);
  });

  it("refuses duplicate names and hashes, naming the line", () => {
    const sha256 = tokenSha256("x");
    expect(() =>
      parseTokensFile(
        `${line({ name: "a", sha256 })}\n${line({ name: "a", sha256: tokenSha256("y") })}`,
        "f",
      ),
    ).toThrow("f line 2: name a is used by an earlier line");
    expect(() =>
      parseTokensFile(`${line({ name: "a", sha256 })}\n\n${line({ name: "b", sha256 })}`, "f"),
    ).toThrow("f line 3 (b): sha256 is the same as an earlier line's");
  });

  it("refuses unknown fields and bad access, naming the field", () => {
    const sha256 = tokenSha256("x");
    expect(() => parseTokensFile(line({ name: "a", sha256, token: "x" }), "f")).toThrow(
      /f line 1 \("a"\): unknown field token; expected an object/,
    );
    expect(() => parseTokensFile(line({ name: "a", sha256, access: "admin" }), "f")).toThrow(
      /f line 1 \("a"\): access: /,
    );
    expect(() => parseTokensFile(line({ name: "a", sha256, namespaces: [] }), "f")).toThrow(
      'f line 1 ("a"): namespaces: expected at least one namespace or pattern',
    );
  });

  it("grants the metrics only to a token marked so, which may then have no namespace", () => {
    const [plain, scraper, both] = parseTokensFile(
      [
        line({ name: "plain", sha256: tokenSha256("p") }),
        line({ name: "scraper", sha256: tokenSha256("s"), namespaces: [], metrics: true }),
        line({ name: "both", sha256: tokenSha256("b"), metrics: true }),
      ].join("\n"),
      "f",
    );
    expect(plain?.grant.metrics).toBe(false);
    expect(scraper?.grant.metrics).toBe(true);
    expect(scraper?.grant.allows("a")).toBe(false);
    expect(both?.grant.metrics).toBe(true);
    expect(both?.grant.allows("a")).toBe(true);
    expect(() =>
      parseTokensFile(line({ name: "a", sha256: tokenSha256("x"), metrics: "yes" }), "f"),
    ).toThrow(/f line 1 \("a"\): metrics: /);
    expect(() =>
      parseTokensFile(
        line({ name: "a", sha256: tokenSha256("x"), namespaces: [], metrics: false }),
        "f",
      ),
    ).toThrow('f line 1 ("a"): namespaces: expected at least one namespace or pattern');
  });

  it("authenticates a bearer token by its hash, and nothing else", () => {
    const tokens = new Tokens({ token: "admin-secret" });
    expect(tokens.authenticate("Bearer admin-secret")?.name).toBe("HMS_MCP_TOKEN");
    expect(tokens.authenticate("bearer admin-secret")?.name).toBe("HMS_MCP_TOKEN");
    for (const header of [
      undefined,
      "",
      "Bearer ",
      "Bearer admin-secre",
      "admin-secret",
      "Basic admin-secret",
    ]) {
      expect(tokens.authenticate(header)).toBeUndefined();
    }
  });

  it("tells its listeners of a reload, and what each token given a grant may do now", () => {
    const dir = mkdtempSync(join(tmpdir(), "tokens-"));
    try {
      const file = join(dir, "tokens.jsonl");
      const alice = line({ name: "alice", sha256: tokenSha256("a"), namespaces: ["alice", "t-*"] });
      const bob = line({ name: "bob", sha256: tokenSha256("b") });
      writeFileSync(file, `${alice}\n${bob}\n`);
      const tokens = new Tokens({ tokensFile: file, token: "admin" });
      const given = tokens.authenticate("Bearer a");
      expect(given?.allows("t-red")).toBe(true);
      let told = 0;
      tokens.onReload(() => told++);

      writeFileSync(
        file,
        `${line({ name: "alice", sha256: tokenSha256("a"), namespaces: ["alice"] })}\n${bob}\n`,
      );
      tokens.reload();
      expect(told).toBe(1);
      const now = tokens.current(given as NonNullable<typeof given>);
      expect(now?.name).toBe("alice");
      expect(now?.allows("t-red")).toBe(false);
      expect(now?.allows("alice")).toBe(true);

      writeFileSync(file, `${bob}\n`);
      tokens.reload();
      expect(told).toBe(2);
      expect(tokens.current(given as NonNullable<typeof given>)).toBeUndefined();
      expect(tokens.current(ALL_ACCESS)).toBe(ALL_ACCESS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never puts an empty file in force: it may be one being rewritten", () => {
    const dir = mkdtempSync(join(tmpdir(), "tokens-"));
    try {
      const file = join(dir, "tokens.jsonl");
      writeFileSync(file, `${line({ name: "alice", sha256: tokenSha256("a") })}\n`);
      const tokens = new Tokens({ tokensFile: file });
      let told = 0;
      tokens.onReload(() => told++);
      for (const empty of ["", "\n\n", "  \n"]) {
        writeFileSync(file, empty);
        expect(() => tokens.reload()).toThrow(/holds no token .*to revoke every token/);
      }
      expect(told).toBe(0);
      expect(tokens.authenticate("Bearer a")?.name).toBe("alice");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
