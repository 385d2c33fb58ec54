/**
 * LoCoMo (Maharana et al., 2024) as memory files, and how recall hits are scored against its
 * evidence: the parts of `pnpm bench locomo` that need no server (tested in locomo.test.ts).
 *
 * A conversation is a list of sessions, each a date and a list of turns (`dia_id` like `D1:3`,
 * `speaker`, `text`, sometimes a shared photo's `blip_caption`). Its files hold one line per
 * turn, `[D1:3] Speaker: text`, after a first line that gives the session and its date:
 *
 * ```
 * Session 1, 1:56 pm on 8 May, 2023
 * [D1:1] Caroline: Hey Mel! Good to see you! How have you been?
 * [D1:5] Caroline: The transgender stories were so inspiring! [shared a photo: a photo of a dog]
 * ```
 *
 * at three granularities: one file per session, one per 8 turns of a session, one per turn
 * (each file starts with its session's line, so every file says when it was said).
 */

/** How a conversation is cut into files. */
export type Granularity = "session" | "chunk" | "turn";

export const GRANULARITIES: readonly Granularity[] = ["session", "chunk", "turn"];

/** Turns per file at the `chunk` granularity. */
export const CHUNK_TURNS = 8;

/** One turn as the data set has it (fields the bench does not use are left out). */
export interface Turn {
  readonly dia_id: string;
  readonly speaker: string;
  readonly text: string;
  readonly blip_caption?: string;
}

/** A question of the data set. */
export interface QaItem {
  readonly question: string;
  readonly answer?: unknown;
  readonly evidence: readonly string[];
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. */
  readonly category: number;
}

/** One conversation of `locomo10.json` (or its dev split). */
export interface Conversation {
  readonly sample_id: string;
  readonly conversation: Record<string, unknown>;
  readonly qa: readonly QaItem[];
}

/** A session: its number, date and turns, in order. */
export interface Session {
  readonly number: number;
  readonly date: string;
  readonly turns: readonly Turn[];
}

/** A memory file of the bench, with the line each of its turns is on. */
export interface MemoryFile {
  readonly path: string;
  readonly text: string;
  /** dia_id to 1-based line number in `text`. */
  readonly lines: ReadonlyMap<string, number>;
}

/** The sessions of a conversation, by number. */
export function sessionsOf(conversation: Conversation): Session[] {
  const sessions: Session[] = [];
  for (const [name, value] of Object.entries(conversation.conversation)) {
    const match = /^session_(\d+)$/.exec(name);
    if (match === null || !Array.isArray(value)) continue;
    const number = Number(match[1]);
    const date = conversation.conversation[`session_${number}_date_time`];
    sessions.push({
      number,
      date: typeof date === "string" ? date : "",
      turns: value as Turn[],
    });
  }
  return sessions.sort((a, b) => a.number - b.number);
}

/**
 * A turn's line: `[D1:3] Speaker: text`. A shared photo (`blip_caption`, the caption the data
 * set's authors generated for it) follows the text as `[shared a photo: caption]`, so a
 * question about the photo can find the turn, as the LoCoMo paper's own retrieval setup does
 * ("... and shared <caption>"). Line breaks inside a text become spaces: one turn, one line.
 */
export function turnLine(turn: Turn): string {
  const photo = turn.blip_caption ? ` [shared a photo: ${turn.blip_caption}]` : "";
  return `[${turn.dia_id}] ${turn.speaker}: ${turn.text}${photo}`.replace(/\s*\n\s*/g, " ");
}

/** The first line of every file of a session: its number and date. */
export function sessionLine(session: Session): string {
  return `Session ${session.number}, ${session.date}`;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The memory files of a conversation at one granularity, under `root` (no trailing slash). */
export function filesOf(
  conversation: Conversation,
  granularity: Granularity,
  root = "/memories/locomo",
): MemoryFile[] {
  const files: MemoryFile[] = [];
  for (const session of sessionsOf(conversation)) {
    const s = `session-${pad(session.number, 2)}`;
    const groups: { path: string; turns: readonly Turn[] }[] = [];
    if (granularity === "session") {
      groups.push({ path: `${root}/${s}.md`, turns: session.turns });
    } else if (granularity === "chunk") {
      for (let i = 0; i < session.turns.length; i += CHUNK_TURNS) {
        const part = pad(i / CHUNK_TURNS + 1, 2);
        groups.push({
          path: `${root}/${s}-part-${part}.md`,
          turns: session.turns.slice(i, i + CHUNK_TURNS),
        });
      }
    } else {
      session.turns.forEach((turn, i) => {
        groups.push({ path: `${root}/${s}/turn-${pad(i + 1, 3)}.md`, turns: [turn] });
      });
    }
    for (const { path, turns } of groups) {
      const lines = new Map<string, number>();
      for (const [i, turn] of turns.entries()) lines.set(turn.dia_id, i + 2);
      files.push({ path, text: [sessionLine(session), ...turns.map(turnLine)].join("\n"), lines });
    }
  }
  return files;
}

/**
 * The evidence ids of a question, cleaned: the data set has a few malformed entries (`D:11:26`
 * for `D11:26`, two ids in one string such as `D8:6; D9:17`, a lone `D`). Ids are split at
 * `;`, `,` and spaces, `D:` is read as `D`, and what is still not `D<session>:<turn>` is
 * dropped, as is an id that names no turn of the conversation (`known`), so the question is
 * scored on the evidence that exists. Order kept, duplicates dropped.
 */
export function normaliseEvidence(
  evidence: readonly string[],
  known: ReadonlySet<string>,
): string[] {
  const ids: string[] = [];
  for (const entry of evidence) {
    for (const piece of String(entry).split(/[;,\s]+/)) {
      const match = /^D:?(\d+):(\d+)$/.exec(piece.trim());
      if (match === null) continue;
      const id = `D${Number(match[1])}:${Number(match[2])}`;
      if (known.has(id) && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/** A question to ask: the text and where its evidence lies. */
export interface Question {
  readonly conversation: string;
  readonly question: string;
  readonly category: number;
  readonly evidence: readonly string[];
}

/**
 * The questions of a conversation in categories 1 to 4 (category 5's answer is not in the
 * conversation), with normalised evidence; questions left with no evidence are not asked.
 */
export function questionsOf(conversation: Conversation): {
  questions: Question[];
  withoutEvidence: number;
} {
  const known = new Set(sessionsOf(conversation).flatMap((s) => s.turns.map((t) => t.dia_id)));
  const questions: Question[] = [];
  let withoutEvidence = 0;
  for (const qa of conversation.qa) {
    if (!(qa.category >= 1 && qa.category <= 4)) continue;
    const evidence = normaliseEvidence(qa.evidence, known);
    if (evidence.length === 0) {
      withoutEvidence++;
      continue;
    }
    questions.push({
      conversation: conversation.sample_id,
      question: qa.question,
      category: qa.category,
      evidence,
    });
  }
  return { questions, withoutEvidence };
}

/** A recall hit as the tool returns it. */
export interface Hit {
  readonly path: string;
  readonly lineStart: number;
  readonly lineEnd: number;
}

/** How one question fared. */
export interface Outcome {
  /** 1-based rank of the first hit whose file holds an evidence line, or 0. */
  readonly fileRank: number;
  /** Whether that hit's line range holds an evidence line (false when no file was found). */
  readonly rangeHit: boolean;
  /** Line count of that hit's range (0 when no file was found). */
  readonly rangeLines: number;
}

/**
 * Scores the hits of one question. "Right file": a file holding an evidence line. The range
 * is judged on the best-ranked right file only (the one a reader opens first): it hits when
 * `lineStart..lineEnd` holds one of that file's evidence lines.
 */
export function score(
  hits: readonly Hit[],
  evidence: readonly string[],
  files: ReadonlyMap<string, MemoryFile>,
): Outcome {
  for (const [i, hit] of hits.entries()) {
    const file = files.get(hit.path);
    if (file === undefined) continue;
    const lines = evidence.flatMap((id) => {
      const line = file.lines.get(id);
      return line === undefined ? [] : [line];
    });
    if (lines.length === 0) continue;
    return {
      fileRank: i + 1,
      rangeHit: lines.some((line) => line >= hit.lineStart && line <= hit.lineEnd),
      rangeLines: hit.lineEnd - hit.lineStart + 1,
    };
  }
  return { fileRank: 0, rangeHit: false, rangeLines: 0 };
}

/** The figures of one granularity and mode. */
export interface Summary {
  readonly questions: number;
  /** Share of questions with a right file in the hits. */
  readonly fileRecall: number;
  /** Share of those whose best-ranked right file's range holds an evidence line. */
  readonly rangeHit: number;
  /** Mean reciprocal rank of the first right file (0 when none). */
  readonly mrr: number;
  /** Mean line count of the ranges judged (the best-ranked right file's). */
  readonly rangeLinesJudged: number;
  /** Mean line count of every hit's range. */
  readonly rangeLinesAll: number;
}

export function summarise(outcomes: readonly Outcome[], allRangeLines: readonly number[]): Summary {
  const found = outcomes.filter((o) => o.fileRank > 0);
  const mean = (values: readonly number[]) =>
    values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
  return {
    questions: outcomes.length,
    fileRecall: found.length / outcomes.length,
    rangeHit: found.filter((o) => o.rangeHit).length / found.length,
    mrr: mean(outcomes.map((o) => (o.fileRank > 0 ? 1 / o.fileRank : 0))),
    rangeLinesJudged: mean(found.map((o) => o.rangeLines)),
    rangeLinesAll: mean(allRangeLines),
  };
}

/** The q-quantile (0..1) of a list of numbers, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}
