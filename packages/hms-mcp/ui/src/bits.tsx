/** Small pieces every view uses: a time, a message beside what it concerns, a key. */
import type { ComponentChildren } from "preact";
import type { Notice } from "./state.js";
import { exactTime, relativeTime } from "./time.js";

/** A time as "5 min ago", the exact time on hover and for screen readers. */
export function Time({ iso }: { iso: string }) {
  const exact = exactTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      {relativeTime(iso)}
    </time>
  );
}

/** A message in place; errors are announced at once, the rest politely. */
export function NoticeLine({ notice, id }: { notice: Notice | undefined; id?: string }) {
  return (
    <p
      id={id}
      class={notice ? `notice ${notice.kind}` : "notice empty"}
      role={notice?.kind === "error" ? "alert" : "status"}
    >
      {notice?.text ?? ""}
    </p>
  );
}

/** A keyboard key, as shown beside the action it starts. */
export function Kbd({ children }: { children: ComponentChildren }) {
  return (
    <span aria-hidden="true" class="key">
      {children}
    </span>
  );
}
