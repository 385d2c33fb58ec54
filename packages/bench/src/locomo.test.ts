import { describe, expect, it } from "vitest";
import {
  type Conversation,
  filesOf,
  normaliseEvidence,
  questionsOf,
  score,
  summarise,
  turnLine,
} from "./locomo";

const conversation: Conversation = {
  sample_id: "conv-x",
  conversation: {
    speaker_a: "Ann",
    speaker_b: "Bo",
    session_2_date_time: "9:00 am on 2 May, 2023",
    session_2: [
      { dia_id: "D2:1", speaker: "Bo", text: "Back again." },
      { dia_id: "D2:2", speaker: "Ann", text: "Welcome back." },
    ],
    session_1_date_time: "1:56 pm on 8 May, 2023",
    session_1: Array.from({ length: 10 }, (_, i) => ({
      dia_id: `D1:${i + 1}`,
      speaker: i % 2 === 0 ? "Ann" : "Bo",
      text: `turn ${i + 1}`,
      ...(i === 4 ? { blip_caption: "a photo of a red bicycle" } : {}),
    })),
  },
  qa: [
    { question: "q1", evidence: ["D1:3"], category: 4 },
    { question: "q2", evidence: ["D1:9; D2:2"], category: 1 },
    { question: "q3", evidence: ["D:1:10", "D"], category: 2 },
    { question: "q4", evidence: ["D9:9"], category: 3 },
    { question: "q5", evidence: ["D1:1"], category: 5 },
  ],
};

describe("LoCoMo as memory files", () => {
  it("writes one line per turn after the session's date line, a photo on its turn's line", () => {
    const [first, second] = filesOf(conversation, "session");
    expect(first?.path).toBe("/memories/locomo/session-01.md");
    const lines = first?.text.split("\n") ?? [];
    expect(lines[0]).toBe("Session 1, 1:56 pm on 8 May, 2023");
    expect(lines[3]).toBe("[D1:3] Ann: turn 3");
    expect(lines[5]).toBe("[D1:5] Ann: turn 5 [shared a photo: a photo of a red bicycle]");
    expect(first?.lines.get("D1:3")).toBe(4);
    expect(second?.path).toBe("/memories/locomo/session-02.md");
    expect(turnLine({ dia_id: "D1:1", speaker: "A", text: "two\nlines" })).toBe(
      "[D1:1] A: two lines",
    );
  });

  it("cuts sessions into 8-turn files and one-turn files, each with the date line first", () => {
    const chunks = filesOf(conversation, "chunk");
    expect(chunks.map((f) => f.path)).toEqual([
      "/memories/locomo/session-01-part-01.md",
      "/memories/locomo/session-01-part-02.md",
      "/memories/locomo/session-02-part-01.md",
    ]);
    expect(chunks[1]?.text).toBe(
      "Session 1, 1:56 pm on 8 May, 2023\n[D1:9] Ann: turn 9\n[D1:10] Bo: turn 10",
    );
    expect(chunks[1]?.lines.get("D1:10")).toBe(3);
    const turns = filesOf(conversation, "turn");
    expect(turns).toHaveLength(12);
    expect(turns[2]).toMatchObject({ path: "/memories/locomo/session-01/turn-003.md" });
    expect(turns[2]?.lines.get("D1:3")).toBe(2);
  });

  it("normalises malformed evidence ids and drops those naming no turn", () => {
    const known = new Set(["D1:9", "D2:2", "D11:26", "D1:10"]);
    expect(normaliseEvidence(["D1:9; D2:2"], known)).toEqual(["D1:9", "D2:2"]);
    expect(normaliseEvidence(["D:11:26", "D", "D11:26"], known)).toEqual(["D11:26"]);
    expect(normaliseEvidence(["D27:23", "D1:10"], known)).toEqual(["D1:10"]);
  });

  it("asks categories 1 to 4 only, and not a question left without evidence", () => {
    const { questions, withoutEvidence } = questionsOf(conversation);
    expect(questions.map((q) => [q.question, q.evidence])).toEqual([
      ["q1", ["D1:3"]],
      ["q2", ["D1:9", "D2:2"]],
      ["q3", ["D1:10"]],
    ]);
    expect(withoutEvidence).toBe(1);
  });

  it("judges the range of the best-ranked file that holds evidence", () => {
    const files = new Map(filesOf(conversation, "chunk").map((f) => [f.path, f]));
    const evidence = ["D1:9", "D2:2"];
    const miss = { path: "/memories/locomo/session-01-part-01.md", lineStart: 1, lineEnd: 9 };
    const right = { path: "/memories/locomo/session-01-part-02.md", lineStart: 1, lineEnd: 1 };
    const also = { path: "/memories/locomo/session-02-part-01.md", lineStart: 3, lineEnd: 3 };
    // The first right file is ranked 2nd; its range (line 1, the date) misses D1:9 on line 2,
    // and the later right file whose range would hit is not looked at.
    expect(score([miss, right, also], evidence, files)).toEqual({
      fileRank: 2,
      rangeHit: false,
      rangeLines: 1,
    });
    expect(score([also], evidence, files)).toEqual({ fileRank: 1, rangeHit: true, rangeLines: 1 });
    expect(score([miss], evidence, files)).toEqual({ fileRank: 0, rangeHit: false, rangeLines: 0 });
    const summary = summarise(
      [
        { fileRank: 2, rangeHit: false, rangeLines: 1 },
        { fileRank: 1, rangeHit: true, rangeLines: 3 },
        { fileRank: 0, rangeHit: false, rangeLines: 0 },
      ],
      [1, 3, 5],
    );
    expect(summary).toEqual({
      questions: 3,
      fileRecall: 2 / 3,
      rangeHit: 0.5,
      mrr: 0.5,
      rangeLinesJudged: 2,
      rangeLinesAll: 3,
    });
  });
});
