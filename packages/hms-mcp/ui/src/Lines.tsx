/**
 * A file's text with line numbers, numbered as Claude's `view` numbers them (split-lines.ts: a
 * final line end starts no empty line). A long file is rendered a chunk at a time (window.ts): only
 * the chunks in and near the visible part of the scroll area are in the page, the others are
 * blank space of their height, so a file of 30,000 lines scrolls as lightly as one of 30.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { splitLines } from "./split-lines.js";
import { CHUNK_LINES, chunkCount, chunkOf, visibleChunks } from "./window.js";

/** A line's height before one is measured, in pixels. */
const ESTIMATED_LINE = 22;
/** Pixels rendered above and below the visible part. */
const MARGIN = 1200;

export interface LinesProps {
  readonly text: string;
  /** Lines to mark, first and last (a recall hit's, or a line gone to). */
  readonly mark?: readonly [number, number] | undefined;
  /** A line to bring into view (and focus) once rendered. */
  readonly reveal?: number | undefined;
  /** The element that scrolls. */
  readonly scroller: () => HTMLElement | null;
}

export function Lines({ text, mark, reveal, scroller }: LinesProps) {
  const lines = useMemo(() => splitLines(text), [text]);
  const count = chunkCount(lines.length);
  const [heights, setHeights] = useState<number[]>(() => estimate(lines.length));
  const [range, setRange] = useState<[number, number]>(() => [0, Math.min(count - 1, 1)]);
  const box = useRef<HTMLElement>(null);

  useEffect(() => {
    setHeights(estimate(lines.length));
    setRange([0, Math.min(count - 1, 1)]);
  }, [lines, count]);

  // Which chunks are near the view, on every scroll and resize.
  useEffect(() => {
    const area = scroller();
    if (area === null || count === 1) return;
    const update = () => {
      const element = box.current;
      if (element === null) return;
      const top = area.getBoundingClientRect().top - element.getBoundingClientRect().top;
      const next = visibleChunks(heights, top, area.clientHeight, MARGIN);
      setRange((current) => (current[0] === next[0] && current[1] === next[1] ? current : next));
    };
    update();
    area.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    return () => {
      area.removeEventListener("scroll", update);
      window.removeEventListener("resize", update);
    };
  }, [scroller, heights, count]);

  // A line to reveal: render its chunk, then scroll to it.
  useEffect(() => {
    if (reveal === undefined) return;
    const chunk = chunkOf(Math.min(reveal, lines.length));
    setRange((current) =>
      chunk >= current[0] && chunk <= current[1]
        ? current
        : [Math.max(0, chunk - 1), Math.min(count - 1, chunk + 1)],
    );
  }, [reveal, lines.length, count]);

  useLayoutEffect(() => {
    // Measured heights replace estimates, so blank space matches what it stands for.
    const element = box.current;
    if (element === null) return;
    let changed = false;
    const measured = [...heights];
    for (const chunk of element.querySelectorAll<HTMLElement>("[data-chunk][data-rendered]")) {
      const index = Number(chunk.dataset.chunk);
      const height = chunk.offsetHeight;
      if (height > 0 && Math.abs((measured[index] ?? 0) - height) > 1) {
        measured[index] = height;
        changed = true;
      }
    }
    if (changed) setHeights(measured);
    if (reveal !== undefined) {
      const line = document.getElementById(`L${Math.min(reveal, lines.length)}`);
      if (line !== null) {
        line.scrollIntoView({ block: "center" });
        line.focus({ preventScroll: true });
      }
    }
  });

  const chunks = [];
  for (let index = 0; index < count; index++) {
    if (index < range[0] || index > range[1]) {
      chunks.push(
        <div
          key={index}
          data-chunk={index}
          class="chunk-space"
          style={{ height: `${heights[index] ?? 0}px` }}
        />,
      );
      continue;
    }
    const first = index * CHUNK_LINES;
    const rows = lines.slice(first, first + CHUNK_LINES).map((line, offset) => {
      const n = first + offset + 1;
      const marked = mark !== undefined && n >= mark[0] && n <= mark[1];
      return (
        <div key={n} id={`L${n}`} class={marked ? "line mark" : "line"} tabIndex={-1}>
          <span class="n" aria-hidden="true">
            {n}
          </span>
          <span class="t">{line === "" ? "\u200b" : line}</span>
        </div>
      );
    });
    chunks.push(
      <div key={index} data-chunk={index} data-rendered="">
        {rows}
      </div>,
    );
  }
  if (lines.length === 0) {
    return (
      <section class="lines empty" aria-label="Text, 0 lines" data-lines={0}>
        <p class="muted">This file is empty.</p>
      </section>
    );
  }
  return (
    <section
      class="lines"
      ref={box}
      aria-label={`Text, ${lines.length} lines`}
      data-lines={lines.length}
      style={{ "--digits": Math.max(3, String(lines.length).length) }}
    >
      {chunks}
    </section>
  );
  function estimate(n: number): number[] {
    return Array.from(
      { length: chunkCount(n) },
      (_, i) => Math.min(CHUNK_LINES, n - i * CHUNK_LINES) * ESTIMATED_LINE,
    );
  }
}

/**
 * The first line wholly in view below the file's header, when the person has scrolled past
 * the first: where they are reading. Undefined at the top, or when no lines are shown.
 */
export function readingLine(area: HTMLElement | null): number | undefined {
  if (area === null) return undefined;
  const top = (area.querySelector(".file-head")?.getBoundingClientRect().bottom ?? 0) - 1;
  for (const line of area.querySelectorAll<HTMLElement>(".lines .line")) {
    if (line.getBoundingClientRect().top >= top) {
      const n = Number(line.id.slice(1));
      return n > 1 ? n : undefined;
    }
  }
  return undefined;
}
