import { describe, expect, it } from "vitest";
import { indexText, wordTerms } from "./cjk.js";
import { MATCH_CLOSE as C, EXCERPT_CHARS, excerptOf, MATCH_OPEN as O } from "./excerpt.js";
import { queryTerms } from "./query.js";

describe("Chinese and Japanese in the lexical index", () => {
  it("leaves text without a CJK run alone (nothing extra is stored)", () => {
    expect(indexText("Acme prefers email follow-ups")).toBeNull();
    expect(indexText("고객은 이메일을 선호합니다 — Клиент")).toBeNull();
  });

  it("spells a run as its characters and its adjacent pairs, keeping line breaks", () => {
    expect(indexText("电子邮件")).toBe(" 电 子 邮 件 电子 子邮 邮件 ");
    expect(indexText("Acme社\n猫")).toBe("Acme 社 \n 猫 ");
    expect(indexText("メール。OK")).toBe(" メ ー ル メー ール 。OK");
    const text = "第一行\n第二行\n\nthird";
    expect(indexText(text)?.split("\n")).toHaveLength(text.split("\n").length);
  });

  it("asks for the pairs of a query's runs, a lone character as itself", () => {
    expect(wordTerms("电子邮件")).toEqual(["电子", "子邮", "邮件"]);
    expect(wordTerms("猫")).toEqual(["猫"]);
    expect(wordTerms("acme社")).toEqual(["acme", "社"]);
    expect(wordTerms("email")).toEqual(["email"]);
    expect(queryTerms("Acme社の メール")).toEqual(["acme", "社の", "メー", "ール"]);
  });

  it("cuts a long line around its match in the text, not in the indexed form", () => {
    // The indexed form is about three times longer: an offset taken from it would land far
    // past the match.
    const line = `${"这是一个很长的句子。".repeat(30)}客户喜欢电子邮件。${"其他内容。".repeat(200)}`;
    const indexed = indexText(line) ?? "";
    const highlighted = indexed.replace(" 电子 ", ` ${O}电子${C} `);
    const excerpt = excerptOf(line, [{ highlighted, weight: 1 }]);
    expect(excerpt.excerpt).toContain("电子邮件");
    expect(excerpt.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS + 2);
    expect(line).toContain(excerpt.excerpt);
  });
});
