import Table from "cli-table3";
import pc from "picocolors";
import type { Io } from "./io.js";

/**
 * How a command prints. With `--json` each command writes one JSON document on stdout and
 * nothing else; otherwise text for people, coloured only when stdout is a terminal and
 * NO_COLOR is unset (or FORCE_COLOR is set). Progress goes to stderr.
 */
export class Output {
  readonly colors: ReturnType<typeof pc.createColors>;
  /**
   * The exit code of a command that printed its result and still failed (an import refused
   * as a whole prints what it refused, then exits 1).
   */
  exitCode = 0;

  constructor(
    readonly json: boolean,
    readonly io: Io,
  ) {
    this.colors = pc.createColors(!json && useColor(io));
  }

  /** Prints `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void {
    const text = this.json ? JSON.stringify(value, null, 2) : human();
    if (text !== "") this.print(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Writes `text` to stdout as it is. */
  print(text: string): void {
    this.io.stdout.write(text);
  }

  /** Writes one line to stderr, after `hms: `. */
  note(line: string): void {
    this.io.stderr.write(`hms: ${line}\n`);
  }

  /** A table with a header row, borderless so that it reads like `ls -l`. */
  table(head: string[], rows: (string | number)[][], align?: ("left" | "right")[]): string {
    const table = new Table({
      head: head.map((name) => this.colors.bold(name)),
      chars: {
        top: "",
        "top-mid": "",
        "top-left": "",
        "top-right": "",
        bottom: "",
        "bottom-mid": "",
        "bottom-left": "",
        "bottom-right": "",
        left: "",
        "left-mid": "",
        mid: "",
        "mid-mid": "",
        right: "",
        "right-mid": "",
        middle: "  ",
      },
      style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
      ...(align === undefined ? {} : { colAligns: align }),
    });
    table.push(...rows.map((row) => row.map(String)));
    // cli-table3 pads the last column too; trailing spaces only get in the way of scripts.
    return table
      .toString()
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n");
  }
}

// Not picocolors' own check, which also colours output piped in CI (when CI is set).
function useColor(io: Io): boolean {
  if (io.env.NO_COLOR) return false;
  if (io.env.FORCE_COLOR) return true;
  return io.stdout.isTTY === true;
}

/** `1536` as `1.5 KiB`: sizes people read at a glance. */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
