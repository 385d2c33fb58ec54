import { EXCERPT_STOPWORDS as STORE_STOPWORDS } from "@hms/store";
import { describe, expect, it } from "vitest";
import { EXCERPT_STOPWORDS, markTerms, queryStems } from "./marks.js";

const marked = (excerpt: string, query: string) =>
  markTerms(excerpt, query)
    .filter((piece) => piece.marked)
    .map((piece) => piece.text);

describe("the query's words in an excerpt", () => {
  it("are marked in any case and form, and nothing else is", () => {
    expect(
      marked("Acme asked for a QUOTE; quotes go out in EUR.", "when does Acme want the quote?"),
    ).toEqual(["Acme", "QUOTE", "quotes"]);
    expect(marked("She painted the fence.", "paint")).toEqual(["painted"]);
    expect(marked("Companies and a company.", "company")).toEqual(["Companies", "company"]);
    const pieces = markTerms("Call Dana today.", "dana");
    expect(pieces.map((piece) => piece.text).join("")).toBe("Call Dana today.");
    expect(pieces).toEqual([
      { text: "Call ", marked: false },
      { text: "Dana", marked: true },
      { text: " today.", marked: false },
    ]);
  });

  it("leave out what says nothing of where the answer is, unless that is all there is", () => {
    expect([...queryStems("what is the currency?")]).toEqual(["currency"]);
    expect([...queryStems("who are you")]).toEqual(["who", "are", "you"]);
  });

  it("skip the same words as the store's excerpts do", () => {
    expect([...EXCERPT_STOPWORDS].sort()).toEqual([...STORE_STOPWORDS].sort());
  });
});
