import Table from "cli-table3";
import pc from "picocolors";

/**
 * How a command prints. With `--json` each command writes one JSON document on stdout and
 * nothing else; otherwise text for people, coloured only when stdout is a terminal and
 * NO_COLOR is unset (or FORCE_COLOR is set). Progress goes to stderr.
 */
export class Output {
  readonly colors: ReturnType<typeof pc.createColors>;

  constructor(readonly json: boolean) {
    this.colors = pc.createColors(!json && useColor());
  }

  /** Prints `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void {
    const text = this.json ? JSON.stringify(value, null, 2) : human();
    if (text !== "") process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
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
function useColor(): boolean {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR) return true;
  return process.stdout.isTTY === true;
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
