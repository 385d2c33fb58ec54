import { describe, expect, it } from "vitest";
import { parseTokensFile, Tokens, tokenSha256 } from "./tokens.js";

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
});
