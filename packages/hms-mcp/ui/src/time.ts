/**
 * Times as a person reads them: "3 min ago" in the page, the exact local time on hover. The
 * server sends ISO 8601 UTC times.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `iso` relative to `now`: "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", a date. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const ago = now - then;
  // A clock a little ahead of this browser's still reads as now.
  if (ago < 45_000) return "just now";
  if (ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))} min ago`;
  if (ago < DAY) return `${Math.round(ago / HOUR)} h ago`;
  const days = Math.floor(ago / DAY);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  const date = new Date(then);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    ...(sameYear ? {} : { year: "numeric" }),
  });
}

/** `iso` in full, in the browser's time zone: for the tooltip and for screen readers. */
export function exactTime(iso: string): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  return new Date(then).toLocaleString(undefined, {
    dateStyle: "medium",
    timeStyle: "long",
  });
}

/** A size in bytes as people read it: "840 B", "12.5 KiB", "1.2 MiB". */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
